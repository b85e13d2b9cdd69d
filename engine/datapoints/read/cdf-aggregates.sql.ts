// SQL of CDF's interpolating aggregates from rollups (cdf-aggregates.ts): one series' minute
// or hour rows in a window as pieces (cdf-pieces.ts), every column a Float64 (times are exact
// below 2^53), with a bound condition leaving out the rows dirty ranges make stale. Names come
// from families.ts only.
import type { FamilyShape } from '../tables/families.ts';

/** Rows of `table` (minute or hour rows of shape) of {series_id} in [{start}, {end}) holding points, as pieces. */
export function cdfPiecesSql(shape: FamilyShape, table: string, condition: string): string {
  return `SELECT toFloat64(first_ts) AS first_ts, toFloat64(last_ts) AS last_ts, toFloat64(first_value) AS first_v, toFloat64(${shape.asFloat('last_value')}) AS last_v,
  toFloat64(value_count) AS n, toFloat64(${shape.asFloat('value_sum')}) AS s, value_m2, lin_integral, lin_m2, step_integral, step_m2, total_variation
FROM ${table} FINAL
WHERE tenant = {tenant:String} AND series_id = {series_id:UInt64} AND bucket >= {start:Int64} AND bucket < {end:Int64} AND value_count > 0${condition ? ` AND ${condition}` : ''}`;
}
