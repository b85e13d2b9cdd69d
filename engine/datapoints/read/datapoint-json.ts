// Response bodies of data point reads, written as JSON text directly: a 100 000-point answer
// is one string concatenation instead of 100 000 objects through JSON.stringify. Only
// numbers the engine formatted and JSON.stringify'd strings go in, so the text stays valid.
// Raw items come in two forms (DatapointForm): SPEC's, values as exact decimal strings under
// `valueType`, and CDF's, numeric values as JSON numbers under `isString` and `isStep`.
import { formatDatapointValue, formatFloat } from './datapoint-format.ts';
import type { AggregateBucket, AggregateName, DatapointForm, SeriesPoints, ValueType } from '../types.ts';
import type { SeriesTarget } from '../../meta/series-targets.ts';

/**
 * CDF's `isStep` of a series: the one place that decides it. The series directory does not
 * carry the flag yet, so every series answers false. TODO: read it from the series target
 * once the directory's entries carry isStep.
 */
export function cdfIsStep(_target: SeriesTarget): boolean {
  return false;
}

function header(target: SeriesTarget, form: DatapointForm = 'spec'): string {
  if (form === 'cdf') {
    return `{"id":${target.seriesId},"externalId":${JSON.stringify(target.externalId)},"isString":${target.valueType === 'TEXT'},"isStep":${cdfIsStep(target)},"datapoints":[`;
  }
  return `{"id":${target.seriesId},"externalId":${JSON.stringify(target.externalId)},"valueType":"${target.valueType}","datapoints":[`;
}

function footer(nextCursor: string | undefined): string {
  return nextCursor === undefined ? ']}' : `],"nextCursor":${JSON.stringify(nextCursor)}}`;
}

/** The value of point i as a JSON string literal. */
function valueAt(points: SeriesPoints, i: number): string {
  const vt = points.valueType;
  if (vt === 'FLOAT' || vt === 'FLOAT32') return `"${formatFloat(points.float?.[i] as number)}"`;
  if (vt === 'BIGINT') return `"${points.bigint?.[i] as bigint}"`;
  if (vt === 'NUMERIC' || vt === 'DECIMAL32') return `"${formatDatapointValue(vt, points.scaled?.[i] as bigint)}"`;
  if (vt === 'TEXT') return JSON.stringify(points.text?.[i] ?? '');
  return points.isText?.[i] ? JSON.stringify(points.text?.[i] ?? '') : `"${formatFloat(points.float?.[i] as number)}"`;
}

/** The value of point i as a JSON number (text as a JSON string): CDF's form, the same digits as valueAt's. */
function cdfValueAt(points: SeriesPoints, i: number): string {
  const vt = points.valueType;
  if (vt === 'FLOAT' || vt === 'FLOAT32') return formatFloat(points.float?.[i] as number);
  if (vt === 'BIGINT') return `${points.bigint?.[i] as bigint}`;
  if (vt === 'NUMERIC' || vt === 'DECIMAL32') return formatDatapointValue(vt, points.scaled?.[i] as bigint);
  if (vt === 'TEXT') return JSON.stringify(points.text?.[i] ?? '');
  return points.isText?.[i] ? JSON.stringify(points.text?.[i] ?? '') : formatFloat(points.float?.[i] as number);
}

/** Points per string chunk: long enough to amortise the Buffer conversion, short enough to stay a flat string. */
const POINTS_PER_CHUNK = 1024;

/**
 * One item of a raw answer. The points are concatenated into strings of POINTS_PER_CHUNK
 * and converted to bytes per chunk: about twice as fast for 100 000 points as one string
 * per point joined at the end (bench Q3).
 */
export function rawItemJson(target: SeriesTarget, points: SeriesPoints, nextCursor?: string, form: DatapointForm = 'spec'): Buffer {
  // Numbers and the fixed text are ASCII; only TEXT and MIXED values may need UTF-8.
  const encoding = points.valueType === 'TEXT' || points.valueType === 'MIXED' ? 'utf8' : 'latin1';
  const ts = points.timestampMs;
  const value = form === 'cdf' ? cdfValueAt : valueAt;
  const chunks: Buffer[] = [Buffer.from(header(target, form))];
  let text = '';
  for (let i = 0; i < ts.length; i++) {
    text += `${i > 0 ? ',' : ''}{"timestamp":${ts[i] as number},"value":${value(points, i)}}`;
    if (i % POINTS_PER_CHUNK === POINTS_PER_CHUNK - 1) {
      chunks.push(Buffer.from(text, encoding));
      text = '';
    }
  }
  chunks.push(Buffer.from(text + footer(nextCursor), encoding));
  return Buffer.concat(chunks);
}

const COMMA = Buffer.from(',');

/**
 * One item of a raw answer around point JSON the engine wrote (`{..},{..}`, see readRawJson),
 * as parts for itemsJson (one copy in all). Several runs of points (CDF's outside points around
 * a page) are joined with commas, empty ones left out.
 */
export function rawItemFromJson(target: SeriesTarget, datapoints: Uint8Array | readonly Uint8Array[], nextCursor?: string, form: DatapointForm = 'spec'): Uint8Array[] {
  const parts: Uint8Array[] = [Buffer.from(header(target, form))];
  if (datapoints instanceof Uint8Array) parts.push(datapoints);
  else {
    for (const run of datapoints) {
      if (run.byteLength === 0) continue;
      if (parts.length > 1) parts.push(COMMA);
      parts.push(run);
    }
  }
  parts.push(Buffer.from(footer(nextCursor)));
  return parts;
}

const FIELD_OF: Record<AggregateName, keyof AggregateBucket> = { AVG: 'average', MIN: 'min', MAX: 'max', COUNT: 'count', SUM: 'sum' };

export function aggregateItemJson(target: SeriesTarget, buckets: AggregateBucket[], aggregates: readonly AggregateName[], nextCursor?: string): string {
  // The fields and their key text once per item, not per bucket (a 6 h 1m answer has 360).
  const fields = aggregates.map((name) => FIELD_OF[name]);
  const keys = fields.map((field) => `,"${field}":`);
  const counts = aggregates.map((name) => name === 'COUNT');
  const valueType = target.valueType === 'MIXED' || target.valueType === 'TEXT' ? 'FLOAT' : target.valueType;
  let out = header(target);
  for (let i = 0; i < buckets.length; i++) {
    const bucket = buckets[i] as AggregateBucket;
    out += `${i > 0 ? ',' : ''}{"timestamp":${bucket.timestampMs}`;
    for (let k = 0; k < fields.length; k++) {
      const value = bucket[fields[k] as keyof AggregateBucket];
      if (value === undefined) continue;
      out += counts[k] ? `${keys[k]}${value}` : `${keys[k]}"${typeof value === 'number' ? formatFloat(value) : formatDatapointValue(valueType, value)}"`;
    }
    out += '}';
  }
  return out + footer(nextCursor);
}

/** `{"items":[...]}` around items already serialised (a string, bytes, or bytes in parts). */
/**
 * `{"items":[...]}` as the chunks of one answer, in order: a 100 000-point page (4.5 MB) is
 * sent as it came from the engine, not copied into one more buffer (http-server.ts send).
 */
export function itemsJson(items: (string | Uint8Array | Uint8Array[])[]): Uint8Array[] {
  const parts: Uint8Array[] = [Buffer.from('{"items":[')];
  items.forEach((item, i) => {
    if (i > 0) parts.push(Buffer.from(','));
    if (Array.isArray(item)) parts.push(...item);
    else parts.push(typeof item === 'string' ? Buffer.from(item) : item);
  });
  parts.push(Buffer.from(']}'));
  return parts;
}
