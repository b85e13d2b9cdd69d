// Mounts declared routes on uWebSockets.js: auth, rate limit, bounded body, compiled schema
// check, handler, reply, metrics and one log line per request. uWS specifics stay here.
import { randomUUID } from 'node:crypto';
import uws from 'uWebSockets.js';
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import { BadRequestError, DomainError } from '../engine/errors.ts';
import { settingsFor, type ServiceConfig } from '../engine/config.ts';
import type { Logger } from '../engine/log.ts';
import { BODY_BYTES_MAX } from '../engine/limits.ts';
import type { Access } from '../engine/grants/access.ts';
import type { Caller } from '../engine/grants/claims.ts';
import { AuthError, type Authenticator } from './auth.ts';
import { ClientGoneError, readBody, type RequestBody } from './body.ts';
import type { Metrics } from '../engine/metrics.ts';
import { toErrorReply, unauthorized, type ErrorReply } from './problems.ts';
import { budgetOf, RateLimiter } from './rate-limit.ts';
import type { Reply, RequestContext, Route } from './route.ts';
import { RequestBodyStream } from './streamed-body.ts';
import { isStreamedReply, sendStreamedReply } from './streamed-reply.ts';
import { compileValidator } from './validation.ts';

export interface HttpDeps {
  config: Readonly<ServiceConfig>;
  auth: Authenticator;
  metrics: Metrics;
  log: Logger;
  errorsBase: string;
  /** Registers the tenant on first sight and resolves the caller's data set grants (once per request). */
  access(caller: Caller): Promise<Access>;
  /** SPEC daily quota on bytes of write-request body; throws IngestQuotaError. */
  chargeIngestedBytes?(tenant: string, bytes: number): Promise<void>;
  /** One limiter shared by REST and WebSocket routes (websocket-routes.ts); else mountRoutes makes its own. */
  limiter?: RateLimiter;
}

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK', 201: '201 Created', 204: '204 No Content', 400: '400 Bad Request', 401: '401 Unauthorized',
  403: '403 Forbidden', 404: '404 Not Found', 405: '405 Method Not Allowed', 409: '409 Conflict',
  413: '413 Payload Too Large', 415: '415 Unsupported Media Type', 422: '422 Unprocessable Entity',
  429: '429 Too Many Requests', 500: '500 Internal Server Error', 503: '503 Service Unavailable',
};

/** The native µWS build must load; the pure-JS fallback is far too slow to serve (issue 2). */
export function assertNativeUws(): void {
  const native = typeof uws.App === 'function' && Function.prototype.toString.call(uws.App).includes('[native code]');
  if (!native) {
    throw new Error('uWebSockets.js fell back to its pure-JS implementation (no native build for this Node version). Use Node 20 on Linux x64.');
  }
}

interface Aborted { aborted: boolean }

function send(res: HttpResponse, state: Aborted, reply: Reply | ErrorReply, requestId: string, closeConnection = false): void {
  if (state.aborted) return;
  // Strings and bytes are bodies already serialised (pages built by the stores), an array of
  // bytes the chunks of one (sent without joining them); anything else is JSON.
  const body = reply.body === undefined ? undefined
    : typeof reply.body === 'string' || reply.body instanceof Uint8Array || isChunks(reply.body) ? reply.body : JSON.stringify(reply.body);
  res.cork(() => {
    res.writeStatus(STATUS_TEXT[reply.status] ?? String(reply.status));
    res.writeHeader('X-Request-Id', requestId);
    if (body !== undefined) res.writeHeader('Content-Type', reply.contentType ?? 'application/json');
    for (const [key, value] of Object.entries(reply.headers ?? {})) res.writeHeader(key, value);
    if (body === undefined) res.endWithoutBody(0, closeConnection);
    else if (!Array.isArray(body)) res.end(body, closeConnection);
    else endWithChunks(res, body, closeConnection);
  });
}

function isChunks(body: unknown): body is Uint8Array[] {
  return Array.isArray(body) && body.every((chunk) => chunk instanceof Uint8Array);
}

/**
 * One answer from several chunks (chunked transfer encoding): write() hands each to uWS,
 * which sends what the socket takes and keeps the rest until it drains; end() closes it.
 */
function endWithChunks(res: HttpResponse, chunks: readonly Uint8Array[], closeConnection: boolean): void {
  const nonEmpty = chunks.filter((chunk) => chunk.byteLength > 0);
  for (let i = 0; i < nonEmpty.length - 1; i++) res.write(nonEmpty[i] as Uint8Array);
  res.end(nonEmpty[nonEmpty.length - 1] ?? '', closeConnection);
}

function toUwsPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

function paramNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
}

export function isJson(contentType: string): boolean {
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || type.endsWith('+json');
}

function parseJsonBody(raw: Uint8Array, contentType: string): unknown {
  if (!isJson(contentType)) throw new BadRequestError(`Content-Type must be application/json, got "${contentType || '(none)'}"`, [{ field: 'Content-Type', message: 'expected application/json' }]);
  if (raw.byteLength === 0) throw new BadRequestError('The request body is empty; a JSON object is expected', [{ field: '(body)', message: 'empty' }]);
  try {
    return JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8'));
  } catch (error) {
    throw new BadRequestError(`The request body is not valid JSON: ${(error as Error).message}`, [{ field: '(body)', message: 'invalid JSON' }]);
  }
}

export function mountRoutes(app: TemplatedApp, routes: Route[], deps: HttpDeps): void {
  const limiter = deps.limiter ?? new RateLimiter();
  for (const route of routes) {
    const validate = route.body ? compileValidator(route.body) : undefined;
    const names = paramNames(route.path);
    const bodyBytesMax = route.bodyBytesMax ?? BODY_BYTES_MAX;
    const budget = budgetOf(route.method, route.path);
    const takesBody = route.method !== 'get' && (route.body !== undefined || route.rawBody === true);
    const handler = (res: HttpResponse, req: HttpRequest) => {
      // Everything from req must be read before the first await (uWS stack-allocates it).
      const started = process.hrtime.bigint();
      const state: Aborted = { aborted: false };
      const clientGone = new AbortController();
      res.onAborted(() => {
        state.aborted = true;
        clientGone.abort();
      });
      const requestId = req.getHeader('x-request-id') || randomUUID();
      const authorization = req.getHeader('authorization');
      const contentType = req.getHeader('content-type');
      const lengthHeader = req.getHeader('content-length');
      const params: Record<string, string> = {};
      names.forEach((name, i) => { params[name] = decodeURIComponent(req.getParameter(i) ?? ''); });
      const query = new URLSearchParams(req.getQuery() ?? '');
      const contentLength = lengthHeader ? Number(lengthHeader) : undefined;
      let tenant: string | undefined;
      const finish = (reply: Reply | ErrorReply, closeConnection = false) => {
        // A streamed body left unread closes the connection (streamed-body.ts).
        const unread = bodyStream?.detach() ?? false;
        if (isStreamedReply(reply)) {
          void sendStreamedReply(res, reply, {
            requestId, clientGone: clientGone.signal, log: deps.log,
            answerError: (error) => send(res, state, toErrorReply(error, deps.errorsBase), requestId, true),
          });
        } else send(res, state, reply, requestId, closeConnection || unread);
        const labels = { route: route.path, method: route.method, status: String(reply.status) };
        deps.metrics.requests.inc(labels);
        deps.metrics.requestSeconds.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
        deps.log.info({ requestId, route: route.path, method: route.method, status: reply.status, tenant, ms: Number(process.hrtime.bigint() - started) / 1e6 }, 'request');
      };
      // uWS drops body bytes that arrive while no onData handler is attached, so the body is
      // read from the first moment, alongside the token check and the grant lookup (both may
      // wait on I/O). Its memory goes back once the handler is done, whatever the outcome.
      const bodyStream = route.streamBody ? new RequestBodyStream(res, clientGone.signal, deps.log, contentLength) : undefined;
      const reading = takesBody ? readBody(res, contentLength, bodyBytesMax, route.rawBodyPool, clientGone.signal) : undefined;
      reading?.catch(() => undefined); // settled below, or ignored when an earlier step answered
      const run = async () => {
        let caller = undefined as unknown as RequestContext['caller'];
        let access = undefined as unknown as Access;
        if (!route.public) {
          try {
            caller = await deps.auth.authenticate(authorization);
          } catch (error) {
            if (error instanceof AuthError) return finish(unauthorized(error.message), takesBody);
            throw error;
          }
          tenant = caller.tenant;
          try {
            limiter.charge(caller.tenant, caller.sub, budget, settingsFor(deps.config, caller.tenant));
          } catch (error) {
            deps.metrics.limitHits.inc({ limit: 'rate' });
            return finish(toErrorReply(error, deps.errorsBase), takesBody);
          }
          access = await deps.access(caller);
        }
        let rawBody: Uint8Array | undefined;
        let body: unknown;
        if (takesBody) {
          try {
            rawBody = (await (reading as Promise<RequestBody>)).bytes;
          } catch (error) {
            if (error instanceof ClientGoneError) return undefined; // nobody to answer
            deps.metrics.limitHits.inc({ limit: 'body-bytes' });
            return finish(toErrorReply(error, deps.errorsBase), true);
          }
          if (budget === 'write' && !route.public && deps.chargeIngestedBytes) {
            try {
              await deps.chargeIngestedBytes(caller.tenant, rawBody.byteLength);
            } catch (error) {
              deps.metrics.limitHits.inc({ limit: 'ingested-bytes' });
              throw error;
            }
          }
          if (route.body) {
            body = parseJsonBody(rawBody, contentType);
            validate?.(body);
          }
        }
        const reply = await route.handle({
          caller, access, params, query, body, rawBody: route.rawBody ? rawBody : undefined, bodyStream,
          headers: { contentType, authorization }, requestId, log: deps.log,
        });
        finish(reply);
      };
      run().catch((error: unknown) => {
        if (!(error instanceof DomainError)) deps.log.error({ err: error, requestId, route: route.path }, 'request failed');
        finish(toErrorReply(error, deps.errorsBase));
      }).finally(() => reading?.then((read) => read.release?.(), () => undefined));
    };
    const path = toUwsPath(route.path);
    if (route.method === 'get') app.get(path, handler);
    else if (route.method === 'post') app.post(path, handler);
    else if (route.method === 'put') app.put(path, handler);
    else app.del(path, handler);
  }
  app.any('/*', (res, req) => {
    const requestId = req.getHeader('x-request-id') || randomUUID();
    const path = req.getUrl();
    send(res, { aborted: false }, { status: 404, body: { error: { type: 'NotFoundError', code: 404, message: `No route ${req.getMethod().toUpperCase()} ${path}` } } }, requestId, true);
  });
}
