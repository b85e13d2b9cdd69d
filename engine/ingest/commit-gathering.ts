// When the group commit's next insert starts (group-commit.ts): how long it waits to carry
// more. Requests still being parsed announce themselves (expectAppend), and a commit waits a
// moment for them: each insert costs a fixed ~10-25 ms of engine CPU (parts, marks), so two
// senders' requests alternating one per insert paid it twice as often as needed (ingest CPU).
// With a write-ahead log an insert also gathers a minimum of points (loggedInsertPointsMin)
// within that wait: a steady stream announces nothing ahead, and went in inserts of a request
// or two each. A read that needs the queued appends ends the wait at once (wake).
import type { GroupCommitLogOptions } from './group-commit-options.ts';

/** GroupCommitLogOptions.loggedInsertPointsMin's default (the option says why). */
const LOGGED_INSERT_POINTS_MIN = 150_000;

/** The log's queue as the wait sees it, read afresh at every look. */
export interface GatheringQueue {
  /** Date.now() when the oldest queued append arrived; undefined when nothing is queued. */
  firstQueuedAtMs: number | undefined;
  /** Points queued and not taken by an insert. */
  waitingPoints: number;
  /** Points accepted and not yet durable (taken ones included). */
  queuedPoints: number;
  /** Reads waiting on the log's read barrier. */
  readsWaiting: number;
  closed: boolean;
}

export class CommitGathering {
  private expectedAppends = 0;
  private readonly waiting = new Set<() => void>();
  private lastStartMs = 0;

  constructor(private readonly options: GroupCommitLogOptions) {}

  /**
   * Announces an append that is on its way (its request is being parsed); call the returned
   * function once it is appended or abandoned (extra calls do nothing). A commit waits up to
   * expectedWaitMaxMs for announced appends so they share its insert.
   */
  expectAppend(): () => void {
    this.expectedAppends++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.expectedAppends--;
      this.wake();
    };
  }

  /** A waiting commit looks at the queue again now (an append arrived, or a read needs it). */
  wake(): void {
    for (const wake of this.waiting) wake();
    this.waiting.clear();
  }

  /** Marks an insert's start (the least interval to the next counts from here). */
  started(): void {
    this.lastStartMs = Date.now();
  }

  /**
   * Resolves when the next insert may take the queue: commitIntervalMinMs after the last start
   * (under light load the next insert then carries more than one request), then, while appends
   * are announced (or, with a write-ahead log, fewer than loggedInsertPointsMin points wait),
   * the insert has room and no read waits, up to the wait's bound from the oldest append.
   */
  async untilNextInsert(queue: () => GatheringQueue): Promise<void> {
    const intervalMs = this.lastStartMs + (this.options.commitIntervalMinMs ?? 10) - Date.now();
    if (intervalMs > 0) await new Promise((resolve) => setTimeout(resolve, intervalMs));
    const firstQueuedAtMs = queue().firstQueuedAtMs;
    if (firstQueuedAtMs === undefined) return;
    const logged = this.options.wal !== undefined;
    const waitMaxMs = logged ? (this.options.loggedWaitMaxMs ?? 500) : (this.options.expectedWaitMaxMs ?? 150);
    const gatherPoints = logged ? (this.options.loggedInsertPointsMin ?? LOGGED_INSERT_POINTS_MIN) : 0;
    const deadline = firstQueuedAtMs + waitMaxMs;
    const commitPointsMax = this.options.commitPointsMax ?? 2_000_000;
    for (let now = queue(); (this.expectedAppends > 0 || now.waitingPoints < gatherPoints) && now.queuedPoints < commitPointsMax && now.readsWaiting === 0 && !now.closed; now = queue()) {
      const waitMs = deadline - Date.now();
      if (waitMs <= 0) return;
      let timer: NodeJS.Timeout | undefined;
      let wakeThis: (() => void) | undefined;
      await new Promise<void>((resolve) => {
        wakeThis = resolve;
        this.waiting.add(resolve);
        timer = setTimeout(resolve, waitMs);
      });
      clearTimeout(timer);
      if (wakeThis) this.waiting.delete(wakeThis);
    }
  }
}
