/** The node columns every NodeRow reads (see timeseries-rows.ts). */
export const NODE_COLUMNS = 'id, external_id, name, description, data_set_id, labels, metadata, source, value_type, unit, unit_external_id, created_time, last_updated_time';

/**
 * The API record built by PostgreSQL as JSON text (same fields as toTimeSeries, absent
 * instead of null): large pages skip parsing rows in JavaScript and re-serialising them.
 */
export const TIMESERIES_JSON = `jsonb_strip_nulls(jsonb_build_object(
  'id', id, 'externalId', external_id, 'name', coalesce(name, ''), 'description', description,
  'valueType', value_type, 'unit', unit, 'unitExternalId', unit_external_id, 'dataSetId', data_set_id,
  'source', source, 'labels', labels, 'metadata', metadata,
  'createdTime', created_time, 'lastUpdatedTime', last_updated_time))::text`;
