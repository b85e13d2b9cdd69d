// SQL of the index of kept targets (target-index.ts). Values are always bound; the tenant
// leads every WHERE clause.

/** Tenants with at least one function that keeps a target. */
export const TENANTS_WITH_TARGETS = `
SELECT DISTINCT tenant FROM functions WHERE target_series_id IS NOT NULL`;

/** The functions of tenant $1 that keep a target, with what keeping it needs. */
export const KEPT_FUNCTIONS = `
SELECT f.id, f.external_id, f.data_set_id, f.expression, f.target_series_id, f.run_grants, f.target_status, f.last_updated_time,
       s.value_type AS target_value_type
  FROM functions f
  LEFT JOIN nodes s ON s.tenant = f.tenant AND s.id = f.target_series_id AND s.kind = 'timeseries'
 WHERE f.tenant = $1 AND f.target_series_id IS NOT NULL`;

/** The series of tenant $1 that expressions name, by externalIds $2 or ids $3, with their isStep. */
export const INPUT_SERIES = `
SELECT id, external_id, is_step FROM nodes
 WHERE tenant = $1 AND kind = 'timeseries' AND (external_id = ANY($2::text[]) OR id = ANY($3::bigint[]))`;

/** Records why keeping function $2's target (tenant $1) stopped ($3 JSON), or clears it ($3 null). */
export const SET_TARGET_STATUS = `
UPDATE functions SET target_status = $3::jsonb WHERE tenant = $1 AND id = $2`;
