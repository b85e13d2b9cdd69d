// What /metrics reads of the data point store (engine/metrics.ts): the fold's backlog, the
// engine's merges, the raw tables' parts. Each a statement on the columnar store.
import type { ColumnarStore } from '../stores/columnar.ts';
import { DIRTY_BACKLOG_SQL, MERGES_RUNNING_SQL } from './rollups/rollup-fold.sql.ts';
import { FAMILIES, FAMILY_SHAPES } from './tables/families.ts';
import { activeParts } from './write/merge-deferral.ts';

/** Dirty ranges the fold has not recomputed yet (0: every rollup and latest point is current). */
export async function rollupBacklog(columnar: ColumnarStore): Promise<number> {
  const [row] = await columnar.query<{ ranges: string }>(DIRTY_BACKLOG_SQL);
  return Number(row?.ranges ?? 0);
}

/** Part merges the engine is running now (background work after a bulk load). */
export async function mergesRunning(columnar: ColumnarStore): Promise<number> {
  const [row] = await columnar.query<{ merges: string }>(MERGES_RUNNING_SQL);
  return Number(row?.merges ?? 0);
}

/** Active parts of the raw tables (each raw read merges a series' rows across them). */
export async function rawParts(columnar: ColumnarStore): Promise<number> {
  let sum = 0;
  for (const parts of (await activeParts(columnar, FAMILIES.map((family) => FAMILY_SHAPES[family].rawTable))).values()) sum += parts;
  return sum;
}
