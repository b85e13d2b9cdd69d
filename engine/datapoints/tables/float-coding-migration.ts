// A data directory from before the decimal coding of FLOAT values (decimal-coding.ts) has
// its FLOAT doubles stored as Float64: `value` in the raw table, the sums, extremes and last
// values in the minute and hour rollups. At open each such column is moved to the coding in
// steps, each found again from the table's columns, so a crash between two steps resumes at
// the next: the coded parts are added with defaults computed from the doubles, written into
// every part (a mutation), their defaults removed, and the column replaced by the alias that
// decodes them. Values read the same before and after; nothing else changes.
import type { Logger } from '../../log.ts';
import type { ColumnarStore } from '../../stores/columnar.ts';
import { FAMILY_SHAPES } from './families.ts';
import {
  CODED_COLUMN_KINDS_SQL, addAliasSql, addCodedColumnsSql, codedColumnNames, dropStoredColumnSql, materializeCodedColumnsSql,
  removeCodedDefaultsSql,
} from './float-coding-migration.sql.ts';

/** Every [table, column] FLOAT stores decimally. */
export function codedColumns(): [table: string, column: string][] {
  const shape = FAMILY_SHAPES.float;
  return [
    ...shape.codedRawColumns.map((column): [string, string] => [shape.rawTable, column]),
    ...[shape.minuteTable, shape.rollupTable].flatMap((table) => shape.codedRollupColumns.map((column): [string, string] => [table, column])),
  ];
}

/** Moves one Float64 column to the decimal coding if it is not there yet; a no-op after. */
export async function migrateCodedColumn(store: ColumnarStore, table: string, column: string, log?: Logger): Promise<void> {
  const kinds = async () => new Map((await store.query<{ name: string; kind: string }>(CODED_COLUMN_KINDS_SQL, { table, names: codedColumnNames(column) }))
    .map((c) => [c.name, c.kind]));
  let columns = await kinds();
  if (columns.get(column) === 'ALIAS') return;
  log?.info({ table, column }, 'moving FLOAT values to the decimal coding');
  // Not yet written into every part while the mantissa is missing or still computed from the double.
  if (columns.get(column) === '' && columns.get(`${column}_m`) !== '') {
    await store.command(addCodedColumnsSql(table, column));
    await store.command(materializeCodedColumnsSql(table, column));
    columns = await kinds();
  }
  if (columns.get(`${column}_m`) === 'DEFAULT' || columns.get(`${column}_e`) === 'DEFAULT') await store.command(removeCodedDefaultsSql(table, column));
  await store.command(dropStoredColumnSql(table, column));
  await store.command(addAliasSql(table, column));
}

/** Moves every FLOAT column still stored as doubles (an older data directory) to the coding. */
export async function migrateFloatCoding(store: ColumnarStore, log?: Logger): Promise<void> {
  for (const [table, column] of codedColumns()) await migrateCodedColumn(store, table, column, log);
}
