// Data point reads (issue 3): raw pages, aggregates and latest points, each one statement
// (latest: a second one in the rare case that its newest hour lost points). Exact for every
// acknowledged write and delete, whatever the fold has caught up with.
import { Table } from 'apache-arrow';
import { BadRequestError } from '../errors.ts';
import { AGGREGATES_LIMIT_MAX, DATAPOINTS_LIMIT_MAX, TIMESTAMP_MS_MAX, TIMESTAMP_MS_MIN } from '../limits.ts';
import type { ColumnarStore } from '../stores/columnar.ts';
import { decodeCursor, encodeCursor } from './datapoint-cursor.ts';
import { divideRounded } from './datapoint-format.ts';
import { latestFromRollupSql, latestSql, rawAggregateSql, rawReadSql, rollupAggregateSql } from './datapoint-read.sql.ts';
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

export async function readRaw(store: ColumnarStore, tenant: string, series: SeriesRef, options: RawReadOptions): Promise<RawReadResult> {
  assertLimit(options.limit, DATAPOINTS_LIMIT_MAX);
  // SPEC: start omitted means the most recent `limit` points; later pages walk back in time.
  const descending = options.start === undefined;
  let start = options.start ?? TIMESTAMP_MS_MIN;
  let end = options.end ?? END_MAX;
  if (options.cursor !== undefined) {
    if (descending) end = Math.min(end, decodeCursor(options.cursor, 'd'));
    else start = Math.max(start, decodeCursor(options.cursor, 'a'));
  }
  const shape = FAMILY_SHAPES[familyOf(series.valueType)];
  const table = start >= end ? undefined : await store.queryArrow(rawReadSql(shape, descending ? 'DESC' : 'ASC'), {
    tenant, series: series.seriesId, start, end, limit: options.limit + 1,
  });
  const rows = table?.numRows ?? 0;
  const count = Math.min(rows, options.limit);
  const points = pointsOf(series, table ?? new Table(), count, descending);
  if (rows <= options.limit) return { points };
  const edge = descending ? (points.timestampMs[0] as number) : (points.timestampMs[count - 1] as number) + 1;
  return { points, nextCursor: encodeCursor(descending ? 'd' : 'a', edge) };
}

interface AggregateRow { bucket: string; value_count: string; value_sum?: number | string; value_min?: number | string; value_max?: number | string }

function readNumber(value: number | string | undefined, exact: boolean): number | bigint {
  if (value === undefined) throw new Error('aggregate column missing');
  return exact ? BigInt(value) : Number(value);
}

function bucketOf(row: AggregateRow, family: Family, options: AggregateOptions): AggregateBucket {
  const exact = FAMILY_SHAPES[family].exactAggregates;
  const bucket: AggregateBucket = { timestampMs: Number(row.bucket) };
  const count = Number(row.value_count);
  for (const name of options.aggregates) {
    if (name === 'COUNT') bucket.count = count;
    if (name === 'SUM') bucket.sum = readNumber(row.value_sum, exact);
    if (name === 'MIN') bucket.min = readNumber(row.value_min, exact);
    if (name === 'MAX') bucket.max = readNumber(row.value_max, exact);
    if (name === 'AVG') {
      const sum = readNumber(row.value_sum, exact);
      // Decimals: exact at their scale; BIGINT and floats: a double, as averages are.
      bucket.average = typeof sum === 'bigint' && family !== 'int' ? divideRounded(sum, BigInt(count)) : Number(sum) / count;
    }
  }
  return bucket;
}

export async function aggregate(store: ColumnarStore, tenant: string, series: SeriesRef, options: AggregateOptions): Promise<AggregateResult> {
  assertLimit(options.limit, AGGREGATES_LIMIT_MAX);
  const family = familyOf(series.valueType);
  const shape = FAMILY_SHAPES[family];
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
  if (start >= end || options.aggregates.length === 0) return { buckets: [] };
  const sql = granularityMs % ROLLUP_BUCKET_MS === 0 ? rollupAggregateSql(shape) : rawAggregateSql(shape);
  const rows = await store.query<AggregateRow>(sql, { tenant, series: series.seriesId, start, end, granularity: granularityMs, limit: options.limit + 1 });
  const buckets = rows.slice(0, options.limit).map((row) => bucketOf(row, family, options));
  if (rows.length <= options.limit) return { buckets };
  return { buckets, nextCursor: encodeCursor('b', Number((rows[options.limit] as AggregateRow).bucket)) };
}

interface LatestRow { from_raw?: number; series: string; ts_ms: string; out_value: number | string; out_text?: string; out_is_text?: number; stale?: number }

function latestValue(family: Family, row: LatestRow): DatapointValue {
  if (family === 'mixed') return row.out_is_text ? (row.out_text as string) : Number(row.out_value);
  if (family === 'text') return String(row.out_value);
  return FAMILY_SHAPES[family].exactAggregates ? BigInt(row.out_value) : Number(row.out_value);
}

function newer(a: LatestPoint | undefined, b: LatestPoint | undefined): LatestPoint | undefined {
  if (!a) return b;
  if (!b) return a;
  return b.timestampMs > a.timestampMs ? b : a;
}

/** Latest points of one family's series: see latestSql for the two candidates and the rule. */
async function latestOfFamily(store: ColumnarStore, tenant: string, family: Family, ids: number[]): Promise<Map<number, LatestPoint>> {
  const shape = FAMILY_SHAPES[family];
  const rows = await store.query<LatestRow>(latestSql(shape), { tenant, series: ids.map(BigInt) });
  const fromTable = new Map<number, { point: LatestPoint; stale: boolean }>();
  const fromRaw = new Map<number, LatestPoint>();
  for (const row of rows) {
    const point: LatestPoint = { seriesId: Number(row.series), timestampMs: Number(row.ts_ms), value: latestValue(family, row) };
    if (row.from_raw) fromRaw.set(point.seriesId, point);
    else fromTable.set(point.seriesId, { point, stale: row.stale === 1 });
  }
  const result = new Map<number, LatestPoint>();
  const fallback: number[] = [];
  for (const id of ids) {
    const table = fromTable.get(id);
    const raw = fromRaw.get(id);
    // The table row is the newest point of every clean hour; when its own hour is dirty,
    // dirty-hour points at or after it still win, otherwise clean hours are asked again.
    if (!table || !table.stale) { const best = newer(table?.point, raw); if (best) result.set(id, best); }
    else if (raw && raw.timestampMs >= table.point.timestampMs) result.set(id, raw);
    else fallback.push(id);
  }
  if (fallback.length > 0) {
    const clean = await store.query<LatestRow>(latestFromRollupSql(shape), { tenant, series: fallback.map(BigInt) });
    const cleanPoints = new Map(clean.map((row) => [Number(row.series), { seriesId: Number(row.series), timestampMs: Number(row.ts_ms), value: latestValue(family, row) }]));
    for (const id of fallback) {
      const best = newer(cleanPoints.get(id), fromRaw.get(id));
      if (best) result.set(id, best);
    }
  }
  return result;
}

/** The point with the highest timestamp of each series, in request order; series without points are omitted. */
export async function latest(store: ColumnarStore, tenant: string, series: readonly SeriesRef[]): Promise<LatestPoint[]> {
  const byFamily = new Map<Family, number[]>();
  for (const s of series) {
    const family = familyOf(s.valueType);
    const ids = byFamily.get(family) ?? [];
    if (!ids.includes(s.seriesId)) ids.push(s.seriesId);
    byFamily.set(family, ids);
  }
  const found = new Map<number, LatestPoint>();
  await Promise.all([...byFamily].map(async ([family, ids]) => {
    for (const [id, point] of await latestOfFamily(store, tenant, family, ids)) found.set(id, point);
  }));
  return series.map((s) => found.get(s.seriesId)).filter((p): p is LatestPoint => p !== undefined);
}
