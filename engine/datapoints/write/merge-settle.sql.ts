// SQL of the settling merges (merge-settle.ts); they also read merge-deferral.sql.ts's parts
// and merges. Table names come from families.ts only.
import { assertIdentifier } from '../../stores/columnar.ts';

/** The table's merge selector base (a table setting, metadata only). */
export function mergeSelectorBaseSql(table: string, base: number): string {
  if (!(Number.isFinite(base) && base > 1)) throw new Error(`not a merge selector base: ${base}`);
  return `ALTER TABLE ${assertIdentifier(table)} MODIFY SETTING merge_selector_base = ${base}`;
}
