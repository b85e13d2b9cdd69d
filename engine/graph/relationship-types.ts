// The per-tenant relationship type catalogue (SPEC "Relationship type").
import type { Queryable } from '../stores/queryable.ts';

/** SPEC: relations into a data set use this type; the data set hierarchy is built from it. */
export const BELONGS_TO = 'BELONGS_TO';

/** Finds or creates a type by its normalised name; returns its id. */
export async function ensureRelationshipType(db: Queryable, tenant: string, name: string): Promise<number> {
  const found = await db.query<{ id: number }>('SELECT id FROM relationship_types WHERE tenant = $1 AND lower(name) = lower($2)', [tenant, name]);
  if (found.rows[0]) return found.rows[0].id;
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO relationship_types (tenant, id, name) VALUES ($1, nextval('relationship_type_id_seq'), $2)
     ON CONFLICT (tenant, lower(name)) DO UPDATE SET name = relationship_types.name RETURNING id`,
    [tenant, name],
  );
  return (rows[0] as { id: number }).id;
}
