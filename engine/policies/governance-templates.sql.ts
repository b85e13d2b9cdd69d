const TEMPLATE_COLUMNS = 'external_id, name, description, policies, created_time, last_updated_time';

/** $1 tenant. */
export const LIST_TEMPLATES = `SELECT ${TEMPLATE_COLUMNS} FROM governance_templates WHERE tenant = $1 ORDER BY external_id`;

/** $1 tenant, $2 externalId. */
export const TEMPLATE_BY_EXTERNAL_ID = `SELECT ${TEMPLATE_COLUMNS} FROM governance_templates WHERE tenant = $1 AND external_id = $2`;

/** Which of externalIds $2 are taken ($1 tenant). */
export const TAKEN_TEMPLATES = 'SELECT external_id FROM governance_templates WHERE tenant = $1 AND external_id = ANY($2::text[])';

/** Parallel arrays: $1 tenant, $2 externalIds, $3 names, $4 descriptions, $5 policies (JSON), $6 now. */
export const INSERT_TEMPLATES = `
INSERT INTO governance_templates (tenant, external_id, name, description, policies, created_time, last_updated_time)
SELECT $1, e, n, d, p, $6, $6 FROM unnest($2::text[], $3::text[], $4::text[], $5::jsonb[]) AS x(e, n, d, p)
RETURNING ${TEMPLATE_COLUMNS}`;

/** $1 tenant, $2 externalIds. */
export const DELETE_TEMPLATES = 'DELETE FROM governance_templates WHERE tenant = $1 AND external_id = ANY($2::text[])';

/** Policies applied from template $2 to data set $3 ($1 tenant). */
export const APPLIED_POLICIES = `
SELECT id, external_id, name, description, target, field, pattern, mode, data_set_id, template_external_id, created_time, last_updated_time
  FROM policies WHERE tenant = $1 AND template_external_id = $2 AND data_set_id = $3 ORDER BY id`;
