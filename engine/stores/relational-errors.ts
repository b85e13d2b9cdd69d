// What a PostgreSQL that went away looks like through pg, in one place: a refused or dropped
// connection, a server that terminates its sessions (shutdown, crash, recovery), a pool that
// cannot connect in time, a server that cannot use its own files (a data directory it may no
// longer read, a full or failing disk). Each becomes a StoreUnavailableError (503 with Retry-After,
// api/problems.ts); every other error (a constraint, a statement's own failure) passes
// through unchanged. relational.ts applies it to every query and connect of its pools.
import { StoreUnavailableError } from '../errors.ts';

/** Socket errors of a connection refused, reset or never made. */
const SOCKET_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED',
]);

/**
 * SQLSTATEs of a server that is going or not there yet: class 08 (connection exception),
 * 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up or in
 * recovery), 53300 too_many_connections.
 */
const UNAVAILABLE_STATES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03', '53300']);

/**
 * SQLSTATEs of a server that cannot use its files: class 58 (system_error: io_error,
 * undefined_file, ...) and 53100 disk_full. PostgreSQL reports a file it may not open (EACCES)
 * as 42501 insufficient_privilege with a "could not <verb> file" message (errcode_for_file_access),
 * told apart here from a role's missing grant ("permission denied for table ..."), which stays
 * the statement's own error.
 */
const FILE_FAILURE_STATE = /^58[0-9A-Z]{3}$|^53100$/;
const FILE_ACCESS_MESSAGE = /^could not (open|read|write|access|stat|create|extend|fsync|seek|truncate|remove|rename|link)\b/;

/** pg's and pg-pool's own messages for a connection lost or never obtained. */
const CONNECTION_MESSAGES = [
  'Connection terminated',
  'connection timeout',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
  'terminating connection',
  'the database system is',
];

/** Whether `error` says PostgreSQL cannot be reached (as opposed to refusing one statement). */
export function isStoreConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof StoreUnavailableError) return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (SOCKET_CODES.has(code) || UNAVAILABLE_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
    if (FILE_FAILURE_STATE.test(code) || (code === '42501' && FILE_ACCESS_MESSAGE.test(error.message))) return true;
    if (/^[0-9A-Z]{5}$/.test(code)) return false; // any other SQLSTATE is the statement's own failure
  }
  if (error instanceof AggregateError && error.errors.some(isStoreConnectionFailure)) return true;
  return CONNECTION_MESSAGES.some((message) => error.message.includes(message));
}

/** The error to throw on: a StoreUnavailableError for a connection failure, else `error` itself. */
export function asStoreError(error: unknown): unknown {
  if (error instanceof StoreUnavailableError || !isStoreConnectionFailure(error)) return error;
  return new StoreUnavailableError('PostgreSQL is unavailable; retry after the Retry-After delay.', { cause: error });
}

/** Rethrows a rejection of `result` through asStoreError; anything else is returned as it is. */
export function mapStoreRejection<T>(result: T): T {
  if (result && typeof (result as { then?: unknown }).then === 'function') {
    return (result as unknown as Promise<unknown>).then(undefined, (error: unknown) => {
      throw asStoreError(error);
    }) as T;
  }
  return result;
}
