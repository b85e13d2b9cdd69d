// Time series reads (SPEC "Time series"): get, byids, list, filter with keyset paging, and
// fuzzy search. Unreadable records behave as missing everywhere.
import type { TimeSeries, TimeSeriesFilter } from '../../schemas/timeseries.ts';
import { BadRequestError, NotFoundError, type Identifier } from '../errors.ts';
import { canRead, readableIds, type Access } from '../grants/access.ts';
import { resolveIdentifiers, type RecordFamily } from '../records/identifiers.ts';
import type { Queryable } from '../stores/queryable.ts';
import { SqlParams } from '../stores/sql-params.ts';
import { VALUE_TYPES } from '../datapoints/types.ts';
import { afterCursor, decodeCursor, encodeCursor, orderBy, type SortColumn, type SortSpec } from './keyset-cursor.ts';
import { lookupNodes } from './node-lookup.ts';
import {
  and, inPredicate, labelsPredicate, metadataPredicate, patternPredicate, rangePredicate, readablePredicate, resolveDataSetFilter, tenantKind,
  type DataSetRef,
} from './node-filter.ts';
import { asList } from '../records/patterns.ts';
import { toTimeSeries, type JsonPage, type NodeRow } from './timeseries-rows.ts';
import { filterPageSql, searchSql, TIMESERIES_BY_IDS_JSON } from './timeseries-read.sql.ts';

/** Sort allow-list (STYLE §7): SPEC property → column. */
export const SORT_COLUMNS: Readonly<Record<string, SortColumn>> = {
  id: { column: 'id', nullable: false, kind: 'number' },
  externalId: { column: 'external_id', nullable: false, kind: 'text' },
  name: { column: 'name', nullable: true, kind: 'text' },
  source: { column: 'source', nullable: true, kind: 'text' },
  description: { column: 'description', nullable: true, kind: 'text' },
  createdTime: { column: 'created_time', nullable: false, kind: 'number' },
  lastUpdatedTime: { column: 'last_updated_time', nullable: false, kind: 'number' },
  dataSetId: { column: 'data_set_id', nullable: true, kind: 'number' },
};

/** SPEC: results default to newest created first. */
export const DEFAULT_TIMESERIES_SORT: SortSpec = { property: 'createdTime', order: 'desc' };

export async function getTimeSeries(db: Queryable, access: Access, id: number): Promise<TimeSeries> {
  const [found] = await lookupNodes(db, access.tenant, 'timeseries', [{ id }], false, { visible: (row) => canRead(access, row.data_set_id) });
  if (!found?.row || !canRead(access, found.row.data_set_id)) throw new NotFoundError(`No time series with id ${id}`, [{ id }]);
  return toTimeSeries(found.row);
}

interface JsonRow {
  id: number;
  external_id: string;
  j: string;
}

/** Time series as JSON texts, readable ones only: the resolver's family for byids. */
const timeSeriesJsonFamily = (access: Access): RecordFamily<JsonRow> => ({
  async fetch(db, tenant, ids, externalIds) {
    const { rows } = await db.query<JsonRow>(TIMESERIES_BY_IDS_JSON, [tenant, readableIds(access), ids, externalIds]);
    return rows;
  },
  idOf: (row) => row.id,
  externalIdOf: (row) => row.external_id,
});

/**
 * Misses and unreadable ones are silently omitted; order follows the request; a record named
 * twice comes once; an identifier giving both id and externalId of different records is a
 * 400. Records come as JSON texts.
 */
export async function timeSeriesByIdsJson(db: Queryable, access: Access, identifiers: Identifier[]): Promise<string[]> {
  const resolved = await resolveIdentifiers(timeSeriesJsonFamily(access), db, access.tenant, identifiers);
  const seen = new Set<number>();
  const out: string[] = [];
  for (const { row } of resolved) {
    if (!row || seen.has(row.id)) continue;
    seen.add(row.id);
    out.push(row.j);
  }
  return out;
}

async function filterWhere(db: Queryable, params: SqlParams, access: Access, filter: TimeSeriesFilter = {}): Promise<string> {
  let valueType: string | undefined;
  if (filter.valueType !== undefined) {
    valueType = filter.valueType.toUpperCase();
    if (!(VALUE_TYPES as readonly string[]).includes(valueType)) {
      throw new BadRequestError(`filter.valueType must be one of ${VALUE_TYPES.join(', ')}`, [{ field: 'filter.valueType', message: 'unknown value type', value: filter.valueType }]);
    }
  }
  const dataSetIds = await resolveDataSetFilter(db, access, filter.dataSetId as DataSetRef | DataSetRef[] | undefined);
  return and([
    tenantKind(params, access.tenant, 'timeseries'),
    readablePredicate(params, access),
    inPredicate(params, 'data_set_id', dataSetIds),
    inPredicate(params, 'id', asList(filter.id)),
    patternPredicate(params, 'external_id', filter.externalId),
    patternPredicate(params, 'name', filter.name),
    patternPredicate(params, 'source', filter.source),
    patternPredicate(params, 'unit', filter.unit),
    patternPredicate(params, 'unit_external_id', filter.unitExternalId),
    labelsPredicate(params, filter.labels),
    metadataPredicate(params, filter.metadata),
    valueType ? `value_type = ${params.bind(valueType)}` : undefined,
    rangePredicate(params, 'created_time', filter.createdTime),
    rangePredicate(params, 'last_updated_time', filter.lastUpdatedTime),
  ]);
}

/** A request's sort as one property of `columns` (the family's allow-list) and an order. */
export function normaliseSort(sort: unknown, columns: Readonly<Record<string, SortColumn>> = SORT_COLUMNS): SortSpec {
  if (sort === undefined) return DEFAULT_TIMESERIES_SORT;
  const item = (Array.isArray(sort) ? sort[0] : sort) as { property: string | string[]; order?: string };
  const property = Array.isArray(item.property) ? (item.property[0] as string) : item.property;
  if (!(property in columns)) {
    throw new BadRequestError(`sort.property must be one of ${Object.keys(columns).join(', ')}`, [{ field: 'sort.property', message: 'not sortable', value: property }]);
  }
  return { property, order: item.order === 'desc' ? 'desc' : 'asc' };
}

export interface FilterQuery {
  filter?: TimeSeriesFilter;
  limit: number;
  sort?: unknown;
  cursor?: string;
}

/** One page of the filter, records as JSON texts (see TIMESERIES_JSON). */
export async function filterTimeSeriesJson(db: Queryable, access: Access, query: FilterQuery): Promise<JsonPage> {
  const sort = normaliseSort(query.sort);
  const col = SORT_COLUMNS[sort.property] as SortColumn;
  const params = new SqlParams();
  const where = await filterWhere(db, params, access, query.filter);
  const keyset = query.cursor ? afterCursor(params, col, sort.order, decodeCursor(query.cursor, sort, col)) : undefined;
  const sql = filterPageSql(and([where, keyset]), col.column, orderBy(col, sort.order), params.bind(query.limit + 1));
  const { rows } = await db.query<{ id: number; sort_value: string | number | null; j: string }>(sql, params.values);
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  const items = page.map((r) => r.j);
  return rows.length > query.limit && last ? { items, nextCursor: encodeCursor(sort, last.sort_value ?? null, last.id) } : { items };
}

/**
 * SPEC search: the phrase matched fuzzily against name, externalId and description (trigram
 * word similarity, so typos and partial words match), ranked by relevance with id as
 * tie-break; the filter is applied. A name or externalId equal to the phrase (ignoring case)
 * ranks above one that only contains it: searching "Pump" finds "Pump" before "Pump station".
 */
export async function searchTimeSeries(db: Queryable, access: Access, query: { search: string; filter?: TimeSeriesFilter; limit: number }): Promise<TimeSeries[]> {
  const params = new SqlParams();
  const where = await filterWhere(db, params, access, query.filter);
  const sql = searchSql(where, params.bind(query.search.toLowerCase()), params.bind(query.limit));
  const { rows } = await db.query<NodeRow & { score: number }>(sql, params.values);
  return rows.map(toTimeSeries);
}
