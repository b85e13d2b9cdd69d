// Data set grants resolved for one request (CONTRACT "Tokens"): a grant names data sets by
// id, externalId or "*", covers their descendants through BELONGS_TO, and a write grant
// implies read. Records with no data set are readable and writable by every token of the
// tenant. Unreadable records behave as missing; writes without a grant are 403.
import type { Queryable } from '../stores/queryable.ts';
import type { Caller, GrantEntry } from './claims.ts';
import { DESCENDANT_DATA_SETS } from './access.sql.ts';
import { ForbiddenError } from '../errors.ts';

export interface Access {
  tenant: string;
  /** Readable data set ids; null means every data set. */
  readable: ReadonlySet<number> | null;
  /** Writable data set ids; null means every data set. */
  writable: ReadonlySet<number> | null;
  /**
   * The token's grant entries these sets were expanded from (null: every data set), for work
   * that runs later on the caller's behalf (a function keeping its target) and expands them
   * anew each time. Absent where an Access was built from sets alone.
   */
  grants?: Caller['datasetGrants'];
}

export const fullAccess = (tenant: string): Access => ({ tenant, readable: null, writable: null, grants: null });

export function canRead(access: Access, dataSetId: number | null | undefined): boolean {
  return dataSetId == null || access.readable === null || access.readable.has(dataSetId);
}

export function canWrite(access: Access, dataSetId: number | null | undefined): boolean {
  return dataSetId == null || access.writable === null || access.writable.has(dataSetId);
}

/** Throws 403 naming the data sets the caller may not write. */
export function assertCanWrite(access: Access, dataSetIds: Iterable<number | null | undefined>, what: string): void {
  const denied = [...new Set([...dataSetIds].filter((id): id is number => id != null && !canWrite(access, id)))];
  if (denied.length > 0) throw new ForbiddenError(`No write access to data set ${denied.join(', ')} (${what})`, denied);
}

/** SQL predicate parameter: null when no restriction applies, else the readable ids. */
export function readableIds(access: Access): number[] | null {
  return access.readable === null ? null : [...access.readable];
}

async function expand(db: Queryable, tenant: string, entries: GrantEntry[]): Promise<Set<number> | null> {
  if (entries.includes('*')) return null;
  const ids = entries.filter((e): e is number => typeof e === 'number');
  const externalIds = entries.filter((e): e is string => typeof e === 'string');
  if (ids.length === 0 && externalIds.length === 0) return new Set();
  const { rows } = await db.query<{ id: number }>(DESCENDANT_DATA_SETS, [tenant, ids, externalIds]);
  return new Set(rows.map((r) => r.id));
}

export async function resolveAccess(db: Queryable, caller: Caller): Promise<Access> {
  const grants = caller.datasetGrants;
  if (grants === null) return fullAccess(caller.tenant);
  const writable = await expand(db, caller.tenant, grants.write);
  const readOnly = await expand(db, caller.tenant, grants.read);
  const readable = readOnly === null || writable === null ? null : new Set([...readOnly, ...writable]);
  return { tenant: caller.tenant, readable, writable, grants };
}
