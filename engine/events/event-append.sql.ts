/**
 * Appends events from parallel arrays, collapsing on id (a retried or re-derived event is
 * the stored one): $1 tenant, $2 ids, $3 externalIds, $4 eventTimes, $5 types, $6 subTypes,
 * $7 statuses, $8 sources, $9 descriptions, $10 dataSetIds, $11 relatedResources (JSON),
 * $12 related node ids (array literals: a cast per row, where a JSON array took a subquery),
 * $13 metadata (JSON), $14 now. Returns the ids inserted; the rows inserted are added to the
 * tenant's counts per data set (migration 010) in the same statement.
 */
export const APPEND_EVENTS = `
WITH added AS (
  INSERT INTO events (tenant, id, external_id, event_time, type, sub_type, status, source, description, data_set_id,
                      related_resources, related_ids, metadata, created_time, last_updated_time)
  SELECT $1, i, e, t, ty, st, s, so, d, ds, rr, ri::bigint[], m, $14, $14
    FROM unnest($2::uuid[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::bigint[],
                $11::jsonb[], $12::text[], $13::jsonb[]) AS x(i, e, t, ty, st, s, so, d, ds, rr, ri, m)
  ON CONFLICT (tenant, id) DO NOTHING
  RETURNING id, data_set_id
), counted AS (
  INSERT INTO event_counts (tenant, data_set_id, n) SELECT $1, data_set_id, count(*) FROM added GROUP BY data_set_id
)
SELECT id FROM added`;
