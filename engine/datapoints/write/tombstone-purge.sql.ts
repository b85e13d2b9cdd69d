// SQL of the physical purge of deleted points (tombstone-purge.ts). Maintenance across
// tenants: each OR-ed condition names its tenant; retention is the only tenant-wide sweep.
export const PENDING_TOMBSTONES_SQL = `SELECT tenant, toString(series_id) AS series, toString(begin_ms) AS begin_ms, toString(end_ms) AS end_ms,
  toString(version) AS version
FROM datapoint_tombstones FINAL
WHERE purged = 0
ORDER BY created_at
LIMIT {limit:UInt32}`;

/** Removes the dead rows of a raw table (lightweight DELETE: masked at once, dropped on merge). */
export function purgeRawSql(rawTable: string, coveredPoints: string): string {
  return `DELETE FROM ${rawTable} WHERE ${coveredPoints}`;
}

/** Rows of deleted series in a rollup, latest or dirty table. */
export function purgeSeriesRowsSql(table: string, seriesList: string): string {
  return `DELETE FROM ${table} WHERE ${seriesList}`;
}

export function markPurgedSql(tombstones: string): string {
  return `INSERT INTO datapoint_tombstones (tenant, series_id, begin_ms, end_ms, version, created_at, purged)
SELECT tenant, series_id, begin_ms, end_ms, version, created_at, 1 FROM datapoint_tombstones FINAL
WHERE (${tombstones}) AND purged = 0`;
}

export const EXPIRED_TOMBSTONES_SQL = 'SELECT count() AS expired FROM datapoint_tombstones WHERE purged = 1 AND created_at < {cutoff:UInt64}';
export const DROP_EXPIRED_TOMBSTONES_SQL = 'DELETE FROM datapoint_tombstones WHERE purged = 1 AND created_at < {cutoff:UInt64}';
