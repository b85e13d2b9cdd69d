// Mounts declared routes on uWebSockets.js: auth, rate limit, bounded body, compiled schema
// checks of body and query, handler, reply, metrics and one log line per request, each a named
// stage of serveRequest. uWS specifics stay here.
// Every callback handed to uWS runs inside guardUws, and every request inside one boundary
// that turns an unexpected error into a 500 (no stack in the body, the stack and request id
// in the log): no request, however malformed, ends the process.
import uws from 'uWebSockets.js';
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import { BadRequestError, DomainError, RequestTooLargeError } from '../engine/errors.ts';
import { settingsFor, type ServiceConfig } from '../engine/config.ts';
import type { Logger } from '../engine/log.ts';
import type { Access } from '../engine/grants/access.ts';
import type { Caller } from '../engine/grants/claims.ts';
import { AuthError, type Authenticator } from './auth.ts';
import { ClientGoneError, discardBody, readBody, type BodyReader } from './body.ts';
import { ClientGone } from './client-gone.ts';
import { answer, send, type ResponseState } from './http-answer.ts';
import { assertJsonContentType, assertUtf8, isJsonContentType, mayHoldNul, parseJsonBody } from './json-body.ts';
import { ARROW_STREAM_MEDIA_TYPE, isArrowStreamContentType } from './arrow-media.ts';
import type { Metrics } from '../engine/metrics.ts';
import { toErrorReply, unauthorized, type ErrorReply } from './problems.ts';
import { assertQueryText } from './query-params.ts';
import { RateLimiter, type Budget } from './rate-limit.ts';
import type { Reply, RequestContext, Route } from './route.ts';
import { contentLengthOf, decodeParams, hasBody, mountedRoute, readRequestHead, requestIdOf, toUwsPath, type MountedRoute, type RequestHead } from './request-head.ts';
import { RequestBodyStream } from './streamed-body.ts';
import { isStreamedReply, sendStreamedReply } from './streamed-reply.ts';
import { guardUws } from './uws-guard.ts';
import type { Validator } from './validation.ts';
import { cdfErrorReply } from './cdf/cdf-errors.ts';

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
  if (route.rawBodyArrow && isArrowStreamContentType(contentType)) return undefined;
  if (route.rawBodyJson) assertJsonContentType(contentType, route.rawBodyArrow ? [ARROW_STREAM_MEDIA_TYPE] : []);
  if (isJsonContentType(contentType)) assertUtf8(rawBody);
  return undefined;
}

/**
 * Marks the response aborted when the client leaves (uWS then forbids touching `res`) and
 * signals whoever still reads the body. Must be attached before the handler returns.
 */
function watchAbort(res: HttpResponse, log: Logger): { state: ResponseState; clientGone: ClientGone } {
  const state: ResponseState = { aborted: false };
  const clientGone = new ClientGone();
  res.onAborted(guardUws(log, 'onAborted', () => {
    state.aborted = true;
    clientGone.leave();
  }));
  return { state, clientGone };
}

/** One request in flight: its response, how the body is taken in, and the tenant once known (for the log line). */
interface Exchange {
  mounted: MountedRoute;
  head: RequestHead;
  res: HttpResponse;
  state: ResponseState;
  clientGone: ClientGone;
  reader: BodyReader | undefined;
  bodyStream: RequestBodyStream | undefined;
  tenant?: string;
}

/**
 * uWS drops body bytes that arrive while no onData handler is attached, so the body is read
 * from the first moment, alongside the token check and the grant lookup (both may wait on
 * I/O). Its memory goes back once the handler is done, whatever the outcome. A body nobody
 * reads (a GET with one) is dropped as it arrives, so an answer given first can wait for it
 * instead of closing under the client (http-answer.ts).
 */
function takeInBody(mounted: MountedRoute, res: HttpResponse, head: RequestHead, clientGone: ClientGone, log: Logger): Pick<Exchange, 'reader' | 'bodyStream'> {
  const { route, takesBody, bodyBytesMax } = mounted;
  const bodyStream = route.streamBody ? new RequestBodyStream(res, clientGone, log, head.contentLength) : undefined;
  const reader = takesBody
    ? readBody(res, { contentLength: head.contentLength, bodyBytesMax, pool: route.rawBodyPool, clientGone, log })
    : !bodyStream && head.withBody ? discardBody(res, clientGone, log) : undefined;
  return { reader, bodyStream };
}

/** Answers (a streamed reply or a whole one), then counts and logs the request. */
function reply(x: Exchange, deps: HttpDeps, given: Reply | ErrorReply, closeConnection = false): void {
  const { res, state, head, mounted: { route } } = x;
  const inForm = (failure: Reply | ErrorReply) => (route.errorForm === 'cdf' && failure.status >= 400 ? cdfErrorReply(failure) : failure);
  const answerWith = isStreamedReply(given) ? given : inForm(given);
  // A streamed body left unread closes the connection (streamed-body.ts).
  const unread = x.bodyStream?.detach() ?? false;
  if (isStreamedReply(answerWith)) {
    void sendStreamedReply(res, answerWith, {
      requestId: head.requestId, clientGone: x.clientGone, log: deps.log,
      answerError: (error) => send(res, state, inForm(toErrorReply(error, deps.errorsBase)), head.requestId, true),
    });
  } else answer(res, state, answerWith, head.requestId, unread ? x.bodyStream?.lingering() : x.reader, deps.log, closeConnection);
  const labels = { route: route.path, method: route.method, status: String(answerWith.status) };
  deps.metrics.requests.inc(labels);
  deps.metrics.requestSeconds.observe(labels, Number(process.hrtime.bigint() - head.started) / 1e9);
  deps.log.info({ requestId: head.requestId, route: route.path, method: route.method, status: answerWith.status, tenant: x.tenant, ms: Number(process.hrtime.bigint() - head.started) / 1e6 }, 'request');
}

/** The caller behind the token, or the 401 to answer. */
async function authenticate(x: Exchange, deps: HttpDeps): Promise<{ caller: Caller } | { refusal: ErrorReply }> {
  try {
    const caller = await deps.auth.authenticate(x.head.authorization);
    x.tenant = caller.tenant;
    return { caller };
  } catch (error) {
    if (error instanceof AuthError) return { refusal: unauthorized(error.message) };
    throw error;
  }
}

/** Charges one request to the caller's rate budget; throws RateLimitError past it (counted). */
async function chargeRate(limiter: RateLimiter, deps: HttpDeps, caller: Caller, budget: Budget): Promise<void> {
  try {
    await limiter.charge(caller.tenant, caller.sub, budget, settingsFor(deps.config, caller.tenant));
  } catch (error) {
    deps.metrics.limitHits.inc({ limit: 'rate' });
    throw error;
  }
}

/** The whole raw body; an ErrorReply (413, a bad body) to answer with the connection closed; undefined when the client left. */
async function readWholeBody(x: Exchange, deps: HttpDeps): Promise<Uint8Array | { refusal: ErrorReply } | undefined> {
  try {
    return (await (x.reader as BodyReader).body).bytes;
  } catch (error) {
    if (error instanceof ClientGoneError) return undefined; // nobody to answer
    if (error instanceof RequestTooLargeError) deps.metrics.limitHits.inc({ limit: 'body-bytes' });
    return { refusal: toErrorReply(error, deps.errorsBase) };
  }
}

/** SPEC daily quota on write-request body bytes (routes charged per request); throws IngestQuotaError (counted). */
async function chargeIngestedBytes(x: Exchange, deps: HttpDeps, caller: Caller, bodyBytes: number): Promise<void> {
  const { route, budget } = x.mounted;
  if (budget !== 'write' || route.public || route.chargesPerCall || !deps.chargeIngestedBytes) return;
  try {
    await deps.chargeIngestedBytes(caller.tenant, bodyBytes);
  } catch (error) {
    deps.metrics.limitHits.inc({ limit: 'ingested-bytes' });
    throw error;
  }
}

/** The typed query (query-schema.ts), or the plain-text 400 of a route whose SPEC answers so; throws BadRequestError otherwise. */
function checkQuery(x: Exchange): { query: Record<string, unknown> } | { refusal: Reply } {
  const { route, readQuery } = x.mounted;
  if (!readQuery) return { query: {} };
  try {
    return { query: readQuery(x.head.search) };
  } catch (error) {
    if (route.queryErrorsAsText && error instanceof BadRequestError) return { refusal: { status: 400, body: error.message, contentType: 'text/plain; charset=utf-8' } };
    throw error;
  }
}

/**
 * The request's stages, in order: authenticate, rate limit, grants, path parameters, body
 * (read, ingested-bytes quota, parse and schema check), query parameters, handler. A stage
 * that refuses answers and ends the request; an error thrown is answered by answerFailure.
 */
async function serveRequest(x: Exchange, deps: HttpDeps, limiter: RateLimiter): Promise<void> {
  const { route, budget, names, takesBody, validate } = x.mounted;
  let caller = undefined as unknown as RequestContext['caller'];
  let access = undefined as unknown as Access;
  if (!route.public) {
    const who = await authenticate(x, deps);
    if ('refusal' in who) return reply(x, deps, who.refusal);
    caller = who.caller;
    if (!route.chargesPerCall) {
      try {
        await chargeRate(limiter, deps, caller, budget);
      } catch (error) {
        return reply(x, deps, toErrorReply(error, deps.errorsBase));
      }
    }
    access = await deps.access(caller);
  }
  const params = decodeParams(names, x.head.rawParams);
  assertQueryText(x.head.search, route.query);
  let rawBody: Uint8Array | undefined;
  let body: unknown;
  if (takesBody) {
    const read = await readWholeBody(x, deps);
    if (read === undefined) return undefined;
    if ('refusal' in read) return reply(x, deps, read.refusal, true);
    rawBody = read;
    await chargeIngestedBytes(x, deps, caller, rawBody.byteLength);
    body = bodyOf(route, validate, rawBody, x.head.contentType);
  }
  const checked = checkQuery(x);
  if ('refusal' in checked) return reply(x, deps, checked.refusal);
  const { query } = checked;
  const { contentType, authorization, extraHeaders, requestId } = x.head;
  const answerWith = await route.handle({
    caller, access, params, query, body, rawBody: route.rawBody ? rawBody : undefined, bodyStream: x.bodyStream,
    headers: { ...extraHeaders, contentType, authorization }, chargeRate: (callBudget) => chargeRate(limiter, deps, caller, callBudget), requestId, log: deps.log,
  });
  return reply(x, deps, answerWith);
}

/** An error out of a stage or the handler: a DomainError is its status and body; anything else a 500, logged with its stack. */
function answerFailure(x: Exchange, deps: HttpDeps, error: unknown): void {
  if (!(error instanceof DomainError)) deps.log.error({ err: error, requestId: x.head.requestId, route: x.mounted.route.path }, 'request failed');
  reply(x, deps, toErrorReply(error, deps.errorsBase));
}

export function mountRoutes(app: TemplatedApp, routes: Route[], deps: HttpDeps): void {
  const limiter = deps.limiter ?? new RateLimiter();
  for (const route of routes) {
    const mounted = mountedRoute(route);
    const handler = (res: HttpResponse, req: HttpRequest) => {
      // Everything from req is read before the first await.
      const { state, clientGone } = watchAbort(res, deps.log);
      const head = readRequestHead(mounted, req);
      const x: Exchange = { mounted, head, res, state, clientGone, ...takeInBody(mounted, res, head, clientGone, deps.log) };
      serveRequest(x, deps, limiter).catch((error: unknown) => answerFailure(x, deps, error)).catch((error: unknown) => {
        deps.log.error({ err: error, requestId: head.requestId, route: route.path }, 'answering a failed request failed');
      }).finally(() => x.reader?.body.then((read) => read.release?.(), () => undefined));
    };
    const path = toUwsPath(route);
    const guarded = guardUws(deps.log, `${route.method.toUpperCase()} ${route.path}`, handler, answerEscaped(deps.log));
    if (route.method === 'get') app.get(path, guarded);
    else if (route.method === 'post') app.post(path, guarded);
    else if (route.method === 'put') app.put(path, guarded);
    else app.del(path, guarded);
  }
  app.any('/*', guardUws(deps.log, 'no route', answerNoRoute(deps.log), answerEscaped(deps.log)));
}

const CDF_PREFIX = '/api/v1/';

/** The catch-all: 404 as JSON, naming the method and (at most 200 characters of) the path. */
function answerNoRoute(log: Logger): (res: HttpResponse, req: HttpRequest) => void {
  return (res, req) => {
    const { state, clientGone } = watchAbort(res, log);
    const requestId = requestIdOf(req);
    const path = req.getUrl();
    const reader = hasBody(req, contentLengthOf(req.getHeader('content-length'))) ? discardBody(res, clientGone, log) : undefined;
    const notFound = { status: 404, body: { error: { type: 'NotFoundError', code: 404, message: `No route ${req.getMethod().toUpperCase()} ${path.length > 200 ? `${path.slice(0, 200)}…` : path}` } } };
    // Under CDF's prefix, CDF's error form (its SDKs read nothing else).
    answer(res, state, path.startsWith(CDF_PREFIX) ? cdfErrorReply(notFound) : notFound, requestId, reader, log);
  };
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
