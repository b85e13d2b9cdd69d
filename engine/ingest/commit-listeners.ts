// The post-commit hook of the ingest path: listeners registered here get each batch
// once it is durable, from the group-commit log (at its acknowledgement) or the Kafka ingester
// (once inserted and its offsets committed). Subscriptions stand on it. What a listener does
// with a batch is its own concern; a listener that fails is logged and never fails a commit.
import type { SeriesPoints } from '../datapoints/types.ts';
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
