// Dirty ranges as the rollup reads use them: widened to whole minute or hour buckets
// and clipped to a read's window, and the bound SQL conditions over a rollup table's bucket
// column that leave them out or take them in. Which ranges are dirty is the read context's
// business (datapoint-read-context.ts); what the reads do with them, the readers'.
import type { ColumnarParams } from '../../stores/columnar-params.ts';
import { ceilTo, floorTo } from '../tables/families.ts';
import type { Range } from './series-context.ts';

/** Ranges widened to whole buckets of bucketMs, clipped to [start, end), sorted and merged. */
export function widenRanges(ranges: readonly Range[], bucketMs: number, start: number, end: number): Range[] {
  const out: Range[] = [];
  const widened = ranges.map(([b, e]): Range => [Math.max(floorTo(b, bucketMs), start), Math.min(ceilTo(e, bucketMs), end)]);
  for (const [b, e] of widened.sort((x, y) => x[0] - y[0])) {
    if (b >= e) continue;
    const last = out[out.length - 1];
    if (last && b <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([b, e]);
  }
  return out;
}

/** Per series, its ranges widened to bucketMs (series without any left out). */
export function widenSeriesRanges(ranges: ReadonlyMap<number, readonly Range[]>, bucketMs: number, start: number, end: number): Map<number, Range[]> {
  const out = new Map<number, Range[]>();
  for (const [id, list] of ranges) {
    const widened = widenRanges(list, bucketMs, start, end);
    if (widened.length > 0) out.set(id, widened);
  }
  return out;
}

/**
 * `(series_id = .. AND bucket in range) OR ..` over rows `bucketMs` wide that overlap the
 * ranges; 'false' when there are none. The caller's statement names the tenant.
 */
export function bucketRangeList(params: ColumnarParams, ranges: ReadonlyMap<number, readonly Range[]>, bucketMs: number): string {
  const parts: string[] = [];
  for (const [seriesId, list] of ranges) {
    for (const [b, e] of list) {
      parts.push(`(series_id = ${params.bind(seriesId, 'UInt64')} AND bucket < ${params.bind(e, 'Int64')} AND bucket > ${params.bind(b - bucketMs, 'Int64')})`);
    }
  }
  return parts.length > 0 ? parts.join(' OR ') : 'false';
}
