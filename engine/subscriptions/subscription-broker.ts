// The subscription broker: each subscription's unacked messages and its position
// live in PostgreSQL (subscription_messages, migration 007), so delivery state is the
// broker's, not the socket's, and any instance on the same database resumes it.
//
// Feeding (embedded). The group-commit log's post-commit hook (commit-listeners.ts) hands
// every durable batch to onCommitted, synchronously on the commit path: it only looks up the
// tenant's coverage in memory and queues the batch. A flush loop, off the ack path, turns
// queued batches into one message per (batch, subscription) (items JSON built once per series
// per batch) and appends them in one statement per flush, with the feeder's mark (the highest
// write version appended) and a NOTIFY that wakes the listening sockets of every process.
// Feeding (Kafka): kafkaSink(), written by a consumer group of its own (subscription-engine.ts).
//
// The crash window. A batch is acknowledged to its writer once durable in the ingest log, and
// appended here some milliseconds later; a kill -9 in between would lose its messages. The
// feeder's mark closes it: at start the points above the mark are read back from the store
// (recoverSince, after the ingest WAL has been replayed into it) and appended before the
// mark moves. See docs/architecture.md, "Subscriptions".
//
// Delivery (delivery-dispatcher.ts). A socket leases up to 500 visible messages of a
// subscription (visible_at <= now) until now + ackTimeoutMs; an ack deletes them, a nack makes them visible at once, a closing
// socket gives its leases back, and a lease not acked in time simply becomes visible again
// (redelivery), on whichever instance asks next. At-least-once; within a subscription
// messages go in append order, and the points of a series in a message in timestamp order.
import { copyCommitted } from '../ingest/commit-listeners.ts';
import type { CommittedBatch, CommitListener, IngestBatch } from '../ingest/ingest-log.ts';
import type { Logger } from '../log.ts';
import type { SeriesDirectory, SeriesKeyRow } from '../meta/series-directory.ts';
import type { Queryable } from '../stores/queryable.ts';
import type { RelationalStore } from '../stores/relational.ts';
import { datapointItemJson } from './datapoint-items.ts';
import { DeliveryDispatcher, type Attachment } from './delivery-dispatcher.ts';
import { SubscriptionCoverage } from './subscription-coverage.ts';
import {
  APPEND_MESSAGES, ASYNC_COMMIT, LOAD_FEED_MARK, MESSAGES_APPENDED_CHANNEL, NACK_MESSAGES, RELEASE_LEASES,
} from './subscription-broker.sql.ts';
import { SUBSCRIPTIONS_CHANGED_CHANNEL } from './subscription-records.sql.ts';

/** Points of one message, at most: a larger batch is split, a series' points staying in order. */
const MESSAGE_POINTS_MAX = 10_000;
/** Points queued for appending, past which a warning is logged. */
const QUEUE_POINTS_WARN = 5_000_000;
/**
 * Points queued for appending, at most (the queue holds copies of committed batches). Past it
 * batches are dropped and the mark stops moving; once the queue has drained, the points above
 * the mark are read back from the store (the crash recovery, at run time), so nothing acked
 * is lost. Without a mark (Kafka) the dropped batches are lost to subscribers, said loudly.
 */
export const QUEUE_POINTS_MAX = 16_000_000;
/** Wait before retrying a failed append. */
const APPEND_RETRY_MS = 500;
/** A flush that appends nothing saves the mark at most this often (recovery reads from it). */
const MARK_ONLY_SAVE_INTERVAL_MS = 1_000;

export type { Attachment, LeasedMessage } from './delivery-dispatcher.ts';

/** Points of series above a write version, as batches (the crash window's recovery). */
export type RecoverSince = (tenant: string, series: readonly { seriesId: number; valueType: string }[], afterVersion: bigint) => Promise<CommittedBatch[]>;

export interface SubscriptionBrokerOptions {
  relational: RelationalStore;
  series: SeriesDirectory;
  /**
   * The ingest log's post-commit hook (DatapointEngine.onCommitted), or undefined when the
   * feed comes from elsewhere (with Kafka: kafkaSink(), behind a consumer group of its own).
   */
  onCommitted?(listener: CommitListener): () => void;
  /**
   * This process's feeder name for the durable mark, or undefined when no mark is kept (with
   * Kafka the ingesters of several processes feed, and Kafka's offsets are the position).
   */
  feeder?: string;
  /** Reads back points above the mark at start (the embedded feeder). */
  recoverSince?: RecoverSince;
  /** Resolves once every acknowledged batch is in the store (before a recovery at run time). */
  readBarrier?: () => Promise<void>;
  /** @default QUEUE_POINTS_MAX */
  queuePointsMax?: number;
  log: Logger;
}

export class SubscriptionBroker {
  private readonly coverage: SubscriptionCoverage;
  private queue: CommittedBatch[] = [];
  private queuedPoints = 0;
  private flushing: Promise<void> | undefined;
  private readonly dispatcher: DeliveryDispatcher;
  private readonly stops: (() => Promise<void> | void)[] = [];
  private closed = false;
  private warnedQueue = false;
  private lastMarkSaveMs = 0;
  /** Batches were dropped (queue full): the mark holds still until the store is read back. */
  private gap = false;
  private droppedBatches = 0;
  private readonly counters = { droppedBatches: 0, gapsClosed: 0 };
  /** The commit hook, registered only while some subscription exists (a registered hook makes the ingest log copy every batch). */
  private unhook: (() => void) | undefined;

  constructor(private readonly options: SubscriptionBrokerOptions) {
    this.dispatcher = new DeliveryDispatcher((work) => this.asyncCommit(work), options.log);
    this.coverage = new SubscriptionCoverage(options.relational.pool);
  }

  async open(): Promise<void> {
    const { relational } = this.options;
    this.stops.push(await relational.listen(SUBSCRIPTIONS_CHANGED_CHANNEL, {
      notify: (tenant) => this.invalidate(tenant),
      lost: () => this.coverage.invalidate(),
      listening: () => this.coverage.invalidate(),
    }));
    this.stops.push(await relational.listen(MESSAGES_APPENDED_CHANNEL, {
      notify: (payload) => this.wakeFromNotification(payload),
      lost: () => undefined,
      listening: () => this.dispatcher.wakeAll(),
    }));
    try {
      await this.recover();
    } catch (error) {
      // Serving beats refusing to start; the loss is said loudly.
      this.options.log.error({ err: error }, 'recovering subscription messages of points committed before a crash failed; some may never be delivered');
    }
    const { rows } = await relational.pool.query('SELECT 1 FROM subscriptions LIMIT 1');
    if (rows.length > 0) this.hook();
    this.stops.push(() => { this.unhook?.(); this.unhook = undefined; });
  }

  /** Starts feeding (idempotent): the first subscription of any tenant, here or on another process. */
  private hook(): void {
    if (this.closed || this.unhook || !this.options.onCommitted) return;
    this.unhook = this.options.onCommitted((batch) => this.committed(batch));
  }

  /**
   * The feed as a store the Kafka ingester writes into (with KAFKA_BROKERS): a batch's
   * messages are appended, durably, before the ingester commits its offset, so Kafka's
   * consumer group position is the feed's position and a crash re-reads from it.
   */
  kafkaSink(): { insert(batch: IngestBatch): Promise<void>; insertMany(batches: readonly IngestBatch[]): Promise<void> } {
    return {
      insert: (batch) => this.append([batch]),
      insertMany: (batches) => this.append(batches),
    };
  }

  /** Batches dropped by a full queue, and the read-backs from the store that made up for them, since start. */
  stats(): { droppedBatches: number; gapsClosed: number; queuedPoints: number } {
    return { ...this.counters, queuedPoints: this.queuedPoints };
  }

  /** Forgets a tenant's coverage: the next batch reloads it (a subscription write, here or elsewhere). */
  invalidate(tenant: string): void {
    this.coverage.invalidate(tenant);
    this.hook();
  }

  /** The commit path: a map lookup, and a push when the tenant may have subscriptions. */
  private committed(batch: CommittedBatch): void {
    if (this.coverage.knownEmpty(batch.tenant)) return;
    let points = 0;
    for (const s of batch.series) points += s.timestampMs.length;
    if (this.queuedPoints + points > (this.options.queuePointsMax ?? QUEUE_POINTS_MAX) && this.queue.length > 0) {
      if (!this.gap) {
        const recoverable = this.options.feeder !== undefined && this.options.recoverSince !== undefined;
        this.options.log[recoverable ? 'warn' : 'error']({ queuedPoints: this.queuedPoints }, recoverable
          ? 'the subscription feed queue is full; dropping batches until it drains, then reading them back from the store'
          : 'the subscription feed queue is full; dropping batches: their points will not reach subscribers');
      }
      this.gap = true;
      this.droppedBatches++;
      this.counters.droppedBatches++;
      return;
    }
    this.queue.push(copyCommitted(batch)); // lent for this call only
    this.queuedPoints += points;
    if (this.queuedPoints > QUEUE_POINTS_WARN && !this.warnedQueue) {
      this.warnedQueue = true;
      this.options.log.warn({ queuedPoints: this.queuedPoints }, 'the subscription feed is behind the ingest log');
    }
    this.flushing ??= this.flushLoop().finally(() => { this.flushing = undefined; });
  }

  private async flushLoop(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve)); // let the commit's other batches queue first
    while (this.queue.length > 0) {
      const taken = this.queue;
      this.queue = [];
      const points = taken.reduce((n, b) => n + b.series.reduce((m, s) => m + s.timestampMs.length, 0), 0);
      for (;;) {
        try {
          await this.append(taken);
          break;
        } catch (error) {
          this.options.log.error({ err: error, batches: taken.length }, 'appending subscription messages failed; retrying');
          if (this.closed) return;
          await new Promise((resolve) => setTimeout(resolve, APPEND_RETRY_MS));
        }
      }
      this.queuedPoints -= points;
      if (this.queuedPoints < QUEUE_POINTS_WARN) this.warnedQueue = false;
      if (this.queue.length === 0 && this.gap) await this.closeGap();
    }
  }

  /** After dropped batches: read the points above the mark back from the store, then let the mark move again. */
  private async closeGap(): Promise<void> {
    const dropped = this.droppedBatches;
    this.gap = false;
    this.droppedBatches = 0;
    if (!this.options.feeder || !this.options.recoverSince) return;
    try {
      await this.options.readBarrier?.();
      await this.recover();
      this.counters.gapsClosed++;
      this.options.log.warn({ dropped }, 'read back from the store the points of the batches the full feed queue dropped');
    } catch (error) {
      this.gap = true; // the mark stays; the next drain (or start) tries again
      this.droppedBatches += dropped;
      this.options.log.error({ err: error }, 'reading dropped batches back from the store failed; retrying after the next append');
    }
  }

  /** The messages of these batches, one INSERT with the mark and a NOTIFY per tenant. */
  private async append(batches: readonly CommittedBatch[]): Promise<void> {
    const tenants: string[] = [];
    const subscriptionIds: number[] = [];
    const versions: string[] = [];
    const items: string[] = [];
    const dataSets: string[] = [];
    const touched = new Map<string, Set<number>>();
    let highest = 0n;
    for (const batch of batches) if (batch.writeVersion > highest) highest = batch.writeVersion;
    const byTenant = new Map<string, CommittedBatch[]>();
    for (const batch of batches) byTenant.set(batch.tenant, [...(byTenant.get(batch.tenant) ?? []), batch]);
    for (const [tenant, ofTenant] of byTenant) {
      const coverage = await this.coverage.of(tenant);
      if (coverage.empty) continue;
      const ids = [...new Set(ofTenant.flatMap((b) => b.series.map((s) => s.seriesId)))];
      const keys = new Map<number, SeriesKeyRow>((await this.options.series.fetch(tenant, ids, [])).map((k) => [Number(k.id), k]));
      for (const batch of ofTenant) {
        const open = new Map<number, { items: string[]; dataSets: (number | null)[]; points: number }>();
        const close = (subscriptionId: number) => {
          const message = open.get(subscriptionId);
          if (!message || message.items.length === 0) return;
          tenants.push(tenant);
          subscriptionIds.push(subscriptionId);
          versions.push(batch.writeVersion.toString());
          items.push(`[${message.items.join(',')}]`);
          dataSets.push(`{${message.dataSets.map((d) => (d === null ? 'NULL' : String(d))).join(',')}}`);
          if (!touched.has(tenant)) touched.set(tenant, new Set());
          touched.get(tenant)?.add(subscriptionId);
          open.set(subscriptionId, { items: [], dataSets: [], points: 0 });
        };
        for (const series of batch.series) {
          const key = keys.get(series.seriesId);
          if (!key) continue; // deleted meanwhile
          const dataSetId = key.data_set_id === null ? null : Number(key.data_set_id);
          const subs = new Set([...(coverage.bySeries.get(series.seriesId) ?? []), ...(dataSetId === null ? [] : coverage.byDataSet.get(dataSetId) ?? [])]);
          if (subs.size === 0) continue;
          const n = series.timestampMs.length;
          for (let from = 0; from < n; from += MESSAGE_POINTS_MAX) {
            const to = Math.min(n, from + MESSAGE_POINTS_MAX);
            const item = datapointItemJson(series.seriesId, key.external_id, series, from, to);
            for (const sub of subs) {
              let message = open.get(sub);
              if (message && message.points + (to - from) > MESSAGE_POINTS_MAX) { close(sub); message = undefined; }
              if (!message) open.set(sub, (message = open.get(sub) ?? { items: [], dataSets: [], points: 0 }));
              message.items.push(item);
              message.dataSets.push(dataSetId);
              message.points += to - from;
            }
          }
        }
        for (const sub of open.keys()) close(sub);
      }
    }
    const saveMark = this.options.feeder !== undefined && !this.gap && highest > 0n && (items.length > 0 || Date.now() - this.lastMarkSaveMs >= MARK_ONLY_SAVE_INTERVAL_MS);
    if (items.length === 0 && !saveMark) return;
    const notifications = [...touched].map(([tenant, ids]) => notificationOf(tenant, ids));
    // With a feeder mark, committed without waiting for the WAL flush too: the mark is in the
    // same statement, so a crash that loses this append loses its mark move with it, and the
    // recovery reads the points back from the store (PostgreSQL never keeps a later commit and
    // drops an earlier one). Without a mark (Kafka) the append waits for durability.
    const run = this.options.feeder ? this.asyncCommit.bind(this) : <T>(work: (tx: Queryable) => Promise<T>) => work(this.options.relational.pool);
    await run((tx) => tx.query(APPEND_MESSAGES, [
      tenants, subscriptionIds, versions, items, dataSets, saveMark ? this.options.feeder : null, saveMark ? highest.toString() : null, notifications,
    ]));
    if (saveMark) this.lastMarkSaveMs = Date.now();
    for (const [tenant, ids] of touched) this.wake(tenant, ids);
  }

  /**
   * The crash window (see the header): points above the feeder's mark are read back from the
   * store and appended. Without a mark (first start) the mark starts here: subscriptions
   * deliver what is committed after they exist.
   */
  private async recover(): Promise<void> {
    const { feeder, recoverSince } = this.options;
    if (!feeder) return;
    const db = this.options.relational.pool;
    const { rows } = await db.query<{ write_version: string }>(LOAD_FEED_MARK, [feeder]);
    const mark = rows[0] ? BigInt(rows[0].write_version) : undefined;
    if (mark === undefined || !recoverSince) return;
    const { rows: tenants } = await db.query<{ tenant: string }>('SELECT DISTINCT tenant FROM subscriptions');
    let recovered = 0;
    for (const { tenant } of tenants) {
      const coverage = await this.coverage.of(tenant);
      if (coverage.empty) continue;
      const { rows: series } = await db.query<{ id: number; value_type: string }>(
        `SELECT id::float8 AS id, value_type FROM nodes WHERE tenant = $1 AND kind = 'timeseries' AND (id = ANY($2::bigint[]) OR data_set_id = ANY($3::bigint[]))`,
        [tenant, [...coverage.bySeries.keys()], [...coverage.byDataSet.keys()]],
      );
      if (series.length === 0) continue;
      const batches = await recoverSince(tenant, series.map((s) => ({ seriesId: s.id, valueType: s.value_type })), mark);
      if (batches.length === 0) continue;
      await this.append(batches);
      recovered += batches.length;
    }
    if (recovered > 0) this.options.log.warn({ batches: recovered, mark: mark.toString() }, 'appended subscription messages of points committed before a crash');
  }

  /** A socket's subscription: its messages are leased and handed to `deliver` (delivery-dispatcher.ts). */
  attach(attachment: Attachment): { detach(): void; wake(): void } {
    return this.dispatcher.attach(attachment);
  }

  private wake(tenant: string, subscriptionIds?: Iterable<number>): void {
    this.dispatcher.wake(tenant, subscriptionIds);
  }

  private wakeFromNotification(payload: string): void {
    const [tenant, ids] = payload.split('\t');
    if (tenant === undefined) return;
    this.wake(tenant, ids ? ids.split(',').map(Number) : undefined);
  }

  /** A delivery state change, committed without waiting for the WAL flush (ASYNC_COMMIT). */
  private asyncCommit<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.options.relational.transaction(async (tx) => {
      await tx.query(ASYNC_COMMIT);
      return work(tx);
    });
  }

  /** Forgets the messages (coalesced with other sockets' acks into one statement). */
  ack(tenant: string, messages: readonly { subscriptionId: number; seq: string }[]): Promise<void> {
    return this.dispatcher.ack(tenant, messages);
  }

  /** Makes them visible again at once and wakes this tenant's listeners. */
  async nack(tenant: string, messages: readonly { subscriptionId: number; seq: string }[]): Promise<void> {
    if (messages.length === 0) return;
    await this.asyncCommit((tx) => tx.query(NACK_MESSAGES, [tenant, messages.map((m) => m.subscriptionId), messages.map((m) => m.seq)]));
    this.wake(tenant, new Set(messages.map((m) => m.subscriptionId)));
  }

  async release(tenant: string, subscriptionIds: readonly number[], owner: string): Promise<void> {
    if (subscriptionIds.length === 0) return;
    await this.asyncCommit((tx) => tx.query(RELEASE_LEASES, [tenant, subscriptionIds, owner]));
    this.wake(tenant, subscriptionIds);
  }

  /** Stops feeding after appending what is queued. */
  async close(): Promise<void> {
    for (const stop of this.stops.splice(0)) await stop();
    this.closed = true; // a failing append stops retrying; what it held is recovered at the next start
    while (this.flushing) await this.flushing;
    this.dispatcher.close();
  }
}

/** NOTIFY payloads stay under PostgreSQL's 8,000 bytes: past that, every subscription of the tenant wakes. */
function notificationOf(tenant: string, ids: ReadonlySet<number>): string {
  const text = `${tenant}\t${[...ids].join(',')}`;
  return text.length < 7_000 ? text : tenant;
}
