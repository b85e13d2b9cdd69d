// Taking a FLOAT series into memory (live-points.ts) and covering a read's dirty ranges with
// what it holds: its live points from a floor on are read once from the store, while the
// writes ending meanwhile are kept beside them.
import type { ColumnarStore } from '../../stores/columnar.ts';
import { FAMILY_SHAPES, familyOf } from '../tables/families.ts';
import { contextsOf } from './datapoint-read-context.ts';
import { LIVE_SERIES_POINTS_MAX, TOO_LARGE_BACKOFF_MS, type LiveCover } from './live-points.ts';
import { livePointsSql } from './live-points-take.sql.ts';
import type { ReadContextCache } from './read-context-cache.ts';
import type { Range, SeriesContext } from './series-context.ts';
import type { SeriesRef } from '../types.ts';

/** How far before a read's first dirty minute a take reaches (a 6 h chart's width). */
const LIVE_REACH_MS = 6 * 3_600_000;

/**
 * Takes the series in at `floor` (minute-aligned) unless it has tombstones, a delete is
 * running, or it holds more than LIVE_SERIES_POINTS_MAX points from there on. Never throws:
 * a failed take leaves the series read from the store, as before.
 */
export async function takeLiveSeries(store: ColumnarStore, cache: ReadContextCache, tenant: string, seriesId: number, floor: number): Promise<void> {
  const live = cache.live;
  // From here every write that ends is kept for the series: the statement below sees the rest.
  if (!live.beginTake(tenant, seriesId, floor)) return;
  try {
    // After beginTake: a delete finished before it has its tombstones in the context, a later one drops the take.
    const context = (await contextsOf(store, tenant, [seriesId], cache)).get(seriesId);
    if ((context?.tombstones.length ?? 0) > 0) {
      live.abandon(tenant, seriesId);
      return;
    }
    const table = await store.queryArrow(livePointsSql(FAMILY_SHAPES.float), { tenant, series_id: seriesId, floor, limit: LIVE_SERIES_POINTS_MAX + 1 });
    if (table.numRows > LIVE_SERIES_POINTS_MAX) {
      live.abandon(tenant, seriesId, TOO_LARGE_BACKOFF_MS);
      return;
    }
    const column = (name: string) => table.getChild(name)?.toArray() ?? [];
    live.taken(tenant, seriesId, floor, { ts: column('ts') as Float64Array, values: column('value') as Float64Array, versions: column('version') as BigUint64Array });
  } catch {
    live.abandon(tenant, seriesId);
  }
}

/**
 * What memory answers of one series' raw ranges (ascending, disjoint, inside the read's window)
 * and what the store still must, or undefined where memory cannot hold the series (not FLOAT,
 * tombstones). `dirty`: the series' dirty ranges and queued spans, unclipped. With `mayTake`, a
 * series not held, or held above the ranges, is taken in first (one statement, the cost the raw
 * read would have had), from where its dirty ranges begin: the chart's next windows may start
 * earlier; LIVE_REACH_MS at most before the ranges.
 */
export async function liveCover(
  store: ColumnarStore, cache: ReadContextCache, tenant: string, series: SeriesRef, context: SeriesContext | undefined,
  dirty: readonly Range[], ranges: readonly Range[], mayTake: boolean,
): Promise<LiveCover | undefined> {
  const first = ranges[0];
  if (familyOf(series.valueType) !== 'float' || !first || (context?.tombstones.length ?? 0) > 0) return undefined;
  const live = cache.live;
  // A loop, not Math.min(...): a series may have thousands of ranges.
  let firstDirty = Infinity;
  for (const [b] of dirty) if (b < firstDirty) firstDirty = b;
  // Points below it are in rows: memory need not hold them.
  if (Number.isFinite(firstDirty)) live.settle(tenant, series.seriesId, firstDirty);
  if (mayTake) {
    const take = live.cover(tenant, series.seriesId, ranges, Math.max(firstDirty, first[0] - LIVE_REACH_MS)).take;
    if (take !== undefined) await takeLiveSeries(store, cache, tenant, series.seriesId, take);
  }
  return live.cover(tenant, series.seriesId, ranges);
}
