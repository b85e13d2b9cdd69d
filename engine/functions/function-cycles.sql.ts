// SQL of the cycle check between kept targets (function-cycles.ts). Values are always bound.

/**
 * Serialises, per tenant, the writes that set a function's expression or target: two
 * concurrent batches could each add half of a cycle and both pass the check. Held until the
 * transaction ends.
 */
export const LOCK_TENANT_FUNCTION_GRAPH = `SELECT pg_advisory_xact_lock(hashtextextended('function targets ' || $1, 0))`;

/** The functions of tenant $1 that keep a target, as the check reads them. */
export const KEPT_GRAPH = `
SELECT id, expression, target_series_id FROM functions WHERE tenant = $1 AND target_series_id IS NOT NULL`;

/** Series ids of tenant $1 by externalIds $2. */
export const SERIES_IDS = `
SELECT id, external_id FROM nodes WHERE tenant = $1 AND kind = 'timeseries' AND external_id = ANY($2::text[])`;
