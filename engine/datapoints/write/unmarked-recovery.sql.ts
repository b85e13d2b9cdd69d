// SQL of the crash recovery of dirty marks (unmarked-recovery.ts). Part listings are engine
// metadata (system.parts); the point scan is restricted to the parts written since the last
// checkpoint and spans tenants because recovery does (maintenance, not a tenant's read).
export const PARTS_AFTER_SQL = `SELECT name FROM system.parts
WHERE database = currentDatabase() AND table = {table:String} AND active AND max_block_number > {block:UInt64}`;

export const MAX_BLOCKS_SQL = `SELECT table, toString(max(max_block_number)) AS block FROM system.parts
WHERE database = currentDatabase() AND table IN {tables:Array(String)} AND active
GROUP BY table`;

/**
 * The series in the parts holding blocks past the checkpoint, selected by the highest block in
 * each part's name (`all_<min>_<max>_<level>[_<mutation>]`) as the statement reads them, not by
 * names listed before: merges run at open, and a part listed first may be merged away before the
 * scan, its rows then in a part of another name. A merged part is scanned whole (more hours
 * marked dirty than needed, nothing missed); the engine prunes the other parts by the name.
 */
export function seriesInPartsSql(rawTable: string): string {
  return `SELECT tenant, toString(series_id) AS series, toString(min(ts)) AS min_ts, toString(max(ts)) AS max_ts
FROM ${rawTable}
WHERE toUInt64(splitByChar('_', _part)[3]) > {block:UInt64}
GROUP BY tenant, series_id`;
}

/** Tombstones written since a checkpoint (created_at, engine clock µs). */
export const TOMBSTONES_AFTER_SQL = `SELECT tenant, toString(series_id) AS series, toString(begin_ms) AS begin_ms, toString(end_ms) AS end_ms
FROM datapoint_tombstones
WHERE created_at > {after:UInt64}`;

export const TOMBSTONES_NEWEST_SQL = 'SELECT toString(max(created_at)) AS created_at FROM datapoint_tombstones';
