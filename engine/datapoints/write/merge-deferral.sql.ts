// SQL of merge deferral (merge-deferral.ts). Table names come from families.ts only.
import { assertIdentifier } from '../../stores/columnar.ts';

export const ACTIVE_PARTS_SQL = `SELECT table, toString(count()) AS parts FROM system.parts
WHERE database = currentDatabase() AND table IN {tables:Array(String)} AND active
GROUP BY table`;

export function stopMergesSql(table: string): string {
  return `SYSTEM STOP MERGES ${assertIdentifier(table)}`;
}

export function startMergesSql(table: string): string {
  return `SYSTEM START MERGES ${assertIdentifier(table)}`;
}

/** Merges running now on the given tables. */
export const TABLE_MERGES_SQL = `SELECT toString(count()) AS merges FROM system.merges
WHERE database = currentDatabase() AND table IN {tables:Array(String)}`;
