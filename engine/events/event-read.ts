// Event reads (SPEC "Events"): get, byids (an externalId returns every event under it), the
// filter with its advanced filter, sort and paging rules (event-filter.ts), ranked search
// over descriptions, count, and the distinct-value lists and searches. Every read is
// restricted to the events the token may read.
import type { Event, EventFilterRequest } from '../../schemas/events.ts';
import { BadRequestError, NotFoundError } from '../errors.ts';
import { canRead, type Access } from '../grants/access.ts';
import { and } from '../meta/node-filter.sql.ts';
import { plannerEstimate } from '../stores/planner-estimate.ts';
import type { Queryable } from '../stores/queryable.ts';
import { SqlParams } from '../stores/sql-params.ts';
import {
  advancedBranches, advancedWhere, decodeEventCursor, encodeEventCursor, eventAfterCursor, eventFilterWhere, eventLimit, eventOrderBy, eventSort, readableEvents,
} from './event-filter.ts';
import { toEvent, type EventRow } from './event-rows.ts';
import { distinctSql, EVENTS_BY_KEYS, eventCountSql, eventPageSql, eventSearchSql, eventUnionPageSql, FOLD_EVENT_COUNTS } from './event-read.sql.ts';

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

const tenantAndReadable = (params: SqlParams, access: Access) => and([`tenant = ${params.bind(access.tenant)}`, readableEvents(params, access)]);

export async function getEvent(db: Queryable, access: Access, id: string): Promise<Event> {
  if (!UUID.test(id)) throw new BadRequestError(`id must be a UUID, got "${id.slice(0, 64)}"`, [{ field: 'id', message: 'not a UUID', value: id.slice(0, 64) }]);
  const { rows } = await db.query<EventRow>(EVENTS_BY_KEYS, [access.tenant, [id.toLowerCase()], []]);
  const row = rows[0];
  if (!row || !canRead(access, row.data_set_id)) throw new NotFoundError(`No event with id ${id}`, [{ externalId: id }]);
  return toEvent(row);
}

/** Request order; an externalId brings every readable event under it (by eventTime); misses omitted; each event once. */
export async function eventsByIds(db: Queryable, access: Access, identifiers: { id?: string; externalId?: string }[]): Promise<Event[]> {
  const ids = identifiers.flatMap((i) => (i.id !== undefined ? [i.id.toLowerCase()] : []));
  const externalIds = identifiers.flatMap((i) => (i.id === undefined && i.externalId !== undefined ? [i.externalId] : []));
  const { rows } = await db.query<EventRow>(EVENTS_BY_KEYS, [access.tenant, ids, externalIds]);
  const visible = rows.filter((r) => canRead(access, r.data_set_id));
  const seen = new Set<string>();
  const out: Event[] = [];
  for (const identifier of identifiers) {
    const named = identifier.id !== undefined
      ? visible.filter((r) => r.id === identifier.id?.toLowerCase() && (identifier.externalId === undefined || r.external_id === identifier.externalId))
      : visible.filter((r) => r.external_id === identifier.externalId);
    for (const row of named) if (!seen.has(row.id)) (seen.add(row.id), out.push(toEvent(row)));
  }
  return out;
}

const SORT_VALUE: Readonly<Record<string, keyof EventRow>> = {
  event_time: 'event_time', created_time: 'created_time', last_updated_time: 'last_updated_time', external_id: 'external_id',
  type: 'type', sub_type: 'sub_type', status: 'status', source: 'source', data_set_id: 'data_set_id',
};

export interface EventPagePlan {
  /**
   * How a page with an advanced filter that splits into branches is read: the cheaper of the
   * two by the planner's estimate, or (tests, which compare them) one of them. @default 'cheaper'
   */
  plan?: 'cheaper' | 'single' | 'split';
}

export async function filterEvents(db: Queryable, access: Access, request: EventFilterRequest, options: EventPagePlan = {}): Promise<{ items: Event[]; nextCursor?: string }> {
  const sort = eventSort(request.sort);
  const limit = eventLimit(request.limit);
  const cursor = decodeEventCursor(request.cursor, sort);
  if (cursor === 'empty') return { items: [] };
  const params = new SqlParams();
  const base = and([
    tenantAndReadable(params, access),
    await eventFilterWhere(db, params, access, request.filter),
    cursor !== 'restart' && sort.paged ? eventAfterCursor(params, sort, cursor) : undefined,
  ]);
  const orderBy = eventOrderBy(sort);
  const union = params.fork();
  let page = { sql: eventPageSql(and([base, request.advancedFilter !== undefined ? advancedWhere(params, request.advancedFilter) : undefined]), orderBy, params.bind(limit)), params };
  const branches = request.advancedFilter !== undefined ? advancedBranches(union, request.advancedFilter) : [];
  if (branches.length > 1) {
    // Both plans are right; which is cheaper depends on how many events each branch matches,
    // which the planner's statistics know: a branch page costs at most a page of its index,
    // the single walk costs a page divided by the share of events the whole filter matches.
    const split = { sql: eventUnionPageSql(base, branches, sort.column, orderBy, union.bind(limit)), params: union };
    const plan = options.plan ?? 'cheaper';
    if (plan === 'split') page = split;
    else if (plan === 'cheaper') {
      const [many, one] = await Promise.all([plannerEstimate(db, split.sql, split.params.values), plannerEstimate(db, page.sql, page.params.values)]);
      if (many.cost < one.cost) page = split;
    }
  }
  const { rows } = await db.query<EventRow>(page.sql, page.params.values);
  const items = rows.map(toEvent);
  const last = rows[rows.length - 1];
  // SPEC: nextCursor on a full page (so a full last page is followed by one empty page), never for an unpaged sort.
  if (!sort.paged || !last || rows.length < limit) return { items };
  const value = last[SORT_VALUE[sort.column] as keyof EventRow] as string | number | null;
  return { items, nextCursor: encodeEventCursor(sort, value, last.id) };
}

/** SPEC: a query of 3-140 letters, digits and spaces; anything else is a 400. */
const SEARCH_QUERY = /^[\p{L}\p{N} ]{3,140}$/u;

export async function searchEvents(db: Queryable, access: Access, query: string, limit: number): Promise<Event[]> {
  if (!SEARCH_QUERY.test(query)) {
    throw new BadRequestError('search.query must be 3-140 letters, digits and spaces', [{ field: 'search.query', message: '3-140 letters, digits and spaces', value: query.slice(0, 150) }]);
  }
  const words = query.toLowerCase().split(' ').filter(Boolean);
  if (words.length === 0) throw new BadRequestError('search.query needs a word', [{ field: 'search.query', message: 'no word', value: query }]);
  const params = new SqlParams();
  const where = tenantAndReadable(params, access);
  // Every word as a prefix, any of them matching; ranked by cover density, id as tie-break.
  const tsquery = `to_tsquery('simple', ${params.bind(words.map((w) => `${w}:*`).join(' | '))})`;
  const { rows } = await db.query<EventRow>(eventSearchSql(where, tsquery, params.bind(limit)), params.values);
  return rows.map(toEvent);
}

/** Count deltas of a tenant past which a count folds them (one row per write statement otherwise accumulates). */
export const EVENT_COUNT_ROWS_FOLD = 1_000;

/** SPEC: the number of readable events, from the tenant's counts per data set (migration 010). */
export async function countEvents(db: Queryable, access: Access): Promise<number> {
  const params = new SqlParams();
  const { rows } = await db.query<{ count: number; rows: number }>(eventCountSql(tenantAndReadable(params, access)), params.values);
  if (Number(rows[0]?.rows ?? 0) > EVENT_COUNT_ROWS_FOLD) await db.query(FOLD_EVENT_COUNTS, [access.tenant]);
  return Number(rows[0]?.count ?? 0);
}

/** The four distinct-value families: route segment → column (an allow-list). */
export const DISTINCT_COLUMNS = { types: 'type', 'sub-types': 'sub_type', statuses: 'status', sources: 'source' } as const;
export const DISTINCT_SEARCH_COLUMNS = { type: 'type', 'sub-type': 'sub_type', status: 'status', source: 'source' } as const;

/** Distinct values, alphabetical; with `contains`, only those containing it, case-insensitive. */
export async function distinctValues(db: Queryable, access: Access, column: string, limit: number, contains?: string): Promise<string[]> {
  const params = new SqlParams();
  const keep = contains !== undefined ? `strpos(lower(value), lower(${params.bind(contains)})) > 0` : undefined;
  const { rows } = await db.query<{ value: string }>(distinctSql(column, tenantAndReadable(params, access), keep, params.bind(limit)), params.values);
  return rows.map((r) => r.value);
}
