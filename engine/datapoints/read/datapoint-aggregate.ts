// Data point aggregates: per granularity bucket, from the minute and hour rollup
// rows of clean buckets folded by the engine plus raw points where minutes are dirty, the
// series' context (datapoint-read-context.ts) telling which. Requests alike share statements.
import { BadRequestError } from '../../errors.ts';
import { AGGREGATES_LIMIT_MAX } from '../../limits.ts';
import { ColumnarParams } from '../../stores/columnar-params.ts';
import type { ColumnarStore } from '../../stores/columnar.ts';
import { decodeCursor, encodeCursor } from './datapoint-cursor.ts';
import { divideRounded } from './datapoint-format.ts';
import { assertLimit, bindTombstones, contextsOf, rangeList } from './datapoint-read-context.ts';
import { rawBucketsSql, rollupBucketsSql, rollupSql } from './datapoint-read.sql.ts';
import { FAMILY_SHAPES, MINUTE_BUCKET_MS, ROLLUP_BUCKET_MS, familyOf, type Family } from '../tables/families.ts';
import { bucketRangeList, widenSeriesRanges } from './rollup-ranges.ts';
import { MINUTE_DAYS_PER_READ_MAX, dayStartsOf, holdsMinuteDays, minuteDayPartials } from './minute-days.ts';
import { bucketStartOf, requestGrid, type BucketGrid } from './aggregate-grid.ts';
import { rollupKey, type ReadContextCache } from './read-context-cache.ts';
import type { Range, SeriesContext } from './series-context.ts';
import type { LivePartial } from './live-points.ts';
import { liveCover } from './live-points-take.ts';
import { bindQueued, withQueuedSpans } from './queued-rows.ts';
import type { AggregateBucket, AggregateOptions, AggregateResult, SeriesRef } from '../types.ts';

/** count, sum, min, max of a bucket or an hour; sums and extremes exact for exact families. */
interface Partial { n: number; s: number | bigint; lo: number | bigint; hi: number | bigint }
interface PartialRow { series: string; a: string; n: string; s: string; lo: string; hi: string }

function partialOf(row: PartialRow, exact: boolean): Partial {
  const read = (text: string) => (exact ? BigInt(text === '' ? '0' : text) : Number(text === '' ? '0' : text));
  return { n: Number(row.n), s: read(row.s), lo: read(row.lo), hi: read(row.hi) };
}

function addPartial(into: Partial | undefined, p: Partial): Partial {
  if (!into) return { ...p };
  return {
    n: into.n + p.n,
    s: (into.s as number) + (p.s as number),
    lo: p.lo < into.lo ? p.lo : into.lo,
    hi: p.hi > into.hi ? p.hi : into.hi,
  };
}

function bucketOf(timestampMs: number, p: Partial, family: Family, options: AggregateOptions): AggregateBucket {
  const bucket: AggregateBucket = { timestampMs };
  for (const name of options.aggregates) {
    if (name === 'COUNT') bucket.count = p.n;
    if (name === 'SUM') bucket.sum = p.s;
    if (name === 'MIN') bucket.min = p.lo;
    if (name === 'MAX') bucket.max = p.hi;
    // Decimals: exact at their scale; BIGINT and floats: a double, as averages are.
    if (name === 'AVG') bucket.average = typeof p.s === 'bigint' && family !== 'int' ? divideRounded(p.s, BigInt(p.n)) : Number(p.s) / p.n;
  }
  return bucket;
}

export interface AggregateRequest {
  series: SeriesRef;
  options: AggregateOptions;
}

/**
 * The buckets of a read (aggregate-grid.ts) and the rollup rows they are folded from: `base`
 * is ROLLUP_BUCKET_MS (hour rows, minute rows of hours a dirty range touches, raw points of
 * dirty minutes), MINUTE_BUCKET_MS (minute rows, raw points of dirty minutes) or 0 (raw points
 * only: sub-minute buckets, or edges off whole minutes). Rows are grouped to `grid.cellMs`
 * from `grid.origin` in the store and folded to buckets here.
 */
interface BucketRange { start: number; end: number; grid: BucketGrid; base: number }

/** The rollup rows every cell of the grid is made of whole (0: none, raw points only). */
function baseOf(grid: BucketGrid): number {
  for (const base of [ROLLUP_BUCKET_MS, MINUTE_BUCKET_MS]) if (grid.cellMs % base === 0 && grid.origin % base === 0) return base;
  return 0;
}

/** The bucket range of a request after alignment and cursor, or undefined when empty. */
export function aggregateRange(request: AggregateRequest): BucketRange | undefined {
  const { series, options } = request;
  assertLimit(options.limit, AGGREGATES_LIMIT_MAX);
  const shape = FAMILY_SHAPES[familyOf(series.valueType)];
  const refused = shape.hasNumericAggregates ? [] : options.aggregates.filter((name) => name !== 'COUNT');
  if (refused.length > 0) {
    throw new BadRequestError(`${series.valueType} time series support only the COUNT aggregate`, [
      { field: 'aggregates', message: `${refused.join(', ')} needs a numeric time series`, value: refused },
    ]);
  }
  if (options.start > options.end) throw new BadRequestError('start must not be after end', [{ field: 'start', message: 'after end', value: options.start }]);
  const from = options.cursor !== undefined ? decodeCursor(options.cursor, 'b') : undefined;
  const grid = requestGrid(options.granularity, options.timeZone, options.start, options.end, from);
  return !grid || options.aggregates.length === 0 ? undefined : { start: grid.start, end: grid.end, grid, base: baseOf(grid) };
}

/** The rollup statement of a read: the tables' rows outside dirty ranges, UNION ALL. */
function rollupStatement(family: Family, range: BucketRange, dirtyMinutes: ReadonlyMap<number, Range[]>, params: ColumnarParams): string {
  const shape = FAMILY_SHAPES[family];
  const minuteCondition = dirtyMinutes.size > 0 ? `NOT (${bucketRangeList(params, dirtyMinutes, MINUTE_BUCKET_MS)})` : '';
  if (range.base === MINUTE_BUCKET_MS) return rollupSql([rollupBucketsSql(shape, shape.minuteTable, minuteCondition, range.grid.cellMs !== MINUTE_BUCKET_MS)]);
  // Hours a dirty range touches: their clean minutes from minute rows, their dirty ones from raw points.
  const dirtyHours = widenSeriesRanges(dirtyMinutes, ROLLUP_BUCKET_MS, range.start, range.end);
  const grouped = range.grid.cellMs !== ROLLUP_BUCKET_MS;
  if (dirtyHours.size === 0) return rollupSql([rollupBucketsSql(shape, shape.rollupTable, '', grouped)]);
  // A range list names the rows overlapping it, so it is built for each table's row width.
  const hourRows = bucketRangeList(params, dirtyHours, ROLLUP_BUCKET_MS);
  const minuteRows = bucketRangeList(params, dirtyHours, MINUTE_BUCKET_MS);
  return rollupSql([
    rollupBucketsSql(shape, shape.rollupTable, `NOT (${hourRows})`, grouped),
    rollupBucketsSql(shape, shape.minuteTable, `(${minuteRows}) AND ${minuteCondition}`, true),
  ]);
}

/**
 * The raw ranges of FLOAT series held in memory (live-points.ts), counted there; series a read
 * of dirty minutes finds not held are taken in first (live-points-take.ts liveCover). Returns
 * the partials per series and grid cell, and the ranges the store still reads.
 */
async function livePartials(
  store: ColumnarStore, tenant: string, series: readonly SeriesRef[], contexts: ReadonlyMap<number, SeriesContext>,
  dirty: ReadonlyMap<number, readonly Range[]>, rawRanges: ReadonlyMap<number, Range[]>, range: BucketRange, cache: ReadContextCache,
): Promise<{ partials: Map<number, Map<number, LivePartial>>; fromStore: Map<number, Range[]> }> {
  const partials = new Map<number, Map<number, LivePartial>>();
  const fromStore = new Map(rawRanges);
  await Promise.all(series.map(async (s) => {
    const ranges = rawRanges.get(s.seriesId);
    if (!ranges) return;
    // Only dirty minutes take a series in: a sub-minute grid reads its whole window raw, which
    // for a window in the past would take every point from there on.
    const cover = await liveCover(store, cache, tenant, s, contexts.get(s.seriesId), dirty.get(s.seriesId) ?? [], ranges, range.base !== 0);
    if (!cover || cover.inMemory.length === 0) return;
    // At once after the cover: nothing may change what is held between the two.
    const cells = cache.live.partials(tenant, s.seriesId, cover.inMemory, s.queued, range.grid.cellMs, range.grid.origin);
    if (!cells) return;
    partials.set(s.seriesId, cells);
    if (cover.fromStore.length > 0) fromStore.set(s.seriesId, cover.fromStore);
    else fromStore.delete(s.seriesId);
  }));
  return { partials, fromStore };
}

/**
 * Partials per series and granularity bucket: rollup rows of clean buckets (minute rows for
 * 1m; hour rows, and minute rows of hours a dirty range touches, for whole hours), folded to
 * the granularity by the engine, plus raw points of dirty minutes.
 */
async function bucketPartials(
  store: ColumnarStore, tenant: string, family: Family, series: readonly SeriesRef[], range: BucketRange, cache?: ReadContextCache,
): Promise<Map<number, Map<number, Partial>>> {
  const shape = FAMILY_SHAPES[family];
  const exact = shape.exactAggregates;
  const ids = series.map((s) => s.seriesId);
  // Rollup rows are kept only if nothing was written from here (the contexts) to their fetch.
  const mark = cache?.begin();
  const contexts = await contextsOf(store, tenant, ids, cache);
  // Points still in the ingest log's memory are in no rollup row: their minutes are read raw.
  const dirty = withQueuedSpans(new Map(ids.map((id) => [id, contexts.get(id)?.dirty ?? []])), series);
  // Minute rows are current wherever no dirty range covers them; window bounds are whole minutes.
  // Without a rollup base every point is read raw.
  const rawRanges = range.base === 0
    ? new Map(ids.map((id): [number, Range[]] => [id, [[range.start, range.end]]]))
    : widenSeriesRanges(dirty, MINUTE_BUCKET_MS, range.start, range.end);
  const spannedDays = dayStartsOf(range).length;
  // Rows of wholly clean ranges are kept until the next write (read-context-cache.ts).
  const key = rawRanges.size === 0 && range.base !== 0 ? rollupKey(tenant, family, range.start, range.end, range.grid.cellMs, range.grid.origin, ids) : undefined;
  const cached = key !== undefined ? cache?.getRollup<PartialRow>(key) : undefined;
  // A 1m read fetches the days it misses (the next window of a panned chart then holds them); a
  // coarser one takes minute days only when all are held and the same read's rows are not
  // (a refreshed dashboard: its ~30 rows, 0.6 ms a read, against ~0.9 folding 2,880 minutes),
  // else its rollup statement (which reads ~60 times fewer rows) is the cheaper fetch. Held
  // days skip a statement of ~10 ms (1 d hourly of 10 series: 10.4 ms mean with the older
  // analyzer, 12.8 without).
  const fromMinuteDays = cache !== undefined && family === 'float' && range.base !== 0 && range.grid.cellMs % MINUTE_BUCKET_MS === 0
    && range.grid.origin % MINUTE_BUCKET_MS === 0 && spannedDays * ids.length <= MINUTE_DAYS_PER_READ_MAX
    && (range.grid.stepMs === MINUTE_BUCKET_MS || (cached === undefined && holdsMinuteDays(cache, tenant, ids, range)));
  const readRollups = async (): Promise<readonly PartialRow[]> => {
    if (fromMinuteDays || range.base === 0) return [];
    if (cached) return cached;
    const params = new ColumnarParams();
    const sql = rollupStatement(family, range, rawRanges, params);
    const rows = await store.query<PartialRow>(sql, { ...params.values, tenant, series: ids.map(BigInt), start: range.start, end: range.end, granularity: range.grid.cellMs, origin: range.grid.origin });
    if (key !== undefined) cache?.setRollup(mark, key, rows);
    return rows;
  };
  // FLOAT series held in memory while written count their raw minutes there (live-points.ts).
  const live = family === 'float' && cache !== undefined && rawRanges.size > 0 ? await livePartials(store, tenant, series, contexts, dirty, rawRanges, range, cache) : undefined;
  const storeRanges = live?.fromStore ?? rawRanges;
  const readRawBuckets = async (): Promise<PartialRow[]> => {
    if (storeRanges.size === 0) return [];
    const tombstones = bindTombstones(contexts.values(), range.start, range.end);
    const queued = bindQueued(tenant, family, series);
    const params = new ColumnarParams();
    const sql = rawBucketsSql(shape, rangeList(params, tenant, storeRanges, 'ts'), tombstones.form, queued.queued);
    return store.query<PartialRow>(sql, { ...params.values, granularity: range.grid.cellMs, origin: range.grid.origin, ...tombstones.params, ...queued.params });
  };
  const [rollupRows, rawRows, held] = await Promise.all([
    readRollups(), readRawBuckets(), fromMinuteDays ? minuteDayPartials(store, tenant, ids, range, rawRanges, cache) : undefined,
  ]);
  const out = held ?? new Map<number, Map<number, Partial>>();
  for (const [id, cells] of live?.partials ?? []) {
    const buckets = out.get(id) ?? new Map<number, Partial>();
    for (const [cell, p] of cells) {
      const bucket = bucketStartOf(range.grid, cell);
      buckets.set(bucket, addPartial(buckets.get(bucket), p));
    }
    out.set(id, buckets);
  }
  for (const row of [...rollupRows, ...rawRows]) {
    const id = Number(row.series);
    const bucket = bucketStartOf(range.grid, Number(row.a));
    const buckets = out.get(id) ?? new Map<number, Partial>();
    buckets.set(bucket, addPartial(buckets.get(bucket), partialOf(row, exact)));
    out.set(id, buckets);
  }
  return out;
}

/**
 * Aggregates of several series; requests of one family with the same range, granularity and
 * limit share their statements (100 series cost about what one does). Results in request order.
 */
export async function aggregateMany(store: ColumnarStore, tenant: string, requests: readonly AggregateRequest[], cache?: ReadContextCache): Promise<AggregateResult[]> {
  const results: AggregateResult[] = requests.map(() => ({ buckets: [] }));
  const groups = new Map<string, { family: Family; range: BucketRange; limit: number; members: number[] }>();
  requests.forEach((request, index) => {
    const range = aggregateRange(request);
    if (!range) return;
    const family = familyOf(request.series.valueType);
    // The grid is a function of the granularity, the zone and its aligned bounds.
    const key = `${family}:${range.start}:${range.end}:${request.options.granularity}:${request.options.timeZone ?? ''}:${request.options.limit}`;
    const group = groups.get(key) ?? { family, range, limit: request.options.limit, members: [] };
    group.members.push(index);
    groups.set(key, group);
  });
  await Promise.all([...groups.values()].map(async ({ family, range, limit, members }) => {
    const series = new Map<number, SeriesRef>();
    for (const i of members) {
      const ref = (requests[i] as AggregateRequest).series;
      if (!series.has(ref.seriesId)) series.set(ref.seriesId, ref);
    }
    const partials = await bucketPartials(store, tenant, family, [...series.values()], range, cache);
    for (const index of members) {
      const request = requests[index] as AggregateRequest;
      const sorted = [...(partials.get(request.series.seriesId) ?? [])].filter(([, p]) => p.n > 0).sort((a, b) => a[0] - b[0]);
      const buckets = sorted.slice(0, limit).map(([ms, p]) => bucketOf(ms, p, family, request.options));
      const next = sorted[limit];
      results[index] = next ? { buckets, nextCursor: encodeCursor('b', next[0]) } : { buckets };
    }
  }));
  return results;
}

export async function aggregate(store: ColumnarStore, tenant: string, series: SeriesRef, options: AggregateOptions, cache?: ReadContextCache): Promise<AggregateResult> {
  return (await aggregateMany(store, tenant, [{ series, options }], cache))[0] as AggregateResult;
}
