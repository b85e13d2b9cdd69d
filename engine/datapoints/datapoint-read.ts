// Data point reads (issue 3): raw pages, aggregates and latest points. Each read takes the
// series' context (dirty ranges, tombstones: cached in the embedded engine, else one small
// statement), then one statement for its rows, plus raw points only where hours are dirty.
// Exact for every acknowledged write and delete, whatever the fold has caught up with.
import { Table } from 'apache-arrow';
import { BadRequestError } from '../errors.ts';
import { AGGREGATES_LIMIT_MAX, DATAPOINTS_LIMIT_MAX, TIMESTAMP_MS_MAX, TIMESTAMP_MS_MIN } from '../limits.ts';
import { ColumnarParams, type QueryParams } from '../stores/columnar-params.ts';
import type { ColumnarStore } from '../stores/columnar.ts';
import { decodeCursor, encodeCursor } from './datapoint-cursor.ts';
import { divideRounded } from './datapoint-format.ts';
import {
  SERIES_CONTEXT_SQL, latestRowsSql, rawBucketsSql, rawJsonSql, rawLatestSql, rawReadSql, rollupBucketsSql, rollupLatestSql,
} from './datapoint-read.sql.ts';
import type { Range, ReadContextCache, SeriesContext, Tombstone } from './read-context-cache.ts';
import { FAMILY_SHAPES, ROLLUP_BUCKET_MS, familyOf, type Family } from './families.ts';
import type {
  AggregateBucket, AggregateOptions, AggregateResult, DatapointValue, Granularity, LatestPoint, RawReadOptions, RawReadResult, SeriesPoints, SeriesRef,
} from './types.ts';

const END_MAX = TIMESTAMP_MS_MAX + 1;
const GRANULARITY_MS: Record<Granularity, number> = { '1m': 60_000, '1h': 3_600_000, '1d': 86_400_000 };

function assertLimit(limit: number, max: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > max) {
    throw new BadRequestError(`limit must be an integer from 1 to ${max}`, [{ field: 'limit', message: `from 1 to ${max}`, value: limit }]);
  }
}

// ---- context: dirty ranges and tombstones --------------------------------------------------

interface ContextRow { kind: string; series: string; a: string; b: string; c: string }

function contextsFromRows(ids: readonly number[], rows: readonly ContextRow[]): Map<number, SeriesContext> {
  const contexts = new Map<number, SeriesContext>(ids.map((id) => [id, { dirty: [], tombstones: [] }]));
  for (const row of rows) {
    const context = contexts.get(Number(row.series));
    if (!context) continue;
    if (row.kind === 'd') context.dirty.push([Number(row.a), Number(row.b)]);
    else context.tombstones.push({ seriesId: Number(row.series), begin: Number(row.a), end: Number(row.b), version: BigInt(row.c) });
  }
  return contexts;
}

/** Dirty ranges and tombstones of each series: from the cache where it has them, else one statement. */
async function contextsOf(store: ColumnarStore, tenant: string, ids: readonly number[], cache?: ReadContextCache): Promise<Map<number, SeriesContext>> {
  const contexts = new Map<number, SeriesContext>();
  const missing: number[] = [];
  for (const id of ids) {
    const cached = cache?.get(tenant, id);
    if (cached) contexts.set(id, cached);
    else missing.push(id);
  }
  if (missing.length === 0) return contexts;
  const mark = cache?.begin();
  const fetched = contextsFromRows(missing, await store.query<ContextRow>(SERIES_CONTEXT_SQL, { tenant, series: missing.map(BigInt) }));
  cache?.set(mark, tenant, fetched);
  for (const [id, context] of fetched) contexts.set(id, context);
  return contexts;
}

/** Tombstones of the given contexts overlapping [start, end). */
function tombstonesIn(contexts: Iterable<SeriesContext>, start: number, end: number): Tombstone[] {
  const out: Tombstone[] = [];
  for (const context of contexts) for (const t of context.tombstones) if (t.begin < end && t.end > start) out.push(t);
  return out;
}

/** The bound arrays of aliveCondition(true); nothing when there are no tombstones. */
function tombstoneParams(tombstones: readonly Tombstone[]): QueryParams {
  if (tombstones.length === 0) return {};
  return {
    tomb_series: tombstones.map((t) => BigInt(t.seriesId)),
    tomb_begin: tombstones.map((t) => t.begin),
    tomb_end: tombstones.map((t) => t.end),
    tomb_version: tombstones.map((t) => t.version),
  };
}

/** Sorted, merged ranges clipped to [start, end). */
function clip(ranges: readonly Range[], start: number, end: number): Range[] {
  const out: Range[] = [];
  for (const [b, e] of [...ranges].sort((x, y) => x[0] - y[0])) {
    const from = Math.max(b, start);
    const to = Math.min(e, end);
    if (from >= to) continue;
    const last = out[out.length - 1];
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else out.push([from, to]);
  }
  return out;
}

function overlaps(ranges: readonly Range[] | undefined, begin: number, end: number): boolean {
  return ranges !== undefined && ranges.some(([b, e]) => b < end && e > begin);
}

/** `(tenant = .. AND series_id = .. AND <column> in range) OR ..`, values bound. */
function rangeList(params: ColumnarParams, tenant: string, ranges: ReadonlyMap<number, readonly Range[]>, column: 'ts' | 'bucket'): string {
  const parts: string[] = [];
  for (const [seriesId, list] of ranges) {
    for (const [b, e] of list) {
      const inRange = column === 'ts'
        ? `ts >= ${params.bind(b, 'Int64')} AND ts < ${params.bind(e, 'Int64')}`
        : `bucket < ${params.bind(e, 'Int64')} AND bucket + ${ROLLUP_BUCKET_MS} > ${params.bind(b, 'Int64')}`;
      parts.push(`(tenant = ${params.bind(tenant, 'String')} AND series_id = ${params.bind(seriesId, 'UInt64')} AND ${inRange})`);
    }
  }
  return parts.join(' OR ');
}

// ---- raw pages ----------------------------------------------------------------------------

function column<T>(table: Table, name: string, empty: T): T {
  return (table.getChild(name)?.toArray() as T | undefined) ?? empty;
}

/** Arrow columns of a raw page as SeriesPoints (ascending after `reverse`). */
function pointsOf(series: SeriesRef, table: Table, count: number, reverse: boolean): SeriesPoints {
  const family = familyOf(series.valueType);
  const take = <A extends { slice(a: number, b: number): A; reverse(): A }>(values: A): A => {
    const page = values.slice(0, count);
    return reverse ? page.reverse() : page;
  };
  const points: SeriesPoints = { seriesId: series.seriesId, valueType: series.valueType, timestampMs: take(column(table, 'ts_ms', new Float64Array(0))) };
  if (family === 'float' || family === 'mixed') points.float = take(column(table, 'value', new Float64Array(0)));
  if (family === 'int') points.bigint = take(column(table, 'value', new BigInt64Array(0)));
  if (family === 'numeric' || family === 'decimal32') points.scaled = take(column(table, 'value', new BigInt64Array(0)));
  if (family === 'text') points.text = take([...column<string[]>(table, 'value', [])]);
  if (family === 'mixed') {
    points.text = take([...column<string[]>(table, 'text', [])]);
    points.isText = take(column(table, 'is_text', new Uint8Array(0)));
  }
  return points;
}

/** The time window and direction of a raw page after its cursor. */
function rawWindow(options: RawReadOptions): { start: number; end: number; descending: boolean } {
  assertLimit(options.limit, DATAPOINTS_LIMIT_MAX);
  // SPEC: start omitted means the most recent `limit` points; later pages walk back in time.
  const descending = options.start === undefined;
  let start = options.start ?? TIMESTAMP_MS_MIN;
  let end = options.end ?? END_MAX;
  if (options.cursor !== undefined) {
    if (descending) end = Math.min(end, decodeCursor(options.cursor, 'd'));
    else start = Math.max(start, decodeCursor(options.cursor, 'a'));
  }
  return { start, end, descending };
}

export async function readRaw(store: ColumnarStore, tenant: string, series: SeriesRef, options: RawReadOptions, cache?: ReadContextCache): Promise<RawReadResult> {
  const { start, end, descending } = rawWindow(options);
  if (start >= end) return { points: pointsOf(series, new Table(), 0, false) };
  const shape = FAMILY_SHAPES[familyOf(series.valueType)];
  const tombstones = tombstonesIn((await contextsOf(store, tenant, [series.seriesId], cache)).values(), start, end);
  const table = await store.queryArrow(rawReadSql(shape, descending ? 'DESC' : 'ASC', tombstones.length > 0), {
    tenant, series_id: series.seriesId, start, end, limit: options.limit + 1, ...tombstoneParams(tombstones),
  });
  const count = Math.min(table.numRows, options.limit);
  const points = pointsOf(series, table, count, descending);
  if (table.numRows <= options.limit) return { points };
  const edge = descending ? (points.timestampMs[0] as number) : (points.timestampMs[count - 1] as number) + 1;
  return { points, nextCursor: encodeCursor(descending ? 'd' : 'a', edge) };
}

/** A raw page as JSON text: `datapoints` holds the array's elements, comma-separated, no brackets. */
export interface RawJsonResult {
  datapoints: Uint8Array;
  nextCursor?: string;
}

const NEWLINE = 0x0a;

/**
 * readRaw with the engine writing the JSON of each point (rawJsonSql): a 100 000-point page
 * costs about 20 ms in the engine instead of ~15 ms plus 30-60 ms of JS string building
 * (bench Q3). Same window, order, cursors and liveness rules as readRaw.
 */
export async function readRawJson(store: ColumnarStore, tenant: string, series: SeriesRef, options: RawReadOptions, cache?: ReadContextCache): Promise<RawJsonResult> {
  const { start, end, descending } = rawWindow(options);
  if (start >= end) return { datapoints: new Uint8Array(0) };
  const key = `raw\u0000${tenant}\u0000${series.seriesId}\u0000${series.valueType}\u0000${start}\u0000${end}\u0000${options.limit}\u0000${descending}`;
  const cached = cache?.getPage<RawJsonResult>(key);
  if (cached) return cached;
  const mark = cache?.begin();
  const page = await readRawJsonPage(store, tenant, series, options, cache);
  cache?.setPage(mark, key, page, page.datapoints.byteLength);
  return page;
}

async function readRawJsonPage(store: ColumnarStore, tenant: string, series: SeriesRef, options: RawReadOptions, cache?: ReadContextCache): Promise<RawJsonResult> {
  const { start, end, descending } = rawWindow(options);
  const shape = FAMILY_SHAPES[familyOf(series.valueType)];
  const tombstones = tombstonesIn((await contextsOf(store, tenant, [series.seriesId], cache)).values(), start, end);
  const raw = await store.queryBytes(rawJsonSql(shape, descending ? 'DESC' : 'ASC', tombstones.length > 0), {
    tenant, series_id: series.seriesId, start, end, limit: options.limit, fetch: options.limit + 1, ...tombstoneParams(tombstones),
  });
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  // Points never contain a raw newline (JSON escapes it): a newline starts the marker row.
  const marker = bytes.indexOf(NEWLINE);
  if (marker < 0) return { datapoints: bytes.subarray(1) };
  if (marker !== bytes.lastIndexOf(NEWLINE)) throw new Error('raw JSON page: more than one row past the page');
  if (descending) {
    // The marker leads: `\n<ts>,{...}`; the next page ends after the marker's point.
    if (marker !== 0) throw new Error('raw JSON page: the row past a descending page is not first');
    const comma = bytes.indexOf(0x2c);
    const edge = Number(bytes.toString('latin1', 1, comma < 0 ? bytes.length : comma));
    return { datapoints: comma < 0 ? new Uint8Array(0) : bytes.subarray(comma + 1), nextCursor: encodeCursor('d', edge + 1) };
  }
  const edge = Number(bytes.toString('latin1', marker + 1));
  return { datapoints: bytes.subarray(1, marker), nextCursor: encodeCursor('a', edge) };
}

// ---- aggregates ---------------------------------------------------------------------------

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

interface BucketRange { start: number; end: number; granularityMs: number }

/** The bucket range of a request after alignment and cursor, or undefined when empty. */
function aggregateRange(request: AggregateRequest): BucketRange | undefined {
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
  const granularityMs = GRANULARITY_MS[options.granularity];
  const align = (ms: number) => ms - (((ms % granularityMs) + granularityMs) % granularityMs);
  let start = align(options.start);
  const end = align(options.end) === options.end ? options.end : align(options.end) + granularityMs;
  if (options.cursor !== undefined) start = Math.max(start, decodeCursor(options.cursor, 'b'));
  return start >= end || options.aggregates.length === 0 ? undefined : { start, end, granularityMs };
}

/**
 * Partials per series and granularity bucket: rollup rows of clean hours folded to the
 * granularity by the engine plus raw points of dirty hours (granularities of whole hours), or
 * raw points alone (1m).
 */
async function bucketPartials(
  store: ColumnarStore, tenant: string, family: Family, ids: number[], range: BucketRange, cache?: ReadContextCache,
): Promise<Map<number, Map<number, Partial>>> {
  const shape = FAMILY_SHAPES[family];
  const exact = shape.exactAggregates;
  const fromRollup = range.granularityMs % ROLLUP_BUCKET_MS === 0;
  // Rollup rows are kept only if nothing was written from here (the contexts) to their fetch.
  const mark = cache?.begin();
  const contexts = await contextsOf(store, tenant, ids, cache);
  const rawRanges = new Map<number, Range[]>();
  for (const id of ids) {
    const ranges = fromRollup ? clip(contexts.get(id)?.dirty ?? [], range.start, range.end) : [[range.start, range.end] as Range];
    if (ranges.length > 0) rawRanges.set(id, ranges);
  }
  const readRollups = async (): Promise<readonly PartialRow[]> => {
    if (!fromRollup) return [];
    // Rows of wholly clean ranges are kept until the next write (read-context-cache.ts).
    const key = rawRanges.size === 0 ? `${tenant}\u0000${family}:${range.start}:${range.end}:${range.granularityMs}:${ids.join(',')}` : undefined;
    const cached = key !== undefined ? cache?.getRollup<PartialRow>(key) : undefined;
    if (cached) return cached;
    const params = new ColumnarParams();
    const hourly = range.granularityMs === ROLLUP_BUCKET_MS;
    const sql = rollupBucketsSql(shape, rangeList(params, tenant, rawRanges, 'bucket'), hourly);
    const rows = await store.query<PartialRow>(sql, { ...params.values, tenant, series: ids.map(BigInt), start: range.start, end: range.end, ...(hourly ? {} : { granularity: range.granularityMs }) });
    if (key !== undefined) cache?.setRollup(mark, key, rows);
    return rows;
  };
  const readRawBuckets = async (): Promise<PartialRow[]> => {
    if (rawRanges.size === 0) return [];
    const tombstones = tombstonesIn(contexts.values(), range.start, range.end);
    const params = new ColumnarParams();
    const sql = rawBucketsSql(shape, rangeList(params, tenant, rawRanges, 'ts'), tombstones.length > 0);
    return store.query<PartialRow>(sql, { ...params.values, granularity: fromRollup ? ROLLUP_BUCKET_MS : range.granularityMs, ...tombstoneParams(tombstones) });
  };
  const [rollupRows, rawRows] = await Promise.all([readRollups(), readRawBuckets()]);
  const out = new Map<number, Map<number, Partial>>();
  for (const row of [...rollupRows, ...rawRows]) {
    const id = Number(row.series);
    const hour = Number(row.a);
    const bucket = hour - (((hour % range.granularityMs) + range.granularityMs) % range.granularityMs);
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
    const key = `${family}:${range.start}:${range.end}:${range.granularityMs}:${request.options.limit}`;
    const group = groups.get(key) ?? { family, range, limit: request.options.limit, members: [] };
    group.members.push(index);
    groups.set(key, group);
  });
  await Promise.all([...groups.values()].map(async ({ family, range, limit, members }) => {
    const ids = [...new Set(members.map((i) => (requests[i] as AggregateRequest).series.seriesId))];
    const partials = await bucketPartials(store, tenant, family, ids, range, cache);
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

// ---- latest -------------------------------------------------------------------------------

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
  const key = `latest\u0000${tenant}\u0000${family}\u0000${ids.join(',')}`;
  const readLatestRows = async (): Promise<readonly LastRow[]> => {
    const cached = cache?.getRollup<LastRow>(key);
    if (cached) return cached;
    const rows = await store.query<LastRow>(latestRowsSql(shape), { tenant, series: ids.map(BigInt) });
    cache?.setRollup(mark, key, rows);
    return rows;
  };
  const [contexts, latestRows] = await Promise.all([contextsOf(store, tenant, ids, cache), readLatestRows()]);
  const dirty = new Map([...contexts].filter(([, c]) => c.dirty.length > 0).map(([id, c]) => [id, c.dirty]));
  const rows = new Map(latestRows.map((r) => [Number(r.series), latestPoint(family, r)]));
  const result = new Map<number, LatestPoint>();
  for (const id of ids) if (!dirty.has(id) && rows.has(id)) result.set(id, rows.get(id) as LatestPoint);
  if (dirty.size === 0) return result;
  const tombstones = [...contexts.values()].flatMap((c) => c.tombstones);
  const params = new ColumnarParams();
  const rawRows = await store.query<LastRow>(rawLatestSql(shape, rangeList(params, tenant, dirty, 'ts'), tombstones.length > 0), {
    ...params.values, ...tombstoneParams(tombstones),
  });
  const fromRaw = new Map(rawRows.map((r) => [Number(r.series), latestPoint(family, r)]));
  const fallback = new Map<number, Range[]>();
  for (const [id, ranges] of dirty) {
    const row = rows.get(id);
    const raw = fromRaw.get(id);
    const rowStale = row !== undefined && overlaps(ranges, row.timestampMs, row.timestampMs + 1);
    if (!rowStale) { const best = newer(row, raw); if (best) result.set(id, best); }
    else if (raw && raw.timestampMs >= (row as LatestPoint).timestampMs) result.set(id, raw);
    else fallback.set(id, ranges);
  }
  if (fallback.size > 0) {
    const excluded = new ColumnarParams();
    const cleanRows = await store.query<LastRow>(rollupLatestSql(shape, rangeList(excluded, tenant, fallback, 'bucket')), {
      ...excluded.values, tenant, series: [...fallback.keys()].map(BigInt),
    });
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
