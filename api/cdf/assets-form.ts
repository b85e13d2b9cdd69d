// CDF's asset form ↔ our resources (docs/api.md "Resources and the asset graph"): pure
// translation, no rule. An asset's parent is a containment edge (engine/graph/asset-tree.ts);
// labels are `{externalId}` objects over our label names. What resources cannot carry is a 400
// naming the field (docs/cdf.md "Assets"): an asset without externalId (required here),
// `source`, a new parent on update, and the filters without a counterpart.
import { ResourceCreate, ResourceFilter, ResourceUpdateFields, type ResourceUpdateItem } from '../../schemas/resources.ts';
import type { CdfAsset, CdfAssetCreate, CdfAssetFilter, CdfAssetListRequest, CdfAssetSearchRequest, CdfAssetUpdate } from '../../schemas/cdf/assets.ts';
import type { AssetCreate, AssetListRequest, AssetRecord } from '../../engine/graph/asset-engine.ts';
import { Type } from '@sinclair/typebox';
import { BadRequestError, type FieldProblem, type Identifier } from '../../engine/errors.ts';
import { compileValidator } from '../validation.ts';
import { CDF_LIST_LIMIT_DEFAULT } from './events-form.ts';

// What a translation gives the engine meets SPEC's schemas, caps included (SPEC's routes check
// their bodies so; the engine relies on it).
const checkResourceCreates = compileValidator(Type.Object({ items: Type.Array(ResourceCreate) }), 'assets (as stored)');
const checkResourceUpdate = compileValidator(ResourceUpdateFields, 'asset update (as stored)');
const checkResourceFilter = compileValidator(ResourceFilter, 'asset filter (as read)');

function refuse(problems: FieldProblem[]): never {
  throw new BadRequestError(problems.map((p) => `${p.field}: ${p.message}`).slice(0, 5).join('; '), problems);
}

export function toCdfAsset({ resource, parentId, parentExternalId, rootId }: AssetRecord): CdfAsset {
  return {
    id: resource.id,
    externalId: resource.externalId,
    name: resource.name,
    ...(parentId !== undefined ? { parentId } : {}),
    ...(parentExternalId !== undefined ? { parentExternalId } : {}),
    rootId,
    ...(resource.description !== undefined ? { description: resource.description } : {}),
    ...(resource.dataSetId !== undefined ? { dataSetId: resource.dataSetId } : {}),
    metadata: resource.metadata,
    labels: resource.labels.map((externalId) => ({ externalId })),
    createdTime: resource.createdTime,
    lastUpdatedTime: resource.lastUpdatedTime,
  };
}

export function fromCdfAssetCreates(items: CdfAssetCreate[]): AssetCreate[] {
  const problems: FieldProblem[] = [];
  const out = items.map((item, index): AssetCreate => {
    const at = `items.${index}`;
    if (item.externalId === undefined) problems.push({ field: `${at}.externalId`, index, message: 'required here: a resource is named by its externalId' });
    if (item.source !== undefined) problems.push({ field: `${at}.source`, index, message: 'not stored: resources have no source', value: item.source });
    if (item.parentId !== undefined && item.parentExternalId !== undefined) problems.push({ field: `${at}.parentId`, index, message: 'give parentId or parentExternalId, not both' });
    const parent: Identifier | undefined = item.parentId !== undefined ? { id: item.parentId } : item.parentExternalId !== undefined ? { externalId: item.parentExternalId } : undefined;
    return {
      node: {
        externalId: item.externalId ?? '',
        name: item.name,
        ...(item.description !== undefined ? { description: item.description } : {}),
        ...(item.dataSetId !== undefined ? { dataSetId: item.dataSetId } : {}),
        ...(item.metadata !== undefined ? { metadata: item.metadata } : {}),
        ...(item.labels !== undefined ? { labels: item.labels.map((l) => l.externalId) } : {}),
      },
      ...(parent !== undefined ? { parent } : {}),
    };
  });
  if (problems.length > 0) refuse(problems);
  checkResourceCreates({ items: out.map((item) => item.node) });
  return out;
}

/** A literal as one of our patterns (where `*` and `%` are wildcards): refused if it holds one. */
function literal(value: string, field: string): string {
  if (/[*%]/.test(value)) refuse([{ field, message: '`*` and `%` are not supported here', value }]);
  return value;
}

export function fromCdfAssetFilter(filter: CdfAssetFilter | undefined): Pick<AssetListRequest, 'filter' | 'parents' | 'subtrees'> {
  if (!filter) return {};
  const problems: FieldProblem[] = [];
  if (filter.source !== undefined) problems.push({ field: 'filter.source', message: 'not supported: resources have no source' });
  const labels = filter.labels === undefined ? undefined : 'containsAll' in filter.labels ? filter.labels.containsAll : filter.labels.containsAny;
  if (filter.labels !== undefined && 'containsAny' in filter.labels && filter.labels.containsAny.length > 1) {
    problems.push({ field: 'filter.labels.containsAny', message: 'one label at most (or containsAll)' });
  }
  if (problems.length > 0) refuse(problems);
  const out: ResourceFilter = {};
  if (filter.name !== undefined) out.name = literal(filter.name, 'filter.name');
  if (filter.externalIdPrefix !== undefined) out.externalId = `${literal(filter.externalIdPrefix, 'filter.externalIdPrefix')}*`;
  if (filter.dataSetIds !== undefined) out.dataSetId = filter.dataSetIds;
  if (labels !== undefined) out.labels = labels.map((l) => l.externalId);
  if (filter.metadata !== undefined) out.metadata = filter.metadata;
  if (filter.createdTime !== undefined) out.createdTime = filter.createdTime;
  if (filter.lastUpdatedTime !== undefined) out.lastUpdatedTime = filter.lastUpdatedTime;
  if (filter.root !== undefined) out.isRoot = filter.root;
  checkResourceFilter(out);
  const parents: Identifier[] = [...(filter.parentIds ?? []).map((id) => ({ id })), ...(filter.parentExternalIds ?? []).map((externalId) => ({ externalId }))];
  const subtrees: Identifier[] = [...(filter.assetSubtreeIds ?? []), ...(filter.rootIds ?? [])];
  return {
    filter: out,
    ...(parents.length > 0 ? { parents } : {}),
    ...(subtrees.length > 0 ? { subtrees } : {}),
  };
}

export function fromCdfAssetList(body: CdfAssetListRequest): AssetListRequest {
  if (body.aggregatedProperties !== undefined) refuse([{ field: 'aggregatedProperties', message: 'not supported' }]);
  if (body.partition !== undefined) refuse([{ field: 'partition', message: 'not supported: page with the cursor' }]);
  return { ...fromCdfAssetFilter(body.filter), limit: body.limit ?? CDF_LIST_LIMIT_DEFAULT, ...(body.cursor !== undefined ? { cursor: body.cursor } : {}) };
}

/** CDF's name / description / query search as one query of our fuzzy search (over name, externalId and description). */
export function fromCdfAssetSearch(body: CdfAssetSearchRequest): string {
  if (body.filter !== undefined && Object.keys(body.filter).length > 0) refuse([{ field: 'filter', message: 'not supported on search: list with the filter instead' }]);
  const query = [body.search?.query, body.search?.name, body.search?.description].filter((s): s is string => s !== undefined && s.trim() !== '').join(' ').trim();
  if (query === '') refuse([{ field: 'search', message: 'give a name, description or query' }]);
  return query.slice(0, 1_000);
}

function fromCdfAssetUpdate(update: CdfAssetUpdate, field: string, problems: FieldProblem[]): ResourceUpdateItem['update'] {
  for (const key of ['source', 'parentId', 'parentExternalId'] as const) {
    if (update[key] !== undefined) problems.push({ field: `${field}.${key}`, message: key === 'source' ? 'not stored: resources have no source' : 'not supported: move an asset with the graph\'s edges (/edges/create, /edges/delete)' });
  }
  const out: ResourceUpdateItem['update'] = {};
  if (update.externalId !== undefined) out.externalId = update.externalId;
  if (update.name !== undefined) out.name = update.name;
  if (update.description !== undefined) out.description = update.description;
  if (update.dataSetId !== undefined) out.dataSetId = update.dataSetId;
  if (update.metadata !== undefined) out.metadata = update.metadata;
  if (update.labels !== undefined) {
    out.labels = {
      ...(update.labels.add !== undefined ? { add: update.labels.add.map((l) => l.externalId) } : {}),
      ...(update.labels.remove !== undefined ? { remove: update.labels.remove.map((l) => l.externalId) } : {}),
    };
  }
  return out;
}

export function fromCdfAssetUpdates(items: ({ id: number; update: CdfAssetUpdate } | { externalId: string; update: CdfAssetUpdate })[]): ResourceUpdateItem[] {
  const problems: FieldProblem[] = [];
  const out = items.map((item, index): ResourceUpdateItem => {
    const update = fromCdfAssetUpdate(item.update, `items.${index}.update`, problems);
    if (problems.length === 0) checkResourceUpdate(update);
    return 'id' in item ? { id: item.id, update } : { externalId: item.externalId, update };
  });
  if (problems.length > 0) refuse(problems);
  return out;
}
