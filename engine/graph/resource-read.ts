// Resource reads (SPEC "Resources"): get, byids, filter with the time series
// filter's rules where the fields match (plus isRoot, and dataSetId with descendants) and
// keyset paging, and search (fuzzy over name, externalId and description; its filter is
// ignored, as SPEC says). Unreadable resources behave as missing everywhere.
import type { Edge } from '../../schemas/edges.ts';
import { SORTABLE_RESOURCE_PROPERTIES, type Resource, type ResourceFilter, type ResourceFilterRequest } from '../../schemas/resources.ts';
import { NotFoundError, type Identifier } from '../errors.ts';
import { readableIds, type Access } from '../grants/access.ts';
import { and, nodeFilterParts, patternPredicate, readablePredicate, tenantKind } from '../meta/node-filter.ts';
import { nodePageJson, searchNodes, sortColumnsOf } from '../meta/node-page.ts';
import type { JsonPage } from '../meta/timeseries-rows.ts';
import { resolveIdentifiers, type RecordFamily } from '../records/identifiers.ts';
import type { Queryable } from '../stores/queryable.ts';
import { SqlParams } from '../stores/sql-params.ts';
import { edgesOfNode } from './edge-read.ts';
import { RESOURCE_COLUMNS, RESOURCE_JSON, toResource, type ResourceRow } from './resource-rows.ts';
import { resourceCountSql, RESOURCES_BY_KEYS } from './resource-read.sql.ts';

/** Sort allow-list (STYLE §7): the node columns resources sort by. */
const RESOURCE_SORT_COLUMNS = sortColumnsOf(SORTABLE_RESOURCE_PROPERTIES);

/** Readable resources: the resolver's family for get and byids. */
const readableResources = (access: Access): RecordFamily<ResourceRow> => ({
  async fetch(db, tenant, ids, externalIds) {
    return (await db.query<ResourceRow>(RESOURCES_BY_KEYS, [tenant, readableIds(access), ids, externalIds])).rows;
  },
  idOf: (row) => row.id,
  externalIdOf: (row) => row.external_id,
});

export async function getResource(db: Queryable, access: Access, id: number): Promise<Resource> {
  const [found] = await resolveIdentifiers(readableResources(access), db, access.tenant, [{ id }]);
  if (!found?.row) throw new NotFoundError(`No resource with id ${id}`, [{ id }]);
  return toResource(found.row);
}

/** At most this many edges come with a resource from getWithEdges. */
export const RESOURCE_EDGES_MAX = 1_000;

/** A resource and its readable edges (both directions), for agents finding their way around a plant. */
export async function getResourceWithEdges(db: Queryable, access: Access, identifier: Identifier): Promise<{ item: Resource; relations: Edge[] }> {
  const [found] = await resolveIdentifiers(readableResources(access), db, access.tenant, [identifier]);
  if (!found?.row) throw new NotFoundError(`No resource ${identifier.externalId ?? identifier.id}`, [identifier]);
  return { item: toResource(found.row), relations: await edgesOfNode(db, access, found.row.id, RESOURCE_EDGES_MAX) };
}

/** Readable resources in request order, each once; misses omitted; both keys must agree (400). */
export async function resourcesByIds(db: Queryable, access: Access, identifiers: Identifier[]): Promise<Resource[]> {
  const resolved = await resolveIdentifiers(readableResources(access), db, access.tenant, identifiers);
  const seen = new Set<number>();
  return resolved.flatMap(({ row }) => (row && !seen.has(row.id) ? (seen.add(row.id), [toResource(row)]) : []));
}

/** The time series filter's rules where the fields match, plus `description` patterns and `isRoot`. */
async function filterWhere(db: Queryable, params: SqlParams, access: Access, filter: ResourceFilter = {}): Promise<string> {
  return and([
    ...await nodeFilterParts(db, params, access, 'resource', filter),
    patternPredicate(params, 'description', filter.description),
    filter.isRoot === undefined ? undefined : `is_root = ${params.bind(filter.isRoot)}`,
  ]);
}

/** One filter page of readable resources as JSON texts; newest created first unless sorted. */
export async function filterResourcesJson(db: Queryable, access: Access, request: ResourceFilterRequest & { limit: number }): Promise<JsonPage> {
  const params = new SqlParams();
  const where = await filterWhere(db, params, access, request.filter);
  const indexedFilter = request.filter?.metadata !== undefined || request.filter?.labels !== undefined;
  return nodePageJson(db, { where, params, sort: request.sort, cursor: request.cursor, limit: request.limit, columns: RESOURCE_SORT_COLUMNS, recordJson: RESOURCE_JSON, indexedFilter });
}

/** The number of readable resources the filter admits. */
export async function countResources(db: Queryable, access: Access, filter: ResourceFilter | undefined): Promise<number> {
  const params = new SqlParams();
  const where = await filterWhere(db, params, access, filter);
  const { rows } = await db.query<{ count: string | number }>(resourceCountSql(where), params.values);
  return Number(rows[0]?.count ?? 0);
}

/** SPEC: fuzzy over name, externalId and description, ranked, id as tie-break; the filter is ignored. */
export async function searchResources(db: Queryable, access: Access, query: { search: string; limit: number }): Promise<Resource[]> {
  const params = new SqlParams();
  const where = and([tenantKind(params, access.tenant, 'resource'), readablePredicate(params, access)]);
  const rows = await searchNodes<ResourceRow>(db, { where, params, search: query.search, limit: query.limit, columns: RESOURCE_COLUMNS });
  return rows.map(toResource);
}
