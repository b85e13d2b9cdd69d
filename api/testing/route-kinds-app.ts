// Test fixture for the route kinds: a real uWS app on 127.0.0.1, port 0, with the
// test's own REST and WebSocket routes mounted through the real mountRoutes and
// mountWebSocketRoutes, the real authenticator (HS256) and rate limiter. No stores: access
// is every data set of the caller's tenant (grant resolution is tested with the real server).
import { randomBytes } from 'node:crypto';
import uws from 'uWebSockets.js';
import { errorsBase, loadConfig, type ServiceConfig } from '../../engine/config.ts';
import { fullAccess } from '../../engine/grants/access.ts';
import { logger } from '../../engine/log.ts';
import { createMetrics } from '../../engine/metrics.ts';
import type { ServiceConfigFile } from '../../schemas/config.ts';
import { createAuthenticator, mintToken } from '../auth.ts';
import { assertNativeUws, mountRoutes, type HttpDeps } from '../http-server.ts';
import { RateLimiter } from '../rate-limit.ts';
import type { Route } from '../route.ts';
import { mountWebSocketRoutes, type WebSocketRoute } from '../websocket-routes.ts';
import { pollUntil } from '../../engine/testing/poll-until.ts';

export interface RouteKindsApp {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  deps: HttpDeps;
  newTenant(): string;
  token(org: string, sub?: string): string;
  close(): void;
}

export async function startRouteKindsApp(opts: { routes?: Route[]; webSocketRoutes?: WebSocketRoute[]; policy?: ServiceConfigFile }): Promise<RouteKindsApp> {
  assertNativeUws();
  const secret = randomBytes(24).toString('base64url');
  const config: Readonly<ServiceConfig> = { ...loadConfig({ PORT: '0', HOST: '127.0.0.1', AUTH_JWT_SECRET: secret, LOG_LEVEL: 'silent' }), policy: opts.policy ?? {} };
  const log = logger.child({ module: 'route-kinds-test' });
  log.level = process.env['LOG_LEVEL'] ?? 'silent';
  const deps: HttpDeps = {
    config, log, auth: createAuthenticator({ secret }), metrics: createMetrics(), errorsBase: errorsBase(config),
    access: async (caller) => fullAccess(caller.tenant), limiter: new RateLimiter(),
  };
  const app = uws.App();
  mountWebSocketRoutes(app, opts.webSocketRoutes ?? [], deps);
  mountRoutes(app, opts.routes ?? [], deps);
  const socket = await new Promise<uws.us_listen_socket>((resolve, reject) => {
    app.listen('127.0.0.1', 0, (s) => (s ? resolve(s) : reject(new Error('cannot listen on 127.0.0.1'))));
  });
  const port = uws.us_socket_local_port(socket);
  return {
    url: `http://127.0.0.1:${port}`, port, deps,
    newTenant: () => `t-${randomBytes(6).toString('hex')}`,
    token: (org, sub = 'tester') => mintToken({ secret, organization: org, sub }),
    close: () => uws.us_listen_socket_close(socket),
  };
}

/** Waits until `check` holds, or fails at the deadline (engine/testing/poll-until.ts). */
export async function until(check: () => boolean, what: string, deadlineMs = 20_000): Promise<void> {
  await pollUntil(what, check, deadlineMs, 5);
}
