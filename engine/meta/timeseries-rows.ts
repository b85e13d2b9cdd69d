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
  /** Time series only: stepwise rather than linear; not part of SPEC's record (see toTimeSeries). */
  is_step: boolean;
  created_time: number;
  last_updated_time: number;
}

export { NODE_COLUMNS, TIMESERIES_JSON, TIMESERIES_RECORD_JSON } from './timeseries-rows.sql.ts';

/**
 * A time series with every stored field: SPEC's record, `name` absent when never set, and
 * `isStep` (stepwise rather than linear between points), which SPEC's record leaves out. The
 * CDF surface answers from it.
 */
export type TimeSeriesRecord = Omit<TimeSeries, 'name'> & { name?: string; isStep: boolean };

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

export function toTimeSeriesRecord(row: NodeRow): TimeSeriesRecord {
  const { name, ...rest } = toTimeSeries(row);
  return { ...rest, ...(row.name !== null ? { name } : {}), isStep: row.is_step };
}
