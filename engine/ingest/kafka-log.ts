// The Kafka mode of the ingest log (CONTRACT `KAFKA_BROKERS`): append() gives the
// batch its writeVersion, sends one message per series to the topic through an idempotent
// kafkajs producer with acks=all, and resolves only once Kafka acknowledged every message.
// Appends that arrive while a send is in flight are coalesced into the next send (kafkajs
// serialises idempotent produce requests per broker anyway). Consuming is ingester.ts's job.
import type { Producer } from 'kafkajs';
import type { BatchMemory, IngestBatch, IngestLog } from './ingest-log.ts';
import { OverloadedError, StoreUnavailableError } from '../errors.ts';
import { logger as rootLogger, type Logger } from '../log.ts';
import { createKafkaClient, kafkajs } from './kafka-client.ts';
import { batchToMessages, MESSAGE_BYTES_MAX_DEFAULT, type IngestMessage } from './kafka-message.ts';

/** CONTRACT: the topic the api role writes and the ingester role reads. */
export const TOPIC_DEFAULT = 'datapoints';
/** Bound of appends waiting for Kafka's acknowledgement (STYLE §5: in-flight sends). */
export const APPENDS_IN_FLIGHT_MAX_DEFAULT = 1_000;
/** Bound of encoded bytes waiting to be sent. */
export const QUEUED_BYTES_MAX_DEFAULT = 64 * 1024 * 1024;
/** Bound of one produce request: under Kafka's default 1 MiB per partition record batch. */
export const SEND_BYTES_MAX_DEFAULT = 900 * 1024;
/** An append not acknowledged within this fails with StoreUnavailableError. */
export const APPEND_TIMEOUT_MS_DEFAULT = 30_000;

export interface KafkaIngestLogOptions {
  /** Bootstrap servers (CONTRACT `KAFKA_BROKERS`). */
  brokers: string[];
  /** @default 'datapoints' */
  topic?: string;
  /** @default 'plantdata-api' */
  clientId?: string;
  logger?: Logger;
  /** Appends waiting for acknowledgement before append() refuses. @default 1000 */
  appendsInFlightMax?: number;
  /** Encoded bytes queued before append() refuses. @default 64 MiB */
  queuedBytesMax?: number;
  /** Bytes of messages in one produce request (one request may exceed it by one message). @default 900 KiB */
  sendBytesMax?: number;
  /** Bytes of one message; larger series are cut into chunks. @default 256 KiB */
  messageBytesMax?: number;
  /** Time allowed for Kafka to acknowledge an append. @default 30000 */
  appendTimeoutMs?: number;
  /** Broker-side wait for the in-sync replicas (produce `timeout`). @default 10000 */
  ackTimeoutMs?: number;
  /** @default 3000 */
  connectionTimeoutMs?: number;
  /** @default 30000 */
  requestTimeoutMs?: number;
  /**
   * Source of write versions, monotonic across every writer and every restart: the
   * WriteVersionClock of write-version.ts (its high-water mark lives in the store). Without
   * one a local clock is used, which is right for a single api process only.
   */
  writeVersionClock?: { next(): bigint };
}

/**
 * A local monotonic write-version clock: microseconds since the epoch (the unit of
 * write-version.ts), bumped by one when two versions fall in the same microsecond or the
 * wall clock steps back. Good for one writer process without restarts across a clock step;
 * otherwise pass write-version.ts's WriteVersionClock.
 */
export function createLocalWriteVersionClock(nowMs: () => number = Date.now): () => bigint {
  let last = 0n;
  return () => {
    const now = BigInt(Math.floor(nowMs())) * 1000n;
    last = now > last ? now : last + 1n;
    return last;
  };
}

/**
 * Retries of one kafkajs send whose backoff (100 ms doubling to 5 s) adds up to about
 * appendTimeoutMs: the producer gives up near the time the append is reported failed, so a
 * dead cluster does not leave a send retrying long after (close() would wait for it).
 */
export function sendRetriesWithin(appendTimeoutMs: number): number {
  let retries = 1;
  let waitedMs = 0;
  for (let delayMs = 100; waitedMs + delayMs < appendTimeoutMs && retries < 30; delayMs = Math.min(delayMs * 2, 5_000)) {
    waitedMs += delayMs;
    retries++;
  }
  return retries;
}

interface PendingAppend {
  remaining: number;
  settled: boolean;
  resolve: () => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

interface QueuedMessage {
  message: IngestMessage;
  owner: PendingAppend;
}

export interface KafkaIngestLogStats {
  appendsInFlight: number;
  queuedBytes: number;
  appendsAcknowledged: number;
  appendsFailed: number;
  appendsRefused: number;
  sends: number;
  messagesSent: number;
}

export class KafkaIngestLog implements IngestLog {
  readonly topic: string;
  private readonly log: Logger;
  private readonly queue: QueuedMessage[] = [];
  private sending = false;
  private closed = false;
  private readonly drained: Array<() => void> = [];
  private readonly counters: KafkaIngestLogStats = {
    appendsInFlight: 0, queuedBytes: 0, appendsAcknowledged: 0, appendsFailed: 0, appendsRefused: 0, sends: 0, messagesSent: 0,
  };
  private readonly limits: Required<Pick<KafkaIngestLogOptions, 'appendsInFlightMax' | 'queuedBytesMax' | 'sendBytesMax' | 'messageBytesMax' | 'appendTimeoutMs' | 'ackTimeoutMs'>>;
  private readonly nextWriteVersion: () => bigint;

  private constructor(private readonly producer: Producer, options: KafkaIngestLogOptions, log: Logger) {
    this.topic = options.topic ?? TOPIC_DEFAULT;
    this.log = log;
    this.limits = {
      appendsInFlightMax: options.appendsInFlightMax ?? APPENDS_IN_FLIGHT_MAX_DEFAULT,
      queuedBytesMax: options.queuedBytesMax ?? QUEUED_BYTES_MAX_DEFAULT,
      sendBytesMax: options.sendBytesMax ?? SEND_BYTES_MAX_DEFAULT,
      messageBytesMax: options.messageBytesMax ?? MESSAGE_BYTES_MAX_DEFAULT,
      appendTimeoutMs: options.appendTimeoutMs ?? APPEND_TIMEOUT_MS_DEFAULT,
      ackTimeoutMs: options.ackTimeoutMs ?? 10_000,
    };
    if (options.writeVersionClock) {
      const clock = options.writeVersionClock;
      this.nextWriteVersion = () => clock.next();
    } else {
      this.nextWriteVersion = createLocalWriteVersionClock();
      log.warn('no shared write-version clock given; using a local one (right for one api process only)');
    }
  }

  /** Connects an idempotent producer (acks=all) and returns the log. */
  static async open(options: KafkaIngestLogOptions): Promise<KafkaIngestLog> {
    const log = (options.logger ?? rootLogger).child({ module: 'kafka-log' });
    const kafka = createKafkaClient({
      brokers: options.brokers,
      clientId: options.clientId ?? 'plantdata-api',
      logger: options.logger ?? rootLogger,
      connectionTimeoutMs: options.connectionTimeoutMs,
      requestTimeoutMs: options.requestTimeoutMs,
    });
    const producer = kafka.producer({
      idempotent: true,
      // One request in flight per connection keeps a retried request ahead of later ones.
      maxInFlightRequests: 1,
      // Java-compatible murmur2 on the key: a series stays on one partition.
      createPartitioner: kafkajs().Partitioners.DefaultPartitioner,
      // Topics auto-create on first produce (the mock broker cannot CreateTopics; DESIGN.md).
      allowAutoTopicCreation: true,
      retry: { initialRetryTime: 100, maxRetryTime: 5_000, retries: sendRetriesWithin(options.appendTimeoutMs ?? APPEND_TIMEOUT_MS_DEFAULT) },
    });
    try {
      await producer.connect();
    } catch (cause) {
      throw new StoreUnavailableError(`cannot connect to Kafka at ${options.brokers.join(',')}`, { cause });
    }
    log.info({ brokers: options.brokers, topic: options.topic ?? TOPIC_DEFAULT }, 'Kafka ingest log connected');
    return new KafkaIngestLog(producer, options, log);
  }

  stats(): KafkaIngestLogStats {
    return { ...this.counters };
  }

  /** Resolves once Kafka acknowledged every message of the batch (acks=all). */
  append(input: Omit<IngestBatch, 'writeVersion'>, memory?: BatchMemory): Promise<void> {
    try {
      return this.appendEncoded(input);
    } finally {
      memory?.release(); // the messages are encoded (copied) before appendEncoded returns
    }
  }

  private appendEncoded(input: Omit<IngestBatch, 'writeVersion'>): Promise<void> {
    if (this.closed) return Promise.reject(new StoreUnavailableError('the Kafka ingest log is closed'));
    if (input.series.length === 0) return Promise.resolve();
    if (this.counters.appendsInFlight >= this.limits.appendsInFlightMax) {
      return Promise.reject(this.refuse(`the Kafka ingest log has ${this.counters.appendsInFlight} batches waiting for Kafka (limit appendsInFlightMax=${this.limits.appendsInFlightMax}); retry shortly`));
    }
    const batch: IngestBatch = { tenant: input.tenant, series: input.series, writeVersion: this.nextWriteVersion() };
    let messages: IngestMessage[];
    try {
      // Encoding asserts the SeriesPoints invariants; a batch that breaks one is never sent.
      messages = batchToMessages(batch, this.limits.messageBytesMax);
    } catch (error) {
      return Promise.reject(error);
    }
    const bytes = messages.reduce((sum, m) => sum + m.value.length, 0);
    if (this.counters.queuedBytes + bytes > this.limits.queuedBytesMax) {
      return Promise.reject(this.refuse(`the Kafka ingest log has ${this.counters.queuedBytes} bytes queued; ${bytes} more would pass queuedBytesMax=${this.limits.queuedBytesMax}; retry shortly`));
    }
    return new Promise<void>((resolve, reject) => {
      const owner: PendingAppend = {
        remaining: messages.length,
        settled: false,
        resolve,
        reject,
        timer: setTimeout(() => this.settle(owner, new StoreUnavailableError(`Kafka did not acknowledge the batch within ${this.limits.appendTimeoutMs} ms`)), this.limits.appendTimeoutMs),
      };
      this.counters.appendsInFlight++;
      this.counters.queuedBytes += bytes;
      for (const message of messages) this.queue.push({ message, owner });
      this.pump();
    });
  }

  /** Stops taking appends, waits for those in flight (each bounded by appendTimeoutMs), disconnects. */
  async close(): Promise<void> {
    this.closed = true;
    // Every append settles within appendTimeoutMs; a send still retrying after that is cut
    // short by the disconnect (its appends were already failed).
    if (this.counters.appendsInFlight > 0) {
      await new Promise<void>((resolve) => this.drained.push(resolve));
    }
    await this.producer.disconnect();
    this.log.info(this.counters, 'Kafka ingest log closed');
  }

  private refuse(message: string): OverloadedError {
    this.counters.appendsRefused++;
    return new OverloadedError(message, 1);
  }

  private settle(owner: PendingAppend, error?: Error): void {
    if (owner.settled) return;
    owner.settled = true;
    clearTimeout(owner.timer);
    this.counters.appendsInFlight--;
    if (error) {
      this.counters.appendsFailed++;
      owner.reject(error);
    } else {
      this.counters.appendsAcknowledged++;
      owner.resolve();
    }
    this.notifyIfDrained();
  }

  private notifyIfDrained(): void {
    if (this.counters.appendsInFlight > 0) return;
    for (const resolve of this.drained.splice(0)) resolve();
  }

  /** Takes queued messages up to sendBytesMax, skipping those of appends already failed. */
  private takeSendable(): QueuedMessage[] {
    const taken: QueuedMessage[] = [];
    let bytes = 0;
    let index = 0;
    for (; index < this.queue.length; index++) {
      const item = this.queue[index] as QueuedMessage;
      if (taken.length > 0 && bytes + item.message.value.length > this.limits.sendBytesMax) break;
      this.counters.queuedBytes -= item.message.value.length;
      if (item.owner.settled) continue;
      taken.push(item);
      bytes += item.message.value.length;
    }
    this.queue.splice(0, index);
    return taken;
  }

  private pump(): void {
    if (this.sending || this.queue.length === 0) return;
    const taken = this.takeSendable();
    if (taken.length === 0) {
      this.notifyIfDrained();
      return;
    }
    this.sending = true;
    this.sendToKafka(taken).finally(() => {
      this.sending = false;
      this.pump();
      this.notifyIfDrained();
    });
  }

  private async sendToKafka(taken: QueuedMessage[]): Promise<void> {
    this.counters.sends++;
    try {
      await this.producer.send({
        topic: this.topic,
        acks: -1,
        timeout: this.limits.ackTimeoutMs,
        compression: kafkajs().CompressionTypes.None,
        messages: taken.map((item) => item.message),
      });
    } catch (cause) {
      const error = new StoreUnavailableError(`Kafka did not accept ${taken.length} messages for topic ${this.topic}: ${(cause as Error).message}`, { cause });
      this.log.warn({ err: cause, messages: taken.length }, 'Kafka send failed');
      for (const item of taken) this.settle(item.owner, error);
      return;
    }
    this.counters.messagesSent += taken.length;
    for (const item of taken) {
      item.owner.remaining--;
      if (item.owner.remaining === 0) this.settle(item.owner);
    }
  }
}
