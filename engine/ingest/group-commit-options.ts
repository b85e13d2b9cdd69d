// The group commit's settings and counters (group-commit.ts): where it writes, how large and
// how patient its inserts are, and the write-ahead log that acknowledges appends before them.
import type { Logger } from '../log.ts';
import type { PackedBatch } from '../datapoints/write/packed-batch.ts';
import type { SlabPool } from '../memory/slab-pool.ts';
import type { IngestBatch } from './ingest-log.ts';
import type { IngestWal } from './ingest-wal.ts';

/** What the log writes into; resolves once every batch is durable. */
export interface GroupCommitSink {
  /** With a write-ahead log the batches come packed (packed-batch.ts), without one as appended. */
  insertMany(batches: readonly (IngestBatch | PackedBatch)[]): Promise<void>;
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
   * With `wal`: the same wait, while no read waits on readBarrier. Appends are acknowledged
   * from the log then, so a longer wait delays only the freshness of reads nobody is making,
   * and each insert carries more: fewer parts for the engine to merge and its fixed cost
   * (~10-25 ms of engine CPU) paid less often. A read that needs the queued appends ends
   * the wait at once. @default 500
   */
  loggedWaitMaxMs?: number;
  /**
   * With `wal`: points an insert gathers before it starts, within the same wait (loggedWaitMaxMs,
   * ended by a read on readBarrier). A steady stream of requests, each parsed before the next
   * arrives, announces none ahead: without it every request or two went in an insert of its own
   * and the engine's fixed cost a part dominated. One tenant's gateway paced at 250,000 points/s
   * with a live chart (bench/probe.ts gateway --one-tenant --rate 250000 --live, 2026-12-01):
   * 6.1 -> 3.45 CPU-s per million points, ack median 15.9 -> 3.5 ms, the chart's p99 273 -> 85
   * ms (fewer parts to read under FINAL); at 50,000 points/s 32 -> 10.6 CPU-s per million. Flat
   * out, inserts gather more than this anyway (681k against 664k points/s, the same CPU).
   * @default 150_000
   */
  loggedInsertPointsMin?: number;
  /**
   * Inserts running at once. A second insert overlaps the first's fsync and uses the other
   * core, so a request parsed while an insert runs need not wait for it. @default 2
   */
  concurrentCommitsMax?: number;
  /** Retry-After of a refused append, seconds. @default 1 */
  retryAfterSeconds?: number;
  /**
   * Acknowledge appends once they are in this write-ahead log, and insert in the background
   * (readBarrier makes reads wait for them). Without it an append is acknowledged after its insert.
   */
  wal?: IngestWal;
  /** Memory for the log's copies of acknowledged batches (with `wal`). */
  slabs?: SlabPool;
  /** Longest readBarrier waits, ms. @default 30_000 */
  readBarrierTimeoutMs?: number;
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
