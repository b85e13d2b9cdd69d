// Mounts declared routes on uWebSockets.js: auth, rate limit, bounded body, compiled schema
// check, handler, reply, metrics and one log line per request. uWS specifics stay here.
// Every callback handed to uWS runs inside guardUws, and every request inside one boundary
// that turns an unexpected error into a 500 (no stack in the body, the stack and request id
// in the log): no request, however malformed, ends the process.
import { randomUUID } from 'node:crypto';
import uws from 'uWebSockets.js';
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import { BadRequestError, DomainError, RequestTooLargeError } from '../engine/errors.ts';
import { settingsFor, type ServiceConfig } from '../engine/config.ts';
import type { Logger } from '../engine/log.ts';
import { BODY_BYTES_MAX } from '../engine/limits.ts';
import type { Access } from '../engine/grants/access.ts';
import type { Caller } from '../engine/grants/claims.ts';
import { AuthError, type Authenticator } from './auth.ts';
import { ClientGoneError, discardBody, readBody, type BodyReader } from './body.ts';
import { answer, send, type ResponseState } from './http-answer.ts';
import { assertJsonContentType, assertUtf8, isJsonContentType, mayHoldNul, parseJsonBody } from './json-body.ts';
import type { Metrics } from '../engine/metrics.ts';
import { toErrorReply, unauthorized, type ErrorReply } from './problems.ts';
import { assertQueryText } from './query-params.ts';
import { budgetOf, RateLimiter } from './rate-limit.ts';
import type { Reply, RequestContext, Route } from './route.ts';
import { RequestBodyStream } from './streamed-body.ts';
import { isStreamedReply, sendStreamedReply } from './streamed-reply.ts';
import { guardUws } from './uws-guard.ts';
import { compileValidator, type Validator } from './validation.ts';

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

/** The native µWS build must load; the pure-JS fallback is far too slow to serve. */
export function assertNativeUws(): void {
  const native = typeof uws.App === 'function' && Function.prototype.toString.call(uws.App).includes('[native code]');
  if (!native) {
    throw new Error('uWebSockets.js fell back to its pure-JS implementation (no native build for this Node version). Use Node 20 on Linux x64.');
  }
}

/** A path ending in its only parameter; with `restParam` that parameter takes the rest of the URL. */
const LAST_PARAM = /\{\w+\}$/;

function toUwsPath(route: Route): string {
  return (route.restParam ? route.path.replace(LAST_PARAM, '*') : route.path).replace(/\{(\w+)\}/g, ':$1');
}

function paramNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
}

/** Where a route's rest parameter starts in the URL (route.ts `restParam`). */
function restParamStart(route: Route): number | undefined {
  if (!route.restParam) return undefined;
  const prefix = route.path.replace(LAST_PARAM, '');
  if (prefix.includes('{') || prefix === route.path) throw new Error(`${route.path}: restParam needs a path ending in its only parameter`);
  return prefix.length;
}

/** A client's X-Request-Id when it is a sane token (echoed in a header and logs), else ours. */
function requestIdOf(req: HttpRequest): string {
  const given = req.getHeader('x-request-id');
  return /^[\x21-\x7e]{1,128}$/.test(given) ? given : randomUUID();
}

/** Content-Length as a number; anything but digits is left to uWS's framing (bytes are counted anyway). */
function contentLengthOf(header: string): number | undefined {
  return /^\d{1,15}$/.test(header) ? Number(header) : undefined;
}

/** Whether the request carries a body at all (uWS calls onData for it either way). */
function hasBody(req: HttpRequest, contentLength: number | undefined): boolean {
  return contentLength !== undefined ? contentLength > 0 : req.getHeader('transfer-encoding') !== '';
}

/** Path parameters percent-decoded; malformed encoding is a 400 naming the parameter. */
function decodeParams(names: string[], raw: string[]): Record<string, string> {
  const params: Record<string, string> = {};
  names.forEach((name, i) => {
    const text = raw[i] ?? '';
    try {
      params[name] = decodeURIComponent(text);
    } catch {
      const shown = text.length > 80 ? `${text.slice(0, 80)}…` : text;
      throw new BadRequestError(`Path parameter ${name} is not valid percent-encoded UTF-8: "${shown}"`, [{ field: name, message: 'malformed percent-encoding', value: shown }]);
    }
  });
  return params;
}

/**
 * A JSON route's body, parsed strictly (json-body.ts) and checked against its schema. A raw
 * body sent as JSON (the ingest path, parsed by workers; `rawBodyJson` routes must be JSON)
 * is checked as UTF-8 only: about
 * 0.5 ms per 16 MiB body; duplicate keys and depth there are the workers' scanner's business.
 */
function bodyOf(route: Route, validate: Validator | undefined, rawBody: Uint8Array, contentType: string): unknown {
  if (route.body) {
    const body = parseJsonBody(rawBody, contentType);
    validate?.(body, mayHoldNul(rawBody));
    return body;
  }
  if (route.rawBodyJson) assertJsonContentType(contentType);
  if (isJsonContentType(contentType)) assertUtf8(rawBody);
  return undefined;
}

/**
 * Marks the response aborted when the client leaves (uWS then forbids touching `res`) and
 * signals whoever still reads the body. Must be attached before the handler returns.
 */
function watchAbort(res: HttpResponse, log: Logger): { state: ResponseState; clientGone: AbortController } {
  const state: ResponseState = { aborted: false };
  const clientGone = new AbortController();
  res.onAborted(guardUws(log, 'onAborted', () => {
    state.aborted = true;
    clientGone.abort();
  }));
  return { state, clientGone };
}

/** The query string; URLSearchParams decodes leniently and never throws. */
function queryOf(text: string | undefined): URLSearchParams {
  return new URLSearchParams(text ?? '');
}

export function mountRoutes(app: TemplatedApp, routes: Route[], deps: HttpDeps): void {
  const limiter = deps.limiter ?? new RateLimiter();
  for (const route of routes) {
    const validate = route.body ? compileValidator(route.body) : undefined;
    const names = paramNames(route.path);
    const restStart = restParamStart(route);
    const bodyBytesMax = route.bodyBytesMax ?? BODY_BYTES_MAX;
    const budget = budgetOf(route.method, route.path);
    const takesBody = route.method !== 'get' && (route.body !== undefined || route.rawBody === true);
    const handler = (res: HttpResponse, req: HttpRequest) => {
      // Everything from req must be read before the first await (uWS stack-allocates it).
      const started = process.hrtime.bigint();
      const { state, clientGone } = watchAbort(res, deps.log);
      const requestId = requestIdOf(req);
      const authorization = req.getHeader('authorization');
      const contentType = req.getHeader('content-type');
      const contentLength = contentLengthOf(req.getHeader('content-length'));
      const extraHeaders = Object.fromEntries((route.requestHeaders ?? []).map((name) => [name, req.getHeader(name)]));
      const rawParams = restStart !== undefined ? [req.getUrl().slice(restStart)] : names.map((_, i) => req.getParameter(i) ?? '');
      const query = queryOf(req.getQuery());
      const withBody = hasBody(req, contentLength);
      let tenant: string | undefined;
      const finish = (reply: Reply | ErrorReply, closeConnection = false) => {
        // A streamed body left unread closes the connection (streamed-body.ts).
        const unread = bodyStream?.detach() ?? false;
        if (isStreamedReply(reply)) {
          void sendStreamedReply(res, reply, {
            requestId, clientGone: clientGone.signal, log: deps.log,
            answerError: (error) => send(res, state, toErrorReply(error, deps.errorsBase), requestId, true),
          });
        } else answer(res, state, reply, requestId, unread ? bodyStream?.lingering() : reader, deps.log, closeConnection);
        const labels = { route: route.path, method: route.method, status: String(reply.status) };
        deps.metrics.requests.inc(labels);
        deps.metrics.requestSeconds.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
        deps.log.info({ requestId, route: route.path, method: route.method, status: reply.status, tenant, ms: Number(process.hrtime.bigint() - started) / 1e6 }, 'request');
      };
      // uWS drops body bytes that arrive while no onData handler is attached, so the body is
      // read from the first moment, alongside the token check and the grant lookup (both may
      // wait on I/O). Its memory goes back once the handler is done, whatever the outcome.
      const bodyStream = route.streamBody ? new RequestBodyStream(res, clientGone.signal, deps.log, contentLength) : undefined;
      // A body nobody reads (a GET with one) is dropped as it arrives, so an answer given first
      // can wait for it instead of closing under the client (http-answer.ts).
      const reader: BodyReader | undefined = takesBody
        ? readBody(res, { contentLength, bodyBytesMax, pool: route.rawBodyPool, clientGone: clientGone.signal, log: deps.log })
        : !bodyStream && withBody ? discardBody(res, clientGone.signal, deps.log) : undefined;
      const run = async () => {
        let caller = undefined as unknown as RequestContext['caller'];
        let access = undefined as unknown as Access;
        if (!route.public) {
          try {
            caller = await deps.auth.authenticate(authorization);
          } catch (error) {
            if (error instanceof AuthError) return finish(unauthorized(error.message));
            throw error;
          }
          tenant = caller.tenant;
          if (!route.chargesPerCall) {
            try {
              limiter.charge(caller.tenant, caller.sub, budget, settingsFor(deps.config, caller.tenant));
            } catch (error) {
              deps.metrics.limitHits.inc({ limit: 'rate' });
              return finish(toErrorReply(error, deps.errorsBase));
            }
          }
          access = await deps.access(caller);
        }
        const params = decodeParams(names, rawParams);
        assertQueryText(query, route.query);
        let rawBody: Uint8Array | undefined;
        let body: unknown;
        if (takesBody) {
          try {
            rawBody = (await (reader as BodyReader).body).bytes;
          } catch (error) {
            if (error instanceof ClientGoneError) return undefined; // nobody to answer
            if (error instanceof RequestTooLargeError) deps.metrics.limitHits.inc({ limit: 'body-bytes' });
            return finish(toErrorReply(error, deps.errorsBase), true);
          }
          if (budget === 'write' && !route.public && !route.chargesPerCall && deps.chargeIngestedBytes) {
            try {
              await deps.chargeIngestedBytes(caller.tenant, rawBody.byteLength);
            } catch (error) {
              deps.metrics.limitHits.inc({ limit: 'ingested-bytes' });
              throw error;
            }
          }
          body = bodyOf(route, validate, rawBody, contentType);
        }
        const chargeRate = (callBudget: 'read' | 'write') => {
          try {
            limiter.charge(caller.tenant, caller.sub, callBudget, settingsFor(deps.config, caller.tenant));
          } catch (error) {
            deps.metrics.limitHits.inc({ limit: 'rate' });
            throw error;
          }
        };
        const reply = await route.handle({
          caller, access, params, query, body, rawBody: route.rawBody ? rawBody : undefined, bodyStream,
          headers: { ...extraHeaders, contentType, authorization }, chargeRate, requestId, log: deps.log,
        });
        finish(reply);
      };
      run().catch((error: unknown) => {
        if (!(error instanceof DomainError)) deps.log.error({ err: error, requestId, route: route.path }, 'request failed');
        finish(toErrorReply(error, deps.errorsBase));
      }).catch((error: unknown) => {
        deps.log.error({ err: error, requestId, route: route.path }, 'answering a failed request failed');
      }).finally(() => reader?.body.then((read) => read.release?.(), () => undefined));
    };
    const path = toUwsPath(route);
    const guarded = guardUws(deps.log, `${route.method.toUpperCase()} ${route.path}`, handler, answerEscaped(deps.log));
    if (route.method === 'get') app.get(path, guarded);
    else if (route.method === 'post') app.post(path, guarded);
    else if (route.method === 'put') app.put(path, guarded);
    else app.del(path, guarded);
  }
  app.any('/*', guardUws(deps.log, 'no route', (res: HttpResponse, req: HttpRequest) => {
    const { state, clientGone } = watchAbort(res, deps.log);
    const requestId = requestIdOf(req);
    const path = req.getUrl();
    const reader = hasBody(req, contentLengthOf(req.getHeader('content-length'))) ? discardBody(res, clientGone.signal, deps.log) : undefined;
    const reply = { status: 404, body: { error: { type: 'NotFoundError', code: 404, message: `No route ${req.getMethod().toUpperCase()} ${path.length > 200 ? `${path.slice(0, 200)}…` : path}` } } };
    answer(res, state, reply, requestId, reader, deps.log);
  }, answerEscaped(deps.log)));
}

/**
 * The last resort for an error thrown synchronously out of a request callback (guardUws has
 * logged it with its stack): a 500 without stack, and the connection closed, since the request
 * body may not have been read. If the response was already answered or aborted, uWS refuses
 * and guardUws logs that too. `req` is still valid here (same synchronous turn).
 */
function answerEscaped(log: Logger): (error: unknown, res: HttpResponse, req: HttpRequest) => void {
  return (_error, res, req) => {
    const requestId = requestIdOf(req);
    log.error({ requestId, url: req.getUrl() }, 'answered 500 for the error that escaped the request callback (logged just before)');
    send(res, { aborted: false }, toErrorReply(new Error('escaped a uWS callback'), ''), requestId, true);
  };
}
