// Response bodies of data point reads, written as JSON text directly: a 100 000-point answer
// is one string concatenation instead of 100 000 objects through JSON.stringify. Only
// numbers the engine formatted and JSON.stringify'd strings go in, so the text stays valid.
import { formatDatapointValue } from '../engine/datapoints/datapoint-format.ts';
import type { AggregateBucket, AggregateName, SeriesPoints, ValueType } from '../engine/datapoints/types.ts';
import type { SeriesTarget } from '../engine/meta/series-targets.ts';

function header(target: SeriesTarget): string {
  return `{"id":${target.seriesId},"externalId":${JSON.stringify(target.externalId)},"valueType":"${target.valueType}","datapoints":[`;
}

function footer(nextCursor: string | undefined): string {
  return nextCursor === undefined ? ']}' : `],"nextCursor":${JSON.stringify(nextCursor)}}`;
}

/** The value of point i as a JSON string literal. */
function valueAt(points: SeriesPoints, i: number): string {
  const vt = points.valueType;
  if (vt === 'FLOAT' || vt === 'FLOAT32') return `"${points.float?.[i] as number}"`;
  if (vt === 'BIGINT') return `"${points.bigint?.[i] as bigint}"`;
  if (vt === 'NUMERIC' || vt === 'DECIMAL32') return `"${formatDatapointValue(vt, points.scaled?.[i] as bigint)}"`;
  if (vt === 'TEXT') return JSON.stringify(points.text?.[i] ?? '');
  return points.isText?.[i] ? JSON.stringify(points.text?.[i] ?? '') : `"${points.float?.[i] as number}"`;
}

export function rawItemJson(target: SeriesTarget, points: SeriesPoints, nextCursor?: string): string {
  const parts: string[] = new Array(points.timestampMs.length);
  const ts = points.timestampMs;
  for (let i = 0; i < ts.length; i++) parts[i] = `{"timestamp":${ts[i] as number},"value":${valueAt(points, i)}}`;
  return header(target) + parts.join(',') + footer(nextCursor);
}

const FIELD_OF: Record<AggregateName, keyof AggregateBucket> = { AVG: 'average', MIN: 'min', MAX: 'max', COUNT: 'count', SUM: 'sum' };

function aggregateValue(valueType: ValueType, name: AggregateName, value: number | bigint): string {
  if (name === 'COUNT') return String(value);
  return `"${formatDatapointValue(valueType === 'MIXED' || valueType === 'TEXT' ? 'FLOAT' : valueType, value)}"`;
}

export function aggregateItemJson(target: SeriesTarget, buckets: AggregateBucket[], aggregates: readonly AggregateName[], nextCursor?: string): string {
  const parts = buckets.map((bucket) => {
    let out = `{"timestamp":${bucket.timestampMs}`;
    for (const name of aggregates) {
      const value = bucket[FIELD_OF[name]];
      if (value !== undefined) out += `,"${FIELD_OF[name]}":${aggregateValue(target.valueType, name, value)}`;
    }
    return `${out}}`;
  });
  return header(target) + parts.join(',') + footer(nextCursor);
}

export function itemsJson(items: string[]): string {
  return `{"items":[${items.join(',')}]}`;
}
