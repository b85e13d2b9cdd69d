// Time series reads (SPEC "Time series"): get, byids, list, filter with keyset paging, and
// fuzzy search. Unreadable records behave as missing everywhere.
import { SORTABLE_TIMESERIES_PROPERTIES, type TimeSeries, type TimeSeriesFilter } from '../../schemas/timeseries.ts';
import { BadRequestError, NotFoundError, type Identifier } from '../errors.ts';
import { canRead, readableIds, type Access } from '../grants/access.ts';
import { resolveIdentifiers, type RecordFamily } from '../records/identifiers.ts';
import type { Queryable } from '../stores/queryable.ts';
import { SqlParams } from '../stores/sql-params.ts';
import { VALUE_TYPES } from '../datapoints/types.ts';
import { lookupNodes } from './node-lookup.ts';
import { and, nodeFilterParts, patternPredicate } from './node-filter.ts';
import { nodePageJson, searchNodes, sortColumnsOf } from './node-page.ts';
import { NODE_COLUMNS, TIMESERIES_JSON, toTimeSeries, type JsonPage, type NodeRow } from './timeseries-rows.ts';
import { TIMESERIES_BY_IDS_JSON, TIMESERIES_RECORDS_BY_IDS_JSON, timeSeriesCountSql } from './timeseries-read.sql.ts';

/** Sort allow-list (STYLE §7): the node columns SPEC lets time series sort by. */
const TIMESERIES_SORT_COLUMNS = sortColumnsOf(SORTABLE_TIMESERIES_PROPERTIES);

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
const timeSeriesJsonFamily = (access: Access, sql = TIMESERIES_BY_IDS_JSON): RecordFamily<JsonRow> => ({
  async fetch(db, tenant, ids, externalIds) {
    const { rows } = await db.query<JsonRow>(sql, [tenant, readableIds(access), ids, externalIds]);
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
  return foundOnce(await resolveIdentifiers(timeSeriesJsonFamily(access), db, access.tenant, identifiers));
}

/** The JSON texts of the records found, in request order, each once. */
function foundOnce(resolved: readonly { row?: { id: number; j: string } | null }[]): string[] {
  const seen = new Set<number>();
  const out: string[] = [];
  for (const { row } of resolved) {
    if (!row || seen.has(row.id)) continue;
    seen.add(row.id);
    out.push(row.j);
  }
  return out;
}

/**
 * SPEC's filter and the fields only the CDF surface sends: `isStep`, `textValued` (TEXT
 * against every other value type), `externalIdPrefix` and `nameEquals` (taken literally, no
 * wildcards, case-sensitive).
 */
export interface TimeSeriesRecordFilter extends TimeSeriesFilter {
  isStep?: boolean;
  textValued?: boolean;
  externalIdPrefix?: string;
  nameEquals?: string;
}

async function filterWhere(db: Queryable, params: SqlParams, access: Access, filter: TimeSeriesRecordFilter = {}): Promise<string> {
  let valueType: string | undefined;
  if (filter.valueType !== undefined) {
    valueType = filter.valueType.toUpperCase();
    if (!(VALUE_TYPES as readonly string[]).includes(valueType)) {
      throw new BadRequestError(`filter.valueType must be one of ${VALUE_TYPES.join(', ')}`, [{ field: 'filter.valueType', message: 'unknown value type', value: filter.valueType }]);
    }
  }
  return and([
    ...await nodeFilterParts(db, params, access, 'timeseries', filter),
    patternPredicate(params, 'source', filter.source),
    patternPredicate(params, 'unit', filter.unit),
    patternPredicate(params, 'unit_external_id', filter.unitExternalId),
    valueType ? `value_type = ${params.bind(valueType)}` : undefined,
    filter.isStep === undefined ? undefined : `is_step = ${params.bind(filter.isStep)}`,
    filter.textValued === undefined ? undefined : `(value_type = 'TEXT') = ${params.bind(filter.textValued)}`,
    filter.externalIdPrefix === undefined ? undefined : `starts_with(external_id, ${params.bind(filter.externalIdPrefix)})`,
    filter.nameEquals === undefined ? undefined : `name = ${params.bind(filter.nameEquals)}`,
  ]);
}

export interface FilterQuery {
  filter?: TimeSeriesRecordFilter;
  limit: number;
  sort?: unknown;
  cursor?: string;
  /** SQL of each record's JSON. @default TIMESERIES_JSON (SPEC's record) */
  recordJson?: string;
}

/** One page of the filter, records as JSON texts (see TIMESERIES_JSON). */
export async function filterTimeSeriesJson(db: Queryable, access: Access, query: FilterQuery): Promise<JsonPage> {
  const params = new SqlParams();
  const where = await filterWhere(db, params, access, query.filter);
  const indexedFilter = query.filter?.metadata !== undefined || query.filter?.labels !== undefined;
  return nodePageJson(db, { where, params, sort: query.sort, cursor: query.cursor, limit: query.limit, columns: TIMESERIES_SORT_COLUMNS, recordJson: query.recordJson ?? TIMESERIES_JSON, indexedFilter });
}

/**
 * SPEC search: the phrase matched fuzzily against name, externalId and description (trigram
 * word similarity, so typos and partial words match), ranked by relevance with id as
 * tie-break; the filter is applied. A name or externalId equal to the phrase (ignoring case)
 * ranks above one that only contains it: searching "Pump" finds "Pump" before "Pump station".
 */
export async function searchTimeSeries(db: Queryable, access: Access, query: { search: string; filter?: TimeSeriesFilter; limit: number }): Promise<TimeSeries[]> {
  return (await searchTimeSeriesRows(db, access, query)).map(toTimeSeries);
}

/** The search's rows (see searchTimeSeries), for callers that need every stored field. */
export async function searchTimeSeriesRows(db: Queryable, access: Access, query: { search: string; filter?: TimeSeriesRecordFilter; limit: number }): Promise<NodeRow[]> {
  const params = new SqlParams();
  const where = await filterWhere(db, params, access, query.filter);
  return searchNodes<NodeRow>(db, { where, params, search: query.search, limit: query.limit, columns: NODE_COLUMNS });
}

/** How many readable time series the filter matches. */
export async function countTimeSeries(db: Queryable, access: Access, filter?: TimeSeriesRecordFilter): Promise<number> {
  const params = new SqlParams();
  const where = await filterWhere(db, params, access, filter);
  const { rows } = await db.query<{ count: number }>(timeSeriesCountSql(where), params.values);
  return Number(rows[0]?.count ?? 0);
}

/**
 * Readable time series by identifiers as full records (TimeSeriesRecord JSON texts), in
 * request order, a record named twice once. `ignoreUnknownIds` false: a miss (unknown or
 * unreadable, indistinguishable) is a NotFoundError listing every one as the request named it.
 */
export async function timeSeriesRecordsByIds(db: Queryable, access: Access, identifiers: Identifier[], ignoreUnknownIds: boolean): Promise<string[]> {
  const resolved = await resolveIdentifiers(timeSeriesJsonFamily(access, TIMESERIES_RECORDS_BY_IDS_JSON), db, access.tenant, identifiers);
  const missing = resolved.filter((r) => !r.row).map((r) => r.identifier as Identifier);
  if (missing.length > 0 && !ignoreUnknownIds) throw new NotFoundError(`Time series not found: ${missing.map((m) => m.externalId ?? m.id).join(', ')}`, missing);
  return foundOnce(resolved);
}
