/** externalIds among $2 held by any node of tenant $1 other than ids $3. */
export const TAKEN_EXTERNAL_IDS_EXCEPT = `
SELECT external_id FROM nodes WHERE tenant = $1 AND external_id = ANY($2::text[]) AND NOT (id = ANY($3::bigint[]))`;
