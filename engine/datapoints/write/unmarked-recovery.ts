// Crash recovery of dirty marks: an insert writes its points, then their dirty
// marks; a delete its tombstone, then its marks. A crash in between leaves a change (never
// acknowledged, but stored and visible to raw reads) that the rollups would not know about.
// A checkpoint records the highest part block number of each raw table, and the newest
// tombstone, up to which every change has its marks; at open, later parts and tombstones are
// marked dirty again. Over-marking only costs a recomputation.
import type { Logger } from '../../log.ts';
import type { ColumnarStore } from '../../stores/columnar.ts';
import { STATE_DELETE_SQL, STATE_READ_SQL, STATE_WRITE_SQL } from '../tables/datapoint-tables.sql.ts';
import { writeDirtyRanges, type DirtyRange } from './dirty-ranges.ts';
import { FAMILIES, FAMILY_SHAPES, ROLLUP_BUCKET_MS } from '../tables/families.ts';
import { MAX_BLOCKS_SQL, PARTS_AFTER_SQL, TOMBSTONES_AFTER_SQL, TOMBSTONES_NEWEST_SQL, seriesInPartsSql } from './unmarked-recovery.sql.ts';

const RAW_TABLES = FAMILIES.map((family) => FAMILY_SHAPES[family].rawTable);
const TOMBSTONE_CHECKPOINT = 'unmarked_checkpoint:datapoint_tombstones';

function checkpointName(table: string): string {
  return `unmarked_checkpoint:${table}`;
}

function floorHour(ms: number): number {
  return ms - (((ms % ROLLUP_BUCKET_MS) + ROLLUP_BUCKET_MS) % ROLLUP_BUCKET_MS);
}

async function maxBlocks(store: ColumnarStore, tables: readonly string[] = RAW_TABLES): Promise<Map<string, bigint>> {
  const rows = await store.query<{ table: string; block: string }>(MAX_BLOCKS_SQL, { tables });
  return new Map(rows.map((row) => [row.table, BigInt(row.block)]));
}

/** The highest block number among a table's active parts (0 when it has none). */
export async function highestBlock(store: ColumnarStore, table: string): Promise<bigint> {
  return (await maxBlocks(store, [table])).get(table) ?? 0n;
}

/**
 * Saves the checkpoint of every raw table, unless `stillIdle` says an insert started meanwhile
 * (its part may be committed without marks yet).
 */
export async function saveUnmarkedCheckpoint(store: ColumnarStore, stillIdle: () => boolean): Promise<void> {
  const blocks = await maxBlocks(store);
  const [newest] = await store.query<{ created_at: string }>(TOMBSTONES_NEWEST_SQL);
  if (!stillIdle()) return;
  for (const [table, block] of blocks) await store.command(STATE_WRITE_SQL, { name: checkpointName(table), value: block });
  await store.command(STATE_WRITE_SQL, { name: TOMBSTONE_CHECKPOINT, value: BigInt(newest?.created_at ?? '0') });
}

/**
 * Sets a raw table's checkpoint to `block` though it is lower (the state keeps the highest
 * value written, so the row goes first): for a table whose parts were numbered afresh, every one
 * of them marked (raw-granule-migration.ts). Stopped in between, no checkpoint is left and the
 * next open marks every part's hours dirty: more work, nothing missed.
 */
export async function restartUnmarkedCheckpoint(store: ColumnarStore, table: string, block: bigint): Promise<void> {
  await store.command(STATE_DELETE_SQL, { name: checkpointName(table) });
  await store.command(STATE_WRITE_SQL, { name: checkpointName(table), value: block });
}

/** Tombstones newer than the checkpoint: their ranges, for every family. */
async function recoverTombstones(store: ColumnarStore, log: Logger): Promise<void> {
  const [saved] = await store.query<{ value: string }>(STATE_READ_SQL, { name: TOMBSTONE_CHECKPOINT });
  const rows = await store.query<{ tenant: string; series: string; begin_ms: string; end_ms: string }>(TOMBSTONES_AFTER_SQL, { after: BigInt(saved?.value ?? '0') });
  if (rows.length === 0) return;
  await writeDirtyRanges(store, rows.map((row) => {
    const end = Number(row.end_ms);
    return { tenant: row.tenant, seriesId: Number(row.series), family: '', beginMs: floorHour(Number(row.begin_ms)), endMs: floorHour(end) === end ? end : floorHour(end) + ROLLUP_BUCKET_MS };
  }));
  log.info({ tombstones: rows.length }, 'marked the ranges of tombstones written since the last checkpoint dirty');
}

/** Marks dirty every series' hours in parts past the checkpoint, then moves the checkpoint. */
export async function recoverUnmarkedParts(store: ColumnarStore, log: Logger): Promise<void> {
  for (const family of FAMILIES) {
    const table = FAMILY_SHAPES[family].rawTable;
    const [saved] = await store.query<{ value: string }>(STATE_READ_SQL, { name: checkpointName(table) });
    const block = BigInt(saved?.value ?? '0');
    const parts = await store.query<{ name: string }>(PARTS_AFTER_SQL, { table, block });
    if (parts.length === 0) continue;
    const series = await store.query<{ tenant: string; series: string; min_ts: string; max_ts: string }>(seriesInPartsSql(table), { block });
    const ranges: DirtyRange[] = series.map((row) => ({
      tenant: row.tenant, seriesId: Number(row.series), family, beginMs: floorHour(Number(row.min_ts)), endMs: floorHour(Number(row.max_ts)) + ROLLUP_BUCKET_MS,
    }));
    await writeDirtyRanges(store, ranges);
    log.info({ table, parts: parts.length, series: ranges.length }, 'marked the hours of parts written since the last checkpoint dirty');
  }
  await recoverTombstones(store, log);
  await saveUnmarkedCheckpoint(store, () => true);
}
