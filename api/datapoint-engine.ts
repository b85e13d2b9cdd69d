// The data point side of the service as the API sees it: the columnar store, the ingest log
// (group commit, or Kafka with KAFKA_BROKERS), the ingester (ROLE=all or ingester with Kafka)
// and the parsing workers, opened and closed together.
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { ServiceConfig } from '../engine/config.ts';
import { openDatapointStore, type DatapointStore } from '../engine/datapoints/datapoint-store.ts';
import type { IngestLog } from '../engine/datapoints/types.ts';
import { GroupCommitLog } from '../engine/ingest/group-commit.ts';
import { IngestWal } from '../engine/ingest/ingest-wal.ts';
import { replayIngestWal } from '../engine/ingest/wal-replay.ts';
import { SlabPool } from '../engine/memory/slab-pool.ts';
import { startIngester, type Ingester } from '../engine/ingest/ingester.ts';
import { KafkaIngestLog } from '../engine/ingest/kafka-log.ts';
import { logger } from '../engine/log.ts';
import type { RelationalStore } from '../engine/stores/relational.ts';
import { createDatapointPool, type DatapointPool } from '../workers/datapoint-pool.ts';
import type { HealthCheck } from './operational.ts';

const log = logger.child({ module: 'datapoint-engine' });

/** Shared memory the ingest path keeps for reuse, at most (more is allocated and dropped). */
export const INGEST_MEMORY_BYTES_MAX = 512 * 1024 * 1024;

/** Where the embedded ingest log keeps its write-ahead segments, under DATA_DIR. */
export const INGEST_WAL_DIR = 'ingest-wal';

/** Parse tasks allowed to wait for a worker before POST /timeseries/data answers 503. */
export const PARSE_QUEUE_DEPTH_MAX = 32;

export interface DatapointEngine {
  store: DatapointStore;
  /** Absent on ROLE=ingester (no API). */
  ingestLog: IngestLog;
  pool: DatapointPool;
  /** Shared memory for request bodies and their columns (slab-pool.ts). */
  slabs: SlabPool;
  /** Resolves once every acknowledged append is readable (reads wait here first). */
  readBarrier(): Promise<void>;
  mode: 'group-commit' | 'kafka';
  healthChecks: HealthCheck[];
  /** Points queued in the ingest log and, with Kafka, messages the ingester is behind. */
  ingestBacklog(): { queuedPoints: number; kafkaLag: number };
  purgeSeries(tenant: string, seriesIds: number[]): void;
  close(): Promise<void>;
}

export async function openDatapointEngine(config: Readonly<ServiceConfig>, _relational: RelationalStore): Promise<DatapointEngine> {
  // One pool of shared memory for the whole ingest path: bodies, parsed columns, the log's
  // copies and the insert's columns (slab-pool.ts).
  const slabs = new SlabPool({ bytesMax: INGEST_MEMORY_BYTES_MAX });
  const store = await openDatapointStore(config, { logger: log, slabs });
  let ingestLog: IngestLog;
  let ingester: Ingester | undefined;
  let pool: DatapointPool | undefined;
  let wal: IngestWal | undefined;
  try {
    if (config.kafkaBrokers) {
      ingestLog = await KafkaIngestLog.open({ brokers: config.kafkaBrokers, writeVersionClock: store.writeVersions, logger: log });
      if (config.role !== 'api') ingester = await startIngester({ brokers: config.kafkaBrokers, store, logger: log });
    } else {
      // Acknowledged from the write-ahead log; what a crash left there goes in before we serve.
      const opened = await IngestWal.open({ dir: path.join(config.dataDir, INGEST_WAL_DIR), logger: log });
      wal = opened.wal;
      if (opened.recovered.length > 0) {
        await replayIngestWal(store, opened.recovered, log);
        await wal.dropRecovered();
      }
      ingestLog = new GroupCommitLog({
        store, nextWriteVersion: () => store.writeVersions.next(), logger: log, wal, slabs,
      });
    }
    // One parsing thread per core: the event loop mostly waits on the store meanwhile.
    pool = createDatapointPool({ maxThreads: Math.max(1, availableParallelism()), maxQueue: PARSE_QUEUE_DEPTH_MAX });
  } catch (error) {
    await ingester?.stop().catch(() => undefined);
    await wal?.close().catch(() => undefined);
    await store.close().catch(() => undefined);
    throw error;
  }
  const parsePool = pool;
  const checks: HealthCheck[] = [{
    name: 'clickhouse',
    ping: async () => {
      if (!(await store.columnar.ping())) throw new Error('ClickHouse does not answer');
    },
  }];
  return {
    store, ingestLog, pool: parsePool, slabs, mode: config.kafkaBrokers ? 'kafka' : 'group-commit', healthChecks: checks,
    readBarrier: () => ingestLog.readBarrier?.() ?? Promise.resolve(),
    ingestBacklog() {
      const queuedPoints = ingestLog instanceof GroupCommitLog ? ingestLog.stats().queuedPoints : 0;
      const lag = ingester ? Object.values(ingester.stats().lagByPartition).reduce((a, b) => a + b, 0) : 0;
      return { queuedPoints, kafkaLag: lag };
    },
    purgeSeries(tenant, seriesIds) {
      store.purgeSeries(tenant, seriesIds).catch((error: unknown) => log.warn({ err: error, tenant }, 'purging the points of deleted time series failed'));
    },
    async close() {
      await parsePool.close().catch((error: unknown) => log.warn({ err: error }, 'closing the parse workers failed'));
      await ingestLog.close();
      await wal?.close();
      await ingester?.stop();
      await store.close();
    },
  };
}
