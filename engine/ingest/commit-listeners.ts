// The post-commit hook of the ingest path: listeners registered here get each batch
// once it is durable, from the group-commit log (at its acknowledgement) or the Kafka ingester
// (once inserted and its offsets committed). Subscriptions stand on it. What a listener does
// with a batch is its own concern; a listener that fails is logged and never fails a commit.
import type { SeriesPoints } from '../datapoints/types.ts';
import { PACKED_TS, type PackedBatch } from '../datapoints/write/packed-batch.ts';
import type { CommitListener, CommittedBatch } from './ingest-log.ts';
import type { Logger } from '../log.ts';

/** Least time between two log lines about failing listeners (STYLE §10: a summary, not a flood). */
const FAILURE_LOG_INTERVAL_MS = 5_000;

export class CommitListeners {
  private readonly listeners = new Set<{ listener: CommitListener }>();
  private failuresUnlogged = 0;
  private lastFailureLogMs = -Infinity;

  constructor(private readonly log: Logger) {}

  /** True when some listener is registered (callers skip gathering batches otherwise). */
  get active(): boolean {
    return this.listeners.size > 0;
  }

  /** Registers a listener (the same function twice means two calls); returns the unsubscribe. */
  add(listener: CommitListener): () => void {
    const entry = { listener };
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  /** Calls every listener with every batch, in order; failures are logged, never thrown. */
  notify(batches: readonly CommittedBatch[]): void {
    if (this.listeners.size === 0) return;
    // A listener may unsubscribe (or subscribe another) while being called.
    const entries = [...this.listeners];
    for (const batch of batches) {
      for (const entry of entries) {
        try {
          const result = entry.listener(batch);
          if (result instanceof Promise) result.catch((error: unknown) => this.notifyFailed(error, batch));
        } catch (error) {
          this.notifyFailed(error, batch);
        }
      }
    }
  }

  private notifyFailed(error: unknown, batch: CommittedBatch): void {
    this.failuresUnlogged++;
    const now = Date.now();
    if (now - this.lastFailureLogMs < FAILURE_LOG_INTERVAL_MS) return;
    this.log.error({ err: error, tenant: batch.tenant, failures: this.failuresUnlogged }, 'a commit listener failed; the points are committed, the listener missed them');
    this.failuresUnlogged = 0;
    this.lastFailureLogMs = now;
  }
}

/**
 * A packed batch as its listeners get it (group-commit.ts): `series` made on first read, by
 * a listener that wants the points (a subscription of the tenant); committedSpans without.
 */
export class PackedCommittedBatch implements CommittedBatch {
  readonly tenant: string;
  readonly writeVersion: bigint;
  private made: SeriesPoints[] | undefined;

  constructor(readonly packed: PackedBatch) {
    this.tenant = packed.tenant;
    this.writeVersion = packed.writeVersion;
  }

  get series(): readonly SeriesPoints[] {
    return (this.made ??= this.packed.unpack().series);
  }
}

/** Per series with points: its id, first and last timestamp, one after another (packed batches read without their series). */
export function committedSpans(batch: CommittedBatch): Float64Array {
  if (batch instanceof PackedCommittedBatch) {
    const { packed } = batch;
    const spans = new Float64Array(packed.seriesCount * 3);
    let n = 0;
    for (let i = 0; i < packed.seriesCount; i++) {
      const length = packed.length(i);
      if (length === 0) continue;
      const times = packed.f64(i, PACKED_TS);
      const t0 = packed.start(i, PACKED_TS);
      spans[n++] = packed.seriesId(i);
      spans[n++] = times[t0] as number;
      spans[n++] = times[t0 + length - 1] as number;
    }
    return spans.subarray(0, n);
  }
  const { series } = batch;
  const spans = new Float64Array(series.length * 3);
  let n = 0;
  for (const s of series) {
    const length = s.timestampMs.length;
    if (length === 0) continue;
    spans[n++] = s.seriesId;
    spans[n++] = s.timestampMs[0] as number;
    spans[n++] = s.timestampMs[length - 1] as number;
  }
  return spans.subarray(0, n);
}

/**
 * The batch on memory of its own (ordinary, not pooled): what a listener keeps of a batch it
 * was lent, whose columns live in slabs that are reused once it is inserted, or in a request's
 * body. `seriesIds`: only those series (a listener that wants a few of a batch's series).
 */
export function copyCommitted(batch: CommittedBatch, seriesIds?: ReadonlySet<number>): CommittedBatch {
  const wanted = seriesIds ? batch.series.filter((s) => seriesIds.has(s.seriesId)) : batch.series;
  const series = wanted.map((s): SeriesPoints => {
    const copy: SeriesPoints = { seriesId: s.seriesId, valueType: s.valueType, timestampMs: s.timestampMs.slice() };
    if (s.float) copy.float = s.float.slice();
    if (s.bigint) copy.bigint = s.bigint.slice();
    if (s.scaled) copy.scaled = s.scaled.slice();
    if (s.isText) copy.isText = s.isText.slice();
    if (s.text) copy.text = s.text.slice();
    return copy;
  });
  return { tenant: batch.tenant, writeVersion: batch.writeVersion, series };
}
