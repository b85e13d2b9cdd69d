// SQL of CDF's interpolating aggregates from rollups (cdf-aggregates.ts): one series' minute
// or hour rows in a window as pieces (cdf-pieces.ts), and the rows just outside it for its
// neighbours, every column a Float64 (times are exact below 2^53) beside `side` (0 a piece,
// 1 a row before the window, 2 a row after), with bound conditions leaving out the rows dirty
// ranges make stale. Names come from families.ts only.
import { CDF_SERIES_TABLE, ROLLUP_BUCKET_MS, type FamilyShape } from '../tables/families.ts';

function pieceColumns(shape: FamilyShape, side: string): string {
  return `${side} AS side, toFloat64(bucket) AS bucket, toFloat64(cdf_complete) AS complete, toFloat64(first_ts) AS first_ts, toFloat64(last_ts) AS last_ts, toFloat64(first_value) AS first_v,
  toFloat64(${shape.asFloat('last_value')}) AS last_v, toFloat64(value_count) AS n, toFloat64(${shape.asFloat('value_sum')}) AS s,
  value_m2, lin_integral, lin_m2, step_integral, step_m2, total_variation`;
}

const SERIES = 'tenant = {tenant:String} AND series_id = {series_id:UInt64}';

/**
 * Rows of `table` (minute or hour rows of shape) of {series_id} holding points, as pieces: those
 * in [{start}, {end}) (side 0) and those within {reach_ms} before (1) or after (2), whose last
 * or first points may be the window's neighbours.
 */
export function cdfPiecesSql(shape: FamilyShape, table: string, condition: string): string {
  return `SELECT ${pieceColumns(shape, 'multiIf(bucket < {start:Int64}, 1, bucket >= {end:Int64}, 2, 0)')}
FROM ${table} FINAL
WHERE ${SERIES} AND bucket >= {start:Int64} - {reach_ms:Int64} AND bucket < {end:Int64} + {reach_ms:Int64} AND value_count > 0${condition ? ` AND ${condition}` : ''}`;
}

/**
 * The newest minute row before {start} holding points (side 1) and the oldest from {end} on
 * (side 2), anywhere. Current only where no dirty range lies between the row and the window
 * (cdf-piece-source.ts checks).
 */
export function cdfNeighbourRowsSql(shape: FamilyShape): string {
  const row = (side: string, where: string, order: 'ASC' | 'DESC') => `(SELECT ${pieceColumns(shape, side)}
FROM ${shape.minuteTable} FINAL
WHERE ${SERIES} AND ${where} AND value_count > 0
ORDER BY bucket ${order}
LIMIT 1)`;
  return `${row('1', 'bucket < {start:Int64}', 'DESC')}
UNION ALL
${row('2', 'bucket >= {end:Int64}', 'ASC')}`;
}

/** Whether {series_id} is listed in CDF_SERIES_TABLE. */
export const CDF_SERIES_LISTED_SQL = `SELECT toString(count()) AS listed FROM ${CDF_SERIES_TABLE} WHERE tenant = {tenant:String} AND series_id = {series_id:UInt64}`;

/** Lists {series_id} in CDF_SERIES_TABLE: the fold keeps its CDF columns from now on. */
export const LIST_CDF_SERIES_SQL = `INSERT INTO ${CDF_SERIES_TABLE} (tenant, series_id) SELECT {tenant:String}, {series_id:UInt64}`;

/**
 * Marks the span of {series_id}'s hour rows dirty (family `shape`'s), so that the fold
 * recomputes its minutes and hours with the CDF columns: once, when the series is listed.
 */
export function cdfBackfillMarksSql(shape: FamilyShape): string {
  return `INSERT INTO datapoint_dirty (tenant, series_id, family, begin_ms, end_ms)
SELECT tenant, series_id, '${shape.family}', min(bucket), max(bucket) + ${ROLLUP_BUCKET_MS}
FROM ${shape.rollupTable}
WHERE tenant = {tenant:String} AND series_id = {series_id:UInt64} AND point_count > 0
GROUP BY tenant, series_id`;
}
