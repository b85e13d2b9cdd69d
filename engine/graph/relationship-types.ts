// The per-tenant relationship type catalogue (SPEC "Relationship type").
import type { Queryable } from '../stores/queryable.ts';
import { INSERT_RELATIONSHIP_TYPE, RELATIONSHIP_TYPE_BY_NAME } from './relationship-types.sql.ts';

/** SPEC: relations into a data set use this type; the data set hierarchy is built from it. */
export const BELONGS_TO = 'BELONGS_TO';

/** Finds or creates a type by its normalised name; returns its id. */
export async function ensureRelationshipType(db: Queryable, tenant: string, name: string): Promise<number> {
  const found = await db.query<{ id: number }>(RELATIONSHIP_TYPE_BY_NAME, [tenant, name]);
  if (found.rows[0]) return found.rows[0].id;
  const { rows } = await db.query<{ id: number }>(INSERT_RELATIONSHIP_TYPE, [tenant, name]);
  return (rows[0] as { id: number }).id;
}
