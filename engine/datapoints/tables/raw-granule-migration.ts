// A data directory from before RAW_INDEX_GRANULARITY has raw tables with the engine's default
// granule, and the engine cannot change a table's granule (READONLY_SETTING). Parts keep their
// own marks, so a table with the new granule can hold the old parts as they are: at open each
// such table is replaced by one with the new granule and the same parts (hard links, nothing
// copied), and merges rewrite them at the new granule as they come. Reads are correct over
// parts of either granule.
//
// Steps, each safe to stop after: the new table is created beside the old (a leftover of an
// earlier try is dropped first) and takes the old table's parts; the dirty-mark checkpoint
// restarts at the new table's highest block (its parts are numbered afresh, and every part is
// marked by then: recovery runs first and nothing writes during open); the two tables are
// exchanged atomically; the old one is dropped. Stopped before the exchange, the old table is
// whole and the next open starts over (a checkpoint already restarted only marks more hours
// dirty than needed); after it, the next open finds the new granule and drops the leftover.
//
// Only for the embedded engine, whose directory belongs to this process: a server's raw tables
// may be written by other instances meanwhile, and a part written to the old table between
// taking its parts and the exchange would be dropped with it. A server keeps its tables' granule.
import type { Logger } from '../../log.ts';
import type { ColumnarStore } from '../../stores/columnar.ts';
import { highestBlock, restartUnmarkedCheckpoint } from '../write/unmarked-recovery.ts';
import { RAW_INDEX_GRANULARITY, rawTableDdl } from './datapoint-tables.sql.ts';
import { FAMILIES, FAMILY_SHAPES, type FamilyShape } from './families.ts';
import { CREATE_QUERY_SQL, attachPartsSql, dropTableSql, exchangeTablesSql, granularityOf } from './raw-granule-migration.sql.ts';

/** The name the new table is built under, and the old one's after the exchange. */
export function sideTable(table: string): string {
  return `${table}_regranule`;
}

/** The raw table's granule as created (the engine's default when the DDL named none). */
export async function rawGranularity(store: ColumnarStore, table: string): Promise<number> {
  const [row] = await store.query<{ query: string }>(CREATE_QUERY_SQL, { table });
  if (!row) throw new Error(`table ${table} does not exist`);
  return granularityOf(row.query);
}

/** Moves one family's raw table to RAW_INDEX_GRANULARITY if it is not there yet; a no-op after. */
export async function migrateRawGranule(store: ColumnarStore, shape: FamilyShape, log?: Logger): Promise<void> {
  const table = shape.rawTable;
  const side = sideTable(table);
  if (await rawGranularity(store, table) !== RAW_INDEX_GRANULARITY) {
    log?.info({ table, granularity: RAW_INDEX_GRANULARITY }, 'moving the raw table to a finer granule');
    await store.command(dropTableSql(side));
    await store.command(rawTableDdl(shape, side));
    await store.command(attachPartsSql(side, table));
    await restartUnmarkedCheckpoint(store, table, await highestBlock(store, side));
    await store.command(exchangeTablesSql(table, side));
  }
  await store.command(dropTableSql(side));
}

/** Moves every family's raw table still at another granule (an older data directory). */
export async function migrateRawGranules(store: ColumnarStore, log?: Logger): Promise<void> {
  if (store.kind !== 'chdb') return;
  for (const family of FAMILIES) await migrateRawGranule(store, FAMILY_SHAPES[family], log);
}
