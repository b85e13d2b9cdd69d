// What /timeseries/datapoints/listen hears with KAFKA_BROKERS: every batch on the datapoints
// topic, whichever instance wrote it and whichever ingester stores it. An API instance has no
// ingester, and an ingester consumes only its share of the partitions, so neither's commit hook
// sees every batch. This feed is a consumer of the whole topic in a group of its own
// (`plantdata-listen-<random>`, one per start: a new group begins at the topic's end, so a
// restarted feed never replays old points into a live chart). It runs only while some socket
// listens, and stops LISTEN_FEED_IDLE_MS after the last one left (a page reload keeps it).
// A batch is heard once it is durable in Kafka, which is when its writer was answered; it may
// reach the store's reads a moment later.
import { randomUUID } from 'node:crypto';
import type { CommitListener, IngestBatch } from '../ingest/ingest-log.ts';
import { CommitListeners } from '../ingest/commit-listeners.ts';
import { startIngester, type Ingester, type IngesterOptions } from '../ingest/ingester.ts';
import { TOPIC_DEFAULT } from '../ingest/kafka-log.ts';
import type { Logger } from '../log.ts';

/** How long the consumer stays after the last listener left. */
export const LISTEN_FEED_IDLE_MS = 60_000;
/** After a start that failed (Kafka unreachable), the next try while sockets listen. */
export const LISTEN_FEED_RETRY_MS = 5_000;
export const LISTEN_FEED_GROUP_PREFIX = 'plantdata-listen-';

export interface ListenFeedOptions {
  brokers: string[];
  log: Logger;
  /** @default 'datapoints' */
  topic?: string;
  idleMs?: number;
  retryMs?: number;
  /** Consumer settings (tests: shorter sessions). */
  consumer?: Partial<Pick<IngesterOptions, 'sessionTimeoutMs' | 'heartbeatIntervalMs' | 'rebalanceTimeoutMs' | 'maxWaitTimeMs'>>;
}

/** A feed of what is committed while it runs: nothing is stored, nothing replayed. */
const NOTHING_STORED = { insert: async (_batch: IngestBatch) => undefined, insertMany: async (_batches: readonly IngestBatch[]) => undefined };

export class KafkaListenFeed {
  private readonly listeners: CommitListeners;
  private ingester: Ingester | undefined;
  /** The consumer's start under way or done; undefined while stopped. */
  private starting: Promise<Ingester | undefined> | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: ListenFeedOptions) {
    this.listeners = new CommitListeners(options.log);
  }

  /** Registers a listener (the feed starts if stopped); returns the unsubscribe. */
  onCommitted(listener: CommitListener): () => void {
    const remove = this.listeners.add(listener);
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    void this.ready();
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      remove();
      if (this.listeners.active || this.closed) return;
      this.idleTimer = setTimeout(() => void this.stop(), this.options.idleMs ?? LISTEN_FEED_IDLE_MS);
      this.idleTimer.unref();
    };
  }

  /**
   * Resolves once the consumer has joined its group, so what is committed from then on is
   * heard. A start that failed is logged and tried again by the next call, and every
   * LISTEN_FEED_RETRY_MS while sockets listen; it never rejects.
   */
  async ready(): Promise<void> {
    if (this.closed) return;
    const starting = (this.starting ??= this.start());
    if (await starting) return;
    if (this.starting === starting) this.starting = undefined;
    if (this.listeners.active && !this.retryTimer && !this.closed) {
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined;
        if (this.listeners.active) void this.ready();
      }, this.options.retryMs ?? LISTEN_FEED_RETRY_MS);
      this.retryTimer.unref();
    }
  }

  /** Whether the consumer runs (tests). */
  get running(): boolean {
    return this.ingester !== undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    clearTimeout(this.retryTimer);
    await this.stop();
  }

  private async start(): Promise<Ingester | undefined> {
    const groupId = `${LISTEN_FEED_GROUP_PREFIX}${randomUUID()}`;
    const topic = this.options.topic ?? TOPIC_DEFAULT;
    try {
      const ingester = await startIngester({
        ...this.options.consumer, brokers: this.options.brokers, topic, store: NOTHING_STORED,
        groupId, clientId: 'plantdata-listen', fromBeginning: false, logger: this.options.log,
      });
      // Told to start at the end, a new group looks the end up at its first fetch, after it
      // joined: what is written before that fetch would be missed after ready() said it listens.
      await ingester.fetching();
      if (this.closed) {
        await ingester.stop();
        return undefined;
      }
      ingester.onCommitted((batch) => this.listeners.notify([batch]));
      this.ingester = ingester;
      this.options.log.info({ groupId }, 'live feed started');
      return ingester;
    } catch (error) {
      this.options.log.error({ err: error, groupId }, 'the live feed could not join the datapoints topic; listening sockets hear nothing until it does');
      return undefined;
    }
  }

  /** Stops the consumer of the current start (a start after this call makes a new one). */
  private async stop(): Promise<void> {
    const starting = this.starting;
    this.starting = undefined;
    this.idleTimer = undefined;
    const ingester = await starting;
    if (!ingester) return;
    if (this.ingester === ingester) this.ingester = undefined;
    await ingester.stop().catch((error: unknown) => this.options.log.warn({ err: error }, 'stopping the live feed failed'));
  }
}
