// The grants a function keeps its target with: the entries of the token that last set its
// expression or target (migration 016), stored as JSON and expanded anew into an Access at
// every recompute, so data sets created or moved since count as they are now.
import { resolveAccess, type Access } from '../grants/access.ts';
import type { Caller, GrantEntry } from '../grants/claims.ts';
import type { Queryable } from '../stores/queryable.ts';

/** `{"all": true}` for a token without a `datasets` claim, else its read and write entries. */
export type RunGrants = { all: true } | { read: GrantEntry[]; write: GrantEntry[] };

/**
 * The writer's grants as stored. An Access built from expanded sets alone (no entries kept)
 * stores its data set ids: the same reach, without the descendants created later.
 */
export function runGrantsOf(access: Access): RunGrants {
  if (access.grants === null) return { all: true };
  if (access.grants !== undefined) return { read: [...access.grants.read], write: [...access.grants.write] };
  if (access.readable === null && access.writable === null) return { all: true };
  const write: GrantEntry[] = access.writable === null ? ['*'] : [...access.writable];
  const read: GrantEntry[] = access.readable === null ? ['*'] : [...access.readable];
  return { read, write };
}

/** The stored grants expanded against the tenant's data sets as they are now. */
export function accessOfRun(db: Queryable, tenant: string, grants: RunGrants): Promise<Access> {
  const caller: Caller = {
    tenant, sub: 'function',
    datasetGrants: 'all' in grants ? null : { read: grants.read ?? [], write: grants.write ?? [] },
  };
  return resolveAccess(db, caller);
}
