// Wires the service: configuration, stores, engine and routes on one uWebSockets.js app.
// `startServer` is what `make run` and the tests call; it returns once the port is bound.
import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import uws from 'uWebSockets.js';
import { errorsBase, type ServiceConfig } from '../engine/config.ts';
import { resolveAccess } from '../engine/grants/access.ts';
import { logger } from '../engine/log.ts';
import { openRelational, type RelationalStore } from '../engine/stores/relational.ts';
import { migrate } from '../engine/stores/migrations.ts';
import { TenantRegistry } from '../engine/tenants.ts';
import { Quotas } from '../engine/quotas/quotas.ts';
import { TableStats } from '../engine/meta/table-stats.ts';
import { createAuthenticator } from './auth.ts';
import { dataSetRoutes } from './datasets.ts';
import { assertNativeUws, mountRoutes } from './http-server.ts';
import { createMetrics } from '../engine/metrics.ts';
import { buildOpenApi } from './openapi.ts';
import { operationalRoutes } from './operational.ts';
import type { HealthCheck } from '../engine/health-check.ts';
import type { Route } from './route.ts';
import type { Services } from './services.ts';
import { timeseriesRoutes } from './timeseries.ts';
import { unitRoutes } from './units.ts';
import { openDatapointEngine, PARSE_QUEUE_DEPTH_MAX, type DatapointEngine } from '../engine/datapoint-engine.ts';
import { datapointRoutes } from './datapoints.ts';
import { availableParallelism } from 'node:os';
import { createDatapointPool } from '../workers/datapoint-pool.ts';
import { encodeOutputBytes } from '../workers/datapoint-encode.ts';
import { scanScratchBytes } from '../workers/datapoint-scan.ts';
import { hintKey, speculativeOutputBytes } from '../workers/datapoint-task.ts';

const log = logger.child({ module: 'server' });

export class StartupError extends Error {}

export interface RunningServer {
  port: number;
  services: Services;
  routes: Route[];
  /** The data point store, ingest log and workers (tests reach the store through it). */
  datapoints: DatapointEngine;
  close(): Promise<void>;
}

/** DATA_DIR must exist and be writable; say so in one line otherwise. */
function prepareDataDir(dataDir: string): void {
  try {
    // Non-recursive when the parent exists: Node 20's recursive mkdir spins forever on some
    // unwritable parents (for example under /proc) instead of failing.
    if (!existsSync(dataDir)) mkdirSync(dataDir, { recursive: !existsSync(path.dirname(dataDir)) });
    accessSync(dataDir, constants.W_OK);
  } catch (error) {
    throw new StartupError(`DATA_DIR ${dataDir} is not writable: ${(error as Error).message}`);
  }
}

/** AUTH_JWT_SECRET, or one generated into DATA_DIR on first start (CONTRACT "Configuration"). */
export function resolveJwtSecret(config: Readonly<ServiceConfig>): string | undefined {
  if (config.authJwtSecret || config.authJwksUrl) return config.authJwtSecret;
  const file = path.join(config.dataDir, 'jwt-secret');
  if (!existsSync(file)) {
    writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600 });
    log.info({ file }, 'generated an HS256 secret; mint a token with: npm run token -- --org <tenant> --sub <user>');
  }
  return readFileSync(file, 'utf8').trim();
}

/** µWS ListenOptions.LIBUS_LISTEN_EXCLUSIVE_PORT (an enum only in the typings). */
const LIBUS_LISTEN_EXCLUSIVE_PORT = 1;

function listen(app: uws.TemplatedApp, host: string, port: number): Promise<{ socket: uws.us_listen_socket; port: number }> {
  return new Promise((resolve, reject) => {
    // LIBUS_LISTEN_EXCLUSIVE_PORT: without it µWS sets SO_REUSEPORT and a second instance
    // would silently share the port instead of failing (issue 2). The typings lack this
    // (host, port, options, cb) overload, which the native build has.
    const listenExclusive = app.listen as unknown as (h: string, p: number, o: number, cb: (s: uws.us_listen_socket | false) => void) => void;
    listenExclusive.call(app, host, port, LIBUS_LISTEN_EXCLUSIVE_PORT, (socket) => {
      if (!socket) reject(new StartupError(`cannot listen on ${host}:${port}: the port is in use or not allowed`));
      else resolve({ socket, port: uws.us_socket_local_port(socket) });
    });
  });
}

export async function startServer(config: Readonly<ServiceConfig>): Promise<RunningServer> {
  logger.level = config.logLevel;
  assertNativeUws();
  prepareDataDir(config.dataDir);
  const secret = resolveJwtSecret(config);
  const auth = createAuthenticator({ secret, jwksUrl: config.authJwksUrl, issuer: config.authIssuer, audience: config.authAudience });
  // Bind the port first so a second instance fails fast, before it touches the stores.
  const app = uws.App();
  const { socket, port } = await listen(app, config.host, config.port);
  let relational: RelationalStore | undefined;
  let datapoints: DatapointEngine | undefined;
  let wired: { quotas: Quotas; metrics: ReturnType<typeof createMetrics> } | undefined;
  const engineForMetrics = () => datapoints as DatapointEngine;
  try {
    relational = await openRelational({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    await migrate(relational);
    const opened = relational;
    const quotas = new Quotas(opened.counterPool, config);
    const metrics = createMetrics({ ingestBacklog: () => engineForMetrics().ingestBacklog(), ingestMemory: () => engineForMetrics().slabs.stats(), rollupBacklog: () => engineForMetrics().store.rollupBacklog(), mergesRunning: () => engineForMetrics().store.mergesRunning() });
    // One parsing thread per core: the event loop mostly waits on the store meanwhile.
    const parser = createDatapointPool({ maxThreads: Math.max(1, availableParallelism()), maxQueue: PARSE_QUEUE_DEPTH_MAX });
    datapoints = await openDatapointEngine(config, { relational: opened, quotas, metrics, parser, layout: { scanScratchBytes, speculativeOutputBytes, encodeOutputBytes, hintKey } });
    wired = { quotas, metrics };
  } catch (error) {
    uws.us_listen_socket_close(socket);
    await datapoints?.close().catch(() => undefined);
    await relational?.close().catch(() => undefined);
    throw error;
  }
  const store = relational;
  const { quotas, metrics } = wired as NonNullable<typeof wired>;
  const tenants = new TenantRegistry();
  const services: Services = {
    config, relational: store, metrics, quotas, nodeStats: new TableStats(store.pool, 'nodes'),
    async access(caller) {
      await tenants.ensure(store.pool, caller.tenant);
      return resolveAccess(store.pool, caller);
    },
    onTimeSeriesDeleted(tenant, ids) {
      datapoints?.purgeSeries(tenant, ids);
    },
  };
  const checks: HealthCheck[] = [{ name: 'postgres', ping: () => store.ping() }, ...datapoints.healthChecks];
  const routes: Route[] = [];
  let openapi: unknown;
  routes.push(...operationalRoutes(services, checks, () => (openapi ??= buildOpenApi(routes, { description: 'Multi-tenant industrial data service (CDF-style). See docs/api.md.' })), () => secret));
  // ROLE=ingester consumes Kafka into ClickHouse and serves only the operational endpoints.
  if (config.role !== 'ingester') {
    routes.push(...timeseriesRoutes(services), ...datapointRoutes(datapoints), ...unitRoutes(), ...dataSetRoutes(services));
  }
  mountRoutes(app, routes, {
    config, auth, metrics, log, errorsBase: errorsBase(config), access: (caller) => services.access(caller),
    chargeIngestedBytes: (tenant, bytes) => services.quotas.chargeDaily(tenant, 'ingestedBytes', bytes),
  });
  log.info({ host: config.host, port, dataDir: config.dataDir, role: config.role }, 'serving');
  const engine = datapoints;
  let closed = false;
  return {
    port, services, routes, datapoints: engine,
    async close() {
      if (closed) return;
      closed = true;
      uws.us_listen_socket_close(socket);
      await engine.close();
      await store.close();
      log.info('stopped');
    },
  };
}
