// The engine as the API sees it: openEngine opens the relational store (migrated; started by
// relational-side.ts, usually by the server before it imports this module), the data point
// side beside it and the per-area facades bound to them, and closes them together. Route modules
// get a facade each; nothing outside engine/ holds a pool or a driver.
import { mergesRunning, rawParts, rollupBacklog } from './datapoints/store-gauges.ts';
import type { TenantSettings } from '../schemas/config.ts';
import { settingsFor, type ServiceConfig } from './config.ts';
import { bindDatapointEngine, openDatapointStorage, type DatapointEngine, type DatapointStorage } from './datapoints/datapoint-engine.ts';
import { resolveAccess, type Access } from './grants/access.ts';
import type { Caller } from './grants/claims.ts';
import { bindGraphEngine, type EdgeEngine, type ResourceEngine } from './graph/graph-engine.ts';
import { bindEventEngine, type EventEngine } from './events/event-engine.ts';
import { openDirectoryBlobStore, openFileEngine, type FileEngine } from './files/file-engine.ts';
import { bindFunctionEngine, type FunctionEngine } from './functions/function-engine.ts';
import { appendEvents } from './events/event-append.ts';
import { createGraphGuard, type GraphGuard } from './graph/graph-guard.ts';
import type { HealthCheck } from './health-check.ts';
import type { DatapointBodyLayout, DatapointBodyParser } from './ingest/datapoint-body-parser.ts';
import type { openSeriesDirectory, SeriesDirectory } from './meta/series-directory.ts';
import { keptTargetsGuard } from './functions/target-guard.ts';
import { TargetMaintainer } from './functions/target-maintainer.ts';
import { logger } from './log.ts';
import { TableStats } from './meta/table-stats.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { createPolicyEvaluator } from './policies/policy-evaluation.ts';
import { bindPolicyEngine, type PolicyEngine } from './policies/policy-engine.ts';
import type { Quotas } from './quotas/quotas.ts';
import { sharedRateWindows, type RateWindows } from './quotas/rate-windows.ts';
import { closeRelationalSide, startRelationalSide } from './relational-side.ts';
import type { RelationalStore } from './stores/relational.ts';
import { TenantRegistry } from './tenants.ts';
import { bindMetaEngine, type DataSetEngine, type LabelEngine, type TimeSeriesEngine, type UnitEngine } from './meta/meta-engine.ts';
import { openSubscriptionEngine, type SubscriptionEngine } from './subscriptions/subscription-engine.ts';

/** What the engine is handed from outside engine/: the parse workers (workers/), behind their port. */
export interface EnginePorts {
  /** Owned by the engine from here: closed with it, or when opening fails. */
  datapointBodyParser: DatapointBodyParser;
  datapointBodyLayout: DatapointBodyLayout;
}

export interface Engine {
  timeseries: TimeSeriesEngine;
  datasets: DataSetEngine;
  labels: LabelEngine;
  units: UnitEngine;
  policies: PolicyEngine;
  resources: ResourceEngine;
  edges: EdgeEngine;
  events: EventEngine;
  /** Function records: named expressions over time series, each with the series it keeps up to date. */
  functions: FunctionEngine;
  /** Files: bytes in DATA_DIR/files, the index in PostgreSQL. */
  files: FileEngine;
  datapoints: DatapointEngine;
  /** Subscription records, the embedded broker and the ad hoc stream. */
  subscriptions: SubscriptionEngine;
  /** Registers the tenant on first sight and resolves the caller's data set grants. */
  access(caller: Caller): Promise<Access>;
  /** SPEC per-minute rate limits' windows, counted in PostgreSQL once for every API instance. */
  rateWindows: RateWindows;
  /** SPEC daily quota on bytes of write-request body; throws IngestQuotaError past it. */
  chargeIngestedBytes(tenant: string, bytes: number): Promise<void>;
  /** The tenant's settings in effect (config.ts settingsFor). */
  settings(tenant: string): TenantSettings;
  metrics: Metrics;
  /** One per store: postgres, clickhouse. */
  healthChecks: HealthCheck[];
  /** The reachability rule of the asset graph, for the resource and edge facades (engine/graph/graph-guard.ts). */
  graph: GraphGuard;
  /** For tests and tools that reach PostgreSQL directly; route modules never get it. */
  relational: RelationalStore;
  close(): Promise<void>;
}

/**
 * Opens the engine. `relationalStart`: the relational side already being opened
 * (startRelationalSide, which the server calls before it imports this module); it is ours to
 * close from here.
 */
export async function openEngine(config: Readonly<ServiceConfig>, ports: EnginePorts, relationalStart = startRelationalSide(config)): Promise<Engine> {
  let datapoints: DatapointEngine | undefined;
  // The gauges read the data point side, opened below; /metrics is served only after that.
  const metrics = createMetrics({
    ingestBacklog: () => (datapoints as DatapointEngine).ingestBacklog(),
    ingestMemory: () => (datapoints as DatapointEngine).slabs.stats(),
    rollupBacklog: () => rollupBacklog((datapoints as DatapointEngine).store.columnar),
    mergesRunning: () => mergesRunning((datapoints as DatapointEngine).store.columnar),
    rawParts: () => rawParts((datapoints as DatapointEngine).store.columnar),
  });
  // PostgreSQL (its own processes: initdb, start) and the columnar store (chdb's threads)
  // open side by side, and the start waits for the longer of the two, not for their sum.
  // chdb's library and session load synchronously (1.4 s here under load): only once
  // PostgreSQL's first process runs, or that load would hold back its spawn.
  const [relationalSide, storageSide] = await Promise.allSettled([
    relationalStart.opened,
    relationalStart.processStarted.then(() => openDatapointStorage(config)),
  ]);
  if (relationalSide.status === 'rejected' || storageSide.status === 'rejected') {
    await ports.datapointBodyParser.close().catch(() => undefined);
    if (storageSide.status === 'fulfilled') await storageSide.value.close().catch(() => undefined);
    if (relationalSide.status === 'fulfilled') await closeRelationalSide(relationalSide.value);
    throw relationalSide.status === 'rejected' ? relationalSide.reason : (storageSide as PromiseRejectedResult).reason;
  }
  const { relational, quotas, series } = relationalSide.value;
  let subscriptions: SubscriptionEngine | undefined;
  let files: FileEngine;
  let targets: TargetMaintainer | undefined;
  const guardWrites = keptTargetsGuard(() => targets?.index);
  datapoints = bindDatapointEngine(config, { relational, series: series.directory, quotas, metrics, parser: ports.datapointBodyParser, layout: ports.datapointBodyLayout, guardWrites }, storageSide.value);
  targets = openTargetMaintainer(config, relational, quotas, series.directory, datapoints);
  try {
    subscriptions = await openSubscriptionEngine(config, { relational, graph: createGraphGuard(relational), series: series.directory, datapoints });
    // ROLE=ingester serves no files: it leaves the blob store's recovery to the API process.
    files = await openFileEngine({ relational, quotas, metrics, settings: (tenant) => settingsFor(config, tenant), blobs: await openDirectoryBlobStore(config.dataDir), recover: config.role !== 'ingester' });
  } catch (error) {
    await subscriptions?.close().catch(() => undefined);
    await datapoints.close().catch(() => undefined);
    await series.close().catch(() => undefined);
    await relational.close().catch(() => undefined);
    throw error;
  }
  return bindEngine(config, relational, datapoints, quotas, metrics, series, files, subscriptions, targets);
}

/**
 * Keeps functions' targets where committed batches are heard: every process but ROLE=api with
 * Kafka (the ingester hears those). Its start (each target computed afresh) runs in the
 * background.
 */
function openTargetMaintainer(config: Readonly<ServiceConfig>, relational: RelationalStore, quotas: Quotas, series: SeriesDirectory, datapoints: DatapointEngine): TargetMaintainer {
  const log = logger.child({ module: 'function-targets' });
  const maintainer = new TargetMaintainer({
    db: relational.pool, log, series, store: datapoints.store, readBarrier: datapoints.readBarrier,
    evaluate: async (access, request) => (await datapoints.evaluate(access, [request]))[0] ?? [],
    append: (batch) => datapoints.ingestLog.append(batch),
    chargeDatapoints: (tenant, count) => quotas.chargeDatapoints(tenant, count, 0),
  });
  if (config.role === 'api' && config.kafkaBrokers) return maintainer;
  datapoints.onCommitted((batch) => maintainer.committed(batch));
  series.onForget((tenant) => maintainer.index.seriesChanged(tenant));
  datapoints.onDeleted((tenant, ranges) => maintainer.deleted(tenant, ranges));
  // With a shared PostgreSQL other processes create functions too (the API instances, when this is the ingester).
  maintainer.start({ othersWriteFunctions: !relational.soleClient }).catch((error: unknown) => log.warn({ err: error }, 'starting to keep functions\' targets failed'));
  return maintainer;
}

function bindEngine(
  config: Readonly<ServiceConfig>, relational: RelationalStore, datapoints: DatapointEngine, quotas: Quotas, metrics: Metrics,
  series: Awaited<ReturnType<typeof openSeriesDirectory>>, files: FileEngine, subscriptions: SubscriptionEngine, targets: TargetMaintainer,
): Engine {
  const tenants = new TenantRegistry();
  const nodeStats = new TableStats(relational.pool, 'nodes');
  const graph = createGraphGuard(relational);
  // Naming policies' findings are events, appended in the write's own transaction.
  const policies = createPolicyEvaluator(async (tx, tenant, findings) => { await appendEvents(tx, tenant, findings); });
  return {
    ...bindMetaEngine({ relational, quotas, nodeStats, graph, policies, series: series.directory, purgeSeries: (tenant, ids) => datapoints.purgeSeries(tenant, ids) }),
    ...bindGraphEngine({ relational, quotas, graph, policies, nodeStats, series: series.directory }),
    events: bindEventEngine(relational, quotas, new TableStats(relational.pool, 'events')),
    policies: bindPolicyEngine(relational, quotas),
    functions: bindFunctionEngine({ relational, quotas, evaluate: datapoints.evaluate, targets }),
    files,
    datapoints,
    subscriptions,
    async access(caller) {
      await tenants.ensure(relational.pool, caller.tenant);
      return resolveAccess(relational.pool, caller);
    },
    rateWindows: sharedRateWindows(relational.counterPool, logger.child({ module: 'rate-limits' })),
    chargeIngestedBytes: (tenant, bytes) => quotas.chargeDaily(tenant, 'ingestedBytes', bytes),
    settings: (tenant) => settingsFor(config, tenant),
    graph,
    metrics,
    healthChecks: [{ name: 'postgres', ping: () => relational.ping() }, ...datapoints.healthChecks, files.healthCheck],
    relational,
    async close() {
      await subscriptions.close();
      await targets.close();
      await datapoints.close();
      await series.close();
      await relational.close();
    },
  };
}
