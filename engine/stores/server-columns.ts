// JS columns sent to a ClickHouse server (the @clickhouse/client side of columnar.ts): an
// insert's columns as an Arrow IPC stream body, and a statement's ColumnSource columns inlined
// into its text. A server cannot read this process's memory, where chdb reads both in place
// through arrowstream('<name>'). A ColumnSource becomes
// format(ArrowStream, '<structure>', base64Decode('<stream>')): the same Arrow encoding as an
// insert's, exact for every double (a decimal text of a Float64 would depend on the server's
// float parsing, precise_float_parsing = 0 by default), and in the statement's text, not a
// bound value: bound values travel in the URL, which a server caps at http_max_uri_size (1 MiB
// by default), while an aggregate input may carry FUNCTION_CALL_POINTS_MAX (100,000) buckets,
// 2.1 MB of base64 (server-statement.ts raises the statement's max_query_size to fit).
import { Table, Utf8, makeVector, tableToIPC, vectorFromArray, type Vector } from 'apache-arrow';
import { stringLiteral } from './columnar-literal.ts';
import { ColumnSource, type InsertColumn, type InsertColumnType, type QueryParams } from './columnar-params.ts';

const INPUT_TYPE: Record<InsertColumnType, string> = { Float64: 'Float64', Int64: 'Int64', Int32: 'Int32', UInt8: 'UInt8', String: 'String' };

function arrowVector(column: InsertColumn): Vector {
  // makeVector keeps the typed array's own type: Float64Array -> Float64, BigInt64Array ->
  // Int64, Int32Array -> Int32, Uint8Array -> Uint8.
  return column.type === 'String' ? vectorFromArray(column.data as string[], new Utf8()) : makeVector(column.data);
}

/** The columns as one Arrow IPC stream. */
export function arrowStreamOf(columns: readonly InsertColumn[]): Uint8Array {
  const vectors: Record<string, Vector> = {};
  for (const column of columns) vectors[column.name] = arrowVector(column);
  return tableToIPC(new Table(vectors), 'stream');
}

/** `name Type, ...` of the columns, for input('<structure>') and format(..., '<structure>', ...). */
export function columnsStructure(columns: readonly InsertColumn[]): string {
  return columns.map((column) => `${column.name} ${INPUT_TYPE[column.type]}`).join(', ');
}

export interface InlinedStatement {
  sql: string;
  /** The bound values left once the ColumnSources are in the text. */
  values: QueryParams | undefined;
}

/** The statement with each arrowstream({name:ColumnSource}) replaced by its columns inline. */
export function inlineColumnSources(sql: string, values: QueryParams | undefined): InlinedStatement {
  const sources = values ? Object.entries(values).filter((entry): entry is [string, ColumnSource] => entry[1] instanceof ColumnSource) : [];
  if (sources.length === 0) return { sql, values };
  const rest: Record<string, QueryParams[string]> = { ...values };
  let text = sql;
  for (const [param, source] of sources) {
    const placeholder = `arrowstream({${param}:ColumnSource})`;
    if (!text.includes(placeholder)) throw new Error(`column source ${param} is bound but not read as ${placeholder}`);
    const stream = Buffer.from(arrowStreamOf(source.columns)).toString('base64');
    const inline = `format(ArrowStream, ${stringLiteral(columnsStructure(source.columns))}, base64Decode(${stringLiteral(stream)}))`;
    text = text.replaceAll(placeholder, () => inline);
    delete rest[param];
  }
  return { sql: text, values: rest };
}
