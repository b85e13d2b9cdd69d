// What mountRoutes prepares once per route at start-up (compiled checks, the path's shape and
// its uWS pattern), and what a request's head says, read before the first await (uWS
// stack-allocates `req`). The request's life after that is http-server.ts's.
import { randomUUID } from 'node:crypto';
import type { HttpRequest } from 'uWebSockets.js';
import { BadRequestError } from '../engine/errors.ts';
import { BODY_BYTES_MAX } from '../engine/limits.ts';
import { compileQuery, type QueryReader } from './query-schema.ts';
import { budgetOf, type Budget } from './rate-limit.ts';
import type { Route } from './route.ts';
import { compileValidator, type Validator } from './validation.ts';

/** A path ending in its only parameter; with `restParam` that parameter takes the rest of the URL. */
const LAST_PARAM = /\{\w+\}$/;

export function toUwsPath(route: Route): string {
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
export function requestIdOf(req: HttpRequest): string {
  const given = req.getHeader('x-request-id');
  return /^[\x21-\x7e]{1,128}$/.test(given) ? given : randomUUID();
}

/** Content-Length as a number; anything but digits is left to uWS's framing (bytes are counted anyway). */
export function contentLengthOf(header: string): number | undefined {
  return /^\d{1,15}$/.test(header) ? Number(header) : undefined;
}

/** Whether the request carries a body at all (uWS calls onData for it either way). */
export function hasBody(req: HttpRequest, contentLength: number | undefined): boolean {
  return contentLength !== undefined ? contentLength > 0 : req.getHeader('transfer-encoding') !== '';
}

/** Path parameters percent-decoded; malformed encoding is a 400 naming the parameter. */
export function decodeParams(names: string[], raw: string[]): Record<string, string> {
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
 * Of every request without a query string (the ingest path's): one URLSearchParams, only ever
 * read (query-schema.ts, assertQueryText). Made per request it took 17 us of the event loop,
 * half of reading the request's head (bench/probe.ts gateway --profile).
 */
const NO_QUERY = new URLSearchParams();

/** The query string; URLSearchParams decodes leniently and never throws. */
function queryOf(text: string | undefined): URLSearchParams {
  return text ? new URLSearchParams(text) : NO_QUERY;
}

/** What mountRoutes prepares once per route at start-up: compiled checks and the path's shape. */
export interface MountedRoute {
  route: Route;
  validate: Validator | undefined;
  readQuery: QueryReader | undefined;
  names: string[];
  restStart: number | undefined;
  bodyBytesMax: number;
  budget: Budget;
  takesBody: boolean;
}

export function mountedRoute(route: Route): MountedRoute {
  return {
    route,
    validate: route.body ? compileValidator(route.body) : undefined,
    readQuery: route.query ? compileQuery(route.query) : undefined,
    names: paramNames(route.path),
    restStart: restParamStart(route),
    bodyBytesMax: route.bodyBytesMax ?? BODY_BYTES_MAX,
    budget: budgetOf(route.method, route.path),
    takesBody: route.method !== 'get' && (route.body !== undefined || route.rawBody === true),
  };
}

/** What the request says, read before the first await (uWS stack-allocates `req`). */
export interface RequestHead {
  started: bigint;
  requestId: string;
  authorization: string;
  contentType: string;
  contentLength: number | undefined;
  extraHeaders: Record<string, string>;
  rawParams: string[];
  search: URLSearchParams;
  withBody: boolean;
}

export function readRequestHead(mounted: MountedRoute, req: HttpRequest): RequestHead {
  const contentLength = contentLengthOf(req.getHeader('content-length'));
  return {
    started: process.hrtime.bigint(),
    requestId: requestIdOf(req),
    authorization: req.getHeader('authorization'),
    contentType: req.getHeader('content-type'),
    contentLength,
    extraHeaders: Object.fromEntries((mounted.route.requestHeaders ?? []).map((name) => [name, req.getHeader(name)])),
    rawParams: mounted.restStart !== undefined ? [req.getUrl().slice(mounted.restStart)] : mounted.names.map((_, i) => req.getParameter(i) ?? ''),
    search: queryOf(req.getQuery()),
    withBody: hasBody(req, contentLength),
  };
}
