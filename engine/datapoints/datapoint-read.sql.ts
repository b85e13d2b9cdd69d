// SQL of the data point reads (issue 3), one statement per read. Every statement applies the
// series' delete tombstones (a point with version <= a covering tombstone's is dead; since the
// rule is monotonic in version, filtering before or after FINAL's dedup gives the same rows)
// and reads rollups only for hours without a dirty mark, computing the others from raw points.
// Tenant leads every WHERE. Table and column names come from families.ts only.
import { ROLLUP_BUCKET_MS, type FamilyShape } from './families.ts';

/** Tombstones of one series overlapping [start, end): (begin, end, version). */
const SERIES_TOMBSTONES = `(SELECT groupArray(tuple(begin_ms, end_ms, version)) FROM datapoint_tombstones
    WHERE tenant = {tenant:String} AND series_id = {series:UInt64} AND begin_ms < {end:Int64} AND end_ms > {start:Int64}) AS tombstones`;

/** Dirty hour ranges of one series overlapping [start, end): (begin, end). */
const SERIES_DIRTY = `(SELECT groupArray(tuple(begin_ms, end_ms)) FROM datapoint_dirty
    WHERE tenant = {tenant:String} AND series_id = {series:UInt64} AND begin_ms < {end:Int64} AND end_ms > {start:Int64}) AS dirty`;

const ALIVE = '(empty(tombstones) OR NOT arrayExists(t -> ts >= t.1 AND ts < t.2 AND version <= t.3, tombstones))';

function and(...conditions: string[]): string {
  return conditions.filter((c) => c.length > 0).join(' AND ');
}

/** Raw points of one series in [start, end), ts as Float64 (exact below 2^53), one page. */
export function rawReadSql(shape: FamilyShape, order: 'ASC' | 'DESC'): string {
  return `WITH ${SERIES_TOMBSTONES}
SELECT toFloat64(ts) AS ts_ms, ${shape.readValueSelect}
FROM ${shape.rawTable} FINAL
WHERE tenant = {tenant:String} AND series_id = {series:UInt64} AND ts >= {start:Int64} AND ts < {end:Int64} AND ${ALIVE}
ORDER BY ts ${order}
LIMIT {limit:UInt32}`;
}

/** The outer aggregate list over (c, s, lo, hi) columns; exact types come out as strings. */
function aggregateOuter(shape: FamilyShape): string {
  const count = 'toString(sum(c)) AS value_count';
  if (!shape.hasNumericAggregates) return count;
  return `${count}, ${shape.readSum('sum(s)')} AS value_sum, ${shape.readMinMax('min(lo)')} AS value_min, ${shape.readMinMax('max(hi)')} AS value_max`;
}

function rawAggregates(shape: FamilyShape): string {
  if (!shape.hasNumericAggregates) return 'count() AS c';
  return `count() AS c, ${shape.rawSumExpr} AS s, ${shape.rawMinExpr} AS lo, ${shape.rawMaxExpr} AS hi`;
}

function rollupAggregates(shape: FamilyShape): string {
  if (!shape.hasNumericAggregates) return 'value_count AS c';
  return 'value_count AS c, value_sum AS s, value_min AS lo, value_max AS hi';
}

/**
 * Buckets of {granularity:Int64} ms (a multiple of an hour) over [start, end), both aligned by
 * the caller: clean hours come from the hourly rollup, dirty hours from raw points.
 */
export function rollupAggregateSql(shape: FamilyShape): string {
  return `WITH ${SERIES_DIRTY},
  ${SERIES_TOMBSTONES},
  if(empty(dirty), {end:Int64}, greatest({start:Int64}, arrayMin(arrayMap(d -> d.1, dirty)))) AS raw_start,
  if(empty(dirty), {end:Int64}, least({end:Int64}, arrayMax(arrayMap(d -> d.2, dirty)))) AS raw_end
SELECT toString(b) AS bucket, ${aggregateOuter(shape)}
FROM (
  SELECT bucket - positiveModulo(bucket, {granularity:Int64}) AS b, ${rollupAggregates(shape)}
  FROM ${shape.rollupTable} FINAL
  WHERE tenant = {tenant:String} AND series_id = {series:UInt64} AND bucket >= {start:Int64} AND bucket < {end:Int64}
    AND value_count > 0 AND NOT arrayExists(d -> bucket < d.2 AND bucket + ${ROLLUP_BUCKET_MS} > d.1, dirty)
  UNION ALL
  SELECT ts - positiveModulo(ts, {granularity:Int64}) AS b, ${rawAggregates(shape)}
  FROM ${shape.rawTable} FINAL
  WHERE ${and('tenant = {tenant:String} AND series_id = {series:UInt64} AND ts >= raw_start AND ts < raw_end',
    'arrayExists(d -> ts >= d.1 AND ts < d.2, dirty)', shape.aggregateRowFilter, ALIVE)}
  GROUP BY b
)
GROUP BY b
ORDER BY b
LIMIT {limit:UInt32}`;
}

/** Buckets finer than the rollup (1m): raw points only. */
export function rawAggregateSql(shape: FamilyShape): string {
  return `WITH ${SERIES_TOMBSTONES}
SELECT toString(b) AS bucket, ${aggregateOuter(shape)}
FROM (
  SELECT ts - positiveModulo(ts, {granularity:Int64}) AS b, ${rawAggregates(shape)}
  FROM ${shape.rawTable} FINAL
  WHERE ${and('tenant = {tenant:String} AND series_id = {series:UInt64} AND ts >= {start:Int64} AND ts < {end:Int64}', shape.aggregateRowFilter, ALIVE)}
  GROUP BY b
)
GROUP BY b
ORDER BY b
LIMIT {limit:UInt32}`;
}

const MANY_DIRTY = `(SELECT groupArray(tuple(series_id, begin_ms, end_ms)) FROM datapoint_dirty
    WHERE tenant = {tenant:String} AND series_id IN {series:Array(UInt64)}) AS dirty`;
const MANY_TOMBSTONES = `(SELECT groupArray(tuple(series_id, begin_ms, end_ms, version)) FROM datapoint_tombstones
    WHERE tenant = {tenant:String} AND series_id IN {series:Array(UInt64)}) AS tombstones`;
const MANY_ALIVE = '(empty(tombstones) OR NOT arrayExists(t -> t.1 = series_id AND ts >= t.2 AND ts < t.3 AND version <= t.4, tombstones))';

/**
 * Latest point candidates of many series: the latest table's row (stale = 1 when its hour is
 * dirty), and the newest live raw point inside each series' dirty ranges (from_raw = 1).
 */
export function latestSql(shape: FamilyShape): string {
  const rawLast = shape.readLast(shape.rawLastSources.map((source) => `argMax(${source}, ts)`));
  return `WITH ${MANY_DIRTY},
  ${MANY_TOMBSTONES},
  if(empty(dirty), 9223372036854775807, arrayMin(arrayMap(d -> d.2, dirty))) AS raw_start
SELECT 0 AS from_raw, toString(series_id) AS series, toString(last_ts) AS ts_ms, ${shape.readLast(shape.lastValueColumns)},
  arrayExists(d -> d.1 = series_id AND last_ts >= d.2 AND last_ts < d.3, dirty) AS stale
FROM ${shape.latestTable} FINAL
WHERE tenant = {tenant:String} AND series_id IN {series:Array(UInt64)} AND is_empty = 0
UNION ALL
SELECT 1 AS from_raw, toString(series_id) AS series, toString(max(ts)) AS ts_ms, ${rawLast}, toUInt8(0) AS stale
FROM ${shape.rawTable} FINAL
WHERE tenant = {tenant:String} AND series_id IN {series:Array(UInt64)} AND ts >= raw_start
  AND arrayExists(d -> d.1 = series_id AND ts >= d.2 AND ts < d.3, dirty) AND ${MANY_ALIVE}
GROUP BY series_id`;
}

/** The newest point of clean hours, for series whose latest row sits in a dirty hour. */
export function latestFromRollupSql(shape: FamilyShape): string {
  return `WITH ${MANY_DIRTY}
SELECT toString(series_id) AS series, toString(argMax(last_ts, bucket)) AS ts_ms,
  ${shape.readLast(shape.lastValueColumns.map((column) => `argMax(${column}, bucket)`))}
FROM ${shape.rollupTable} FINAL
WHERE tenant = {tenant:String} AND series_id IN {series:Array(UInt64)} AND point_count > 0
  AND NOT arrayExists(d -> d.1 = series_id AND bucket < d.3 AND bucket + ${ROLLUP_BUCKET_MS} > d.2, dirty)
GROUP BY series_id`;
}
