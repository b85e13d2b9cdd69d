// SQL of taking a series into memory (live-points-take.ts): its live points from a floor on,
// with their write versions, ascending. Names come from families.ts only.
import type { FamilyShape } from '../tables/families.ts';
import { liveRawRows } from './datapoint-read.sql.ts';

/**
 * The live points of {series_id} at or after {floor}, at most {limit}, as doubles and their
 * versions (the series has no tombstone: the caller checks). FINAL keeps each timestamp's
 * newest version; an ascending LIMIT under it stops after the granules it needs.
 */
export function livePointsSql(shape: FamilyShape): string {
  return `SELECT toFloat64(ts) AS ts, toFloat64(value) AS value, version
${liveRawRows(shape, 'tenant = {tenant:String} AND series_id = {series_id:UInt64} AND ts >= {floor:Int64}', 'none')}
ORDER BY ts
LIMIT {limit:UInt32}`;
}
