// SQL of the move of older raw tables to RAW_INDEX_GRANULARITY (raw-granule-migration.ts).
import { assertIdentifier } from '../../stores/columnar.ts';

/** The table's CREATE statement as the engine keeps it (its SETTINGS name the granule when set). */
export const CREATE_QUERY_SQL = `SELECT create_table_query AS query FROM system.tables
WHERE database = currentDatabase() AND name = {table:String}`;

/** The engine's granule for a table created without the setting. */
export const ENGINE_DEFAULT_GRANULARITY = 8192;

/** The granule a CREATE statement names, or the engine's default. */
export function granularityOf(createQuery: string): number {
  const match = /\bindex_granularity = (\d+)/.exec(createQuery);
  return match ? Number(match[1]) : ENGINE_DEFAULT_GRANULARITY;
}

export function dropTableSql(table: string): string {
  return `DROP TABLE IF EXISTS ${assertIdentifier(table)} SYNC`;
}

/** Every part of `from` into `to`, as hard links: no data is copied and `from` keeps its parts. */
export function attachPartsSql(to: string, from: string): string {
  return `ALTER TABLE ${assertIdentifier(to)} ATTACH PARTITION tuple() FROM ${assertIdentifier(from)}`;
}

/** Atomic: readers and the next open see one table or the other under each name, never neither. */
export function exchangeTablesSql(a: string, b: string): string {
  return `EXCHANGE TABLES ${assertIdentifier(a)} AND ${assertIdentifier(b)}`;
}
