// Response bodies of data point reads, written as JSON text directly: a 100 000-point answer
// is one string concatenation instead of 100 000 objects through JSON.stringify. Only
// numbers the engine formatted and JSON.stringify'd strings go in, so the text stays valid.
import { formatDatapointValue, formatFloat } from './datapoint-format.ts';
import type { AggregateBucket, AggregateName, SeriesPoints, ValueType } from '../types.ts';
import type { SeriesTarget } from '../../meta/series-targets.ts';

function header(target: SeriesTarget): string {
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

/** Points per string chunk: long enough to amortise the Buffer conversion, short enough to stay a flat string. */
const POINTS_PER_CHUNK = 1024;

/**
 * One item of a raw answer. The points are concatenated into strings of POINTS_PER_CHUNK
 * and converted to bytes per chunk: about twice as fast for 100 000 points as one string
 * per point joined at the end (bench Q3).
 */
export function rawItemJson(target: SeriesTarget, points: SeriesPoints, nextCursor?: string): Buffer {
  // Numbers and the fixed text are ASCII; only TEXT and MIXED values may need UTF-8.
  const encoding = points.valueType === 'TEXT' || points.valueType === 'MIXED' ? 'utf8' : 'latin1';
  const ts = points.timestampMs;
  const chunks: Buffer[] = [Buffer.from(header(target))];
  let text = '';
  for (let i = 0; i < ts.length; i++) {
    text += `${i > 0 ? ',' : ''}{"timestamp":${ts[i] as number},"value":${valueAt(points, i)}}`;
    if (i % POINTS_PER_CHUNK === POINTS_PER_CHUNK - 1) {
      chunks.push(Buffer.from(text, encoding));
      text = '';
    }
  }
  chunks.push(Buffer.from(text + footer(nextCursor), encoding));
  return Buffer.concat(chunks);
}

/** One item of a raw answer around point JSON the engine wrote (`{..},{..}`, see readRawJson), as parts for itemsJson (one copy in all). */
export function rawItemFromJson(target: SeriesTarget, datapoints: Uint8Array, nextCursor?: string): Uint8Array[] {
  return [Buffer.from(header(target)), datapoints, Buffer.from(footer(nextCursor))];
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
