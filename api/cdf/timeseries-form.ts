// CDF's time series form and ours, both ways, as pure functions: `isString` for the value type
// (TEXT, else FLOAT), `isStep`, ids and times as JSON numbers, CDF's filters and update verbs
// in the engine's terms. Fields our model cannot carry are refused here by name (BadRequestError);
// docs/cdf.md lists them. The rules (grants, missing, duplicates) are the engine's.
import { BadRequestError, type FieldProblem } from '../../engine/errors.ts';
import type {
  TimeSeriesCreateInput, TimeSeriesRecord, TimeSeriesRecordFilter, TimeSeriesUpdateInput,
} from '../../engine/meta/timeseries-engine.ts';
import type { CdfTimeSeries, CdfTimeSeriesCreate, CdfTimeSeriesFilter, CdfTimeSeriesUpdateItem } from '../../schemas/cdf/timeseries.ts';

/** Throws one 400 listing every field refused, each named with its path. */
function refuse(problems: FieldProblem[]): void {
  if (problems.length === 0) return;
  throw new BadRequestError(problems.map((p) => `${p.field}: ${p.message}`).slice(0, 5).join('; '), problems);
}

const NO_ASSETS = 'assets are not linked to time series by id here; relate them with a relationship (docs/cdf.md)';
const NO_SECURITY_CATEGORIES = 'security categories are not supported; access follows data set grants (docs/cdf.md)';

/** A CDF create item as the engine's create (isString true is TEXT, else FLOAT). */
export function fromCdfCreate(item: CdfTimeSeriesCreate, index: number): TimeSeriesCreateInput {
  const at = `items[${index}]`;
  refuse([
    ...(item.externalId === undefined ? [{ field: `${at}.externalId`, index, message: 'is required here: every time series has an externalId (docs/cdf.md)' }] : []),
    ...(item.assetId !== undefined ? [{ field: `${at}.assetId`, index, message: NO_ASSETS, value: item.assetId }] : []),
    ...(item.securityCategories?.length ? [{ field: `${at}.securityCategories`, index, message: NO_SECURITY_CATEGORIES }] : []),
  ]);
  const out: TimeSeriesCreateInput = {
    externalId: item.externalId as string,
    valueType: item.isString === true ? 'TEXT' : 'FLOAT',
    isStep: item.isStep ?? false,
  };
  if (item.name !== undefined) out.name = item.name;
  if (item.description !== undefined) out.description = item.description;
  if (item.unit !== undefined) out.unit = item.unit;
  if (item.unitExternalId !== undefined) out.unitExternalId = item.unitExternalId;
  if (item.dataSetId !== undefined) out.dataSetId = item.dataSetId;
  if (item.metadata !== undefined) out.metadata = item.metadata;
  return out;
}

/** CDF's filter as the engine's; the asset filters are refused (no asset link, see fromCdfCreate). */
export function fromCdfFilter(filter: CdfTimeSeriesFilter | undefined): TimeSeriesRecordFilter | undefined {
  if (!filter) return undefined;
  refuse((['assetIds', 'assetExternalIds', 'rootAssetIds', 'assetSubtreeIds'] as const)
    .filter((field) => filter[field] !== undefined)
    .map((field) => ({ field: `filter.${field}`, message: NO_ASSETS })));
  refuse(filter.unitQuantity !== undefined ? [{ field: 'filter.unitQuantity', message: 'not supported; filter by unitExternalId' }] : []);
  const out: TimeSeriesRecordFilter = {};
  if (filter.name !== undefined) out.nameEquals = filter.name;
  if (filter.unit !== undefined) out.unit = filter.unit;
  if (filter.unitExternalId !== undefined) out.unitExternalId = filter.unitExternalId;
  if (filter.isString !== undefined) out.textValued = filter.isString;
  if (filter.isStep !== undefined) out.isStep = filter.isStep;
  if (filter.metadata !== undefined) out.metadata = filter.metadata;
  if (filter.dataSetIds !== undefined) out.dataSetId = filter.dataSetIds;
  if (filter.externalIdPrefix !== undefined) out.externalIdPrefix = filter.externalIdPrefix;
  if (filter.createdTime !== undefined) out.createdTime = filter.createdTime;
  if (filter.lastUpdatedTime !== undefined) out.lastUpdatedTime = filter.lastUpdatedTime;
  return out;
}

/** A CDF update item as the engine's. */
export function fromCdfUpdate(item: CdfTimeSeriesUpdateItem, index: number): TimeSeriesUpdateInput {
  const u = item.update;
  const at = `items[${index}].update`;
  refuse([
    ...(u.assetId !== undefined && 'set' in u.assetId ? [{ field: `${at}.assetId`, index, message: NO_ASSETS }] : []),
    ...(u.securityCategories !== undefined && (('set' in u.securityCategories && (u.securityCategories.set?.length ?? 0) > 0) || ('add' in u.securityCategories && (u.securityCategories.add?.length ?? 0) > 0))
      ? [{ field: `${at}.securityCategories`, index, message: NO_SECURITY_CATEGORIES }] : []),
  ]);
  const update: TimeSeriesUpdateInput['update'] = {};
  if (u.externalId !== undefined) update.externalId = u.externalId;
  if (u.name !== undefined) update.name = u.name;
  if (u.description !== undefined) update.description = u.description;
  if (u.unit !== undefined) update.unit = u.unit;
  if (u.unitExternalId !== undefined) update.unitExternalId = u.unitExternalId;
  if (u.dataSetId !== undefined) update.dataSetId = u.dataSetId;
  if (u.metadata !== undefined) update.metadata = u.metadata;
  if (u.isStep !== undefined) update.isStep = u.isStep;
  return 'id' in item ? { id: item.id, update } : { externalId: item.externalId, update };
}

/** Our record in CDF's form: SPEC-only fields (valueType, labels, source) become isString or are left out. */
export function toCdfTimeSeries(record: TimeSeriesRecord): CdfTimeSeries {
  const out: CdfTimeSeries = {
    id: record.id,
    externalId: record.externalId,
    isString: record.valueType === 'TEXT',
    isStep: record.isStep,
    metadata: record.metadata,
    createdTime: record.createdTime,
    lastUpdatedTime: record.lastUpdatedTime,
  };
  if (record.name !== undefined) out.name = record.name;
  if (record.description !== undefined) out.description = record.description;
  if (record.unit !== undefined) out.unit = record.unit;
  if (record.unitExternalId !== undefined) out.unitExternalId = record.unitExternalId;
  if (record.dataSetId !== undefined) out.dataSetId = record.dataSetId;
  return out;
}

/** A record the engine gave as JSON text (TIMESERIES_RECORD_JSON) in CDF's form. */
export function cdfTimeSeriesOfJson(text: string): CdfTimeSeries {
  return toCdfTimeSeries(JSON.parse(text) as TimeSeriesRecord);
}

/** CDF's search fields as one phrase for the engine's fuzzy search over name, externalId and description. */
export function searchPhraseOf(search: { name?: string; description?: string; query?: string } | undefined): string | undefined {
  const parts = [search?.query, search?.name, search?.description].filter((p): p is string => p !== undefined && p.trim() !== '');
  return parts.length ? parts.join(' ') : undefined;
}
