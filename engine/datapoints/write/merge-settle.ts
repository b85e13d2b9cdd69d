// Merges that settle the raw tables once ingest goes quiet. While points come, the raw tables
// merge wide (merge_selector_base 10, datapoint-tables.sql.ts): fewer rewrites of each point,
// but a load's last parts stay apart once it ends, until enough new ones come to merge with.
// Every read of raw points merges them again on the fly (FINAL): 10,000 raw points of a
// series in six ~173,000-row parts took 22-23 ms in chdb, 9.7-10.5 ms once merged into one.
//
// Once no insert came for quietMs, a settle lowers the base to SETTLE_BASE, wakes the engine's
// merge scheduler and waits while it merges (its background merges, which keep the selector's
// rule; OPTIMIZE would not: it merges whatever range scores best, the whole table in the end),
// until no merge has run for a few polls or an insert arrives, then puts the base back.
// The selector merges a range only when its size reaches `base` times its largest part, each
// part counted with a fixed cost (5 MiB, the engine's): a settle merges the small parts a load
// left among themselves and into parts up to about 5 MiB times their count (a raw part of
// 10M points is ~14 MB), never a large settled part for a few small ones. At most one settle
// per intervalMs, and none until something was inserted since the last. Embedded engine only
// (as merge-deferral.ts): the base is this process's to change.
import { setTimeout as pause } from 'node:timers/promises';
import type { Logger } from '../../log.ts';
import type { ColumnarStore } from '../../stores/columnar.ts';
import { RAW_MERGE_SELECTOR_BASE } from '../tables/datapoint-tables.sql.ts';
import type { IngestLoad } from './ingest-load.ts';
import { activeParts } from './merge-deferral.ts';
import { TABLE_MERGES_SQL, startMergesSql } from './merge-deferral.sql.ts';
import { mergeSelectorBaseSql } from './merge-settle.sql.ts';

/** The selector base of a settle: two parts of like size merge (the engine's default is 5). */
export const SETTLE_BASE = 2;
/** Between two looks at the tables' parts and merges while they settle, ms. */
const SETTLE_POLL_MS = 100;
/** Polls with no merge running and the parts unchanged that end a settle. */
const SETTLED_POLLS = 3;

export interface MergeSettleOptions {
  /** No insert for this long, ms, and the tables settle. @default 2_000 (the bulk window) */
  quietMs?: number;
  /** Shortest time between two settles, ms. @default 60_000 */
  intervalMs?: number;
  /** Longest a settle waits for its merges, ms; merges it started run on. @default 60_000 */
  settleMaxMs?: number;
}

export class MergeSettle {
  private readonly quietMs: number;
  private readonly intervalMs: number;
  private readonly settleMaxMs: number;
  private lastSettleMs = Number.NEGATIVE_INFINITY;
  /** The load's insert count at the last settle: no settle again until it moves. */
  private settledAtInsert = 0;

  constructor(
    private readonly store: ColumnarStore, private readonly tables: readonly string[], private readonly load: IngestLoad,
    private readonly log: Logger, options: MergeSettleOptions = {},
  ) {
    this.quietMs = options.quietMs ?? 2_000;
    this.intervalMs = options.intervalMs ?? 60_000;
    this.settleMaxMs = options.settleMaxMs ?? 60_000;
  }

  /** Whether a settle is due now (the caller makes sure no insert is under way). */
  due(nowMs = performance.now()): boolean {
    return this.load.insertCount !== this.settledAtInsert && this.load.quietFor(this.quietMs, nowMs) && nowMs - this.lastSettleMs >= this.intervalMs;
  }

  /**
   * Settles the tables if due; resolves with how many parts the merges removed. Run where the
   * tables' merges are not stopped. `stopping`: the store closes, the wait ends.
   */
  async settle(nowMs = performance.now(), stopping: () => boolean = () => false): Promise<number> {
    if (!this.due(nowMs)) return 0;
    this.lastSettleMs = nowMs;
    const insertCount = (this.settledAtInsert = this.load.insertCount);
    const before = await activeParts(this.store, this.tables);
    const tables = this.tables.filter((table) => (before.get(table) ?? 0) > 1);
    if (tables.length === 0) return 0;
    const lowered: string[] = [];
    try {
      for (const table of tables) {
        await this.store.command(mergeSelectorBaseSql(table, SETTLE_BASE));
        lowered.push(table);
        await this.store.command(startMergesSql(table)); // wakes the scheduler: ~60 ms instead of up to ~800
      }
      const deadline = performance.now() + this.settleMaxMs;
      let quietPolls = 0;
      let last = '';
      while (quietPolls < SETTLED_POLLS && this.load.insertCount === insertCount && !stopping() && performance.now() < deadline) {
        await pause(SETTLE_POLL_MS);
        const parts = JSON.stringify([...(await activeParts(this.store, this.tables))]);
        const [row] = await this.store.query<{ merges: string }>(TABLE_MERGES_SQL, { tables });
        quietPolls = Number(row?.merges ?? 0) === 0 && parts === last ? quietPolls + 1 : 0;
        last = parts;
      }
    } finally {
      for (const table of lowered) await this.store.command(mergeSelectorBaseSql(table, RAW_MERGE_SELECTOR_BASE));
    }
    const after = await activeParts(this.store, this.tables);
    let removed = 0;
    for (const table of tables) removed += (before.get(table) ?? 0) - (after.get(table) ?? 0);
    if (removed > 0) this.log.debug({ tables, before: Object.fromEntries(before), after: Object.fromEntries(after) }, 'raw parts settled after ingest went quiet');
    return removed;
  }
}
