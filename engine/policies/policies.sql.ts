const POLICY_COLUMNS = `id, external_id, name, description, target, field, pattern, mode, data_set_id, template_external_id, created_time, last_updated_time`;

/** Policies by ids ($2) or externalIds ($3) of tenant $1; $4 locks them. */
export const POLICIES_BY_KEYS = `
SELECT ${POLICY_COLUMNS} FROM policies
 WHERE tenant = $1 AND (id = ANY($2::bigint[]) OR external_id = ANY($3::text[]))`;
export const POLICIES_BY_KEYS_FOR_UPDATE = `${POLICIES_BY_KEYS} FOR UPDATE NOWAIT`;

/** A page by id: $1 tenant, $2 after this id, $3 rows. */
export const LIST_POLICIES = `SELECT ${POLICY_COLUMNS} FROM policies WHERE tenant = $1 AND id > $2 ORDER BY id LIMIT $3`;

/** The tenant's policies of one target ($2), for evaluation. */
export const POLICIES_OF_TARGET = `SELECT ${POLICY_COLUMNS} FROM policies WHERE tenant = $1 AND target = $2 ORDER BY id`;

/** Which of these externalIds ($2) other policies than $3 hold. */
export const TAKEN_POLICY_EXTERNAL_IDS = `SELECT external_id FROM policies WHERE tenant = $1 AND external_id = ANY($2::text[]) AND NOT (id = ANY($3::bigint[]))`;

/** Parallel arrays, one row each: $1 tenant, $2.. columns, $12 now. */
export const INSERT_POLICIES = `
INSERT INTO policies (tenant, id, external_id, name, description, target, field, pattern, mode, data_set_id, template_external_id, created_time, last_updated_time)
SELECT $1, nextval('policy_id_seq'), e, n, d, t, f, p, m, ds, te, $11, $11
  FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::bigint[], $10::text[]) AS x(e, n, d, t, f, p, m, ds, te)
RETURNING ${POLICY_COLUMNS}`;

/** $1 tenant, $2 id, $3 externalId, $4 name, $5 description, $6 target, $7 field, $8 pattern, $9 mode, $10 dataSetId, $11 now. */
export const UPDATE_POLICY = `
UPDATE policies SET external_id = $3, name = $4, description = $5, target = $6, field = $7, pattern = $8, mode = $9, data_set_id = $10, last_updated_time = $11
 WHERE tenant = $1 AND id = $2
RETURNING ${POLICY_COLUMNS}`;

/** $1 tenant, $2 ids. */
export const DELETE_POLICIES = 'DELETE FROM policies WHERE tenant = $1 AND id = ANY($2::bigint[])';

