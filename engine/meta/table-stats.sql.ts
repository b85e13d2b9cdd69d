/** Tables whose planner statistics TableStats refreshes (the allow-list of analyzeSql). */
export type AnalyzedTable = 'nodes' | 'edges';

const ANALYZE: Readonly<Record<AnalyzedTable, string>> = { nodes: 'ANALYZE nodes', edges: 'ANALYZE edges' };

/** ANALYZE of one allow-listed table. */
export function analyzeSql(table: AnalyzedTable): string {
  return ANALYZE[table];
}
