import { NODE_COLUMNS } from '../meta/timeseries-rows.sql.ts';

/** The node columns a ResourceRow reads. */
export const RESOURCE_COLUMNS = `${NODE_COLUMNS}, is_root, geo_location`;

/**
 * The API record built by PostgreSQL as JSON text (same fields as toResource). Absent optional
 * fields are stripped at the top level only: jsonb_strip_nulls is recursive, and a GeoJSON
 * `geoLocation` may hold nulls of its own (a Feature's `"geometry": null`), so it is added after.
 */
export const RESOURCE_JSON = `(jsonb_strip_nulls(jsonb_build_object(
  'id', id, 'externalId', external_id, 'name', coalesce(name, ''), 'description', description,
  'dataSetId', data_set_id, 'labels', labels, 'metadata', metadata,
  'createdTime', created_time, 'lastUpdatedTime', last_updated_time))
  || jsonb_build_object('isRoot', is_root)
  || CASE WHEN geo_location IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('geoLocation', geo_location) END)::text`;
