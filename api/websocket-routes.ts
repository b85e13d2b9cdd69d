// WebSocket routes (SPEC Authentication rule 5, "Subscription stream"): a declared
// route kind mounted with app.ws(). The upgrade handshake checks the token (401 JSON and no
// upgrade on a bad one), charges a read, resolves the caller's access like any REST route and
// carries it into the socket; the session gets a typed context with back-pressured send,
// keepalive PINGs and an idle close from config. What a session says (subscriptions,
// connection caps) is the route's business.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { HttpRequest, HttpResponse, TemplatedApp, WebSocket, us_socket_context_t } from 'uWebSockets.js';
import { POLICY_DEFAULTS, settingsFor } from '../engine/config.ts';
import { BadRequestError, DomainError } from '../engine/errors.ts';
import type { Access } from '../engine/grants/access.ts';
import type { Caller } from '../engine/grants/claims.ts';
import type { Logger } from '../engine/log.ts';
import type { TenantSettings } from '../schemas/config.ts';
import { AuthError } from './auth.ts';
import type { HttpDeps } from './http-server.ts';
import { toErrorReply, unauthorized, type ErrorReply } from './problems.ts';
import { Keepalive } from './websocket-keepalive.ts';
import { RateLimiter } from './rate-limit.ts';
import { guardUws } from './uws-guard.ts';

/** SPEC "Subscription stream" close codes. */
export const WS_CLOSE = { normal: 1000, policyViolation: 1008, internalError: 1011 } as const;

/** Largest client message in bytes unless a route says otherwise; uWS closes on a larger one. */
export const WEBSOCKET_MESSAGE_BYTES_MAX = 1024 * 1024;
/** Bytes a socket may have queued for sending before send() reports 'dropped'. */
export const WEBSOCKET_BACKPRESSURE_BYTES_MAX = 1024 * 1024;
/**
 * Browsers cannot set Authorization on a WebSocket: they offer the subprotocols
 * `bearer, <JWT>` instead, and the server answers with `bearer`.
 */
export const BEARER_SUBPROTOCOL = 'bearer';

/** 'sent': on the wire; 'backpressure': queued, wait for drain; 'dropped': over the limit, not sent; 'closed'. */
export type SendOutcome = 'sent' | 'backpressure' | 'dropped' | 'closed';

export interface WebSocketContext {
  caller: Caller;
  /** Resolved once at the handshake, like RequestContext.access. */
  access: Access;
  /** The tenant's settings (WebSocket caps, keepalive) at the handshake. */
  settings: TenantSettings;
  /** Decoded `{name}` path parameters. */
  params: Record<string, string>;
  /** Decoded segments matched by a trailing `{name*}` (empty when the route has none or none were given). */
  pathTail: string[];
  query: URLSearchParams;
  requestId: string;
  log: Logger;
  /** Sends one frame: text for a string, binary for bytes. Check the outcome (back-pressure). */
  send(message: string | Uint8Array): SendOutcome;
  /** Bytes queued in uWS for this socket, not yet on the wire. */
  bufferedBytes(): number;
  /** Resolves when nothing is queued any more (at once if nothing is), or the socket closed. */
  drained(): Promise<void>;
  /** Closes with a close frame (WS_CLOSE codes); a no-op once closed. */
  close(code: number, reason?: string): void;
  readonly closed: boolean;
}

/**
 * What `open` returns: the session's handlers. A handler that throws, or whose promise
 * rejects, closes the socket with 1011. Messages are handed over in order but not awaited:
 * an async handler that must not overlap itself queues its own work.
 */
export interface WebSocketSession {
  /** A text frame as a string, a binary frame as bytes (a copy the session owns). */
  message?(data: string | Uint8Array): void | Promise<void>;
  /** The send queue has drained (see SendOutcome 'backpressure'). */
  drain?(): void;
  /** The socket closed (by either side); do not send any more. */
  close?(code: number, reason: string): void;
}

export interface WebSocketRoute {
  /** OpenAPI-style path; a last segment `{name*}` matches the rest of the path, possibly empty. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** @default WEBSOCKET_MESSAGE_BYTES_MAX */
  messageBytesMax?: number;
  /** @default WEBSOCKET_BACKPRESSURE_BYTES_MAX */
  backpressureBytesMax?: number;
  /** Called once the socket is open; may throw (closes with 1011). */
  open(ctx: WebSocketContext): WebSocketSession;
}

interface SocketState {
  ctx: SocketContext;
  route: WebSocketRoute;
  ws?: WebSocket<SocketState>;
  session?: WebSocketSession;
  lastHeardMs: number;
  lastPingMs: number;
}

interface PathShape {
  /** uWS patterns to register (a tail gets two: without and with the rest). */
  patterns: string[];
  names: string[];
  /** Characters before the tail's `/`, when the path has a tail. */
  tailPrefixLength?: number;
}

function pathShape(path: string): PathShape {
  const tail = /\/\{(\w+)\*\}$/.exec(path);
  const head = tail ? path.slice(0, tail.index) : path;
  const names = [...head.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
  const pattern = head.replace(/\{(\w+)\}/g, ':$1');
  if (!tail) return { patterns: [pattern], names };
  return { patterns: [pattern, `${pattern}/*`], names, tailPrefixLength: pattern.length };
}

/** The path as /openapi.json documents it (`{name*}` becomes `{name}`). */
export function openApiPath(path: string): string {
  return path.replace(/\{(\w+)\*\}$/, '{$1}');
}

/** The token from Authorization, else from the `bearer, <JWT>` subprotocol pair. */
function bearerOf(authorization: string, protocols: string[]): { authorization: string; protocol: string } {
  if (authorization) return { authorization, protocol: '' };
  const at = protocols.indexOf(BEARER_SUBPROTOCOL);
  const token = at >= 0 ? protocols[at + 1] : undefined;
  return token ? { authorization: `Bearer ${token}`, protocol: BEARER_SUBPROTOCOL } : { authorization: '', protocol: '' };
}

/** What the handshake reads from the request before its first await (uWS stack-allocates it). */
interface Handshake {
  requestId: string;
  authorization: string;
  protocol: string;
  key: string;
  extensions: string;
  params: Record<string, string>;
  pathTail: string[];
  query: URLSearchParams;
}

function readHandshake(req: HttpRequest, shape: PathShape): Handshake {
  const protocols = req.getHeader('sec-websocket-protocol').split(',').map((p) => p.trim()).filter(Boolean);
  const { authorization, protocol } = bearerOf(req.getHeader('authorization'), protocols);
  const params: Record<string, string> = {};
  const url = req.getUrl();
  const tail = shape.tailPrefixLength === undefined ? '' : url.slice(shape.tailPrefixLength + 1);
  const decode = (value: string, what: string) => {
    try {
      return decodeURIComponent(value);
    } catch {
      throw new BadRequestError(`The path ${what} "${value}" is not valid percent-encoding`, [{ field: what, message: 'invalid percent-encoding' }]);
    }
  };
  shape.names.forEach((name, i) => { params[name] = decode(req.getParameter(i) ?? '', name); });
  return {
    requestId: req.getHeader('x-request-id') || randomUUID(),
    authorization, protocol,
    key: req.getHeader('sec-websocket-key'),
    extensions: req.getHeader('sec-websocket-extensions'),
    params,
    pathTail: tail.split('/').filter(Boolean).map((segment) => decode(segment, 'segment')),
    query: new URLSearchParams(req.getQuery() ?? ''),
  };
}

class SocketContext implements WebSocketContext {
  closed = false;
  ws: WebSocket<SocketState> | undefined;
  private drainWaiters: (() => void)[] = [];

  constructor(
    readonly caller: Caller, readonly access: Access, readonly settings: TenantSettings, private readonly handshake: Handshake,
    readonly log: Logger,
  ) {}

  get params() { return this.handshake.params; }
  get pathTail() { return this.handshake.pathTail; }
  get query() { return this.handshake.query; }
  get requestId() { return this.handshake.requestId; }

  send(message: string | Uint8Array): SendOutcome {
    if (this.closed || !this.ws) return 'closed';
    const status = this.ws.send(message, typeof message !== 'string');
    return status === 1 ? 'sent' : status === 2 ? 'dropped' : 'backpressure';
  }

  bufferedBytes(): number {
    return this.closed || !this.ws ? 0 : this.ws.getBufferedAmount();
  }

  drained(): Promise<void> {
    if (this.bufferedBytes() === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  close(code: number, reason = ''): void {
    if (this.closed || !this.ws) return;
    this.ws.end(code, reason); // runs the close handler, which marks us closed
  }

  /** From uWS drain and close. */
  wakeDrainWaiters(): void {
    if (!this.closed && this.bufferedBytes() > 0) return;
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const wake of waiters) wake();
  }
}

/**
 * Mounts WebSocket routes. Mount them before mountRoutes (whose catch-all answers 404).
 * `deps.limiter`, when given, is the REST routes' limiter: an upgrade is charged as a read
 * from the same per-minute budget.
 */
export function mountWebSocketRoutes(app: TemplatedApp, routes: readonly WebSocketRoute[], deps: HttpDeps): void {
  const limiter = deps.limiter ?? new RateLimiter();
  const keepalive = new Keepalive<SocketState>({ ...POLICY_DEFAULTS.websocket, ...deps.config.policy.websocket }, (state) => state.ctx.close(WS_CLOSE.normal, 'idle timeout'));
  for (const route of routes) {
    const shape = pathShape(route.path);
    const behavior = {
      maxPayloadLength: route.messageBytesMax ?? WEBSOCKET_MESSAGE_BYTES_MAX,
      maxBackpressure: route.backpressureBytesMax ?? WEBSOCKET_BACKPRESSURE_BYTES_MAX,
      closeOnBackpressureLimit: 0,
      // Keepalive and idle close are ours (per-tenant settings): uWS's own timers are off.
      idleTimeout: 0,
      sendPingsAutomatically: false,
      upgrade: guardUws(deps.log, `websocket upgrade ${route.path}`, (res: HttpResponse, req: HttpRequest, context: us_socket_context_t) => {
        upgradeWebSocket(res, req, context, route, shape, limiter, deps);
      }, (_error, res) => res.close()),
      open: guardUws(deps.log, `websocket open ${route.path}`, (ws: WebSocket<SocketState>) => {
        const state = ws.getUserData();
        state.ws = ws;
        state.ctx.ws = ws;
        keepalive.add(state);
        state.session = route.open(state.ctx);
      }, (error, ws) => failSession(ws.getUserData(), error)),
      message: guardUws(deps.log, `websocket message ${route.path}`, (ws: WebSocket<SocketState>, message: ArrayBuffer, isBinary: boolean) => {
        const state = ws.getUserData();
        state.lastHeardMs = Date.now();
        // uWS neuters `message` when this returns: hand the session a copy.
        const data = isBinary ? new Uint8Array(message.slice(0)) : Buffer.from(message).toString('utf8');
        const done = state.session?.message?.(data);
        if (done) done.catch((error: unknown) => failSession(state, error));
      }, (error, ws) => failSession(ws.getUserData(), error)),
      drain: guardUws(deps.log, `websocket drain ${route.path}`, (ws: WebSocket<SocketState>) => {
        const state = ws.getUserData();
        state.ctx.wakeDrainWaiters();
        state.session?.drain?.();
      }, (error, ws) => failSession(ws.getUserData(), error)),
      pong: guardUws(deps.log, `websocket pong ${route.path}`, (ws: WebSocket<SocketState>) => {
        ws.getUserData().lastHeardMs = Date.now();
      }),
      ping: guardUws(deps.log, `websocket ping ${route.path}`, (ws: WebSocket<SocketState>) => {
        ws.getUserData().lastHeardMs = Date.now();
      }),
      close: guardUws(deps.log, `websocket close ${route.path}`, (ws: WebSocket<SocketState>, code: number, message: ArrayBuffer) => {
        const state = ws.getUserData();
        state.ctx.closed = true;
        keepalive.remove(state);
        state.ctx.wakeDrainWaiters();
        state.session?.close?.(code, Buffer.from(message).toString('utf8'));
        deps.log.info({ requestId: state.ctx.requestId, route: route.path, tenant: state.ctx.caller.tenant, code }, 'websocket closed');
      }),
    };
    for (const pattern of shape.patterns) app.ws<SocketState>(pattern, behavior);
  }
}

/** A session handler failed: log it and close with 1011 (SPEC close codes); the service keeps serving. */
function failSession(state: SocketState, error: unknown): void {
  state.ctx.log.error({ err: error, requestId: state.ctx.requestId, route: state.route.path }, 'a WebSocket session failed; closing it with 1011');
  state.ctx.close(WS_CLOSE.internalError, 'internal error');
}

function upgradeWebSocket(
  res: HttpResponse, req: HttpRequest, context: us_socket_context_t, route: WebSocketRoute, shape: PathShape, limiter: RateLimiter, deps: HttpDeps,
): void {
  const started = process.hrtime.bigint();
  const gone = { aborted: false };
  res.onAborted(() => { gone.aborted = true; });
  let handshake: Handshake | undefined;
  let tenant: string | undefined;
  const record = (status: number) => {
    const labels = { route: route.path, method: 'get', status: String(status) };
    deps.metrics.requests.inc(labels);
    deps.metrics.requestSeconds.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    deps.log.info({ requestId: handshake?.requestId, route: route.path, method: 'get', status, tenant, ms: Number(process.hrtime.bigint() - started) / 1e6 }, 'websocket upgrade');
  };
  const refuse = (reply: ErrorReply) => {
    record(reply.status);
    if (gone.aborted) return;
    res.cork(() => {
      res.writeStatus(`${reply.status} ${STATUS_CODES[reply.status] ?? ''}`.trim());
      res.writeHeader('X-Request-Id', handshake?.requestId ?? randomUUID());
      res.writeHeader('Content-Type', reply.contentType);
      for (const [key, value] of Object.entries(reply.headers ?? {})) res.writeHeader(key, value);
      res.end(JSON.stringify(reply.body), true);
    });
  };
  const run = async () => {
    handshake = readHandshake(req, shape); // before the first await
    let caller: Caller;
    try {
      caller = await deps.auth.authenticate(handshake.authorization);
    } catch (error) {
      if (error instanceof AuthError) return refuse(unauthorized(error.message));
      throw error;
    }
    tenant = caller.tenant;
    const settings = settingsFor(deps.config, caller.tenant);
    try {
      await limiter.charge(caller.tenant, caller.sub, 'read', settings);
    } catch (error) {
      deps.metrics.limitHits.inc({ limit: 'rate' });
      throw error;
    }
    const access = await deps.access(caller);
    if (gone.aborted) return record(499);
    const now = Date.now();
    const state: SocketState = {
      ctx: new SocketContext(caller, access, settings, handshake, deps.log), route, lastHeardMs: now, lastPingMs: now,
    };
    const { key, protocol, extensions } = handshake;
    record(101);
    res.cork(() => res.upgrade(state, key, protocol, extensions, context));
  };
  run().catch((error: unknown) => {
    if (!(error instanceof DomainError)) deps.log.error({ err: error, requestId: handshake?.requestId, route: route.path }, 'websocket upgrade failed');
    refuse(toErrorReply(error, deps.errorsBase));
  });
}

/** The operation /openapi.json shows for a WebSocket route: a GET answered 101. */
export function webSocketOperation(route: WebSocketRoute): { path: string; operation: Record<string, unknown> } {
  const shape = /\/\{(\w+)\*\}$/.exec(route.path);
  const names = [...route.path.matchAll(/\{(\w+)\*?\}/g)].map((m) => m[1] as string);
  const how = 'WebSocket (RFC 6455 upgrade). The token is checked at the handshake: send `Authorization: Bearer <JWT>`, '
    + `or (browsers) offer the subprotocols \`${BEARER_SUBPROTOCOL}, <JWT>\`; the server then selects \`${BEARER_SUBPROTOCOL}\`. `
    + 'A bad token is answered 401 with no upgrade. Server PINGs every pingIntervalMs; a session silent for idleTimeoutMs is closed (1000). '
    + 'Close codes: 1000 normal, 1008 policy violation, 1011 internal error.';
  return {
    path: openApiPath(route.path),
    operation: {
      operationId: route.operationId,
      summary: route.summary,
      description: route.description ? `${route.description}\n\n${how}` : how,
      tags: [route.tag],
      parameters: names.map((name) => ({
        name, in: 'path', required: true, schema: { type: 'string' },
        ...(shape?.[1] === name ? { description: 'the rest of the path: zero or more `/`-separated segments' } : {}),
      })),
      responses: {
        101: { description: 'Switching Protocols: the WebSocket session starts' },
        400: { description: 'Bad path parameter', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        401: { description: 'Missing, malformed, badly signed or expired token (no upgrade)', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        429: { description: 'Rate limit exceeded (the handshake is charged as a read)', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
      },
    },
  };
}
