/** A type by its name, ignoring case: $1 tenant, $2 name. */
export const RELATIONSHIP_TYPE_BY_NAME = 'SELECT id FROM relationship_types WHERE tenant = $1 AND lower(name) = lower($2)';

/** Creates a type, or returns the one a concurrent request created: $1 tenant, $2 name. */
export const INSERT_RELATIONSHIP_TYPE = `
INSERT INTO relationship_types (tenant, id, name) VALUES ($1, nextval('relationship_type_id_seq'), $2)
ON CONFLICT (tenant, lower(name)) DO UPDATE SET name = relationship_types.name
RETURNING id`;
