// The subscription use cases bound to their stores: the records in PostgreSQL, the
// embedded broker (engine/subscriptions/subscription-broker.ts) fed by the ingest log's
// post-commit hook, and the ad hoc fan-out of /timeseries/datapoints/listen. The socket gets
// a listen session (subscriptions/listen-session.ts): delivery and grants stay in here.
import type { Subscription, SubscriptionCreate, SubscriptionUpdateItem } from '../../schemas/subscriptions.ts';
import type { ServiceConfig } from '../config.ts';
import type { DatapointEngine } from '../datapoints/datapoint-engine.ts';
import type { Identifier } from '../errors.ts';
import { canRead, type Access } from '../grants/access.ts';
import type { GraphGuard } from '../graph/graph-guard.ts';
import { logger } from '../log.ts';
import type { SeriesDirectory } from '../meta/series-directory.ts';
import type { RelationalStore } from '../stores/relational.ts';
import { AdhocFanout } from './adhoc-fanout.ts';
import { KafkaListenFeed } from './listen-feed.ts';
import { storeRecovery } from './feed-recovery.ts';
import { ListenConnections, type ListenCaps } from './listen-connections.ts';
import {
  adhocListenSession, subscriptionListenSession, type ListenOutput, type ListenSession, type ListenSessionDeps, type ListenSettings, type ListenTarget,
} from './listen-session.ts';
import { startIngester, type Ingester } from '../ingest/ingester.ts';
import { SubscriptionBroker } from './subscription-broker.ts';
import {
  createSubscriptions, deleteSubscriptions, listSubscriptions, subscriptionsByExternalIds, subscriptionsByIds, updateSubscriptions,
} from './subscription-records.ts';

/** The Kafka consumer group that feeds the broker (beside the ingesters' own group). */
export const SUBSCRIPTION_FEED_GROUP = 'plantdata-subscription-feed';

export type { ListenFrame } from './listen-frames.ts';
export type { ListenOutput, ListenSession } from './listen-session.ts';

/** Which stream a socket listens to: stored subscriptions (those named at connect first), or the ad hoc stream of named series. */
export type ListenStream = { kind: 'subscriptions'; externalIds: readonly string[] } | { kind: 'datapoints' };

/** The listener's identity and its tenant's WebSocket settings (SPEC Limits "WebSocket caps"). */
export interface Listener {
  /** The token's subject: the per-user connection cap counts by it. */
  userId: string;
  settings: ListenCaps & ListenSettings;
}

/** A session, or its refusal over a connection cap: send `refused`, then close the socket (1008). */
export type ListenOpening = { session: ListenSession } | { refused: string };

export interface SubscriptionEngine {
  create(access: Access, items: SubscriptionCreate[]): Promise<Subscription[]>;
  list(access: Access, limit: number, cursor?: string): Promise<{ items: Subscription[]; nextCursor?: string }>;
  byIds(access: Access, identifiers: Identifier[]): Promise<Subscription[]>;
  update(access: Access, items: SubscriptionUpdateItem[]): Promise<Subscription[]>;
  delete(access: Access, identifiers: Identifier[]): Promise<void>;
  /**
   * Opens a socket's listen session (SPEC "Subscription stream"): client frames in, server
   * frames out through `output`. Attach, ack, nack, release, delivery and the grant filter are
   * the session's; the socket is the caller's.
   */
  openListenSession(access: Access, listener: Listener, stream: ListenStream, output: ListenOutput): ListenOpening;
  close(): Promise<void>;
}

export interface SubscriptionEngineDeps {
  relational: RelationalStore;
  graph: Pick<GraphGuard, 'lock'>;
  series: SeriesDirectory;
  datapoints: Pick<DatapointEngine, 'onCommitted' | 'mode' | 'store' | 'readBarrier'>;
}

export async function openSubscriptionEngine(config: Readonly<ServiceConfig>, deps: SubscriptionEngineDeps): Promise<SubscriptionEngine> {
  const { relational, graph } = deps;
  const db = relational.pool;
  const embedded = deps.datapoints.mode === 'group-commit';
  // Embedded: fed by the group-commit log's post-commit hook. Kafka: by a consumer group of
  // its own on the datapoints topic, whose offsets move only once the messages are appended.
  const broker = new SubscriptionBroker({
    relational, series: deps.series, onCommitted: embedded ? (listener) => deps.datapoints.onCommitted(listener) : undefined,
    // One feeder per data directory in the embedded default; with Kafka several ingesters feed.
    feeder: embedded ? `embedded:${config.dataDir}` : undefined,
    recoverSince: embedded ? storeRecovery(deps.datapoints.store.columnar) : undefined,
    // Every tenant's: a recovery reads back all points above the mark, whoever wrote them.
    readBarrier: () => deps.datapoints.readBarrier(),
    log: logger.child({ module: 'subscription-broker' }),
  });
  await broker.open();
  let feed: Ingester | undefined;
  if (!embedded && config.kafkaBrokers) {
    try {
      feed = await startIngester({
        brokers: config.kafkaBrokers, store: broker.kafkaSink(), groupId: SUBSCRIPTION_FEED_GROUP, clientId: SUBSCRIPTION_FEED_GROUP,
        logger: logger.child({ module: 'subscription-feed' }),
      });
    } catch (error) {
      await broker.close();
      throw error;
    }
  }
  // The ad hoc stream: embedded, the ingest log's hook; with Kafka, a feed of the whole topic
  // (an API instance has no ingester, an ingester sees only its partitions).
  const liveFeed = !embedded && config.kafkaBrokers ? new KafkaListenFeed({ brokers: config.kafkaBrokers, log: logger.child({ module: 'listen-feed' }) }) : undefined;
  const adhoc = liveFeed
    ? new AdhocFanout((listener) => liveFeed.onCommitted(listener), () => liveFeed.ready())
    : new AdhocFanout((listener) => deps.datapoints.onCommitted(listener));
  const connections = new ListenConnections();
  const listen: ListenSessionDeps = {
    broker, adhoc, log: logger.child({ module: 'listen-session' }),
    async resolveListen(access, externalIds) {
      const rows = await subscriptionsByExternalIds(db, access.tenant, externalIds);
      return externalIds.map((externalId): ListenTarget => {
        const row = rows.get(externalId);
        if (!row) return { reason: 'not-found', externalId };
        if (!canRead(access, row.data_set_id)) return { reason: 'forbidden', externalId };
        return { id: row.id, externalId };
      });
    },
    async resolveSeries(access, identifiers) {
      const ids = identifiers.flatMap((i) => (i.id === undefined ? [] : [i.id]));
      const externalIds = identifiers.flatMap((i) => (i.externalId === undefined ? [] : [i.externalId]));
      const rows = (await deps.series.fetch(access.tenant, ids, externalIds)).filter((r) => canRead(access, r.data_set_id === null ? null : Number(r.data_set_id)));
      const byId = new Map(rows.map((r) => [Number(r.id), r.external_id]));
      const byExternalId = new Map(rows.map((r) => [r.external_id, Number(r.id)]));
      const found = new Map<number, string>();
      const missing: Identifier[] = [];
      for (const i of identifiers) {
        const id = i.id !== undefined ? (byId.has(i.id) ? i.id : undefined) : i.externalId !== undefined ? byExternalId.get(i.externalId) : undefined;
        if (id === undefined || (i.externalId !== undefined && byExternalId.get(i.externalId) !== id)) missing.push(i);
        else found.set(id, byId.get(id) as string);
      }
      return { found, missing };
    },
  };
  return {
    async create(access, items) {
      try {
        return await createSubscriptions(relational, access, items, graph);
      } finally {
        broker.invalidate(access.tenant);
      }
    },
    list: (access, limit, cursor) => listSubscriptions(db, access.tenant, limit, cursor),
    byIds: (access, identifiers) => subscriptionsByIds(db, access.tenant, identifiers),
    async update(access, items) {
      try {
        return await updateSubscriptions(relational, access, items, graph);
      } finally {
        broker.invalidate(access.tenant);
      }
    },
    async delete(access, identifiers) {
      try {
        await deleteSubscriptions(relational, access.tenant, identifiers);
      } finally {
        broker.invalidate(access.tenant);
      }
    },
    openListenSession(access, listener, stream, output) {
      const admission = connections.admit(access.tenant, listener.userId, listener.settings);
      if ('refused' in admission) return admission;
      const session = stream.kind === 'subscriptions'
        ? subscriptionListenSession(listen, access, listener.settings, output, stream.externalIds, admission.release)
        : adhocListenSession(listen, access, output, admission.release);
      return { session };
    },
    async close() {
      adhoc.close();
      await liveFeed?.close();
      await feed?.stop();
      await broker.close();
    },
  };
}
