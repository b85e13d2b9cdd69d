// Latest data points: the latest-table row of each series as of the last fold,
// checked against raw points where the series' context (datapoint-read-context.ts) has dirty
// minutes, and the newest clean rollup row (hours, and minutes of dirty hours) when the row's own minute is dirty.
import { ColumnarParams } from '../../stores/columnar-params.ts';
import type { ColumnarStore } from '../../stores/columnar.ts';
import { bindTombstones, contextsOf, overlaps, rangeList } from './datapoint-read-context.ts';
import { latestRowsSql, rawLatestSql, rollupLatestSql } from './datapoint-read.sql.ts';
import { FAMILY_SHAPES, MINUTE_BUCKET_MS, ROLLUP_BUCKET_MS, familyOf, type Family } from '../tables/families.ts';
import { bucketRangeList, widenSeriesRanges } from './rollup-ranges.ts';
import { latestKey, type ReadContextCache } from './read-context-cache.ts';
import type { Range } from './series-context.ts';
import type { DatapointValue, LatestPoint, SeriesRef } from '../types.ts';

interface LastRow { series: string; a: string; v: string; vt: string; vx: string }

function latestPoint(family: Family, row: LastRow): LatestPoint {
  let value: DatapointValue;
  if (family === 'mixed') value = row.vx === '1' ? row.vt : Number(row.v);
  else if (family === 'text') value = row.v;
  else value = FAMILY_SHAPES[family].exactAggregates ? BigInt(row.v) : Number(row.v);
  return { seriesId: Number(row.series), timestampMs: Number(row.a), value };
}

function newer(a: LatestPoint | undefined, b: LatestPoint | undefined): LatestPoint | undefined {
  if (!a) return b;
  if (!b) return a;
  return b.timestampMs > a.timestampMs ? b : a;
}

/**
 * Latest points of one family's series. The latest row is the newest point of the rollups as
 * of the last fold; a series with dirty hours also looks at raw points there. When the row's
 * own hour is dirty and no raw point there is as new, the newest clean rollup hour is asked.
 */
async function latestOfFamily(store: ColumnarStore, tenant: string, family: Family, ids: number[], cache?: ReadContextCache): Promise<Map<number, LatestPoint>> {
  const shape = FAMILY_SHAPES[family];
  // The latest-table rows of these series are kept until the next write, like rollup rows
  // (bench Q4 asks for the same 100 series again and again).
  const mark = cache?.begin();
  const key = latestKey(tenant, family, ids);
  const readLatestRows = async (): Promise<readonly LastRow[]> => {
    const cached = cache?.getRollup<LastRow>(key);
    if (cached) return cached;
    const rows = await store.query<LastRow>(latestRowsSql(shape), { tenant, series: ids.map(BigInt) });
    cache?.setRollup(mark, key, rows);
    return rows;
  };
  const [contexts, latestRows] = await Promise.all([contextsOf(store, tenant, ids, cache), readLatestRows()]);
  // Whole minutes: raw points answer exactly the minutes whose rollup rows are left out below.
  const dirty = widenSeriesRanges(new Map([...contexts].map(([id, c]) => [id, c.dirty])), MINUTE_BUCKET_MS, -Infinity, Infinity);
  const rows = new Map(latestRows.map((r) => [Number(r.series), latestPoint(family, r)]));
  const result = new Map<number, LatestPoint>();
  for (const id of ids) if (!dirty.has(id) && rows.has(id)) result.set(id, rows.get(id) as LatestPoint);
  if (dirty.size === 0) return result;
  const tombstones = bindTombstones(contexts.values());
  const params = new ColumnarParams();
  const rawRows = await store.query<LastRow>(rawLatestSql(shape, rangeList(params, tenant, dirty, 'ts'), tombstones.form), {
    ...params.values, ...tombstones.params,
  });
  const fromRaw = new Map(rawRows.map((r) => [Number(r.series), latestPoint(family, r)]));
  const fallback = new Map<number, Range[]>();
  for (const [id, ranges] of dirty) {
    const row = rows.get(id);
    const raw = fromRaw.get(id);
    // No row is no proof of no point outside the dirty hours: the series may never have been
    // folded, or a fold racing this read has marked its row empty and not yet written the new
    // one (rollup-fold.ts writes the two in turn). The clean rollup hours then tell.
    const rowStale = row === undefined || overlaps(ranges, row.timestampMs, row.timestampMs + 1);
    if (!rowStale) { const best = newer(row, raw); if (best) result.set(id, best); }
    else if (row && raw && raw.timestampMs >= row.timestampMs) result.set(id, raw);
    else fallback.set(id, ranges);
  }
  if (fallback.size > 0) {
    const excluded = new ColumnarParams();
    const dirtyHours = widenSeriesRanges(fallback, ROLLUP_BUCKET_MS, -Infinity, Infinity);
    const sql = rollupLatestSql(shape, {
      dirtyHourRows: bucketRangeList(excluded, dirtyHours, ROLLUP_BUCKET_MS),
      dirtyHourMinuteRows: bucketRangeList(excluded, dirtyHours, MINUTE_BUCKET_MS),
      dirtyMinuteRows: bucketRangeList(excluded, fallback, MINUTE_BUCKET_MS),
    });
    const cleanRows = await store.query<LastRow>(sql, { ...excluded.values, tenant, series: [...fallback.keys()].map(BigInt) });
    const clean = new Map(cleanRows.map((r) => [Number(r.series), latestPoint(family, r)]));
    for (const id of fallback.keys()) {
      const best = newer(clean.get(id), fromRaw.get(id));
      if (best) result.set(id, best);
    }
  }
  return result;
}

/** The point with the highest timestamp of each series, in request order; series without points are omitted. */
export async function latest(store: ColumnarStore, tenant: string, series: readonly SeriesRef[], cache?: ReadContextCache): Promise<LatestPoint[]> {
  const byFamily = new Map<Family, number[]>();
  for (const s of series) {
    const family = familyOf(s.valueType);
    const ids = byFamily.get(family) ?? [];
    if (!ids.includes(s.seriesId)) ids.push(s.seriesId);
    byFamily.set(family, ids);
  }
  const found = new Map<number, LatestPoint>();
  await Promise.all([...byFamily].map(async ([family, ids]) => {
    for (const [id, point] of await latestOfFamily(store, tenant, family, ids, cache)) found.set(id, point);
  }));
  return series.map((s) => found.get(s.seriesId)).filter((p): p is LatestPoint => p !== undefined);
}
