// Resource reads (SPEC "Resources", issue 8): get, byids, filter with the time series
// filter's rules where the fields match (plus isRoot, and dataSetId with descendants) and
// keyset paging, and search (fuzzy over name, externalId and description; its filter is
// ignored, as SPEC says). Unreadable resources behave as missing everywhere.
import type { Edge } from '../../schemas/edges.ts';
import type { Resource, ResourceFilter, ResourceFilterRequest } from '../../schemas/resources.ts';
import { NotFoundError, type Identifier } from '../errors.ts';
import { readableIds, type Access } from '../grants/access.ts';
import { afterCursor, decodeCursor, encodeCursor, orderBy, type SortColumn } from '../meta/keyset-cursor.ts';
import {
  and, inPredicate, labelsPredicate, metadataPredicate, patternPredicate, rangePredicate, readablePredicate, resolveDataSetFilter, tenantKind, type DataSetRef,
} from '../meta/node-filter.ts';
import { normaliseSort, SORT_COLUMNS } from '../meta/timeseries-read.ts';
import { filterPageSql, searchSql } from '../meta/timeseries-read.sql.ts';
import type { JsonPage } from '../meta/timeseries-rows.ts';
import { asList } from '../records/patterns.ts';
import { resolveIdentifiers, type RecordFamily } from '../records/identifiers.ts';
import type { Queryable } from '../stores/queryable.ts';
import { SqlParams } from '../stores/sql-params.ts';
import { edgesOfNode } from './edge-read.ts';
import { RESOURCE_COLUMNS, RESOURCE_JSON, toResource, type ResourceRow } from './resource-rows.ts';
import { RESOURCES_BY_KEYS } from './resource-read.sql.ts';

/** Sortable properties: the time series ones resources have. */
const RESOURCE_SORT_COLUMNS: Readonly<Record<string, SortColumn>> = Object.fromEntries(
  ['id', 'externalId', 'name', 'description', 'createdTime', 'lastUpdatedTime', 'dataSetId'].map((p) => [p, SORT_COLUMNS[p] as SortColumn]),
);

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

async function filterWhere(db: Queryable, params: SqlParams, access: Access, filter: ResourceFilter = {}): Promise<string> {
  const dataSetIds = await resolveDataSetFilter(db, access, filter.dataSetId as DataSetRef | DataSetRef[] | undefined);
  return and([
    tenantKind(params, access.tenant, 'resource'),
    readablePredicate(params, access),
    inPredicate(params, 'data_set_id', dataSetIds),
    inPredicate(params, 'id', asList(filter.id)),
    patternPredicate(params, 'external_id', filter.externalId),
    patternPredicate(params, 'name', filter.name),
    patternPredicate(params, 'description', filter.description),
    filter.isRoot === undefined ? undefined : `is_root = ${params.bind(filter.isRoot)}`,
    labelsPredicate(params, filter.labels),
    metadataPredicate(params, filter.metadata),
    rangePredicate(params, 'created_time', filter.createdTime),
    rangePredicate(params, 'last_updated_time', filter.lastUpdatedTime),
  ]);
}

/** One filter page of readable resources as JSON texts; newest created first unless sorted. */
export async function filterResourcesJson(db: Queryable, access: Access, request: ResourceFilterRequest & { limit: number }): Promise<JsonPage> {
  const sort = normaliseSort(request.sort, RESOURCE_SORT_COLUMNS);
  const col = RESOURCE_SORT_COLUMNS[sort.property] as SortColumn;
  const params = new SqlParams();
  const where = await filterWhere(db, params, access, request.filter);
  const keyset = request.cursor ? afterCursor(params, col, sort.order, decodeCursor(request.cursor, sort, col)) : undefined;
  const sql = filterPageSql(and([where, keyset]), col.column, orderBy(col, sort.order), params.bind(request.limit + 1), RESOURCE_JSON);
  const { rows } = await db.query<{ id: number; sort_value: string | number | null; j: string }>(sql, params.values);
  const page = rows.slice(0, request.limit);
  const last = page[page.length - 1];
  const items = page.map((r) => r.j);
  return rows.length > request.limit && last ? { items, nextCursor: encodeCursor(sort, last.sort_value ?? null, last.id) } : { items };
}

/** SPEC: fuzzy over name, externalId and description, ranked, id as tie-break; the filter is ignored. */
export async function searchResources(db: Queryable, access: Access, query: { search: string; limit: number }): Promise<Resource[]> {
  const params = new SqlParams();
  const where = and([tenantKind(params, access.tenant, 'resource'), readablePredicate(params, access)]);
  const sql = searchSql(where, params.bind(query.search.toLowerCase()), params.bind(query.limit), RESOURCE_COLUMNS);
  const { rows } = await db.query<ResourceRow & { score: number }>(sql, params.values);
  return rows.map(toResource);
}
