// Wires the service: configuration, the engine (engine/engine.ts) with the parse workers as
// its port, and the route families over the engine's facades on one uWebSockets.js app.
// `startServer` is what `make run` and the tests call; it returns once the port is bound.
import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import uws from 'uWebSockets.js';
import { errorsBase, type ServiceConfig } from '../engine/config.ts';
import type { DatapointEngine } from '../engine/datapoints/datapoint-engine.ts';
import type { Engine } from '../engine/engine.ts';
import { logger } from '../engine/log.ts';
import { closeRelationalSide, startRelationalSide } from '../engine/relational-side.ts';
import { createAuthenticator } from './auth.ts';
import { assertNativeUws, mountRoutes, type HttpDeps } from './http-server.ts';
import { RateLimiter } from './rate-limit.ts';
import type { Route } from './route.ts';
import { mountWebSocketRoutes } from './websocket-routes.ts';

const log = logger.child({ module: 'server' });

export class StartupError extends Error {}

export interface RunningServer {
  port: number;
  /** The engine behind the routes (tests reach its stores through it). */
  engine: Engine;
  routes: Route[];
  /** engine.datapoints: the data point store, ingest log and workers (tests reach the store through it). */
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
    // would silently share the port instead of failing. The typings lack this
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
  // PostgreSQL starts now (on an empty store initdb is most of the start); the route modules
  // and the engine's areas are imported while it runs (docs/architecture.md).
  const relationalStart = startRelationalSide(config);
  let engine: Engine;
  let families: typeof import('./route-families.ts');
  let engineOwnsRelational = false;
  try {
    const [loaded, { openEngine }] = await Promise.all([import('./route-families.ts'), import('../engine/engine.ts')]);
    families = loaded;
    const parser = families.createDatapointParser(log);
    engineOwnsRelational = true; // openEngine closes it (and the parser) if it fails
    engine = await openEngine(config, { datapointBodyParser: parser, datapointBodyLayout: families.DATAPOINT_BODY_LAYOUT }, relationalStart);
  } catch (error) {
    uws.us_listen_socket_close(socket);
    if (!engineOwnsRelational) await relationalStart.opened.then(closeRelationalSide, () => undefined);
    throw error;
  }
  const webSocketRoutes = families.webSocketRoutesOf(config, engine);
  const routes = families.routesOf(config, engine, secret, webSocketRoutes, log);
  const httpDeps: HttpDeps = {
    config, auth, metrics: engine.metrics, log, errorsBase: errorsBase(config), access: (caller) => engine.access(caller),
    chargeIngestedBytes: (tenant, bytes) => engine.chargeIngestedBytes(tenant, bytes),
    limiter: new RateLimiter(engine.rateWindows), // one per-minute budget for REST requests and WebSocket handshakes, shared by every instance
  };
  // WebSocket routes first: mountRoutes ends with the catch-all 404.
  mountWebSocketRoutes(app, webSocketRoutes, httpDeps);
  mountRoutes(app, routes, httpDeps);
  log.info({ host: config.host, port, dataDir: config.dataDir, role: config.role }, 'serving');
  let closed = false;
  return {
    port, engine, routes, datapoints: engine.datapoints,
    async close() {
      if (closed) return;
      closed = true;
      uws.us_listen_socket_close(socket);
      await engine.close();
      log.info('stopped');
    },
  };
}
