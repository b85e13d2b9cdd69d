// SQL of the function reads (function-read.ts). Values are always bound; the tenant leads
// every WHERE clause.

/** The columns every FunctionRow reads (function-records.ts). */
export const FUNCTION_COLUMNS = `id, external_id, name, description, data_set_id, metadata, expression,
       target_external_id, target_series_id, target_status, created_time, last_updated_time`;

/** Functions by ids ($2) or externalIds ($3) of tenant $1, by id (so locks are taken in one order). */
export const FUNCTIONS_BY_KEYS = `
SELECT ${FUNCTION_COLUMNS} FROM functions
 WHERE tenant = $1 AND (id = ANY($2::bigint[]) OR external_id = ANY($3::text[]))
 ORDER BY id`;

/** The same, locked for a write in the caller's transaction. */
export const FUNCTIONS_BY_KEYS_FOR_UPDATE = `${FUNCTIONS_BY_KEYS} FOR UPDATE`;

/**
 * One page, newest created first: $1 tenant, $2 readable data set ids (null: every data set),
 * $3 data set ids to keep (null: no such filter), $4 and $5 the created time and id of the
 * previous page's last row (above every row for the first page, so the index range serves
 * both), $6 rows.
 */
export const LIST_FUNCTIONS = `
SELECT ${FUNCTION_COLUMNS} FROM functions
 WHERE tenant = $1
   AND ($2::bigint[] IS NULL OR data_set_id IS NULL OR data_set_id = ANY($2::bigint[]))
   AND ($3::bigint[] IS NULL OR data_set_id = ANY($3::bigint[]))
   AND (created_time, id) < ($4::bigint, $5::bigint)
 ORDER BY created_time DESC, id DESC
 LIMIT $6`;
