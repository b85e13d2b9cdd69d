import { RESOURCE_COLUMNS } from './resource-rows.sql.ts';

/**
 * One row per node, from parallel arrays: $1 tenant, $2 externalIds, $3 names, $4
 * descriptions, $5 dataSetIds, $6 labels (JSON arrays), $7 metadata (JSON), $8 root flags,
 * $9 GeoJSON (JSON or null), $10 now.
 */
export const INSERT_RESOURCES = `
INSERT INTO nodes (tenant, id, kind, external_id, name, description, data_set_id, labels, metadata, is_root, geo_location, created_time, last_updated_time)
SELECT $1, nextval('node_id_seq'), 'resource', e, n, d, ds, ARRAY(SELECT jsonb_array_elements_text(l)), m, r, g, $10, $10
  FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::jsonb[], $7::jsonb[], $8::boolean[], $9::jsonb[])
       AS t(e, n, d, ds, l, m, r, g)
RETURNING ${RESOURCE_COLUMNS}`;

/**
 * $1 tenant, $2 id, $3 externalId, $4 name, $5 description, $6 dataSetId, $7 metadata (JSON),
 * $8 labels, $9 root flag, $10 GeoJSON (JSON or null), $11 now.
 */
export const UPDATE_RESOURCE = `
UPDATE nodes SET external_id = $3, name = $4, description = $5, data_set_id = $6, metadata = $7::jsonb, labels = $8::text[],
       is_root = $9, geo_location = $10::jsonb, last_updated_time = $11
 WHERE tenant = $1 AND id = $2 AND kind = 'resource'
RETURNING ${RESOURCE_COLUMNS}`;

/** Resources by ids or externalIds, locked: $1 tenant, $2 ids, $3 externalIds. */
export const RESOURCES_FOR_UPDATE = `
SELECT ${RESOURCE_COLUMNS} FROM nodes
 WHERE tenant = $1 AND kind = 'resource' AND (id = ANY($2::bigint[]) OR external_id = ANY($3::text[]))
 ORDER BY id FOR UPDATE`;

/** Every edge at nodes $2 ($1 tenant), removed with them. */
export const DELETE_EDGES_AT = `
DELETE FROM edges WHERE tenant = $1 AND (start_id = ANY($2::bigint[]) OR end_id = ANY($2::bigint[]))
RETURNING id, start_id, end_id`;

/** $1 tenant, $2 ids. */
export const DELETE_RESOURCES = `DELETE FROM nodes WHERE tenant = $1 AND kind = 'resource' AND id = ANY($2::bigint[])`;
