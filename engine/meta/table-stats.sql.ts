/** Tables whose planner statistics TableStats refreshes (the allow-list of the statements below). */
export type AnalyzedTable = 'nodes' | 'edges' | 'events';

const TABLE_NAMES: Readonly<Record<AnalyzedTable, string>> = { nodes: 'nodes', edges: 'edges', events: 'events' };

/** ANALYZE of one allow-listed table. */
export function analyzeSql(table: AnalyzedTable): string {
  return `ANALYZE ${TABLE_NAMES[table]}`;
}

/**
 * Moves the pending lists of the table's GIN indexes (fastupdate) into the indexes. Rows
 * written in bulk wait in a pending list, up to gin_pending_list_limit (4 MB), until a vacuum;
 * every search of the index reads that list whole meanwhile. After the bench graph's load a
 * metadata filter page took 41 ms until autovacuum came by, 20 after.
 */
export function cleanGinPendingSql(table: AnalyzedTable): string {
  return `SELECT gin_clean_pending_list(c.oid) FROM pg_index i
  JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
 WHERE i.indrelid = '${TABLE_NAMES[table]}'::regclass AND a.amname = 'gin'`;
}
