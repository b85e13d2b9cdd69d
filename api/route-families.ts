// What the server mounts over the engine: the route families (REST and WebSocket) and the parse
// workers the engine takes as its port. Imported by server.ts once its port is bound and
// PostgreSQL is starting, so these modules (and the engine areas under them) are evaluated
// while initdb runs, not before it (docs/architecture.md, "What the start spends its time on").
import { availableParallelism } from 'node:os';
import { errorsBase, type ServiceConfig } from '../engine/config.ts';
import { PARSE_QUEUE_DEPTH_MAX } from '../engine/datapoints/datapoint-engine.ts';
import type { Engine } from '../engine/engine.ts';
import type { DatapointBodyLayout, DatapointBodyParser } from '../engine/ingest/datapoint-body-parser.ts';
import type { Logger } from '../engine/log.ts';
import { createDatapointPool } from '../workers/datapoint-pool.ts';
import { encodeOutputBytes } from '../workers/datapoint-encode.ts';
import { scanScratchBytes } from '../workers/datapoint-scan.ts';
import { scanArrowScratchBytes } from '../workers/datapoint-scan-arrow.ts';
import { hintKey, speculativeOutputBytes } from '../workers/datapoint-task.ts';
import { cdfRoutes } from './cdf/cdf-routes.ts';
import { consoleRoutes } from './console.ts';
import { dataSetRoutes } from './datasets.ts';
import { datapointRoutes } from './datapoints.ts';
import { listenRoutes } from './datapoints-listen.ts';
import { edgeRoutes } from './edges.ts';
import { eventRoutes } from './events.ts';
import { fileRoutes } from './files.ts';
import { functionRoutes } from './functions.ts';
import { mcpRoutes } from './mcp.ts';
import { buildOpenApi } from './openapi.ts';
import { operationalRoutes } from './operational.ts';
import { policyRoutes } from './policies.ts';
import { resourceRoutes } from './resources.ts';
import type { Route } from './route.ts';
import { subscriptionRoutes } from './subscriptions.ts';
import { timeseriesRoutes } from './timeseries.ts';
import { unitRoutes } from './units.ts';
import type { WebSocketRoute } from './websocket-routes.ts';

/** The workers' memory layout and hint keys, as the engine's ingest port takes them. */
export const DATAPOINT_BODY_LAYOUT: DatapointBodyLayout = {
  scanScratchBytes: (bodyBytes, format) => (format === 'arrow' ? scanArrowScratchBytes(bodyBytes) : scanScratchBytes(bodyBytes)),
  speculativeOutputBytes, encodeOutputBytes, hintKey,
};

/** One parsing thread per core: the event loop mostly waits on the store meanwhile. */
export function createDatapointParser(log: Logger): DatapointBodyParser {
  return createDatapointPool({
    maxThreads: Math.max(1, availableParallelism()),
    maxQueue: PARSE_QUEUE_DEPTH_MAX,
    onWorkerError: (error) => log.error({ err: error }, 'a datapoint worker failed outside a task; piscina starts another'),
  });
}

/** The WebSocket route families: the subscription stream and the ad hoc stream; none for ROLE=ingester. */
export function webSocketRoutesOf(config: Readonly<ServiceConfig>, engine: Engine): WebSocketRoute[] {
  return config.role === 'ingester' ? [] : listenRoutes(engine.subscriptions);
}

/** The route families over the engine's facades; ROLE=ingester serves only the operational ones. */
export function routesOf(config: Readonly<ServiceConfig>, engine: Engine, secret: string | undefined, webSocketRoutes: readonly WebSocketRoute[], log: Logger): Route[] {
  const routes: Route[] = [];
  let openapi: unknown;
  routes.push(...operationalRoutes(engine, config, () => (openapi ??= buildOpenApi(routes, { description: 'Multi-tenant industrial data service (CDF-style). See docs/api.md.' }, webSocketRoutes)), () => secret));
  // ROLE=ingester consumes Kafka into ClickHouse and serves only the operational endpoints.
  if (config.role !== 'ingester') {
    routes.push(...timeseriesRoutes(engine.timeseries), ...datapointRoutes(engine.datapoints), ...unitRoutes(engine.units), ...dataSetRoutes(engine.datasets, engine.labels));
    routes.push(...resourceRoutes(engine.resources), ...edgeRoutes(engine.edges), ...eventRoutes(engine.events), ...policyRoutes(engine.policies));
    routes.push(...fileRoutes(engine.files));
    routes.push(...functionRoutes(engine.functions));
    routes.push(...subscriptionRoutes(engine.subscriptions));
    routes.push(...mcpRoutes(engine, { errorsBase: errorsBase(config), log }));
    routes.push(...cdfRoutes(engine));
    routes.push(...consoleRoutes(config));
  }
  return routes;
}
