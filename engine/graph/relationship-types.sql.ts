const TYPE_COLUMNS = 'id, name, description, i18n_code';

/** Types by name, ignoring case: $1 tenant, $2 names. */
export const RELATIONSHIP_TYPES_BY_NAMES = `SELECT ${TYPE_COLUMNS} FROM relationship_types WHERE tenant = $1 AND lower(name) = ANY(SELECT lower(n) FROM unnest($2::text[]) AS n)`;

/** Types by id: $1 tenant, $2 ids. */
export const RELATIONSHIP_TYPES_BY_IDS = `SELECT ${TYPE_COLUMNS} FROM relationship_types WHERE tenant = $1 AND id = ANY($2::bigint[])`;

/** Every type of the tenant, by name. */
export const LIST_RELATIONSHIP_TYPES = `SELECT ${TYPE_COLUMNS} FROM relationship_types WHERE tenant = $1 ORDER BY name, id`;

/**
 * Creates the named types that do not exist yet and returns every one of them (find or
 * create, for /edges/create and the data set tree): $1 tenant, $2 names. A type a concurrent
 * request creates meanwhile is found by the conflict clause.
 */
export const ENSURE_RELATIONSHIP_TYPES = `
INSERT INTO relationship_types AS rt (tenant, id, name)
SELECT $1, nextval('relationship_type_id_seq'), n FROM unnest($2::text[]) AS n
ON CONFLICT (tenant, lower(name)) DO UPDATE SET name = rt.name
RETURNING ${TYPE_COLUMNS}`;

/** Parallel arrays: $1 tenant, $2 names, $3 descriptions, $4 i18n codes. No find-or-create: a taken name fails the batch. */
export const INSERT_RELATIONSHIP_TYPES = `
INSERT INTO relationship_types (tenant, id, name, description, i18n_code)
SELECT $1, nextval('relationship_type_id_seq'), n, d, c FROM unnest($2::text[], $3::text[], $4::text[]) AS x(n, d, c)
RETURNING ${TYPE_COLUMNS}`;
