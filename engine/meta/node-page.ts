// A filter page and a ranked search over one node family (time series, resources): SPEC's
// sort rules (one property, `id` appended, newest created first by default), keyset paging
// through keyset-cursor.ts, and the records as the family's JSON. What is filtered is the
// caller's WHERE clause (node-filter.ts builds the shared parts).
import { BadRequestError } from '../errors.ts';
import type { Queryable } from '../stores/queryable.ts';
import { plannerEstimate } from '../stores/planner-estimate.ts';
import type { SqlParams } from '../stores/sql-params.ts';
import { afterCursor, decodeCursor, encodeCursor, orderBy, type SortColumn, type SortSpec } from './keyset-cursor.ts';
import { and } from './node-filter.ts';
import { candidatePageSql, filterPageSql, searchSql } from './node-page.sql.ts';
import type { JsonPage } from './timeseries-rows.ts';

/** Sort allow-list (STYLE §7): SPEC property → column, for every node family; each family picks its own. */
export const NODE_SORT_COLUMNS: Readonly<Record<string, SortColumn>> = {
  id: { column: 'id', nullable: false, kind: 'number' },
  externalId: { column: 'external_id', nullable: false, kind: 'text' },
  name: { column: 'name', nullable: true, kind: 'text' },
  source: { column: 'source', nullable: true, kind: 'text' },
  description: { column: 'description', nullable: true, kind: 'text' },
  createdTime: { column: 'created_time', nullable: false, kind: 'number' },
  lastUpdatedTime: { column: 'last_updated_time', nullable: false, kind: 'number' },
  dataSetId: { column: 'data_set_id', nullable: true, kind: 'number' },
};

/** The columns of `properties`, in NODE_SORT_COLUMNS' terms. */
export function sortColumnsOf(properties: readonly string[]): Readonly<Record<string, SortColumn>> {
  return Object.fromEntries(properties.map((p) => [p, NODE_SORT_COLUMNS[p] as SortColumn]));
}

/** SPEC: results default to newest created first. */
export const DEFAULT_NODE_SORT: SortSpec = { property: 'createdTime', order: 'desc' };

/** A request's sort as one property of `columns` (the family's allow-list) and an order. */
export function normaliseSort(sort: unknown, columns: Readonly<Record<string, SortColumn>>): SortSpec {
  if (sort === undefined) return DEFAULT_NODE_SORT;
  const item = (Array.isArray(sort) ? sort[0] : sort) as { property: string | string[]; order?: string };
  const property = Array.isArray(item.property) ? (item.property[0] as string) : item.property;
  if (!(property in columns)) {
    throw new BadRequestError(`sort.property must be one of ${Object.keys(columns).join(', ')}`, [{ field: 'sort.property', message: 'not sortable', value: property }]);
  }
  return { property, order: item.order === 'desc' ? 'desc' : 'asc' };
}

export interface NodePageQuery {
  /** The filter's WHERE clause, its values bound in `params`. */
  where: string;
  params: SqlParams;
  sort?: unknown;
  cursor?: string;
  limit: number;
  /** The family's sortable columns. */
  columns: Readonly<Record<string, SortColumn>>;
  /** SQL building the family's record as JSON text. */
  recordJson: string;
  /**
   * The filter has a predicate an index answers apart from the sort (metadata, labels): when
   * the planner expects few matches, the page is read by way of them (candidatePageSql). Along
   * the sort order the planner assumes matches spread evenly, and for matches bunched at the
   * far end it reads most of the family (bench graph: 22-29 ms against 10 for 8,040 of 98,630
   * resources).
   */
  indexedFilter?: boolean;
  /** Expected matches up to which the page is read by way of them (tests lower it). */
  candidatesMax?: number;
}

/**
 * Expected matches up to which a page is read by way of them: sorting 20,000 candidates' keys
 * costs about what walking 40,000 rows of the sort order does. The planner's estimate of the
 * matches is close (metadata and labels statistics); its guess of where they lie is not.
 */
export const PAGE_CANDIDATES_MAX = 20_000;

/** The planner's estimate of the rows `where` matches (EXPLAIN, nothing run: about a millisecond). */
async function estimatedMatches(db: Queryable, where: string, values: readonly unknown[]): Promise<number> {
  return (await plannerEstimate(db, `SELECT 1 FROM nodes WHERE ${where}`, values)).rows;
}

/** One page of records as JSON texts, with `nextCursor` when more may follow (a cursor is bound to its sort). */
export async function nodePageJson(db: Queryable, query: NodePageQuery): Promise<JsonPage> {
  const { params, limit } = query;
  const sort = normaliseSort(query.sort, query.columns);
  const col = query.columns[sort.property] as SortColumn;
  const keyset = query.cursor ? afterCursor(params, col, sort.order, decodeCursor(query.cursor, sort, col)) : undefined;
  const where = and([query.where, keyset]);
  const order = orderBy(col, sort.order);
  const candidatesMax = query.candidatesMax ?? PAGE_CANDIDATES_MAX;
  const byMatches = query.indexedFilter === true && await estimatedMatches(db, where, params.values) <= candidatesMax;
  const limitParam = params.bind(limit + 1);
  type PageRow = { id: number; sort_value: string | number | null; j: string; candidates?: string | number };
  let rows: PageRow[] | undefined;
  if (byMatches) {
    // Statistics may be stale: past four times the expected matches, the walk along the sort order answers.
    const cap = 4 * candidatesMax;
    const found = (await db.query<PageRow>(candidatePageSql(where, col.column, order, limitParam, cap + 1, query.recordJson), params.values)).rows;
    if (found.length === 0 || Number(found[0]?.candidates) <= cap) rows = found;
  }
  rows ??= (await db.query<PageRow>(filterPageSql(where, col.column, order, limitParam, query.recordJson), params.values)).rows;
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const items = page.map((r) => r.j);
  return rows.length > limit && last ? { items, nextCursor: encodeCursor(sort, last.sort_value ?? null, last.id) } : { items };
}

/** SPEC search: ranked by relevance, id as tie-break, at most `limit` rows of `columns` (see searchSql). */
export async function searchNodes<Row>(db: Queryable, query: { where: string; params: SqlParams; search: string; limit: number; columns: string }): Promise<Row[]> {
  const { params } = query;
  const sql = searchSql(query.where, params.bind(query.search.toLowerCase()), params.bind(query.limit), query.columns);
  return (await db.query<Row & { score: number }>(sql, params.values)).rows;
}
