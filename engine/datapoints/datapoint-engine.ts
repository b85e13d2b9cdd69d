// The data point side of the engine: the columnar store, the ingest log (group commit, or Kafka
// with KAFKA_BROKERS), the ingester (ROLE=all or ingester with Kafka) and the parse workers
// behind their port, opened and closed together, with the four use cases bound to them:
// insert (ingest/insert-datapoints.ts), list and latest (read/), delete (ingest/).
import { evaluateExpression, type EvaluatedPoint, type EvaluationRequest } from '../functions/evaluate.ts';
import path from 'node:path';
import type { Static } from '@sinclair/typebox';
import type { DatapointDeleteRequest } from '../../schemas/datapoints.ts';
import type { ServiceConfig } from '../config.ts';
import { openDatapointStore, type DatapointStore } from './datapoint-store.ts';
import type { CommitListener, IngestLog, ReadWindow } from '../ingest/ingest-log.ts';
import type { Access } from '../grants/access.ts';
import type { HealthCheck } from '../health-check.ts';
import type { DatapointBodyLayout, DatapointBodyParser } from '../ingest/datapoint-body-parser.ts';
import type { WriteGuard } from '../functions/target-guard.ts';
import type { DeleteRange } from './datapoint-store.ts';
import { deleteDatapoints, type DeleteDatapointsOptions } from '../ingest/delete-datapoints.ts';
import { GroupCommitLog } from '../ingest/group-commit.ts';
import { IngestWal } from '../ingest/ingest-wal.ts';
import { startIngester, type Ingester } from '../ingest/ingester.ts';
import { insertDatapoints, type InsertDatapointsDeps, type InsertDatapointsOptions } from '../ingest/insert-datapoints.ts';
import { KafkaIngestLog } from '../ingest/kafka-log.ts';
import { TargetHints } from '../ingest/target-hints.ts';
import { replayIngestWal } from '../ingest/wal-replay.ts';
import { logger } from '../log.ts';
import { collectFully } from '../memory/full-collection.ts';
import { SlabPool } from '../memory/slab-pool.ts';
import type { Metrics } from '../metrics.ts';
import { latestDatapoints, type LatestDatapointsOptions, type LatestDatapointsRequest } from './read/latest-datapoints.ts';
import { listDatapoints, type ListDatapointsOptions, type ListDatapointsRequest } from './read/list-datapoints.ts';
import { listDatapointsArrow } from './read/list-datapoints-arrow.ts';
import type { Quotas } from '../quotas/quotas.ts';
import type { SeriesDirectory } from '../meta/series-directory.ts';
import type { RelationalStore } from '../stores/relational.ts';

const log = logger.child({ module: 'datapoint-engine' });
/** How long a free slab of the ingest path's pool is kept. */
const SLAB_IDLE_MS = 5_000;

/** Shared memory the ingest path keeps for reuse, at most (more is allocated and dropped). */
export const INGEST_MEMORY_BYTES_MAX = 512 * 1024 * 1024;

/**
 * Dropped slabs of at least this many bytes are worth a full collection: their memory returns
 * only then (full-collection.ts). A gateway's small slabs are not: V8 collects them in its own time.
 */
const TRIM_COLLECT_BYTES_MIN = 32 * 1024 * 1024;

function collectAfterTrim(bytesDropped: number): void {
  if (bytesDropped < TRIM_COLLECT_BYTES_MIN) return;
  const startedMs = performance.now();
  collectFully().then(
    () => log.debug({ bytesDropped, ms: Math.round(performance.now() - startedMs) }, 'full collection after the slab pool let memory go'),
    (error: unknown) => log.warn({ err: error }, 'full collection after the slab pool let memory go failed'),
  );
}

/** Where the embedded ingest log keeps its write-ahead segments, under DATA_DIR. */
export const INGEST_WAL_DIR = 'ingest-wal';

/** Parse tasks allowed to wait for a worker before POST /timeseries/data answers 503 (the parser's maxQueue). */
export const PARSE_QUEUE_DEPTH_MAX = 32;

export interface DatapointEngineDeps {
  /** PostgreSQL, where data point requests resolve their series. */
  relational: RelationalStore;
  /** The series keys held in memory in front of it. */
  series: SeriesDirectory;
  quotas: Quotas;
  metrics: Metrics;
  /** The parse workers; the engine owns them from here (closed with it, or when opening fails). */
  parser: DatapointBodyParser;
  layout: DatapointBodyLayout;
  /** Refuses hand writes into functions' targets (functions/target-guard.ts). */
  guardWrites?: WriteGuard;
}

export interface DatapointEngine {
  /** Inserts a raw POST /timeseries/data body; resolves once its points are durable. Options: the CDF surface's rules. */
  insert(access: Access, rawBody: Uint8Array, options?: InsertDatapointsOptions): Promise<void>;
  /** The JSON answer of POST /timeseries/data/list, as chunks sent without joining them (SPEC's form unless options say CDF's). */
  list(access: Access, request: ListDatapointsRequest, options?: ListDatapointsOptions): Promise<Uint8Array[]>;
  /**
   * The Arrow IPC stream answer of POST /timeseries/data/list (SPEC's rules, as list's): one
   * record batch per series page, cursors in the metadata (read/datapoint-arrow-answer.ts).
   */
  listArrow(access: Access, request: ListDatapointsRequest): Promise<Uint8Array[]>;
  /** Each expression's points over its [start, end) (functions/evaluate.ts), in request order; errors name the item (`items[i]`). */
  evaluate(access: Access, requests: readonly EvaluationRequest[]): Promise<EvaluatedPoint[][]>;
  /** The JSON answer of POST /timeseries/data/latest, as chunks. */
  latest(access: Access, request: LatestDatapointsRequest, options?: LatestDatapointsOptions): Promise<Uint8Array[]>;
  delete(access: Access, request: Static<typeof DatapointDeleteRequest>, options?: DeleteDatapointsOptions): Promise<void>;
  /** Registers a listener for every delete of points once visible (functions' targets recompute); returns the unsubscribe. */
  onDeleted(listener: (tenant: string, ranges: readonly DeleteRange[]) => void): () => void;
  store: DatapointStore;
  ingestLog: IngestLog;
  /** Shared memory for request bodies and their columns (slab-pool.ts). */
  slabs: SlabPool;
  /**
   * Resolves once every acknowledged append is readable: of `tenant` when given, and of the
   * series `seriesIds` only when given too (data point reads wait for the series they read),
   * within `windows` (parallel to seriesIds) when given (and for the time they read).
   */
  readBarrier(tenant?: string, seriesIds?: readonly number[], windows?: readonly ReadWindow[]): Promise<void>;
  mode: 'group-commit' | 'kafka';
  healthChecks: HealthCheck[];
  /** Points queued in the ingest log and, with Kafka, messages the ingester is behind. */
  ingestBacklog(): { queuedPoints: number; kafkaLag: number };
  /** Purges the points of deleted series in the background (failures are logged). */
  purgeSeries(tenant: string, seriesIds: number[]): void;
  /**
   * Registers a listener for every batch once it is durable (the post-commit hook that
   * subscriptions stand on): group commit at the acknowledgement, Kafka once the ingester
   * of this process has stored it. ROLE=api with Kafka stores nothing, so it hears nothing.
   * Returns the unsubscribe.
   */
  onCommitted(listener: CommitListener): () => void;
  close(): Promise<void>;
}

/**
 * The stores of the data point side, opened apart from PostgreSQL (nothing here reads it), so
 * engine.ts opens both at once: on an empty DATA_DIR the columnar store's start (chdb's
 * library, its tables) took 1.0 s and PostgreSQL's (initdb, start, migrations) 2.5 s here.
 */
export interface DatapointStorage {
  store: DatapointStore;
  ingestLog: IngestLog;
  ingester?: Ingester;
  wal?: IngestWal;
  slabs: SlabPool;
  /** For a start that fails before bindDatapointEngine took them over. */
  close(): Promise<void>;
}

export async function openDatapointStorage(config: Readonly<ServiceConfig>): Promise<DatapointStorage> {
  // One pool of shared memory for the whole ingest path: bodies, parsed columns, the log's
  // copies and the insert's columns (slab-pool.ts). A slab free for 5 s is let go: a load
  // reuses its slabs within milliseconds, and a burst's memory is not held after it (a full
  // collection returns it: collectAfterTrim).
  const slabs = new SlabPool({ bytesMax: INGEST_MEMORY_BYTES_MAX, idleMs: SLAB_IDLE_MS, onTrimmed: collectAfterTrim });
  let store: DatapointStore | undefined;
  let ingestLog: IngestLog;
  let ingester: Ingester | undefined;
  let wal: IngestWal | undefined;
  const closeOpened = async () => {
    await ingester?.stop().catch(() => undefined);
    await wal?.close().catch(() => undefined);
    await store?.close().catch(() => undefined);
    slabs.stop();
  };
  try {
    store = await openDatapointStore(config, { logger: log, slabs });
    const opened = store;
    if (config.kafkaBrokers) {
      ingestLog = await KafkaIngestLog.open({ brokers: config.kafkaBrokers, writeVersionClock: opened.writeVersions, logger: log });
      if (config.role !== 'api') ingester = await startIngester({ brokers: config.kafkaBrokers, store: opened, logger: log });
    } else {
      // Acknowledged from the write-ahead log; what a crash left there goes in before we serve.
      const walOpened = await IngestWal.open({ dir: path.join(config.dataDir, INGEST_WAL_DIR), logger: log });
      wal = walOpened.wal;
      if (walOpened.recovered.length > 0) {
        await replayIngestWal(opened, walOpened.recovered, log);
        await wal.dropRecovered();
      }
      ingestLog = new GroupCommitLog({
        store: opened, nextWriteVersion: () => opened.writeVersions.next(), logger: log, wal, slabs,
      });
    }
  } catch (error) {
    await closeOpened();
    throw error;
  }
  const openedLog = ingestLog;
  return {
    store, ingestLog, ingester, wal, slabs,
    async close() {
      await openedLog.close().catch(() => undefined);
      await closeOpened();
    },
  };
}

/** The facade over what openDatapointStorage opened: the use cases bound to their stores (it owns them from here). */
export function bindDatapointEngine(config: Readonly<ServiceConfig>, deps: DatapointEngineDeps, opened: DatapointStorage): DatapointEngine {
  const { store, ingestLog, ingester, wal, slabs } = opened;
  const { parser, metrics } = deps;
  const series = deps.series;
  const mode = config.kafkaBrokers ? 'kafka' : 'group-commit';
  const readBarrier = (tenant?: string, seriesIds?: readonly number[], windows?: readonly ReadWindow[]) => ingestLog.readBarrier?.(tenant, seriesIds, windows) ?? Promise.resolve();
  const insertDeps: InsertDatapointsDeps = {
    series, ingestLog, parser, layout: deps.layout, slabs, targetHints: new TargetHints(deps.layout.hintKey), quotas: deps.quotas, metrics, mode, guardWrites: deps.guardWrites,
  };
  const deleteListeners = new Set<(tenant: string, ranges: readonly DeleteRange[]) => void>();
  const deleteDeps = {
    series, store, guardWrites: deps.guardWrites,
    deleted(tenant: string, ranges: readonly DeleteRange[]) {
      for (const listener of deleteListeners) {
        try {
          listener(tenant, ranges);
        } catch (error) {
          log.error({ err: error, tenant }, 'a delete listener failed; the points are deleted, the listener missed it');
        }
      }
    },
  };
  // The engine in process reads queued points from the log's memory: a read waits for no insert.
  const queuedForRead = store.columnar.readsColumnSources && ingestLog.queuedForRead
    ? (tenant: string, seriesIds: readonly number[], windows: readonly ReadWindow[]) => (ingestLog.queuedForRead as NonNullable<IngestLog['queuedForRead']>).call(ingestLog, tenant, seriesIds, windows)
    : undefined;
  const readDeps = { series, store, readBarrier, queuedForRead, metrics };
  const checks: HealthCheck[] = [{
    name: 'clickhouse',
    ping: async () => {
      if (!(await store.columnar.ping())) throw new Error('ClickHouse does not answer');
    },
  }];
  return {
    insert: (access, rawBody, options) => insertDatapoints(access, rawBody, insertDeps, options),
    list: (access, request, options) => listDatapoints(access, request, readDeps, options),
    listArrow: (access, request) => listDatapointsArrow(access, request, readDeps),
    latest: (access, request, options) => latestDatapoints(access, request, readDeps, options),
    evaluate: (access, requests) => Promise.all(requests.map((request, i) => evaluateExpression(access, request, `items[${i}]`, readDeps))),
    delete: (access, request, options) => deleteDatapoints(access, request, deleteDeps, options),
    onDeleted(listener) {
      const entry = (tenant: string, ranges: readonly DeleteRange[]) => listener(tenant, ranges);
      deleteListeners.add(entry);
      return () => deleteListeners.delete(entry);
    },
    store, ingestLog, slabs, mode, healthChecks: checks, readBarrier,
    ingestBacklog() {
      const queuedPoints = ingestLog instanceof GroupCommitLog ? ingestLog.stats().queuedPoints : 0;
      const lag = ingester ? Object.values(ingester.stats().lagByPartition).reduce((a, b) => a + b, 0) : 0;
      return { queuedPoints, kafkaLag: lag };
    },
    onCommitted(listener) {
      return ingester ? ingester.onCommitted(listener) : ingestLog.onCommitted?.(listener) ?? (() => undefined);
    },
    purgeSeries(tenant, seriesIds) {
      store.purgeSeries(tenant, seriesIds).catch((error: unknown) => log.warn({ err: error, tenant }, 'purging the points of deleted time series failed'));
    },
    async close() {
      await parser.close().catch((error: unknown) => log.warn({ err: error }, 'closing the parse workers failed'));
      await ingestLog.close();
      await wal?.close();
      await ingester?.stop();
      await store.close();
      slabs.stop();
    },
  };
}
