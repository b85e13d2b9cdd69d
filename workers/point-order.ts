// Ordering of one item's points for SeriesPoints (engine/datapoints/types.ts): ascending by
// timestamp, one point per timestamp, the later point of the request winning (SPEC "Data
// point": inserting at an existing timestamp replaces the old value). Pure kernels over
// typed arrays, and their use on a series' columns (orderSeriesPoints).

import type { SeriesPoints } from '../engine/datapoints/types.ts';

/**
 * The source indices to keep, in output order, or null when the timestamps are already
 * strictly ascending (the common case: no copy, no sort).
 */
export function sortedPointOrder(timestampMs: Float64Array): Uint32Array | null {
  const n = timestampMs.length;
  let ascending = true;
  for (let i = 1; i < n; i++) {
    if (!(timestampMs[i]! > timestampMs[i - 1]!)) {
      ascending = false;
      break;
    }
  }
  if (ascending) return null;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  // Ties keep request order, so the last of a run of equal timestamps is the latest point.
  order.sort((a, b) => timestampMs[a]! - timestampMs[b]! || a - b);
  let kept = 0;
  for (let i = 0; i < n; i++) {
    const index = order[i]!;
    if (i + 1 < n && timestampMs[order[i + 1]!] === timestampMs[index]) continue;
    order[kept++] = index;
  }
  return order.subarray(0, kept);
}

export function gatherFloat64(source: Float64Array, order: Uint32Array): Float64Array {
  const out = new Float64Array(order.length);
  for (let i = 0; i < order.length; i++) out[i] = source[order[i]!]!;
  return out;
}

export function gatherBigInt64(source: BigInt64Array, order: Uint32Array): BigInt64Array {
  const out = new BigInt64Array(order.length);
  for (let i = 0; i < order.length; i++) out[i] = source[order[i]!]!;
  return out;
}

export function gatherUint8(source: Uint8Array, order: Uint32Array): Uint8Array {
  const out = new Uint8Array(order.length);
  for (let i = 0; i < order.length; i++) out[i] = source[order[i]!]!;
  return out;
}

export function gatherStrings(source: string[], order: Uint32Array): string[] {
  const out = new Array<string>(order.length);
  for (let i = 0; i < order.length; i++) out[i] = source[order[i]!]!;
  return out;
}

/** Sorts by timestamp and drops replaced points (last wins), keeping the columns aligned. */
export function orderSeriesPoints(series: SeriesPoints): SeriesPoints {
  const order = sortedPointOrder(series.timestampMs);
  if (order === null) return series;
  series.timestampMs = gatherFloat64(series.timestampMs, order);
  if (series.float) series.float = gatherFloat64(series.float, order);
  if (series.bigint) series.bigint = gatherBigInt64(series.bigint, order);
  if (series.scaled) series.scaled = gatherBigInt64(series.scaled, order);
  if (series.text) series.text = gatherStrings(series.text, order);
  if (series.isText) series.isText = gatherUint8(series.isText, order);
  return series;
}
