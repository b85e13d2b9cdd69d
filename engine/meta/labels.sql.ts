/** Creates missing labels named like their externalId: $1 tenant, $2 names, $3 now (ms). */
export const ENSURE_LABELS = `
INSERT INTO labels (tenant, external_id, name, created_time)
SELECT $1, n, n, $3 FROM unnest($2::text[]) AS n
ON CONFLICT (tenant, external_id) DO NOTHING`;

/** $1 tenant, $2 externalIds. */
export const TAKEN_LABELS = 'SELECT external_id FROM labels WHERE tenant = $1 AND external_id = ANY($2::text[])';

/** $1 tenant, $2 externalIds, $3 names (null: the externalId), $4 descriptions, $5 now (ms). */
export const INSERT_LABELS = `
INSERT INTO labels (tenant, external_id, name, description, created_time)
SELECT $1, e, coalesce(n, e), d, $5 FROM unnest($2::text[], $3::text[], $4::text[]) AS t(e, n, d)
RETURNING external_id, name, description, created_time`;

/** One page by externalId: $1 tenant, $2 after this externalId, $3 prefix (null: any), $4 rows, $5 name (null: any). */
export const LIST_LABELS = `
SELECT external_id, name, description, created_time FROM labels
 WHERE tenant = $1 AND external_id > $2 AND ($3::text IS NULL OR starts_with(external_id, $3)) AND ($5::text IS NULL OR name = $5)
 ORDER BY external_id LIMIT $4`;

/** $1 tenant, $2 externalIds. */
export const DELETE_LABELS = 'DELETE FROM labels WHERE tenant = $1 AND external_id = ANY($2::text[])';
