import { EVENT_COLUMNS } from './event-rows.ts';

/** $1 tenant, $2 ids. */
export const EVENTS_BY_IDS = `SELECT ${EVENT_COLUMNS} FROM events WHERE tenant = $1 AND id = ANY($2::uuid[])`;

/** Events by ids ($2) or externalIds ($3), locked in one order: $1 tenant. */
export const EVENTS_BY_KEYS_FOR_UPDATE = `
SELECT ${EVENT_COLUMNS} FROM events
 WHERE tenant = $1 AND (id = ANY($2::uuid[]) OR external_id = ANY($3::text[]))
 ORDER BY id FOR UPDATE`;

/**
 * $1 tenant, $2 id, $3 externalId, $4 eventTime, $5 type, $6 subType, $7 status, $8 source,
 * $9 description, $10 dataSetId, $11 relatedResources (JSON), $12 related ids (JSON array),
 * $13 metadata (JSON), $14 now.
 */
export const UPDATE_EVENT = `
UPDATE events SET external_id = $3, event_time = $4, type = $5, sub_type = $6, status = $7, source = $8, description = $9,
       data_set_id = $10, related_resources = $11::jsonb, related_ids = ARRAY(SELECT jsonb_array_elements_text($12::jsonb)::bigint),
       metadata = $13::jsonb, last_updated_time = $14
 WHERE tenant = $1 AND id = $2
RETURNING ${EVENT_COLUMNS}`;

/** $1 tenant, $2 ids; the rows removed are taken off the tenant's counts (migration 010) in the same statement. */
export const DELETE_EVENTS = `
WITH gone AS (DELETE FROM events WHERE tenant = $1 AND id = ANY($2::uuid[]) RETURNING data_set_id)
INSERT INTO event_counts (tenant, data_set_id, n) SELECT $1, data_set_id, -count(*) FROM gone GROUP BY data_set_id`;

/** An event moved from data set $2 to $3 (either may be null): $1 tenant. */
export const MOVE_EVENT_COUNT = 'INSERT INTO event_counts (tenant, data_set_id, n) VALUES ($1, $2, -1), ($1, $3, 1)';
