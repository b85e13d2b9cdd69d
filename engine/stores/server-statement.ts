// A statement as the @clickhouse/client side of columnar.ts sends it: what a server cannot take
// as bound values goes into the text, and the text's size into max_query_size. A server gets
// bound values as URL parameters and caps a URL at http_max_uri_size (1 MiB by default): a read
// of a series with 20,000 pending tombstones binds four arrays of 20,000 numbers (~1.2 MB
// encoded) and was refused ("URI is too long"). Values past URL_PARAMS_BYTES_MAX are rendered
// into the text as typed literals instead, by the one escaping function (columnar-literal.ts,
// what chdb's path runs): the same CAST(<literal> AS Type) a server substitutes for a parameter.
import { renderParams } from './columnar-literal.ts';
import type { ParamValue, QueryParams } from './columnar-params.ts';
import { inlineColumnSources } from './server-columns.ts';

/** Bound values a statement sends in the URL at most (worst case encoded), well under 1 MiB. */
export const URL_PARAMS_BYTES_MAX = 256 * 1024;
/** A server's default max_query_size (256 KiB); a statement under it sends no setting. */
const SERVER_QUERY_BYTES_DEFAULT = 262_144;
/** Past the text, for what the driver adds (`\nFORMAT JSONEachRow`, ...). */
const QUERY_BYTES_HEADROOM = 4096;

export interface ServerStatement {
  query: string;
  query_params: Record<string, unknown> | undefined;
  /** Settings the statement needs (max_query_size as text: the client types UInt64 settings as strings). */
  settings: { max_query_size?: string };
}

/**
 * An upper bound of a value's bytes in the URL: the client writes arrays as `[a,b]` with
 * strings quoted and escaped, then percent-encodes (a quote becomes `\'`, six bytes encoded).
 */
function encodedBytesMax(value: ParamValue | string | number | bigint): number {
  if (typeof value === 'string') return 6 * Buffer.byteLength(value, 'utf8') + 6;
  if (Array.isArray(value)) return (value as readonly (string | number | bigint)[]).reduce((bytes: number, item) => bytes + encodedBytesMax(item) + 3, 6);
  return 3 * String(value).length;
}

export function serverStatement(sql: string, values: QueryParams | undefined): ServerStatement {
  const inlined = inlineColumnSources(sql, values);
  let text = inlined.sql;
  let params = inlined.values;
  const urlBytes = Object.values(params ?? {}).reduce((bytes: number, value) => bytes + encodedBytesMax(value) + 16, 0);
  if (urlBytes > URL_PARAMS_BYTES_MAX) {
    text = renderParams(text, params);
    params = undefined;
  }
  const queryBytes = Buffer.byteLength(text, 'utf8') + QUERY_BYTES_HEADROOM;
  return {
    query: text,
    query_params: params as Record<string, unknown> | undefined,
    settings: queryBytes > SERVER_QUERY_BYTES_DEFAULT ? { max_query_size: String(queryBytes) } : {},
  };
}
