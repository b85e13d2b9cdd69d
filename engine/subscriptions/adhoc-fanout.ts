// The ad hoc stream of /timeseries/datapoints/listen: named series, no stored
// subscription, no position: a socket gets the points committed while it listens. Fed by the
// same post-commit hook as the broker, so nothing is sent before it is durable; the commit
// path only queues the batch when the tenant has such a socket, and items are built after.
// With KAFKA_BROKERS it is fed by a consumer of the whole topic instead (listen-feed.ts).
import { copyCommitted } from '../ingest/commit-listeners.ts';
import type { CommittedBatch, CommitListener } from '../ingest/ingest-log.ts';
import { datapointItemJson } from './datapoint-items.ts';

export interface AdhocSink {
  tenant: string;
  /** The series listened to, by id, with the externalId to show. */
  series: Map<number, string>;
  /** Items JSON of one committed batch (those of this sink's series). */
  deliver(items: string[]): void;
}

export class AdhocFanout {
  private readonly sinks = new Map<string, Set<AdhocSink>>();
  private pending: CommittedBatch[] = [];
  private scheduled = false;
  /** The commit hook, registered only while a socket listens (the commit path calls every registered hook with every batch). */
  private stop: (() => void) | undefined;

  /** `feedReady`: resolves once what is committed from then on reaches the hook (a feed that must join first). */
  constructor(
    private readonly onCommitted: (listener: CommitListener) => () => void,
    private readonly feedReady: () => Promise<void> = async () => undefined,
  ) {}

  /** Resolves once the hook hears what is committed from now on: a socket says it listens only then. */
  ready(): Promise<void> {
    return this.feedReady();
  }

  private listener: CommitListener = (batch) => {
    const sinks = this.sinks.get(batch.tenant);
    if (!sinks) return;
    // Lent for this call only: keep the series some sink of the tenant listens to.
    const wanted = new Set<number>();
    for (const sink of sinks) for (const s of batch.series) if (sink.series.has(s.seriesId)) wanted.add(s.seriesId);
    if (wanted.size === 0) return;
    this.pending.push(copyCommitted(batch, wanted));
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.fanOut());
    }
  };

  /** Returns the removal. */
  add(sink: AdhocSink): () => void {
    let set = this.sinks.get(sink.tenant);
    if (!set) this.sinks.set(sink.tenant, (set = new Set()));
    set.add(sink);
    this.stop ??= this.onCommitted(this.listener);
    return () => {
      set.delete(sink);
      if (set.size === 0 && this.sinks.get(sink.tenant) === set) this.sinks.delete(sink.tenant);
      if (this.sinks.size === 0) {
        this.stop?.();
        this.stop = undefined;
      }
    };
  }

  private fanOut(): void {
    this.scheduled = false;
    const batches = this.pending;
    this.pending = [];
    for (const batch of batches) {
      const sinks = this.sinks.get(batch.tenant);
      if (!sinks) continue;
      const built = new Map<number, string>();
      for (const sink of sinks) {
        const items: string[] = [];
        for (const series of batch.series) {
          const externalId = sink.series.get(series.seriesId);
          if (externalId === undefined) continue;
          let item = built.get(series.seriesId);
          if (item === undefined) built.set(series.seriesId, (item = datapointItemJson(series.seriesId, externalId, series)));
          items.push(item);
        }
        if (items.length > 0) sink.deliver(items);
      }
    }
  }

  close(): void {
    this.stop?.();
    this.stop = undefined;
    this.sinks.clear();
  }
}
