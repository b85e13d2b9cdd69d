import { NODE_COLUMNS } from '../meta/timeseries-rows.sql.ts';
import { jsonObjectText } from '../records/json-text.sql.ts';

/** The node columns a ResourceRow reads. */
export const RESOURCE_COLUMNS = `${NODE_COLUMNS}, is_root, geo_location`;

/** The API record built by PostgreSQL as JSON text (same fields as toResource, absent instead of null). */
export const RESOURCE_JSON = jsonObjectText([
  { key: 'id', sql: 'id', as: 'number' },
  { key: 'externalId', sql: 'external_id', as: 'string' },
  { key: 'name', sql: "coalesce(name, '')", as: 'string' },
  { key: 'description', sql: 'description', as: 'string', optional: true },
  { key: 'dataSetId', sql: 'data_set_id', as: 'number', optional: true },
  { key: 'labels', sql: 'to_json(labels)', as: 'json' },
  { key: 'metadata', sql: 'metadata', as: 'json' },
  { key: 'createdTime', sql: 'created_time', as: 'number' },
  { key: 'lastUpdatedTime', sql: 'last_updated_time', as: 'number' },
  { key: 'isRoot', sql: 'is_root', as: 'boolean' },
  // GeoJSON as stored: its own nulls (a Feature's "geometry": null) are kept.
  { key: 'geoLocation', sql: 'geo_location', as: 'json', optional: true },
]);
