// Raw-table merges wait while a bulk load runs. A merge rewrites every point of its
// parts; during a bulk load on two cores it took ~0.18 CPU-s per million points, a fifth of
// the service's ingest CPU, and competed with the insert itself. Large group commits make few
// parts, so merging them once the load is over costs less in total than merging as they come.
// Bounds keep reads and disk use in check: a table with too many active parts merges anyway
// (down to partsResume), and past deferMaxMs of one bulk episode merges run until it ends.
// Only with the embedded engine: the state lives in this process's engine and dies with it,
// whereas a stopped merge on a shared server would outlive a crash of ours.
import type { Logger } from '../../log.ts';
import type { ColumnarStore } from '../../stores/columnar.ts';
import type { IngestLoad } from './ingest-load.ts';
import { ACTIVE_PARTS_SQL, TABLE_MERGES_SQL, startMergesSql, stopMergesSql } from './merge-deferral.sql.ts';

export interface MergeDeferralOptions {
  /** Active parts of a table past which its merges run even during a bulk load. @default 64 */
  partsMax?: number;
  /** Merges resumed for too many parts run until the table is back to this many. @default 16 */
  partsResume?: number;
  /** Longest deferral within one bulk episode, ms; then merges run until the load ends. @default 60_000 */
  deferMaxMs?: number;
}

/** Active parts of each of `tables` that has any. */
export async function activeParts(store: ColumnarStore, tables: readonly string[]): Promise<Map<string, number>> {
  const rows = await store.query<{ table: string; parts: string }>(ACTIVE_PARTS_SQL, { tables: [...tables] });
  return new Map(rows.map((row) => [row.table, Number(row.parts)]));
}

export class MergeDeferral {
  private readonly stopped = new Set<string>();
  /** Start of the current bulk episode's deferral (first stop), ms. */
  private deferringSinceMs: number | undefined;
  /** deferMaxMs passed: no more deferral until the bulk load ends. */
  private exhausted = false;
  private chain: Promise<void> = Promise.resolve();
  private readonly partsMax: number;
  private readonly partsResume: number;
  private readonly deferMaxMs: number;

  constructor(
    private readonly store: ColumnarStore, private readonly tables: readonly string[], private readonly load: IngestLoad,
    private readonly log: Logger, options: MergeDeferralOptions = {},
  ) {
    this.partsMax = options.partsMax ?? 64;
    this.partsResume = Math.min(options.partsResume ?? 16, this.partsMax);
    this.deferMaxMs = options.deferMaxMs ?? 60_000;
  }

  /**
   * Whether a raw table is still merging down the parts of a load (more than settledParts
   * active and a merge running). The fold reads its ranges with FINAL, which merges those
   * parts once more on the fly; after the merges it reads a few.
   */
  async merging(settledParts: number): Promise<boolean> {
    if (this.stopped.size > 0) return false;
    const parts = await activeParts(this.store, this.tables);
    if (![...parts.values()].some((count) => count > settledParts)) return false;
    const [row] = await this.store.query<{ merges: string }>(TABLE_MERGES_SQL, { tables: [...this.tables] });
    return Number(row?.merges ?? 0) > 0;
  }

  /** Tables whose merges are stopped now. */
  stoppedTables(): string[] {
    return [...this.stopped];
  }

  /** Brings the tables' merge state in line with the load (one update at a time; failures are logged). */
  update(nowMs = performance.now()): Promise<void> {
    this.chain = this.chain
      .then(() => this.apply(nowMs))
      .catch((error: unknown) => this.log.warn({ err: error }, 'could not change the merge state of the raw tables'));
    return this.chain;
  }

  /**
   * Runs `work`, a mutation of the raw tables (the tombstone purge's lightweight DELETE), with
   * their merges running. The engine executes mutations in its merge pool, so one issued while
   * a table's merges are stopped waits until they start, and only this chain starts them: a
   * maintenance round purging during a bulk load waited for itself (a 250,000-point insert
   * after a delete, at the 100,000 points/s bulk line, hung the store's close). Updates queued
   * meanwhile (the insert that makes a load bulk) run after it.
   */
  whileMerging<T>(work: () => Promise<T>): Promise<T> {
    const run = this.chain.then(async () => {
      await this.startAll();
      return work();
    });
    this.chain = run.then(() => undefined, () => undefined);
    return run;
  }

  /** Lets every table merge again (close, and the end of a bulk load). */
  resumeAll(): Promise<void> {
    this.chain = this.chain.then(() => this.startAll()).catch((error: unknown) => this.log.warn({ err: error }, 'could not resume merges'));
    return this.chain;
  }

  private async apply(nowMs: number): Promise<void> {
    if (!this.load.isBulk(nowMs)) {
      this.exhausted = false;
      this.deferringSinceMs = undefined;
      await this.startAll();
      return;
    }
    if (this.exhausted) return;
    if (this.deferringSinceMs !== undefined && nowMs - this.deferringSinceMs > this.deferMaxMs) {
      this.exhausted = true;
      this.log.info({ deferredMs: nowMs - this.deferringSinceMs }, 'bulk load outlasted the merge deferral; merging while it runs');
      await this.startAll();
      return;
    }
    const parts = await activeParts(this.store, this.tables);
    for (const table of this.tables) {
      const count = parts.get(table) ?? 0;
      if (this.stopped.has(table) && count > this.partsMax) await this.start(table);
      else if (!this.stopped.has(table) && count <= this.partsResume) {
        await this.store.command(stopMergesSql(table));
        this.stopped.add(table);
        this.deferringSinceMs ??= nowMs;
      }
    }
  }

  private async start(table: string): Promise<void> {
    await this.store.command(startMergesSql(table));
    this.stopped.delete(table);
  }

  private async startAll(): Promise<void> {
    for (const table of [...this.stopped]) await this.start(table);
  }
}
