// What a route module declares: method, path, schemas (the single source of validation and
// of /openapi.json) and a handler that takes a parsed request and returns a Reply.
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { Access } from '../engine/grants/access.ts';
import type { Caller } from '../engine/grants/claims.ts';
import type { SlabPool } from '../engine/memory/slab-pool.ts';
import type { Logger } from '../engine/log.ts';
import type { RequestBodyStream } from './streamed-body.ts';

export type Method = 'get' | 'post' | 'put' | 'delete';

export interface RequestContext<Body = unknown, Query = Record<string, unknown>> {
  /** Absent only on public routes. */
  caller: Caller;
  /**
   * The caller's tenant and data set grants, resolved once by mountRoutes before the handler
   * runs (the tenant is registered on first sight). Absent only on public routes.
   */
  access: Access;
  params: Record<string, string>;
  /** The query parameters the route's `query` schema declares, checked and typed (query-schema.ts); {} without one. */
  query: Query;
  /** The JSON body, validated against the route's `body` schema (routes with `body`). */
  body: Body;
  /**
   * The raw body (routes with `rawBody`). Pooled shared memory with `rawBodyPool` (valid until
   * the handler's promise settles), else a buffer the handler owns (transferable).
   */
  rawBody?: Uint8Array;
  /** The body as it arrives (routes with `streamBody`; see streamed-body.ts). */
  bodyStream?: RequestBodyStream;
  headers: { contentType: string; authorization: string; [name: string]: string };
  /**
   * Charges one call to the caller's rate budget (routes with `chargesPerCall`, whose calls
   * are inside the request: /mcp tools); rejects with RateLimitError past the budget.
   */
  chargeRate(budget: 'read' | 'write'): Promise<void>;
  requestId: string;
  log: Logger;
}

export interface Reply {
  status: number;
  /** JSON, or a string/bytes already serialised, or a StreamedBody (streamedReply() in streamed-reply.ts). */
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}

export interface ResponseSpec {
  description: string;
  schema?: TSchema;
  contentType?: string;
}

// `any` by default so one Route[] holds routes of every body and query type; `jsonRoute` and
// `queryRoute` type each.
export interface Route<Body = any, Query = any> {
  method: Method;
  /** OpenAPI-style path: `/timeseries/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** No token needed (operational endpoints, the dev identity provider). */
  public?: boolean;
  /** Body limit; defaults to BODY_BYTES_MAX. */
  bodyBytesMax?: number;
  /** JSON body schema, validated before the handler runs. */
  body?: TSchema;
  /** Hand the body to the handler unparsed (POST /timeseries/data goes to workers). */
  rawBody?: boolean;
  /** Read the raw body into this pool's shared memory (the ingest path: no allocation per request). */
  rawBodyPool?: SlabPool;
  /**
   * Hand the body to the handler as it arrives (ctx.bodyStream), with no size cap: SPEC exempts
   * `PUT /files`. Declare with streamedBodyRoute() (streamed-body.ts).
   */
  streamBody?: boolean;
  /** Documented content type of a streamed body. @default application/octet-stream */
  bodyContentType?: string;
  /** Documented body schema when rawBody is set. */
  rawBodySchema?: TSchema;
  /**
   * The raw body is JSON only (POST /timeseries/data): mountRoutes refuses another Content-Type
   * and invalid UTF-8 with a 400 before the handler; parsing is the handler's (workers).
   */
  rawBodyJson?: boolean;
  /** With rawBodyJson: an Arrow IPC stream (`application/vnd.apache.arrow.stream`) is taken as well, unchecked (the workers read it). */
  rawBodyArrow?: boolean;
  /** Further request headers the handler reads (lower-case names), in `ctx.headers`. */
  requestHeaders?: readonly string[];
  /**
   * The request itself is not charged to the rate budget: the handler charges each call it
   * makes with `ctx.chargeRate` (/mcp: every tool call, as a read or a write by what it does).
   */
  chargesPerCall?: boolean;
  /**
   * The path's last and only parameter takes the rest of the URL, slashes included, percent-
   * decoded (GET /files/download/{path}: a file's folders and name).
   */
  restParam?: boolean;
  /**
   * The query parameters: a TypeBox object from the family's schemas/ file. mountRoutes checks
   * them before the handler like a body (a 400 naming the parameter; query-schema.ts) and hands
   * them typed in `ctx.query`; /openapi.json lists each property as an `in: query` parameter.
   */
  query?: TObject;
  /** SPEC: GET /timeseries answers a bad query parameter with a plain-text 400, not the JSON error body. */
  queryErrorsAsText?: boolean;
  /**
   * The form of error bodies: SPEC's (problems.ts) unless set; 'cdf' answers every error of the
   * route in CDF's form (api/cdf/cdf-errors.ts), statuses and headers unchanged.
   */
  errorForm?: 'cdf';
  responses: Record<number, ResponseSpec>;
  handle(ctx: RequestContext<Body, Query>): Promise<Reply>;
}

/**
 * A route whose handler gets its body typed from the route's schema (`Static<>`), so no
 * handler casts `body as …`: `jsonRoute({ body: TimeSeriesCreateRequest, handle: ({ body }) => … })`.
 */
export function jsonRoute<S extends TSchema>(route: Omit<Route<Static<S>>, 'body'> & { body: S }): Route<Static<S>> {
  return route;
}

/**
 * A route without a body whose handler gets its query typed from the route's schema:
 * `queryRoute({ query: TimeSeriesListQuery, handle: ({ query }) => … query.limit … })`.
 */
export function queryRoute<Q extends TObject>(route: Omit<Route<undefined, Static<Q>>, 'query'> & { query: Q }): Route<undefined, Static<Q>> {
  return route;
}

export const noContent = (): Reply => ({ status: 204 });
export const ok = (body: unknown, status = 200): Reply => ({ status, body });

/** A route handler's context on a streamed-body route: the body arrives through bodyStream. */
export type StreamedBodyContext<Query = Record<string, unknown>> = RequestContext<undefined, Query> & { bodyStream: RequestBodyStream };

/**
 * Declares a route whose body is streamed to the handler instead of read whole: no body cap
 * (SPEC Limits exempts `PUT /files`), no JSON parsing, no ingested-bytes charge (the route
 * charges what it stores). `bodyContentType` documents the body in /openapi.json.
 */
export function streamedBodyRoute<Q extends TObject>(
  route: Omit<Route<undefined, Static<Q>>, 'handle' | 'body' | 'rawBody' | 'rawBodyPool' | 'rawBodySchema' | 'bodyBytesMax' | 'streamBody' | 'query'> & {
    query?: Q;
    handle(ctx: StreamedBodyContext<Static<Q>>): Promise<Reply>;
  },
): Route<undefined, Static<Q>> {
  const { handle, ...rest } = route;
  return {
    ...rest,
    streamBody: true,
    handle: (ctx) => {
      if (!ctx.bodyStream) throw new Error(`${route.path}: mountRoutes gave no body stream to a streamed-body route`);
      return handle(ctx as StreamedBodyContext<Static<Q>>);
    },
  };
}
