// SQL of the recompute's reach (target-recompute.ts). Values are always bound; the tenant leads
// every WHERE clause; table names come from families.ts only.
import { liveRawRows } from '../datapoints/read/datapoint-read.sql.ts';
import type { TombstoneForm } from '../datapoints/read/series-context.ts';
import type { FamilyShape } from '../datapoints/tables/families.ts';

/**
 * For each changed span j of a series ({sid_j}, {first_j}, {last_j}): rows `j`, `side` (0 the
 * last live stored timestamp before the span, 1 the first after it), `ts`; a side with none is
 * absent. Over the stored rows as they lie (no FINAL, see liveRawRows' `final`), an ordered
 * read stops after a few granules; acknowledged points not yet stored can only lie nearer, so
 * the window between these is never narrower than the true one. Not for MIXED series, whose
 * numeric points are told apart after the dedup.
 */
export function spanNeighboursSql(shapes: readonly FamilyShape[], form: TombstoneForm): string {
  return shapes.map((shape, j) => {
    const series = `tenant = {tenant:String} AND series_id = {sid_${j}:UInt64}`;
    const rows = (time: string) => liveRawRows(shape, `${series} AND ${time}`, form, { final: false });
    return `(SELECT toUInt32(${j}) AS j, toUInt8(0) AS side, toFloat64(ts) AS ts ${rows(`ts < {first_${j}:Int64}`)} ORDER BY ts DESC LIMIT 1)
  UNION ALL
  (SELECT toUInt32(${j}) AS j, toUInt8(1) AS side, toFloat64(ts) AS ts ${rows(`ts > {last_${j}:Int64}`)} ORDER BY ts ASC LIMIT 1)`;
  }).join('\n  UNION ALL\n  ');
}
