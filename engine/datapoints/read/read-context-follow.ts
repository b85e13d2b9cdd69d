// How the read state held in memory follows the store's writes and folds: the
// read-context index (dirty ranges, tombstones) and the kept results of read-context-cache.ts.
// A write marks its ranges in memory before any row is written and settles them after; the
// fold's clock records which writes had settled (the MarkOrderGate calls onClock), and its
// report then removes exactly what it recomputed. A failed write or fold leaves the state
// stale: it is replaced from the tables before the next fold. With a ClickHouse server there
// is no state in memory (other processes write) and every method does nothing.
import type { Logger } from '../../log.ts';
import type { ColumnarStore } from '../../stores/columnar.ts';
import { warmMinuteDays } from './minute-days.ts';
import type { DirtyRange } from '../write/dirty-ranges.ts';
import type { PackedBatch } from '../write/packed-batch.ts';
import type { ReadContextCache } from './read-context-cache.ts';
import { readContextRows, type IndexClock, type TombstoneMark } from './read-context-index.ts';
import type { FoldReport } from '../rollups/rollup-fold.ts';

export class ReadContextFollower {
  /** Which writes had settled when the running fold read its clock. */
  private foldClock: IndexClock | undefined;
  /** A write or fold failed: replace the read contexts from the tables before the next fold. */
  private stale = false;

  /**
   * `quiet`: whether ingest has gone quiet (no insert for a while), when a fold's minute days
   * may take the whole memory kept for them (datapoint-aggregate.ts warmMinuteDays).
   */
  constructor(
    private readonly columnar: ColumnarStore, readonly contexts: ReadContextCache | undefined, private readonly log: Logger,
    private readonly quiet: () => boolean = () => false,
  ) {}

  /**
   * Runs a write of these series' rows, its dirty ranges and tombstones held in memory from
   * before its first row. `points`: the batches an insert writes, handed to the live points
   * (live-points.ts) once their rows are in; a delete (tombstones) drops its series from them.
   */
  async write(
    series: readonly (readonly [tenant: string, seriesId: number])[], dirty: readonly DirtyRange[], tombstones: readonly TombstoneMark[], run: () => Promise<void>,
    points?: readonly PackedBatch[],
  ): Promise<void> {
    const contexts = this.contexts;
    if (!contexts) return run();
    const seq = contexts.index.begin(dirty, tombstones);
    contexts.writeStarted(series);
    const deleting = tombstones.length > 0;
    if (deleting) contexts.live.deleteStarted(tombstones.map((t) => [t.tenant, t.seriesId] as const));
    try {
      await run();
      if (points) contexts.live.written(points);
    } catch (error) {
      this.stale = true;
      // Some of its rows may be in the store: the live points no longer know what is.
      contexts.live.clear();
      throw error;
    } finally {
      if (deleting) contexts.live.deleteEnded();
      contexts.index.settle(seq);
      contexts.writeEnded(series);
    }
  }

  /** The MarkOrderGate's hook: no write is running, the fold reads its clock now. */
  onClock(): void {
    this.foldClock = this.contexts?.index.clock();
  }

  /** Runs one fold, then drops from memory what it recomputed (read-context-index.ts applyFold). */
  async fold(run: () => Promise<FoldReport>): Promise<FoldReport> {
    const contexts = this.contexts;
    if (this.stale) await this.reload();
    this.foldClock = undefined;
    let report: FoldReport;
    try {
      report = await run();
    } catch (error) {
      // Some marks may be gone from the table: their ranges would stay dirty in memory for ever.
      this.stale = contexts !== undefined;
      throw error;
    }
    const clock = this.foldClock;
    this.foldClock = undefined;
    if (!contexts) return report;
    if (clock === undefined || report.folded === undefined) {
      await this.reload();
      return report;
    }
    // Held minute days drop what the fold recomputed before its ranges turn clean (read-context-cache.ts).
    for (const mark of report.folded) contexts.foldedMinutes(mark.tenant, mark.seriesId, mark.beginMs, mark.endMs);
    contexts.changed(contexts.index.applyFold(clock, report.folded, report.remarked ?? []));
    // After the report: a day fetched now is kept unless a later fold reports one of its minutes.
    await warmMinuteDays(this.columnar, contexts, report.folded, { quiet: this.quiet() })
      .catch((error: unknown) => this.log.warn({ err: error }, 'could not fetch the folded minute days into memory'));
    return report;
  }

  /** The purge removed rows of these series; `rowsRemoved`: tombstones the index holds went too. */
  async purged(series: Iterable<readonly [tenant: string, seriesId: number]>, rowsRemoved: boolean): Promise<void> {
    this.contexts?.changed(series);
    if (rowsRemoved) await this.reload();
  }

  /**
   * Replaces the settled read contexts with the tables' rows (read-context-index.ts, replace):
   * at open, and after a failed write or fold or rows removed by the purge. Never beside a fold.
   */
  async reload(): Promise<void> {
    const contexts = this.contexts;
    if (!contexts) return;
    this.stale = false;
    const clock = contexts.index.clock();
    try {
      const rows = await readContextRows(this.columnar);
      contexts.index.replace(clock, rows.dirty, rows.tombstones);
      contexts.clearResults();
    } catch (error) {
      this.stale = true;
      throw error;
    }
    const { items, complete } = contexts.index.size;
    if (!complete) this.log.warn({ items }, 'read contexts past their memory bound: series not held read their context from the tables');
  }
}
