// SQL of the function writes (function-write.ts). Values are always bound; the tenant leads
// every WHERE clause.
import { FUNCTION_COLUMNS } from './function-read.sql.ts';

/** externalIds among $2 held by a function of tenant $1 other than ids $3. */
export const TAKEN_FUNCTION_EXTERNAL_IDS = `
SELECT external_id FROM functions WHERE tenant = $1 AND external_id = ANY($2::text[]) AND NOT (id = ANY($3::bigint[]))`;

/**
 * One row per item, from parallel arrays: $1 tenant, $2 externalIds, $3 names, $4 descriptions,
 * $5 dataSetIds, $6 metadata (JSON), $7 expressions, $8 target externalIds, $9 target series
 * ids, $10 now (ms), $11 the writer's grants (run-grants.ts, JSON). Ids come from the node
 * sequence (migration 015).
 */
export const INSERT_FUNCTIONS = `
INSERT INTO functions (tenant, id, external_id, name, description, data_set_id, metadata, expression, target_external_id, target_series_id, created_time, last_updated_time, run_grants)
SELECT $1, nextval('node_id_seq'), e, n, d, ds, m, x, te, ti, $10, $10, $11::jsonb
  FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::jsonb[], $7::text[], $8::text[], $9::bigint[])
       AS t(e, n, d, ds, m, x, te, ti)
RETURNING ${FUNCTION_COLUMNS}`;

/**
 * Every row of the batch in one statement, from parallel arrays: $1 tenant, $2 ids,
 * $3 externalIds, $4 names, $5 descriptions, $6 dataSetIds, $7 metadata (JSON), $8 expressions,
 * $9 target externalIds, $10 target series ids, $11 now (ms), $12 the writer's grants (JSON),
 * $13 whether each item sets its expression or target. Such an item runs from now on with the
 * writer's grants, and its `target_status` (evaluation's) is cleared: the target is computed
 * afresh.
 */
export const UPDATE_FUNCTIONS = `
UPDATE functions f SET external_id = u.e, name = u.n, description = u.d, data_set_id = u.ds, metadata = u.m, expression = u.x,
       target_external_id = u.te, target_series_id = u.ti, last_updated_time = $11,
       run_grants = CASE WHEN u.rewritten THEN $12::jsonb ELSE f.run_grants END,
       target_status = CASE WHEN u.rewritten THEN NULL ELSE f.target_status END
  FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::jsonb[], $8::text[], $9::text[], $10::bigint[], $13::boolean[])
       AS u(uid, e, n, d, ds, m, x, te, ti, rewritten)
 WHERE f.tenant = $1 AND f.id = u.uid
RETURNING ${FUNCTION_COLUMNS}`;

/** $1 tenant, $2 ids. */
export const DELETE_FUNCTIONS = 'DELETE FROM functions WHERE tenant = $1 AND id = ANY($2::bigint[])';
