// Prometheus metrics (CONTRACT "Operational endpoints"): request counts and latencies by
// route and status, limit hits, ingest rate and lag, store timings. One registry per server.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  requests: Counter<'route' | 'method' | 'status'>;
  requestSeconds: Histogram<'route' | 'method' | 'status'>;
  limitHits: Counter<'limit'>;
  datapointsIngested: Counter<'mode'>;
  ingestBacklog: Gauge<'kind'>;
  ingestMemory: Gauge<'state'>;
  rollupBacklog: Gauge;
  mergesRunning: Gauge;
  rawParts: Gauge;
  storeSeconds: Histogram<'store' | 'operation'>;
}

/** Observes how long a store call took, by store and operation. */
export async function timed<T>(metrics: Metrics, store: string, operation: string, call: () => Promise<T>): Promise<T> {
  const end = metrics.storeSeconds.startTimer({ store, operation });
  try {
    return await call();
  } finally {
    end();
  }
}

export interface MetricSources {
  ingestBacklog?: () => { queuedPoints: number; kafkaLag: number };
  /** Shared memory of the ingest path (slab-pool.ts SlabPoolStats). */
  ingestMemory?: () => { pooledBytes: number; onLoanBytes: number };
  /** Dirty ranges the rollup fold has not recomputed yet. */
  rollupBacklog?: () => Promise<number>;
  /** Part merges the columnar engine is running. */
  mergesRunning?: () => Promise<number>;
  /** Active parts of the raw data point tables. */
  rawParts?: () => Promise<number>;
}

export function createMetrics(sources: MetricSources = {}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new Counter({ name: 'http_requests_total', help: 'HTTP requests by route, method and status', labelNames: ['route', 'method', 'status'], registers: [registry] }),
    requestSeconds: new Histogram({
      name: 'http_request_duration_seconds', help: 'HTTP request latency by route, method and status',
      labelNames: ['route', 'method', 'status'], buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    limitHits: new Counter({ name: 'limit_hits_total', help: 'How often each limit refused a request', labelNames: ['limit'], registers: [registry] }),
    datapointsIngested: new Counter({ name: 'datapoints_ingested_total', help: 'Data points acknowledged', labelNames: ['mode'], registers: [registry] }),
    ingestBacklog: new Gauge({ name: 'ingest_backlog', help: 'Ingest backlog: points queued for group commit (kind=queued_points), Kafka messages not yet ingested (kind=kafka_lag_messages)', labelNames: ['kind'], registers: [registry],
      collect() {
        const backlog = sources.ingestBacklog?.() ?? { queuedPoints: 0, kafkaLag: 0 };
        this.set({ kind: 'queued_points' }, backlog.queuedPoints);
        this.set({ kind: 'kafka_lag_messages' }, backlog.kafkaLag);
      },
    }),
    ingestMemory: new Gauge({ name: 'ingest_memory_bytes', help: 'Shared memory of the ingest path: kept for reuse (state=pooled), held by requests now (state=on_loan)', labelNames: ['state'], registers: [registry],
      collect() {
        const memory = sources.ingestMemory?.() ?? { pooledBytes: 0, onLoanBytes: 0 };
        this.set({ state: 'pooled' }, memory.pooledBytes);
        this.set({ state: 'on_loan' }, memory.onLoanBytes);
      },
    }),
    rollupBacklog: new Gauge({ name: 'datapoint_rollup_backlog_ranges', help: 'Hour ranges whose rollups the background fold has not recomputed yet (reads compute them from raw points meanwhile)', registers: [registry],
      async collect() {
        this.set(await (sources.rollupBacklog?.() ?? Promise.resolve(0)));
      },
    }),
    mergesRunning: new Gauge({ name: 'columnar_merges_running', help: 'Part merges the columnar engine is running now', registers: [registry],
      async collect() {
        this.set(await (sources.mergesRunning?.() ?? Promise.resolve(0)));
      },
    }),
    rawParts: new Gauge({ name: 'datapoint_raw_parts', help: 'Active parts of the raw data point tables (a raw read merges a series across them; they settle once ingest goes quiet)', registers: [registry],
      async collect() {
        this.set(await (sources.rawParts?.() ?? Promise.resolve(0)));
      },
    }),
    storeSeconds: new Histogram({
      name: 'store_operation_seconds', help: 'Store call latency', labelNames: ['store', 'operation'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5], registers: [registry],
    }),
  };
}
