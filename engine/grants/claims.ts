// The caller as a verified token describes it (CONTRACT.md "Tokens"). Pure: turns claims
// into a Caller or says exactly which claim is wrong; signature checks live in api/auth.ts.

/** A data set grant entry: id (number), externalId (string) or '*' (all). */
export type GrantEntry = number | string;

export interface Caller {
  tenant: string;
  sub: string;
  /** null means the `datasets` claim was absent: read and write on every data set. */
  datasetGrants: { read: GrantEntry[]; write: GrantEntry[] } | null;
}

export class ClaimError extends Error {}

function grantList(value: unknown, name: string): GrantEntry[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new ClaimError(`datasets.${name} must be an array`);
  for (const entry of value) {
    const ok = (typeof entry === 'number' && Number.isSafeInteger(entry)) || (typeof entry === 'string' && entry.length > 0);
    if (!ok) throw new ClaimError(`datasets.${name} entries are data set ids, externalIds or "*"`);
  }
  return value as GrantEntry[];
}

export function callerFromClaims(claims: Record<string, unknown>): Caller {
  const org = claims['organization'];
  let tenant: unknown = org;
  if (Array.isArray(org)) {
    if (org.length !== 1) throw new ClaimError('organization must name exactly one organization');
    tenant = org[0];
  }
  if (typeof tenant !== 'string' || tenant.length === 0 || tenant.length > 128) {
    throw new ClaimError('organization claim missing or not a string');
  }
  const sub = claims['sub'];
  if (typeof sub !== 'string' || sub.length === 0) throw new ClaimError('sub claim missing');
  if (typeof claims['exp'] !== 'number') throw new ClaimError('exp claim missing');
  const datasets = claims['datasets'];
  if (datasets === undefined) return { tenant, sub, datasetGrants: null };
  if (!datasets || typeof datasets !== 'object' || Array.isArray(datasets)) throw new ClaimError('datasets must be an object');
  const grants = datasets as Record<string, unknown>;
  return { tenant, sub, datasetGrants: { read: grantList(grants['read'], 'read'), write: grantList(grants['write'], 'write') } };
}
