// SQL of loading the in-memory read contexts (read-context-index.ts) from their tables, at open
// and when the store replaces them. Maintenance across tenants, like the fold's work list: the
// rows keep their tenant, and nothing here answers a tenant's read directly.
export const DIRTY_ROWS_SQL = `SELECT tenant, toString(series_id) AS series, family, toString(begin_ms) AS begin_ms, toString(end_ms) AS end_ms
FROM datapoint_dirty
GROUP BY tenant, series_id, family, begin_ms, end_ms`;

export const TOMBSTONE_ROWS_SQL = `SELECT tenant, toString(series_id) AS series, toString(begin_ms) AS begin_ms, toString(end_ms) AS end_ms,
  toString(version) AS version
FROM datapoint_tombstones
GROUP BY tenant, series_id, begin_ms, end_ms, version`;
