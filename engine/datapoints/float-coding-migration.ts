// A data directory from before the decimal coding of FLOAT values (issue 11, families.ts) has a
// raw FLOAT table with the doubles stored in `value`. At open it is moved to the coding in
// steps, each found again from the table's columns, so a crash between two steps resumes at
// the next: the coded columns are added with defaults computed from the doubles, written into
// every part (a mutation), their defaults removed, and `value` replaced by the alias that
// decodes them. Values read the same before and after; nothing else changes.
import type { Logger } from '../log.ts';
import type { ColumnarStore } from '../stores/columnar.ts';
import {
  ADD_CODED_COLUMNS_SQL, ADD_VALUE_ALIAS_SQL, DROP_STORED_VALUE_SQL, FLOAT_VALUE_COLUMNS_SQL, MATERIALIZE_CODED_COLUMNS_SQL,
  REMOVE_CODED_DEFAULTS_SQL,
} from './float-coding-migration.sql.ts';

/** Moves the raw FLOAT table to the decimal coding if it is not there yet; a no-op after. */
export async function migrateFloatCoding(store: ColumnarStore, log?: Logger): Promise<void> {
  const kinds = async () => new Map((await store.query<{ name: string; kind: string }>(FLOAT_VALUE_COLUMNS_SQL)).map((c) => [c.name, c.kind]));
  let columns = await kinds();
  if (columns.get('value') === 'ALIAS') return;
  log?.info('moving FLOAT data points to the decimal coding');
  // Not yet written into every part while value_m is missing or still computed from `value`.
  if (columns.get('value') === '' && columns.get('value_m') !== '') {
    await store.command(ADD_CODED_COLUMNS_SQL);
    await store.command(MATERIALIZE_CODED_COLUMNS_SQL);
    columns = await kinds();
  }
  if (columns.get('value_m') === 'DEFAULT' || columns.get('value_e') === 'DEFAULT') await store.command(REMOVE_CODED_DEFAULTS_SQL);
  await store.command(DROP_STORED_VALUE_SQL);
  await store.command(ADD_VALUE_ALIAS_SQL);
  log?.info('FLOAT data points moved to the decimal coding');
}
