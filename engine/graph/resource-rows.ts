// Row ↔ record mapping for resources (the shape: docs/api.md "Resources and the asset graph").
import type { Resource } from '../../schemas/resources.ts';
import type { NodeRow } from '../meta/timeseries-rows.ts';

export interface ResourceRow extends NodeRow {
  is_root: boolean;
  geo_location: unknown;
}

export { RESOURCE_COLUMNS, RESOURCE_JSON } from './resource-rows.sql.ts';

export function toResource(row: ResourceRow): Resource {
  const record: Resource = {
    id: row.id,
    externalId: row.external_id,
    name: row.name ?? '',
    isRoot: row.is_root,
    labels: row.labels,
    metadata: row.metadata,
    createdTime: row.created_time,
    lastUpdatedTime: row.last_updated_time,
  };
  if (row.description !== null) record.description = row.description;
  if (row.data_set_id !== null) record.dataSetId = row.data_set_id;
  if (row.geo_location !== null && row.geo_location !== undefined) record.geoLocation = row.geo_location;
  return record;
}
