// Time series reads (SPEC "Time series"): get, byids, list, filter with keyset paging, and
// fuzzy search. Unreadable records behave as missing everywhere.
import type { TimeSeries, TimeSeriesFilter } from '../../schemas/timeseries.ts';
import { BadRequestError, NotFoundError, type Identifier } from '../errors.ts';
import { canRead, type Access } from '../grants/access.ts';
import type { Queryable } from '../stores/queryable.ts';
import { SqlParams } from '../stores/sql-params.ts';
import { VALUE_TYPES } from '../datapoints/types.ts';
import { afterCursor, decodeCursor, encodeCursor, orderBy, type SortColumn, type SortSpec } from './keyset-cursor.ts';
import { lookupNodes } from './node-lookup.ts';
import {
  and, inPredicate, labelsPredicate, metadataPredicate, patternPredicate, rangePredicate, readablePredicate, resolveDataSetFilter, tenantKind,
  type DataSetRef,
} from './node-filter.ts';
import { asList } from './patterns.ts';
import { NODE_COLUMNS, TIMESERIES_JSON, toTimeSeries, type JsonPage, type NodeRow } from './timeseries-rows.ts';

/** Sort allow-list (STYLE §7): SPEC property → column. */
const SORT_COLUMNS: Record<string, SortColumn> = {
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
  const [found] = await lookupNodes(db, access.tenant, 'timeseries', [{ id }]);
  if (!found?.row || !canRead(access, found.row.data_set_id)) throw new NotFoundError(`No time series with id ${id}`, [{ id }]);
  return toTimeSeries(found.row);
}

/**
 * Misses and unreadable ones are silently omitted; order follows the request; an identifier
 * giving both id and externalId of different records is a 400. Records come as JSON texts.
 */
export async function timeSeriesByIdsJson(db: Queryable, access: Access, identifiers: Identifier[]): Promise<string[]> {
  const ids = identifiers.filter((i) => i.id !== undefined).map((i) => i.id as number);
  const externalIds = identifiers.filter((i) => i.externalId !== undefined).map((i) => i.externalId as string);
  const params = new SqlParams();
  const where = and([
    tenantKind(params, access.tenant, 'timeseries'),
    readablePredicate(params, access),
    `(id = ANY(${params.bind(ids)}::bigint[]) OR external_id = ANY(${params.bind(externalIds)}::text[]))`,
  ]);
  const { rows } = await db.query<{ id: number; external_id: string; j: string }>(`SELECT id, external_id, ${TIMESERIES_JSON} AS j FROM nodes WHERE ${where}`, params.values);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const byExternalId = new Map(rows.map((r) => [r.external_id, r]));
  const seen = new Set<number>();
  const out: string[] = [];
  identifiers.forEach((identifier, index) => {
    const row = identifier.id !== undefined ? byId.get(identifier.id) : byExternalId.get(identifier.externalId as string);
    if (row && identifier.id !== undefined && identifier.externalId !== undefined && row.external_id !== identifier.externalId) {
      throw new BadRequestError(`items[${index}]: id ${identifier.id} and externalId "${identifier.externalId}" name different records`, [
        { field: `items.${index}`, index, message: 'id and externalId name different records' },
      ]);
    }
    if (!row || seen.has(row.id)) return;
    seen.add(row.id);
    out.push(row.j);
  });
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

export function normaliseSort(sort: unknown): SortSpec {
  if (sort === undefined) return DEFAULT_TIMESERIES_SORT;
  const item = (Array.isArray(sort) ? sort[0] : sort) as { property: string | string[]; order?: string };
  const property = Array.isArray(item.property) ? (item.property[0] as string) : item.property;
  if (!(property in SORT_COLUMNS)) {
    throw new BadRequestError(`sort.property must be one of ${Object.keys(SORT_COLUMNS).join(', ')}`, [{ field: 'sort.property', message: 'not sortable', value: property }]);
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
  const { rows } = await db.query<{ id: number; sort_value: string | number | null; j: string }>(
    // The page is chosen first and only its rows are turned into JSON (PostgreSQL would
    // otherwise build the JSON of every matching row before sorting).
    `SELECT id, ${col.column} AS sort_value, ${TIMESERIES_JSON} AS j
       FROM (SELECT * FROM nodes WHERE ${and([where, keyset])} ORDER BY ${orderBy(col, sort.order)} LIMIT ${params.bind(query.limit + 1)}) AS page
      ORDER BY ${orderBy(col, sort.order)}`,
    params.values,
  );
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
  const q = params.bind(query.search.toLowerCase());
  const doc = `lower(coalesce(name, '') || ' ' || external_id || ' ' || coalesce(description, ''))`;
  const score = `GREATEST(
      word_similarity(${q}, lower(coalesce(name, ''))) * 1.2,
      word_similarity(${q}, lower(external_id)),
      word_similarity(${q}, lower(coalesce(description, ''))) * 0.8,
      CASE WHEN strpos(${doc}, ${q}) > 0 THEN 1.0 ELSE 0 END)
    + CASE WHEN lower(coalesce(name, '')) = ${q} OR lower(external_id) = ${q} THEN 1.0 ELSE 0 END`;
  const { rows } = await db.query<NodeRow & { score: number }>(
    `SELECT ${NODE_COLUMNS}, ${score} AS score FROM nodes
      WHERE ${where} AND ${q} <% (coalesce(name, '') || ' ' || external_id || ' ' || coalesce(description, ''))
      ORDER BY score DESC, id ASC LIMIT ${params.bind(query.limit)}`,
    params.values,
  );
  return rows.map(toTimeSeries);
}
