// The ingest log's own types: the batch it takes, the log itself (group commit or Kafka), and
// what its commit listeners get once a batch is durable. The points' shapes are
// engine/datapoints/types.ts.
import type { PackedRows, QueuedRun, SeriesPoints } from '../datapoints/types.ts';

/** The time a read covers, [start, end) in epoch ms (±Infinity when open): a read barrier waits only for points within it. */
export interface ReadWindow {
  start: number;
  end: number;
}

/** A batch of one tenant's points as handed to the ingest log. */
export interface IngestBatch {
  tenant: string;
  series: SeriesPoints[];
  /**
   * Monotonic write version (assigned once when the batch enters the log). The store keeps
   * the point with the highest version per (tenant, series, timestamp), and a delete records
   * the version it was issued at, so replaying a batch can neither duplicate a point nor
   * bring back a deleted one (the write-ahead log's replay, or a Kafka consumer re-reading).
   */
  writeVersion: bigint;
}

/**
 * A batch the ingest log has made durable, as its commit listeners get it (the
 * post-commit hook the subscriptions stand on). Every listener of a commit gets the same object,
 * lent for the call only: its columns may lie in a request's body or a slab that is reused once
 * the call returns. A listener that keeps points past the call keeps `copyCommitted(batch)`
 * (commit-listeners.ts), and only for the tenants and series it wants: most batches interest
 * no listener, and copying each (hundreds of small arrays per gateway request) was the main
 * thread's largest single cost on the ingest path. Nobody may modify it.
 */
export interface CommittedBatch {
  readonly tenant: string;
  /** The write version the batch was stored with (a later version wins a shared timestamp). */
  readonly writeVersion: bigint;
  readonly series: readonly Readonly<SeriesPoints>[];
}

/**
 * Called once per committed batch, synchronously on the commit path: keep it short and move
 * slow work elsewhere (with a copy of what it needs: the batch is lent for the call only). A
 * throw (or a rejected promise) is logged and never fails the commit.
 */
export type CommitListener = (batch: CommittedBatch) => void | Promise<void>;

/** Memory a batch's columns lie in, handed to the log with it (a slab of slab-pool.ts). */
export interface BatchMemory {
  release(): void;
}

/**
 * The ingest log: in the embedded default a group-commit batcher in front of the store,
 * with KAFKA_BROKERS a Kafka producer. append() resolves only once the batch is durable
 * (CONTRACT: a 2xx means stored, or acked by Kafka with acks=all).
 */
export interface IngestLog {
  /**
   * Without `memory` the batch's columns are the caller's again once append settles, and the
   * log copies what it keeps. With it they are the log's: it releases `memory` once it no
   * longer reads them (on every path, refusals included), and the caller must not.
   */
  append(batch: Omit<IngestBatch, 'writeVersion'>, memory?: BatchMemory): Promise<void>;
  /**
   * Optional: append() of series already packed (packed-batch.ts; every one with points, no
   * seriesId twice), the same contract. A log without it takes them unpacked through append().
   */
  appendPacked?(tenant: string, packed: PackedRows, memory?: BatchMemory): Promise<void>;
  /**
   * Optional: announces an append on its way (a request being parsed) so a batching log can
   * let it join the next insert; call the returned function once appended or abandoned.
   */
  expectAppend?(): () => void;
  /**
   * Optional: resolves once every append acknowledged before the call is readable in the
   * store (a log that acknowledges from its own durable file before the store has the
   * points): of `tenant` when given, and of its series `seriesIds` only when given too (a
   * read waits for the series it reads, never for another series' queue); with `windows`
   * (parallel to seriesIds), only for points within the time the read covers of each.
   */
  readBarrier?(tenant?: string, seriesIds?: readonly number[], windows?: readonly ReadWindow[]): Promise<void>;
  /**
   * Optional: instead of readBarrier, the acknowledged points of `tenant`'s series `seriesIds`
   * not yet readable in the store, within each series' window, copied out of the log's memory
   * (parallel to seriesIds; undefined where none). A read that adds them to the store's answer
   * (an engine that reads JS columns) waits for no insert.
   */
  queuedForRead?(tenant: string, seriesIds: readonly number[], windows: readonly ReadWindow[]): (QueuedRun[] | undefined)[];
  /**
   * Optional: registers a listener for every batch once it is durable (for the group-commit
   * log, at its acknowledgement); returns the unsubscribe. A log that hands batches to
   * another process (Kafka) leaves this to that process's consumer (ingester.ts).
   */
  onCommitted?(listener: CommitListener): () => void;
  close(): Promise<void>;
}
