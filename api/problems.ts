// The only place that turns errors into an HTTP status and body (STYLE §6). Bodies follow
// SPEC.md "Errors": `{ error: { ... } }` with the HTTP status as `code`, or an RFC 9457
// problem document for 413, 429 and the lifetime-ceiling 403. Nothing else leaks: an
// unexpected error is a 500 without stack, SQL or token.
import {
  BadRequestError, ConflictError, DomainError, DuplicateError, FeatureDisabledError, ForbiddenError,
  IngestQuotaError, NotFoundError, OverloadedError, RateLimitError, RequestTooLargeError,
  StoreUnavailableError, TenantLimitError, UnprocessableError,
} from '../engine/errors.ts';

export interface ErrorReply {
  status: number;
  body: unknown;
  contentType: string;
  headers?: Record<string, string>;
}

const JSON_TYPE = 'application/json';
const PROBLEM_TYPE = 'application/problem+json';

function errorBody(status: number, error: DomainError, extra: Record<string, unknown> = {}): ErrorReply {
  return { status, contentType: JSON_TYPE, body: { error: { type: error.code, code: status, message: error.message, ...extra } } };
}

function problem(errorsBase: string, slug: string, title: string, status: number, detail: string, extra: Record<string, unknown>, headers?: Record<string, string>): ErrorReply {
  return {
    status,
    contentType: PROBLEM_TYPE,
    body: { type: `${errorsBase}/${slug}`, title, status, detail, ...extra },
    headers,
  };
}

export function unauthorized(message: string): ErrorReply {
  return { status: 401, contentType: JSON_TYPE, body: { error: { type: 'UnauthorizedError', code: 401, message } }, headers: { 'WWW-Authenticate': 'Bearer' } };
}

export function toErrorReply(error: unknown, errorsBase: string): ErrorReply {
  if (error instanceof BadRequestError) return errorBody(400, error, { fields: error.fields });
  if (error instanceof UnprocessableError) return errorBody(422, error, { fields: error.fields, ...(error.duplicated.length ? { duplicated: error.duplicated } : {}) });
  if (error instanceof NotFoundError) return errorBody(404, error, error.missing.length ? { missing: error.missing } : {});
  if (error instanceof DuplicateError) return errorBody(409, error, { duplicated: error.duplicated });
  if (error instanceof ConflictError) return errorBody(409, error, { cause: error.conflictCause });
  if (error instanceof ForbiddenError) return errorBody(403, error, error.dataSetIds.length ? { dataSetIds: error.dataSetIds } : {});
  if (error instanceof FeatureDisabledError) return errorBody(403, error, { feature: error.feature });
  if (error instanceof RequestTooLargeError) {
    return problem(errorsBase, 'request-too-large', 'Request body too large', 413, error.message, { limitBytes: error.limitBytes });
  }
  if (error instanceof RateLimitError) {
    return problem(errorsBase, 'rate-limit-exceeded', 'Rate limit exceeded', 429, error.message,
      { scope: error.scope, limit: error.limit, retryAfter: error.retryAfter }, { 'Retry-After': String(error.retryAfter) });
  }
  if (error instanceof IngestQuotaError) {
    return problem(errorsBase, 'ingest-quota-exceeded', 'Daily ingest quota exceeded', 429, error.message,
      { metric: error.metric, limit: error.limit, retryAfter: error.retryAfter }, { 'Retry-After': String(error.retryAfter) });
  }
  if (error instanceof TenantLimitError) {
    return problem(errorsBase, 'tenant-limit-reached', 'Tenant limit reached', 403, error.message, { metric: error.metric, limit: error.limit });
  }
  if (error instanceof OverloadedError) {
    return { ...errorBody(503, error, { retryAfter: error.retryAfterSeconds }), headers: { 'Retry-After': String(error.retryAfterSeconds) } };
  }
  if (error instanceof StoreUnavailableError) {
    return { ...errorBody(503, error), headers: { 'Retry-After': '1' } };
  }
  return {
    status: 500,
    contentType: JSON_TYPE,
    body: { error: { type: 'InternalError', code: 500, message: 'Internal error; retry after a short backoff.' } },
  };
}

/** Every error code the API can answer with, for the catalogue in /openapi.json. */
export const ERROR_CODES = [
  'BadRequestError', 'UnprocessableError', 'NotFoundError', 'DuplicateError', 'ConflictError', 'ForbiddenError',
  'FeatureDisabledError', 'RequestTooLargeError', 'RateLimitError', 'IngestQuotaError', 'TenantLimitError',
  'OverloadedError', 'StoreUnavailableError', 'UnauthorizedError', 'InternalError',
  // api/files.ts answers it itself, with Content-Range: bytes */<size> (RFC 9110 §15.5.17).
  'RangeNotSatisfiableError',
] as const;
