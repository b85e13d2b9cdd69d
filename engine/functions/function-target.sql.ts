// SQL of the target checks (function-target.ts). Values are always bound.

/**
 * Time series of tenant $1 by externalIds $2, with what the checks need. Locked FOR SHARE
 * until the write commits: the series cannot be deleted or moved to another data set between
 * the grant check and the function row that names it.
 */
export const TARGET_SERIES = `
SELECT id, external_id, value_type, data_set_id FROM nodes
 WHERE tenant = $1 AND kind = 'timeseries' AND external_id = ANY($2::text[])
 ORDER BY id
 FOR SHARE`;

/** Which of the series $2 (tenant $1) a function other than $3 already keeps. */
export const TARGETS_HELD = `
SELECT DISTINCT target_series_id FROM functions
 WHERE tenant = $1 AND target_series_id = ANY($2::bigint[]) AND NOT (id = ANY($3::bigint[]))`;
