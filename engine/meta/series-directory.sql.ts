/** What a data point request needs of its series ($1 tenant, $2 ids, $3 externalIds). */
export const LOOKUP_SERIES_KEYS = `
SELECT id, external_id, value_type, data_set_id, is_step AS "isStep" FROM nodes
 WHERE tenant = $1 AND kind = 'timeseries' AND (id = ANY($2::bigint[]) OR external_id = ANY($3::text[]))
 ORDER BY id`;
