import { NODE_COLUMNS } from './timeseries-rows.sql.ts';

/** Data sets among ids $2 ($1 tenant). */

/**
 * One row per item, from parallel arrays: $1 tenant, $2 externalIds, $3 names, $4 descriptions,
 * $5 dataSetIds, $6 labels (JSON arrays), $7 metadata (JSON), $8 sources, $9 valueTypes,
 * $10 units, $11 unitExternalIds, $12 now (ms), $13 isSteps.
 */
export const INSERT_TIMESERIES = `
INSERT INTO nodes (tenant, id, kind, external_id, name, description, data_set_id, labels, metadata, source, value_type, unit, unit_external_id, is_step, created_time, last_updated_time)
SELECT $1, nextval('node_id_seq'), 'timeseries', e, n, d, ds, ARRAY(SELECT jsonb_array_elements_text(l)), m, s, vt, u, ue, st, $12, $12
  FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::jsonb[], $7::jsonb[], $8::text[], $9::text[], $10::text[], $11::text[], $13::boolean[])
       AS t(e, n, d, ds, l, m, s, vt, u, ue, st)
RETURNING ${NODE_COLUMNS}`;

/**
 * $1 tenant, $2 id, $3 externalId, $4 name, $5 description, $6 unit, $7 unitExternalId,
 * $8 dataSetId, $9 source, $10 metadata (JSON), $11 labels, $12 now (ms), $13 isStep.
 */
export const UPDATE_TIMESERIES = `
UPDATE nodes SET external_id = $3, name = $4, description = $5, unit = $6, unit_external_id = $7, data_set_id = $8,
       source = $9, metadata = $10::jsonb, labels = $11::text[], last_updated_time = $12, is_step = $13
 WHERE tenant = $1 AND id = $2 AND kind = 'timeseries'
RETURNING ${NODE_COLUMNS}`;

/** Edges starting at nodes $2 ($1 tenant), with their type name; at most 1 000. */
export const EDGES_STARTING_AT = `
SELECT e.id, e.start_id, rt.name FROM edges e JOIN relationship_types rt ON rt.tenant = e.tenant AND rt.id = e.type_id
 WHERE e.tenant = $1 AND e.start_id = ANY($2::bigint[]) ORDER BY e.id LIMIT 1000`;

/**
 * Subscriptions naming any of the series $2 ($1 tenant), at most 1 000: the delete's 400
 * (SPEC: fields `type`, `subscriptionId`, `subscriptionExternalId`, `timeseriesId`).
 */
export const SUBSCRIPTIONS_BINDING = `
SELECT s.id::float8 AS subscription_id, s.external_id AS subscription_external_id, ss.series_id::float8 AS timeseries_id
  FROM subscription_series ss JOIN subscriptions s ON s.tenant = ss.tenant AND s.id = ss.subscription_id
 WHERE ss.tenant = $1 AND ss.series_id = ANY($2::bigint[]) ORDER BY s.id, ss.series_id LIMIT 1000`;

/** $1 tenant, $2 node ids. */
export const DELETE_EDGES_ENDING_AT = 'DELETE FROM edges WHERE tenant = $1 AND end_id = ANY($2::bigint[])';

/** $1 tenant, $2 ids. */
export const DELETE_TIMESERIES = `DELETE FROM nodes WHERE tenant = $1 AND kind = 'timeseries' AND id = ANY($2::bigint[])`;
