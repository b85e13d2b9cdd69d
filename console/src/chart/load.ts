// Reads a visible range of several series at the granularity the range calls for: raw when it
// holds few points, else min/average/max buckets. A full raw page falls back to 1m buckets.
import { apiPost } from '../api.ts';
import { aggregateColumns, rawColumns, type AggregatePoint, type RawPoint, type SeriesColumns } from './columns.ts';
import { AGGREGATE_BUCKETS_MAX, RAW_POINTS_MAX, coarserGranularity, granularityForRange, type Granularity } from './granularity.ts';
import type { TimeRange } from './range.ts';

interface ListAnswer { items: { id: number; datapoints: (RawPoint | AggregatePoint)[]; nextCursor?: string }[] }

export interface LoadedRange { granularity: Granularity; columns: SeriesColumns[] }

/** Columns in the order of ids. */
export async function loadRange(ids: number[], range: TimeRange, signal: AbortSignal): Promise<LoadedRange> {
  let granularity = granularityForRange(range.endMs - range.startMs);
  if (granularity === 'raw') {
    const items = ids.map((id) => ({ id, start: range.startMs, end: range.endMs, limit: RAW_POINTS_MAX }));
    const answer = await apiPost<ListAnswer>('/timeseries/data/list', { items }, signal);
    if (!answer.items.some((item) => item.nextCursor)) {
      return { granularity, columns: inRequestOrder(ids, answer, (points) => rawColumns(points as RawPoint[])) };
    }
    granularity = coarserGranularity(granularity);
  }
  const items = ids.map((id) => ({
    id, start: range.startMs, end: range.endMs, limit: AGGREGATE_BUCKETS_MAX,
    aggregates: ['AVG', 'MIN', 'MAX', 'COUNT'], granularity,
  }));
  const answer = await apiPost<ListAnswer>('/timeseries/data/list', { items }, signal);
  return { granularity, columns: inRequestOrder(ids, answer, (points) => aggregateColumns(points as AggregatePoint[])) };
}

function inRequestOrder(ids: number[], answer: ListAnswer, toColumns: (points: (RawPoint | AggregatePoint)[]) => SeriesColumns): SeriesColumns[] {
  const byId = new Map(answer.items.map((item) => [item.id, item]));
  return ids.map((id) => toColumns(byId.get(id)?.datapoints ?? []));
}
