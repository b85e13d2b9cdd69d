// SPEC Conventions: an externalId is unique within the tenant's node space, which time series,
// data sets and resources share. Which externalIds a create or rename would take twice; the
// unique index stays the last word when two requests race (callers map its violation to 409).
import type { Queryable } from '../stores/queryable.ts';
import { TAKEN_EXTERNAL_IDS_EXCEPT } from './external-ids.sql.ts';

/** externalIds repeated inside the request or already held by another node of the tenant (`exceptIds` are being renamed). */
export async function duplicatedExternalIds(db: Queryable, tenant: string, externalIds: string[], exceptIds: number[] = []): Promise<string[]> {
  const seen = new Set<string>();
  const repeated = externalIds.filter((id) => (seen.has(id) ? true : (seen.add(id), false)));
  const { rows } = await db.query<{ external_id: string }>(TAKEN_EXTERNAL_IDS_EXCEPT, [tenant, externalIds, exceptIds]);
  return [...new Set([...rows.map((r) => r.external_id), ...repeated])];
}
