// Taking a FLOAT series into memory (live-points.ts): its live points from a floor on read
// once from the store, while the writes ending meanwhile are kept beside them.
import type { ColumnarStore } from '../../stores/columnar.ts';
import { FAMILY_SHAPES } from '../tables/families.ts';
import { contextsOf } from './datapoint-read-context.ts';
import { LIVE_SERIES_POINTS_MAX, TOO_LARGE_BACKOFF_MS } from './live-points.ts';
import { livePointsSql } from './live-points-take.sql.ts';
import type { ReadContextCache } from './read-context-cache.ts';

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
