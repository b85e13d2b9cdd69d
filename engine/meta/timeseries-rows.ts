// Row ↔ record mapping for time series (SPEC "Time series" fields).
import type { TimeSeries } from '../../schemas/timeseries.ts';
import type { ValueType } from '../datapoints/types.ts';

export interface NodeRow {
  id: number;
  external_id: string;
  name: string | null;
  description: string | null;
  data_set_id: number | null;
  labels: string[];
  metadata: Record<string, string>;
  source: string | null;
  value_type: string | null;
  unit: string | null;
  unit_external_id: string | null;
  created_time: number;
  last_updated_time: number;
}

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

/** A page of records as JSON texts, ready to splice into a response. */
export interface JsonPage {
  items: string[];
  nextCursor?: string;
}

export function pageJson(page: JsonPage): string {
  return `{"items":[${page.items.join(',')}]${page.nextCursor === undefined ? '' : `,"nextCursor":${JSON.stringify(page.nextCursor)}`}}`;
}

export function toTimeSeries(row: NodeRow): TimeSeries {
  const record: TimeSeries = {
    id: row.id,
    externalId: row.external_id,
    name: row.name ?? '',
    valueType: row.value_type as ValueType,
    labels: row.labels,
    metadata: row.metadata,
    createdTime: row.created_time,
    lastUpdatedTime: row.last_updated_time,
  };
  if (row.description !== null) record.description = row.description;
  if (row.unit !== null) record.unit = row.unit;
  if (row.unit_external_id !== null) record.unitExternalId = row.unit_external_id;
  if (row.data_set_id !== null) record.dataSetId = row.data_set_id;
  if (row.source !== null) record.source = row.source;
  return record;
}
