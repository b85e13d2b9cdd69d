// The ingester role (CONTRACT `ROLE=ingester`): consumes the datapoints topic in a
// consumer group, decodes each fetched batch, merges it into as few store inserts as the
// write versions allow, and commits the partition's offset only after the store resolved.
// A crash before the commit means redelivery; the store's writeVersion makes the replay
// harmless (no duplicate, no resurrected delete). How the store writes is the store's job.
// Commit listeners (onCommitted) get each fetched batch once it is stored and committed.
import type { Consumer, EachBatchPayload } from 'kafkajs';
import type { CommitListener, IngestBatch } from './ingest-log.ts';
import { logger as rootLogger, type Logger } from '../log.ts';
import { BatchCodecError, BatchCodecVersionError, decodeIngestBatch } from './batch-codec.ts';
import { CommitListeners } from './commit-listeners.ts';
import { mergeForInsert } from './kafka-batch-merge.ts';
import { createKafkaClient } from './kafka-client.ts';
import { TOPIC_DEFAULT } from './kafka-log.ts';

/** What the ingester writes into: durable on resolve, idempotent under replay (writeVersion). */
export interface IngestSink {
  insert(batch: IngestBatch): Promise<void>;
  /**
   * Optional: several batches (different tenants or writeVersions) in one store write, all
   * durable on resolve. When present the ingester makes one call per fetched batch.
   */
  insertMany?(batches: readonly IngestBatch[]): Promise<void>;
}

export interface IngesterOptions {
  brokers: string[];
  store: IngestSink;
  /** @default 'datapoints' */
  topic?: string;
  /** @default 'plantdata-ingester' */
  groupId?: string;
  /** @default 'plantdata-ingester' */
  clientId?: string;
  /**
   * Where a group with no committed offsets starts: the topic's beginning (an ingester must
   * store every point), or its end (a feed of what is written from now on). @default true
   */
  fromBeginning?: boolean;
  logger?: Logger;
  /** Group session: a silent member is dropped after this (DESIGN.md: 6000 joins in ~3 s). @default 6000 */
  sessionTimeoutMs?: number;
  /** @default 1000 */
  heartbeatIntervalMs?: number;
  /** Time members get to rejoin during a rebalance. @default 10000 */
  rebalanceTimeoutMs?: number;
  /** Broker wait for data on an idle partition; also bounds how long stop() waits for a fetch. @default 250 */
  maxWaitTimeMs?: number;
  /** @default 4 MiB */
  maxBytesPerPartition?: number;
  /** @default 16 MiB */
  maxBytes?: number;
  /** Partitions processed at once. @default 1 */
  partitionsConsumedConcurrently?: number;
  /** First wait after a failed insert, doubled up to insertRetryMaxMs. @default 100 */
  insertRetryInitialMs?: number;
  /** @default 5000 */
  insertRetryMaxMs?: number;
  /** @default 3000 */
  connectionTimeoutMs?: number;
  /** @default 30000 */
  requestTimeoutMs?: number;
}

export interface IngesterStats {
  batchesFetched: number;
  messagesConsumed: number;
  insertsDone: number;
  pointsInserted: number;
  insertFailures: number;
  commits: number;
  corruptMessagesSkipped: number;
  /** Messages behind the high watermark, per partition, as of the last fetch. */
  lagByPartition: Record<number, number>;
}

export interface Ingester {
  stats(): IngesterStats;
  /**
   * Registers a listener for every batch this ingester stored, once the partition's offset
   * past it is committed (merged per tenant and write version, as inserted). A redelivery
   * (a crash or rebalance between insert and commit) passes its batches again, with the same
   * write versions. The batches are decoded copies the listener may keep. Returns the unsubscribe.
   */
  onCommitted(listener: CommitListener): () => void;
  /**
   * Resolves after the consumer's first fetch, when its position in every assigned partition
   * is fixed: a group new to the topic told to start at its end (fromBeginning false) hears
   * whatever is written after this.
   */
  fetching(): Promise<void>;
  /** Leaves the group without committing anything not inserted; waits for the batch in hand. */
  stop(): Promise<void>;
}

/** Decodes messages; corrupt ones are skipped (logged), unknown versions wait for an upgrade. */
function decodeFetchedBatch(payload: EachBatchPayload, stats: IngesterStats, log: Logger): IngestBatch[] {
  const { batch } = payload;
  const decoded: IngestBatch[] = [];
  for (const message of batch.messages) {
    if (message.value === null) continue;
    try {
      decoded.push(decodeIngestBatch(message.value));
    } catch (error) {
      if (error instanceof BatchCodecVersionError || !(error instanceof BatchCodecError)) throw error;
      // Produced by nothing we know: holding the partition for it would stop every tenant.
      stats.corruptMessagesSkipped++;
      log.error({ err: error, topic: batch.topic, partition: batch.partition, offset: message.offset }, 'skipping a corrupt message on the ingest log');
    }
  }
  return decoded;
}

/** Inserts batches[from..] in order; returns how many are done, so a retry resumes there. */
async function insertFrom(store: IngestSink, batches: IngestBatch[], from: number, stats: IngesterStats): Promise<number> {
  if (store.insertMany !== undefined && batches.length - from > 1) {
    const rest = batches.slice(from);
    try {
      await store.insertMany(rest);
    } catch (cause) {
      throw Object.assign(new Error(`store insert of ${rest.length} batches failed`, { cause }), { done: from });
    }
    countInserted(rest, stats);
    return batches.length;
  }
  let done = from;
  for (; done < batches.length; done++) {
    const batch = batches[done] as IngestBatch;
    try {
      await store.insert(batch);
    } catch (cause) {
      throw Object.assign(new Error(`store insert failed for tenant ${batch.tenant} writeVersion ${batch.writeVersion}`, { cause }), { done });
    }
    countInserted([batch], stats);
  }
  return done;
}

function countInserted(batches: readonly IngestBatch[], stats: IngesterStats): void {
  for (const batch of batches) {
    stats.insertsDone++;
    for (const series of batch.series) stats.pointsInserted += series.timestampMs.length;
  }
}

/** A wait that stop() can cut short. */
class StopSignal {
  stopped = false;
  private wakers = new Set<() => void>();
  wait(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakers.add(done);
    });
  }
  stop(): void {
    this.stopped = true;
    for (const wake of [...this.wakers]) wake();
  }
}

/** Starts consuming; resolves once the consumer runs (the group join follows, ~3 s on the mock). */
export async function startIngester(options: IngesterOptions): Promise<Ingester> {
  const topic = options.topic ?? TOPIC_DEFAULT;
  const groupId = options.groupId ?? 'plantdata-ingester';
  const baseLogger = options.logger ?? rootLogger;
  const log = baseLogger.child({ module: 'ingester' });
  const kafka = createKafkaClient({
    brokers: options.brokers,
    clientId: options.clientId ?? 'plantdata-ingester',
    logger: baseLogger,
    connectionTimeoutMs: options.connectionTimeoutMs,
    requestTimeoutMs: options.requestTimeoutMs,
  });
  const consumer = kafka.consumer({
    groupId,
    sessionTimeout: options.sessionTimeoutMs ?? 6_000,
    heartbeatInterval: options.heartbeatIntervalMs ?? 1_000,
    rebalanceTimeout: options.rebalanceTimeoutMs ?? 10_000,
    maxWaitTimeInMs: options.maxWaitTimeMs ?? 250,
    maxBytesPerPartition: options.maxBytesPerPartition ?? 4 * 1024 * 1024,
    maxBytes: options.maxBytes ?? 16 * 1024 * 1024,
    minBytes: 1,
    allowAutoTopicCreation: true,
    retry: { initialRetryTime: 100, maxRetryTime: 5_000, retries: 8 },
  });
  const stats: IngesterStats = {
    batchesFetched: 0, messagesConsumed: 0, insertsDone: 0, pointsInserted: 0, insertFailures: 0, commits: 0, corruptMessagesSkipped: 0, lagByPartition: {},
  };
  const signal = new StopSignal();
  const committed = new CommitListeners(log);
  consumer.on(consumer.events.GROUP_JOIN, (event) => log.info({ groupId, assignment: event.payload.memberAssignment }, 'ingester joined the group'));
  const run = () => consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 1,
    eachBatch: (payload) => ingestFetchedBatch(payload, { store: options.store, stats, signal, log, options, committed }),
  });
  consumer.on(consumer.events.CRASH, (event) => {
    log.error({ err: event.payload.error, restart: event.payload.restart }, 'ingester consumer crashed');
    if (!event.payload.restart) void rejoinAfterCrash(consumer, run, signal, log);
  });

  let fetched: () => void = () => undefined;
  const firstFetch = new Promise<void>((resolve) => { fetched = resolve; });
  const stopListeningForFetch = consumer.on(consumer.events.FETCH, () => {
    fetched();
    stopListeningForFetch();
  });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: options.fromBeginning ?? true });
  await run();
  log.info({ topic, groupId, brokers: options.brokers }, 'ingester started');
  return {
    stats: () => ({ ...stats, lagByPartition: { ...stats.lagByPartition } }),
    onCommitted: (listener) => committed.add(listener),
    fetching: () => firstFetch,
    stop: () => stopIngester(consumer, signal, log, stats),
  };
}

/** First pause before a consumer kafkajs gave up on joins its group again, doubled up to the max. */
const CRASH_REJOIN_DELAY_MS = 1_000;
const CRASH_REJOIN_DELAY_MAX_MS = 30_000;

/**
 * kafkajs restarts a crashed consumer only after a retriable error; after any other it stays
 * disconnected while the process keeps serving, so nothing is consumed again until a restart:
 * acknowledged points would never reach the store (the ingester) or the subscriptions (the
 * feed). Seen with three members joining one group at once on librdkafka's mock broker, which
 * answered a SyncGroup with INVALID_REQUEST (code 42). Connect and run again after a pause,
 * until stop(); offsets were committed only after the store resolved, so whatever is fetched
 * again is replayed harmlessly (writeVersion).
 */
async function rejoinAfterCrash(consumer: Consumer, run: () => Promise<void>, signal: StopSignal, log: Logger): Promise<void> {
  for (let delayMs = CRASH_REJOIN_DELAY_MS; !signal.stopped; delayMs = Math.min(delayMs * 2, CRASH_REJOIN_DELAY_MAX_MS)) {
    await signal.wait(delayMs);
    if (signal.stopped) return;
    try {
      await consumer.connect();
      if (signal.stopped) {
        // stop() ran while this connect was under way: its disconnect came first.
        await consumer.disconnect();
        return;
      }
      await run();
      log.warn('ingester consumer runs again after a crash');
      return;
    } catch (error) {
      log.error({ err: error, retryInMs: Math.min(delayMs * 2, CRASH_REJOIN_DELAY_MAX_MS) }, 'ingester consumer could not run again after a crash');
    }
  }
}

async function stopIngester(consumer: Consumer, signal: StopSignal, log: Logger, stats: IngesterStats): Promise<void> {
  if (signal.stopped) return;
  signal.stop();
  await consumer.disconnect();
  log.info(stats, 'ingester stopped');
}

interface IngestContext {
  store: IngestSink;
  stats: IngesterStats;
  signal: StopSignal;
  log: Logger;
  options: IngesterOptions;
  committed: CommitListeners;
}

/** One fetched partition batch: decode, insert (retrying), then commit and move on. */
async function ingestFetchedBatch(payload: EachBatchPayload, context: IngestContext): Promise<void> {
  const { batch, isRunning, isStale, heartbeat, resolveOffset, commitOffsetsIfNecessary } = payload;
  const { stats, signal, log, options } = context;
  stats.batchesFetched++;
  stats.lagByPartition[batch.partition] = Number(batch.offsetLag());
  let delayMs = options.insertRetryInitialMs ?? 100;
  let batches: IngestBatch[] | undefined;
  let done = 0;
  const inserted = await withHeartbeats(heartbeat, options.heartbeatIntervalMs ?? 1_000, async () => {
    for (;;) {
      if (signal.stopped || !isRunning() || isStale()) return false;
      try {
        batches ??= mergeForInsert(decodeFetchedBatch(payload, stats, log));
        done = await insertFrom(context.store, batches, done, stats);
        return true;
      } catch (error) {
        if (typeof (error as { done?: unknown }).done === 'number') done = (error as { done: number }).done;
        stats.insertFailures++;
        log.warn({ err: error, partition: batch.partition, firstOffset: batch.firstOffset(), retryInMs: delayMs }, 'ingest insert failed; not committing, will retry');
        // A rebalance took the partition away: its next owner starts from the last commit.
        if (!(await heartbeatStillMember(heartbeat))) return false;
        await signal.wait(delayMs);
        delayMs = Math.min(delayMs * 2, options.insertRetryMaxMs ?? 5_000);
      }
    }
  });
  // Not inserted: leave the offset alone, so this partition is fetched again from the
  // last commit by whoever owns it next.
  if (!inserted) return;
  const nextOffset = (BigInt(batch.lastOffset()) + 1n).toString();
  await commitOffsetsIfNecessary({ topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: nextOffset }] }] });
  stats.commits++;
  stats.messagesConsumed += batch.messages.length;
  // Stored and committed: a redelivery now needs a reset of the group, not a crash.
  if (batches) context.committed.notify(batches);
  resolveOffset(batch.lastOffset());
  await heartbeat();
}

async function heartbeatStillMember(heartbeat: () => Promise<void>): Promise<boolean> {
  try {
    await heartbeat();
    return true;
  } catch {
    return false;
  }
}

/**
 * kafkajs heartbeats only when asked; keep the membership alive while the store works so a
 * slow insert does not cost a rebalance. A failed heartbeat (rebalance) is left to kafkajs.
 */
async function withHeartbeats<T>(heartbeat: () => Promise<void>, intervalMs: number, work: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => {
    heartbeat().catch(() => undefined);
  }, intervalMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
