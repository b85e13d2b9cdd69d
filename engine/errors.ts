// Expected failures of the domain, each with a stable code and the fields SPEC.md's Errors
// section requires. api/problems.ts is the only place that turns them into HTTP (STYLE §6).

/** An identifier as it appears in requests: `{ id }`, `{ externalId }` or both. */
export interface Identifier {
  id?: number;
  externalId?: string;
}

/** A wrong input, named for the client: field path, the value seen, and why. */
export interface FieldProblem {
  field: string;
  message: string;
  value?: unknown;
  /** Item index in a batch, when the problem is in one item. */
  index?: number;
  [extra: string]: unknown;
}

export abstract class DomainError extends Error {
  abstract readonly code: string;
}

/** 400: input rejected before any change. */
export class BadRequestError extends DomainError {
  readonly code = 'BadRequestError';
  constructor(message: string, readonly fields: FieldProblem[] = []) {
    super(message);
  }
}

/**
 * 422: a field failed validation (length, characters, required-ness, value type), or a batch
 * names one record twice where that is refused (`duplicated` lists them).
 */
export class UnprocessableError extends DomainError {
  readonly code = 'UnprocessableError';
  constructor(message: string, readonly fields: FieldProblem[], readonly duplicated: Identifier[] = []) {
    super(message);
  }
}

/** 404: unknown or unreadable id or externalId (indistinguishable by design). */
export class NotFoundError extends DomainError {
  readonly code = 'NotFoundError';
  constructor(message: string, readonly missing: Identifier[] = []) {
    super(message);
  }
}

/**
 * 409: a unique key already taken; lists the duplicated keys: identifiers (externalId, id),
 * or other keys where a record family's uniqueness is not an externalId (an edge's start,
 * end and type; a relationship type's name), with a message saying what they are.
 */
export class DuplicateError extends DomainError {
  readonly code = 'DuplicateError';
  constructor(readonly duplicated: (Identifier | Record<string, unknown>)[], message?: string) {
    super(message ?? `externalId already exists: ${(duplicated as Identifier[]).map((d) => d.externalId ?? d.id).join(', ')}`);
  }
}

/** 409: modified or removed by another request. */
export class ConflictError extends DomainError {
  readonly code = 'ConflictError';
  /** Serialized as the body's `cause` (SPEC Errors). */
  readonly conflictCause = 'concurrency';
  constructor(message = 'The record was modified or removed by another request; re-read and retry.') {
    super(message);
  }
}

/** 403: no write grant on a data set. */
export class ForbiddenError extends DomainError {
  readonly code = 'ForbiddenError';
  constructor(message: string, readonly dataSetIds: number[] = []) {
    super(message);
  }
}

/** 403: a per-tenant feature (files) is off. */
export class FeatureDisabledError extends DomainError {
  readonly code = 'FeatureDisabledError';
  constructor(readonly feature: string) {
    super(`The ${feature} feature is not enabled for this tenant.`);
  }
}

/** 413: the request body is over its limit. */
export class RequestTooLargeError extends DomainError {
  readonly code = 'RequestTooLargeError';
  constructor(readonly limitBytes: number) {
    super(`The request body is larger than ${limitBytes} bytes; split the batch.`);
  }
}

/** 429: per-minute rate limit. */
export class RateLimitError extends DomainError {
  readonly code = 'RateLimitError';
  constructor(readonly scope: 'tenant' | 'user', readonly limit: number, readonly retryAfter: number, readonly budget: 'read' | 'write') {
    super(`The ${scope} ${budget} rate limit of ${limit} requests per minute is reached; retry after ${retryAfter} s.`);
  }
}

/** 429: daily ingest quota. */
export class IngestQuotaError extends DomainError {
  readonly code = 'IngestQuotaError';
  constructor(readonly metric: string, readonly limit: number, readonly retryAfter: number) {
    super(`The daily ${metric} quota of ${limit} is used up; it resets at 00:00 UTC (in ${retryAfter} s).`);
  }
}

/** 403: lifetime ceiling reached (no Retry-After). */
export class TenantLimitError extends DomainError {
  readonly code = 'TenantLimitError';
  constructor(readonly metric: string, readonly limit: number) {
    super(`The tenant's lifetime ceiling for ${metric} (${limit}) is reached; ask for a raise.`);
  }
}

/** 503: an internal bound (queue, pool) is full; retry after the given seconds. */
export class OverloadedError extends DomainError {
  readonly code = 'OverloadedError';
  constructor(message: string, readonly retryAfterSeconds = 1) {
    super(message);
  }
}

/** 503: a store does not answer. */
export class StoreUnavailableError extends DomainError {
  readonly code = 'StoreUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
