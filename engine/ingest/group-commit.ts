// The embedded ingest log (issue 3, CONTRACT "in-process group-commit batcher: a 2xx means
// the points are stored and readable"): concurrent appends wait together and go to the store
// in one insert, so one sync serves many requests and parts come out large. Each append gets
// its own write version when it enters the log, so within a merged insert the later append
// still wins a shared timestamp. The queue is bounded in points; past it an append is refused
// with OverloadedError (503 + Retry-After) instead of growing memory. Requests still being
// parsed announce themselves (expectAppend), and a commit waits a moment for them: each
// insert costs a fixed ~10-25 ms of engine CPU (parts, marks), so two senders' requests
// alternating one per insert paid it twice as often as needed (issue 3, ingest CPU). Two
// inserts may run at once: a request parsed while an insert is being written goes into the
// next one at once instead of waiting behind it (2 senders: 1.9M -> 2.7M points/s here).
import { OverloadedError, StoreUnavailableError } from '../errors.ts';
import { logger as rootLogger, type Logger } from '../log.ts';
import { assertIngestBatch } from '../datapoints/datapoint-write.ts';
import type { IngestBatch, IngestLog } from '../datapoints/types.ts';

/** What the log writes into; resolves once every batch is durable. */
export interface GroupCommitSink {
  insertMany(batches: readonly IngestBatch[]): Promise<void>;
}

export interface GroupCommitLogOptions {
  store: GroupCommitSink;
  /** Source of write versions (WriteVersionClock.next of the store the deletes use too). */
  nextWriteVersion: () => bigint;
  /** Points accepted and not yet durable, at most; an append past it is refused. @default 8_000_000 */
  queuePointsMax?: number;
  /** Points per insert, at most (one larger append goes alone). @default 2_000_000 */
  commitPointsMax?: number;
  /** Least time between the starts of two inserts, so light load also makes few parts. @default 10 */
  commitIntervalMinMs?: number;
  /**
   * Longest a commit waits, from its first queued append, for appends announced with
   * expectAppend (requests being parsed) to arrive and join it. 0: never wait. @default 150
   */
  expectedWaitMaxMs?: number;
  /**
   * Inserts running at once. A second insert overlaps the first's fsync and uses the other
   * core, so a request parsed while an insert runs need not wait for it. @default 2
   */
  concurrentCommitsMax?: number;
  /** Retry-After of a refused append, seconds. @default 1 */
  retryAfterSeconds?: number;
  logger?: Logger;
}

export interface GroupCommitStats {
  appendsAccepted: number;
  appendsRefused: number;
  commits: number;
  pointsCommitted: number;
  commitFailures: number;
  queuedPoints: number;
}

interface PendingAppend {
  batch: IngestBatch;
  pointCount: number;
  /** Date.now() when it was queued. */
  queuedAtMs: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

function pointCountOf(batch: Omit<IngestBatch, 'writeVersion'>): number {
  let count = 0;
  for (const series of batch.series) count += series.timestampMs.length;
  return count;
}

export class GroupCommitLog implements IngestLog {
  private readonly queue: PendingAppend[] = [];
  private queuedPoints = 0;
  private readonly loops = new Set<Promise<void>>();
  private lastCommitStartMs = 0;
  /** Appends announced by expectAppend and not yet made (or abandoned). */
  private expectedAppends = 0;
  /** Wake commits waiting for expected appends. */
  private readonly wakeCommits = new Set<() => void>();
  /** Loops inside an insert (the others are waiting to take appends). */
  private loopsInsertingCount = 0;
  private closed = false;
  private readonly log: Logger;
  private readonly counters = { appendsAccepted: 0, appendsRefused: 0, commits: 0, pointsCommitted: 0, commitFailures: 0 };

  constructor(private readonly options: GroupCommitLogOptions) {
    this.log = (options.logger ?? rootLogger).child({ module: 'group-commit' });
  }

  append(input: Omit<IngestBatch, 'writeVersion'>): Promise<void> {
    if (this.closed) return Promise.reject(new StoreUnavailableError('The ingest log is closed (the service is stopping); retry on another instance.'));
    const pointCount = pointCountOf(input);
    if (pointCount === 0) return Promise.resolve();
    const queuePointsMax = this.options.queuePointsMax ?? 8_000_000;
    if (this.queuedPoints > 0 && this.queuedPoints + pointCount > queuePointsMax) {
      this.counters.appendsRefused++;
      return Promise.reject(new OverloadedError(
        `The ingest queue holds ${this.queuedPoints} points (limit ${queuePointsMax}); retry after ${this.options.retryAfterSeconds ?? 1} s.`,
        this.options.retryAfterSeconds ?? 1,
      ));
    }
    const batch: IngestBatch = { tenant: input.tenant, series: input.series, writeVersion: this.options.nextWriteVersion() };
    try {
      assertIngestBatch(batch);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    this.counters.appendsAccepted++;
    this.queuedPoints += pointCount;
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ batch, pointCount, resolve, reject, queuedAtMs: Date.now() });
      this.wake();
      this.startCommitLoop();
    });
  }

  /**
   * Up to concurrentCommitsMax commit loops; an append that came in as a loop was ending starts
   * the next. Loops take appends in arrival order; the write version, not the order in which
   * inserts finish, decides between points at one timestamp.
   */
  private startCommitLoop(): void {
    if (this.loops.size >= Math.max(1, this.options.concurrentCommitsMax ?? 2)) return;
    // A loop already waiting for its first insert takes this append too.
    if (this.loops.size > this.loopsInsertingCount) return;
    const loop: Promise<void> = this.commitLoop().finally(() => {
      this.loops.delete(loop);
      if (this.queue.length > 0) this.startCommitLoop();
    });
    this.loops.add(loop);
  }

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

  private wake(): void {
    for (const wake of this.wakeCommits) wake();
    this.wakeCommits.clear();
  }

  stats(): GroupCommitStats {
    return { ...this.counters, queuedPoints: this.queuedPoints };
  }

  /** Refuses new appends and waits for the queued ones to be committed. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.loops.size > 0) await Promise.all(this.loops);
  }

  /** Takes appends in arrival order up to commitPointsMax (at least one). */
  private take(): PendingAppend[] {
    const commitPointsMax = this.options.commitPointsMax ?? 2_000_000;
    const taken: PendingAppend[] = [];
    let points = 0;
    while (this.queue.length > 0) {
      const next = this.queue[0] as PendingAppend;
      if (taken.length > 0 && points + next.pointCount > commitPointsMax) break;
      taken.push(this.queue.shift() as PendingAppend);
      points += next.pointCount;
    }
    return taken;
  }

  /** While appends are announced and the next insert has room, waits for them (bounded). */
  private async commitLoopAwaitExpected(): Promise<void> {
    const first = this.queue[0];
    if (!first) return;
    const deadline = first.queuedAtMs + (this.options.expectedWaitMaxMs ?? 150);
    const commitPointsMax = this.options.commitPointsMax ?? 2_000_000;
    while (this.expectedAppends > 0 && this.queuedPoints < commitPointsMax && !this.closed) {
      const waitMs = deadline - Date.now();
      if (waitMs <= 0) return;
      let timer: NodeJS.Timeout | undefined;
      let wakeThis: (() => void) | undefined;
      await new Promise<void>((resolve) => {
        wakeThis = resolve;
        this.wakeCommits.add(resolve);
        timer = setTimeout(resolve, waitMs);
      });
      clearTimeout(timer);
      if (wakeThis) this.wakeCommits.delete(wakeThis);
    }
  }

  private async commitLoop(): Promise<void> {
    while (this.queue.length > 0) {
      // Under light load, wait a moment so the next insert carries more than one request.
      const waitMs = this.lastCommitStartMs + (this.options.commitIntervalMinMs ?? 10) - Date.now();
      if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
      await this.commitLoopAwaitExpected();
      const taken = this.take();
      if (taken.length === 0) break; // another loop took them
      this.lastCommitStartMs = Date.now();
      const points = taken.reduce((sum, p) => sum + p.pointCount, 0);
      this.loopsInsertingCount++;
      try {
        await this.options.store.insertMany(taken.map((p) => p.batch));
        this.counters.commits++;
        this.counters.pointsCommitted += points;
        for (const pending of taken) pending.resolve();
      } catch (cause) {
        this.counters.commitFailures++;
        this.log.error({ err: cause, appends: taken.length, points }, 'group commit failed; its appends are refused');
        const error = new StoreUnavailableError('The columnar store did not take the points; retry after a short backoff.', { cause });
        for (const pending of taken) pending.reject(error);
      } finally {
        this.loopsInsertingCount--;
        this.queuedPoints -= points;
      }
    }
  }
}
