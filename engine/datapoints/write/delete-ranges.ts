// The ranges of one data point delete request, coalesced per series before they become
// tombstones. One request's tombstones share one write version, so overlapping or touching
// ranges of a series merge without changing what is deleted; a request deleting 10 000
// consecutive windows then stores (and every later read binds) one tombstone, not 10 000.
import { TIMESTAMP_MS_MAX, TIMESTAMP_MS_MIN } from '../../limits.ts';
import type { DeleteRange } from '../datapoint-store.ts';

/** Per series, sorted by begin, overlapping or touching ranges merged; empty ranges dropped. */
export function coalesceDeleteRanges(ranges: readonly DeleteRange[]): DeleteRange[] {
  const spans = ranges
    .map((r) => ({ seriesId: r.seriesId, begin: r.inclusiveBeginMs ?? TIMESTAMP_MS_MIN, end: r.exclusiveEndMs ?? TIMESTAMP_MS_MAX + 1 }))
    .filter((r) => r.begin < r.end)
    .sort((a, b) => a.seriesId - b.seriesId || a.begin - b.begin);
  const out: { seriesId: number; begin: number; end: number }[] = [];
  for (const span of spans) {
    const last = out[out.length - 1];
    if (last && last.seriesId === span.seriesId && span.begin <= last.end) last.end = Math.max(last.end, span.end);
    else out.push({ ...span });
  }
  return out.map((r) => ({ seriesId: r.seriesId, inclusiveBeginMs: r.begin, exclusiveEndMs: r.end }));
}
