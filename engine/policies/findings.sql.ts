/**
 * Policy findings folded from their event stream (SPEC lifecycle rules 1 and 3): the events
 * of type policy_finding grouped by externalId, the last by eventTime (ties by id) being the
 * finding's state; the filters on state and data set apply to that last event (rule 2: a
 * stored OPEN means raised, not outstanding). $1 tenant, $2 after this externalId (or null),
 * $3 the policy's finding prefix `policy_finding_<policy>_` (or null), $4 state (or null),
 * $5 readable data set ids (null: all), $6 data set ids to keep (null: any), $7 rows, $8 the
 * node concerned (its id as text, the finding externalId's last segment; null: any).
 */
export const FOLDED_FINDINGS = `
SELECT external_id, id, status, event_time, data_set_id, metadata, related_resources, description
  FROM (
    SELECT DISTINCT ON (external_id) external_id, id, status, event_time, data_set_id, metadata, related_resources, description
      FROM events
     WHERE tenant = $1 AND type = 'policy_finding' AND starts_with(external_id, 'policy_finding_')
       AND ($2::text IS NULL OR external_id > $2)
       AND ($3::text IS NULL OR (starts_with(external_id, $3) AND substr(external_id, length($3) + 1) ~ '^[0-9]+$'))
       AND ($8::text IS NULL OR right(external_id, length($8) + 1) = '_' || $8)
     ORDER BY external_id, event_time DESC, id DESC) AS last
 WHERE ($4::text IS NULL OR status = $4)
   AND ($5::bigint[] IS NULL OR data_set_id IS NULL OR data_set_id = ANY($5::bigint[]))
   AND ($6::bigint[] IS NULL OR data_set_id = ANY($6::bigint[]))
 ORDER BY external_id
 LIMIT $7`;
