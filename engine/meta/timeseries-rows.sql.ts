import { jsonObjectText } from '../records/json-text.sql.ts';

/** The node columns every NodeRow reads (see timeseries-rows.ts). */
export const NODE_COLUMNS = 'id, external_id, name, description, data_set_id, labels, metadata, source, value_type, unit, unit_external_id, is_step, created_time, last_updated_time';

/**
 * The API record built by PostgreSQL as JSON text (same fields as toTimeSeries, absent
 * instead of null): large pages skip parsing rows in JavaScript and re-serialising them.
 */
const TIMESERIES_JSON_FIELDS = [
  { key: 'id', sql: 'id', as: 'number' },
  { key: 'externalId', sql: 'external_id', as: 'string' },
  { key: 'name', sql: "coalesce(name, '')", as: 'string' },
  { key: 'description', sql: 'description', as: 'string', optional: true },
  { key: 'valueType', sql: 'value_type', as: 'string', optional: true },
  { key: 'unit', sql: 'unit', as: 'string', optional: true },
  { key: 'unitExternalId', sql: 'unit_external_id', as: 'string', optional: true },
  { key: 'dataSetId', sql: 'data_set_id', as: 'number', optional: true },
  { key: 'source', sql: 'source', as: 'string', optional: true },
  { key: 'labels', sql: 'to_json(labels)', as: 'json' },
  { key: 'metadata', sql: 'metadata', as: 'json' },
  { key: 'createdTime', sql: 'created_time', as: 'number' },
  { key: 'lastUpdatedTime', sql: 'last_updated_time', as: 'number' },
] as const;

export const TIMESERIES_JSON = jsonObjectText(TIMESERIES_JSON_FIELDS);

/**
 * The full record (timeseries-rows.ts TimeSeriesRecord) as JSON text: SPEC's fields with
 * `name` absent when unset, and `isStep`, which SPEC's record does not carry.
 */
export const TIMESERIES_RECORD_JSON = jsonObjectText([
  ...TIMESERIES_JSON_FIELDS.map((field) => (field.key === 'name' ? { key: 'name', sql: 'name', as: 'string' as const, optional: true } : field)),
  { key: 'isStep', sql: 'is_step', as: 'boolean' },
]);
