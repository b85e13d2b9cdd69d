// The embedded ingest log (CONTRACT "in-process group-commit batcher: a 2xx means
// the points are stored and readable"): concurrent appends wait together and go to the store
// in one insert, so one sync serves many requests and parts come out large. Each append gets
// its own write version when it enters the log, so within a merged insert the later append
// still wins a shared timestamp. The queue is bounded in points; past it an append is refused
// with OverloadedError (503 + Retry-After) instead of growing memory. When an insert starts,
// and how much it waits to carry, is commit-gathering.ts's. Two inserts may run at once: a request parsed while an insert is being written goes into the
// next one at once instead of waiting behind it (2 senders: 1.9M -> 2.7M points/s here).
// Commit listeners (onCommitted, commit-listeners.ts) get each batch once it is durable.
import { OverloadedError, StoreUnavailableError } from '../errors.ts';
import { logger as rootLogger, type Logger } from '../log.ts';
import { assertIngestBatch, assertPackedBatch } from '../datapoints/write/datapoint-write.ts';
import type { BatchMemory, CommitListener, IngestBatch, IngestLog, ReadWindow } from './ingest-log.ts';
import { PackedBatch, type PackedRows } from '../datapoints/write/packed-batch.ts';
import { CommitListeners, PackedCommittedBatch } from './commit-listeners.ts';
import { ReadBarriers } from './read-barriers.ts';
import { CommitGathering, type GatheringQueue } from './commit-gathering.ts';
import { adoptedBatch, adoptedPacked, ownedCopy, walRecordOf, type OwnedBatch } from './owned-batch.ts';
import type { QueuedRun } from '../datapoints/types.ts';
import type { GroupCommitLogOptions, GroupCommitStats } from './group-commit-options.ts';
import type { IngestWal } from './ingest-wal.ts';

export type { GroupCommitLogOptions, GroupCommitSink, GroupCommitStats } from './group-commit-options.ts';

interface PendingAppend {
  /** Packed when acknowledged from the write-ahead log: held until inserted, it costs the heap one object. */
  batch: IngestBatch | PackedBatch;
  pointCount: number;
  /** Date.now() when it was queued. */
  queuedAtMs: number;
  resolve: () => void;
  reject: (error: Error) => void;
  /** With a WAL: its sequence there. */
  sequence?: number;
  /** With a WAL: its place in the queue's arrival order (readBarrier waits up to one). */
  index?: number;
  /** Gives the batch's memory back once inserted, or refused (the log's copy, or memory handed over). */
  release?: () => void;
}

function pointCountOf(batch: Omit<IngestBatch, 'writeVersion'>): number {
  let count = 0;
  for (const series of batch.series) count += series.timestampMs.length;
  return count;
}

export class GroupCommitLog implements IngestLog {
  private readonly queue: PendingAppend[] = [];
  private queuedPoints = 0;
  /** Points of the appends in `queue` (waiting for an insert; those being inserted left it). */
  private waitingPoints = 0;
  private readonly loops = new Set<Promise<void>>();
  private readonly gathering: CommitGathering;
  /** Loops inside an insert (the others are waiting to take appends). */
  private loopsInsertingCount = 0;
  private closed = false;
  /** With a WAL: appends acknowledged and not yet inserted, by tenant and series, and the reads waiting for them. */
  private readonly barriers = new ReadBarriers();
  /** With a WAL: the next append's queue index. */
  private nextIndex = 0;
  private failuresInARow = 0;
  private readonly log: Logger;
  private readonly committed: CommitListeners;
  private readonly counters = { appendsAccepted: 0, appendsRefused: 0, commits: 0, pointsCommitted: 0, commitFailures: 0 };

  constructor(private readonly options: GroupCommitLogOptions) {
    this.log = (options.logger ?? rootLogger).child({ module: 'group-commit' });
    this.committed = new CommitListeners(this.log);
    this.gathering = new CommitGathering(options);
  }

  /**
   * Registers a listener for every batch once it is durable, which is when its append is
   * acknowledged: with a write-ahead log once the log is synced (before the store has it:
   * await readBarrier() before reading the store), without one once inserted. A refused or
   * failed append is never passed. The listener gets a copy of its own, made only while some
   * listener is registered. Returns the unsubscribe.
   */
  onCommitted(listener: CommitListener): () => void {
    return this.committed.add(listener);
  }

  append(input: Omit<IngestBatch, 'writeVersion'>, memory?: BatchMemory): Promise<void> {
    const accepted = this.accept(input, memory);
    // Refused, empty or failing: the batch's memory is given back at once.
    if (accepted instanceof Promise) return accepted;
    memory?.release();
    return accepted.refusal ? Promise.reject(accepted.refusal) : Promise.resolve();
  }

  /**
   * Series already packed go to the write-ahead log as they are when their columns lie as its
   * record lays them out in the memory handed over (the parse workers write them so): no
   * SeriesPoints per series on the way, one part of column bytes. Otherwise unpacked, as append().
   */
  appendPacked(tenant: string, packed: PackedRows, memory?: BatchMemory): Promise<void> {
    const refusal = this.refusal(packed.pointCount);
    if (refusal) {
      memory?.release();
      return Promise.reject(refusal);
    }
    const { wal } = this.options;
    const batch = new PackedBatch({ tenant, writeVersion: this.options.nextWriteVersion(), packed });
    const owned = wal && memory ? adoptedPacked(batch, memory) : undefined;
    // append() gives the unpacked batch a write version of its own (versions may skip).
    if (!wal || !owned) return this.append({ tenant, series: batch.unpack().series }, memory);
    try {
      assertPackedBatch(batch);
    } catch (error) {
      owned.release();
      return Promise.reject(error as Error);
    }
    return this.appendLogged(wal, batch, packed.pointCount, owned);
  }

  /** Why an append of `pointCount` points is refused now, if it is: the log is closed, or its queue full. */
  private refusal(pointCount: number): Error | undefined {
    if (this.closed) return new StoreUnavailableError('The ingest log is closed (the service is stopping); retry on another instance.');
    const queuePointsMax = this.options.queuePointsMax ?? 8_000_000;
    if (pointCount > 0 && this.queuedPoints > 0 && this.queuedPoints + pointCount > queuePointsMax) {
      this.counters.appendsRefused++;
      return new OverloadedError(
        `The ingest queue holds ${this.queuedPoints} points (limit ${queuePointsMax}); retry after ${this.options.retryAfterSeconds ?? 1} s.`,
        this.options.retryAfterSeconds ?? 1,
      );
    }
    return undefined;
  }

  private accept(input: Omit<IngestBatch, 'writeVersion'>, memory: BatchMemory | undefined): Promise<void> | { refusal?: Error } {
    const pointCount = pointCountOf(input);
    const refusal = this.refusal(pointCount);
    if (refusal) return { refusal };
    if (pointCount === 0) return {};
    const batch: IngestBatch = { tenant: input.tenant, series: input.series, writeVersion: this.options.nextWriteVersion() };
    try {
      assertIngestBatch(batch);
    } catch (error) {
      return { refusal: error as Error };
    }
    if (this.options.wal) {
      // Memory handed over is kept as it is until the insert; otherwise the log copies the batch.
      const owned = memory ? adoptedBatch(batch, memory) : ownedCopy(batch, this.options.slabs);
      return this.appendLogged(this.options.wal, new PackedBatch(owned.batch), pointCount, owned);
    }
    this.counters.appendsAccepted++;
    this.queuedPoints += pointCount;
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ batch, pointCount, resolve, reject, queuedAtMs: Date.now(), ...(memory ? { release: () => memory.release() } : {}) });
      this.waitingPoints += pointCount;
      this.gathering.wake();
      this.startCommitLoop();
    });
  }

  /**
   * The batch goes to the write-ahead log; once synced there the append is acknowledged and
   * the batch (a copy, or memory handed over: the request's memory goes back with its answer)
   * queued for insert. `owned`: the log's hold on the columns; `batch` packed over the same memory.
   */
  private async appendLogged(wal: IngestWal, batch: PackedBatch, pointCount: number, owned: OwnedBatch): Promise<void> {
    this.counters.appendsAccepted++;
    this.queuedPoints += pointCount;
    // On its way: a commit may wait for it as for a request still being parsed.
    const arrived = this.expectAppend();
    let sequence: number;
    try {
      // The log's own copy: the request's memory goes back with its answer.
      sequence = await wal.append(walRecordOf(owned));
    } catch (cause) {
      this.queuedPoints -= pointCount;
      owned.release();
      arrived();
      throw new StoreUnavailableError('The ingest log could not be written; retry after a short backoff.', { cause });
    }
    const index = this.nextIndex++;
    // The log's copy, packed: reads copy queued points out of it until its insert is done (queuedForRead).
    this.barriers.added(batch, index);
    // Listeners hear of the batch at the acknowledgement, the synced log, not at the insert:
    // a 2xx means durable (CONTRACT), so a subscriber learns of points when their writer does,
    // never before, and the insert's delay is not added to every notification. The batch is
    // lent for the call: the insert may give the slab of owned.batch back after it.
    if (this.committed.active) this.committed.notify([owned.batch instanceof PackedBatch ? new PackedCommittedBatch(owned.batch) : owned.batch]);
    const noop = () => undefined;
    this.queue.push({ batch, pointCount, queuedAtMs: Date.now(), resolve: noop, reject: noop, sequence, index, release: owned.release });
    this.waitingPoints += pointCount;
    arrived();
    this.startCommitLoop();
  }

  /**
   * Resolves once the appends acknowledged before the call that a read needs are in the store:
   * a 2xx means readable (CONTRACT), so reads wait here for acknowledged points still being
   * inserted. With `seriesIds`, only for the appends holding points of those series of `tenant`
   * (a list of many series waits for the union); a read never waits for another series' queue:
   * with a gateway writing 1,000-point requests to other series of the same tenant, a 1m read
   * of a 6 h series waited for the tenant's next commit every time (median 83-91 ms, p99
   * 160-284 ms, against 13.6 ms idle). A read of series with nothing queued resolves at once.
   * Commits take the queue in arrival order, so "every append up to the newest one holding a
   * read series" is one comparison per commit: the read waits for the insert carrying that
   * append and for an insert taken before it still running, never for the queue behind it.
   * `tenant` alone waits for all of that tenant's (for a reader that cannot name its series;
   * the data point reads all can). Neither waits for every tenant's: subscription recovery
   * reads back every point above its mark, whoever wrote it.
   */
  readBarrier(tenant?: string, seriesIds?: readonly number[], windows?: readonly ReadWindow[]): Promise<void> {
    const throughIndex = this.barriers.throughIndex(tenant, seriesIds, this.nextIndex - 1, windows);
    if (throughIndex === undefined || throughIndex < this.lowestUninsertedIndex()) return Promise.resolve();
    const waited = this.barriers.wait(throughIndex, this.options.readBarrierTimeoutMs ?? 30_000);
    // A commit waiting to grow takes what is queued now: this read needs it.
    this.gathering.wake();
    return waited;
  }

  /** Every append below this queue index is inserted (or it is nextIndex: all are). */
  private lowestUninsertedIndex(): number {
    return this.barriers.lowestUninserted(this.queue[0]?.index, this.nextIndex);
  }

  /**
   * The acknowledged points of `tenant`'s series not yet inserted, within each series'
   * window, copied out of the log's memory (parallel to seriesIds; undefined where none): a
   * read on an engine that can read JS columns adds them to the store's answer instead of
   * waiting in readBarrier for their insert. Empty without a write-ahead log (an append is
   * acknowledged once inserted there).
   */
  queuedForRead(tenant: string, seriesIds: readonly number[], windows: readonly ReadWindow[]): (QueuedRun[] | undefined)[] {
    return this.barriers.queued(tenant, seriesIds, windows);
  }

  /** Gives each inserted append's memory and log record back, then resolves the reads it held. */
  private inserted(taken: readonly PendingAppend[]): void {
    for (const pending of taken) {
      if (pending.index !== undefined) this.barriers.released(pending.index);
      pending.release?.();
      if (pending.sequence !== undefined) this.options.wal?.applied(pending.sequence);
    }
    if (!this.options.wal) return; // acknowledged at the insert: no read waits for these
    const appends = taken.flatMap((pending) => (pending.index === undefined ? [] : [{ batch: pending.batch, index: pending.index }]));
    this.barriers.insertDone(appends, this.lowestUninsertedIndex());
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

  /** An append on its way (its request is being parsed): CommitGathering.expectAppend. */
  expectAppend(): () => void {
    return this.gathering.expectAppend();
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
      this.waitingPoints -= next.pointCount;
    }
    return taken;
  }

  /** The queue as the commit's wait reads it. */
  private gatheringQueue(): GatheringQueue {
    return { firstQueuedAtMs: this.queue[0]?.queuedAtMs, waitingPoints: this.waitingPoints, queuedPoints: this.queuedPoints, readsWaiting: this.barriers.waitingCount, closed: this.closed };
  }

  /**
   * A failed insert's appends went back to the front of the queue: keep it in index order
   * (two failed inserts put back in turn would not be), so its head stays the lowest index.
   */
  private commitLoopRequeued(fromIndex: number): void {
    this.barriers.insertEnded(fromIndex);
    const sorted = this.queue.every((pending, i) => i === 0 || (pending.index ?? 0) > (this.queue[i - 1]?.index ?? 0));
    if (!sorted) this.queue.sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
  }

  private async commitLoop(): Promise<void> {
    while (this.queue.length > 0) {
      await this.gathering.untilNextInsert(() => this.gatheringQueue());
      const taken = this.take();
      if (taken.length === 0) break; // another loop took them
      this.gathering.started();
      const points = taken.reduce((sum, p) => sum + p.pointCount, 0);
      // Taken from the front of a queue in index order: the first holds the insert's lowest index.
      const fromIndex = taken[0]?.index;
      if (fromIndex !== undefined) this.barriers.insertStarted(fromIndex);
      this.loopsInsertingCount++;
      let retry = false;
      try {
        await this.options.store.insertMany(taken.map((p) => p.batch));
        this.counters.commits++;
        this.counters.pointsCommitted += points;
        this.failuresInARow = 0;
        for (const pending of taken) pending.resolve();
        // Without a write-ahead log the insert is the acknowledgement: listeners hear now, while
        // the requests' memory is still theirs (their answers run after this turn).
        if (!this.options.wal && this.committed.active) this.committed.notify(taken.map((pending) => pending.batch as IngestBatch));
        if (fromIndex !== undefined) this.barriers.insertEnded(fromIndex);
        this.inserted(taken);
      } catch (cause) {
        this.counters.commitFailures++;
        if (this.options.wal && this.closed) {
          // Stopping: they stay in the log, and the next start replays them.
          // Their index stays among the running inserts': a read needing them times out rather
          // than answering without points that were acknowledged.
          this.log.error({ err: cause, appends: taken.length, points }, 'inserting acknowledged points failed while stopping; the ingest log keeps them for the next start');
          for (const pending of taken) {
            if (pending.index !== undefined) this.barriers.released(pending.index);
            pending.release?.();
          }
        } else if (this.options.wal) {
          // Acknowledged already (they are in the log): try again, with a growing pause.
          retry = true;
          this.failuresInARow++;
          this.log.error({ err: cause, appends: taken.length, points, failuresInARow: this.failuresInARow }, 'inserting acknowledged points failed; retrying');
          this.queue.unshift(...taken);
          this.waitingPoints += points;
          if (fromIndex !== undefined) this.commitLoopRequeued(fromIndex);
        } else {
          this.log.error({ err: cause, appends: taken.length, points }, 'group commit failed; its appends are refused');
          const error = new StoreUnavailableError('The columnar store did not take the points; retry after a short backoff.', { cause });
          for (const pending of taken) {
            pending.reject(error);
            pending.release?.();
          }
        }
      } finally {
        this.loopsInsertingCount--;
        if (!retry) this.queuedPoints -= points;
      }
      if (retry) await new Promise((resolve) => setTimeout(resolve, Math.min(30_000, 250 * 2 ** Math.min(this.failuresInARow, 7))));
    }
  }
}
