// CDF's data set and label forms and ours, both ways, as pure functions. Data sets have no
// write protection here and labels no data set: those fields are refused by name when they ask
// for what is not there (BadRequestError), accepted when they ask for what is (docs/cdf.md).
import { BadRequestError, type FieldProblem } from '../../engine/errors.ts';
import type { DataSetCreateInput, DataSetFilter } from '../../engine/meta/dataset-engine.ts';
import type { DataSet, DataSetUpdateItem } from '../../schemas/datasets.ts';
import type { CdfDataSet, CdfDataSetCreate, CdfDataSetFilter, CdfDataSetUpdateItem, CdfLabelCreate } from '../../schemas/cdf/datasets.ts';

function refuse(problems: FieldProblem[]): void {
  if (problems.length === 0) return;
  throw new BadRequestError(problems.map((p) => `${p.field}: ${p.message}`).slice(0, 5).join('; '), problems);
}

const NO_WRITE_PROTECTION = 'write protection is not supported; writes follow data set grants (docs/cdf.md)';

export function fromCdfDataSetCreate(item: CdfDataSetCreate, index: number): DataSetCreateInput {
  const at = `items[${index}]`;
  refuse([
    ...(item.externalId === undefined ? [{ field: `${at}.externalId`, index, message: 'is required here: every data set has an externalId (docs/cdf.md)' }] : []),
    ...(item.writeProtected === true ? [{ field: `${at}.writeProtected`, index, message: NO_WRITE_PROTECTION }] : []),
  ]);
  const out: DataSetCreateInput = { externalId: item.externalId as string };
  if (item.name !== undefined && item.name !== '') out.name = item.name;
  if (item.description !== undefined) out.description = item.description;
  if (item.metadata !== undefined) out.metadata = item.metadata;
  return out;
}

/**
 * CDF's filter as the engine's, or null when it can match nothing (`writeProtected: true`:
 * no data set is write-protected here).
 */
export function fromCdfDataSetFilter(filter: CdfDataSetFilter | undefined): DataSetFilter | null {
  if (!filter) return {};
  if (filter.writeProtected === true) return null;
  const out: DataSetFilter = {};
  if (filter.externalIdPrefix !== undefined) out.externalIdPrefix = filter.externalIdPrefix;
  if (filter.metadata !== undefined) out.metadata = filter.metadata;
  if (filter.createdTime !== undefined) out.createdTime = filter.createdTime;
  if (filter.lastUpdatedTime !== undefined) out.lastUpdatedTime = filter.lastUpdatedTime;
  return out;
}

export function fromCdfDataSetUpdate(item: CdfDataSetUpdateItem, index: number): DataSetUpdateItem {
  const u = item.update;
  const at = `items[${index}].update`;
  refuse([
    ...(u.writeProtected?.set === true ? [{ field: `${at}.writeProtected`, index, message: NO_WRITE_PROTECTION }] : []),
    ...(u.externalId !== undefined && 'setNull' in u.externalId ? [{ field: `${at}.externalId`, index, message: 'cannot be cleared: every data set has an externalId' }] : []),
  ]);
  const update: DataSetUpdateItem['update'] = {};
  if (u.externalId !== undefined && 'set' in u.externalId) update.externalId = { set: u.externalId.set };
  // A name cleared is shown absent, as one never given (our data sets store no null name apart from that).
  if (u.name !== undefined) update.name = { set: 'set' in u.name ? u.name.set : '' };
  if (u.description !== undefined) update.description = u.description;
  if (u.metadata !== undefined) update.metadata = u.metadata;
  return 'id' in item ? { id: item.id, update } : { externalId: item.externalId, update };
}

export function toCdfDataSet(dataSet: DataSet): CdfDataSet {
  const out: CdfDataSet = {
    id: dataSet.id,
    externalId: dataSet.externalId,
    metadata: dataSet.metadata,
    writeProtected: false,
    createdTime: dataSet.createdTime,
    lastUpdatedTime: dataSet.lastUpdatedTime,
  };
  if (dataSet.name !== '') out.name = dataSet.name;
  if (dataSet.description !== undefined) out.description = dataSet.description;
  return out;
}

export function fromCdfLabelCreate(item: CdfLabelCreate, index: number): { externalId: string; name: string; description?: string } {
  refuse(item.dataSetId !== undefined
    ? [{ field: `items[${index}].dataSetId`, index, message: 'labels belong to the project, not to a data set, here (docs/cdf.md)' }] : []);
  return { externalId: item.externalId, name: item.name, ...(item.description !== undefined ? { description: item.description } : {}) };
}
