// Events named by number (migration 013): the event log's use cases for clients whose ids are
// JSON numbers (the CDF surface, docs/cdf.md "Events"). Each call is SPEC's call (the same
// rules, grants, quotas and all-or-nothing transactions) with the events' numbers beside them,
// plus the rules those clients need that SPEC's surface lacks: a named event that is unknown
// or unreadable is a NotFoundError listing it (the two indistinguishable) unless the caller
// ignores unknown ids, and counts and distinct values honour a filter.
import assert from 'node:assert/strict';
import type { Event, EventFilterRequest, EventUpdateItem } from '../../schemas/events.ts';
import { NotFoundError, type Identifier } from '../errors.ts';
import { canRead, type Access } from '../grants/access.ts';
import { and } from '../meta/node-filter.sql.ts';
import type { Queryable } from '../stores/queryable.ts';
import { SqlParams } from '../stores/sql-params.ts';
import { advancedWhere, eventFilterWhere, readableEvents } from './event-filter.ts';
import { toEvent, type EventRow } from './event-rows.ts';
import { eventFilteredCountSql, eventValueCountsSql, NUMBERED_EVENTS_BY_KEYS, NUMBERS_OF_EVENTS } from './event-numbers.sql.ts';

/** An event and its number (a positive integer up to 2^53-1, assigned on insert, never reused). */
export interface NumberedEvent {
  number: number;
  event: Event;
}

/** An event named by its number, or every event under an externalId. */
export type NumberedIdentifier = { id: number } | { externalId: string };

/** A numbered update: the target by number or externalId, SPEC's update verbs. */
export type NumberedUpdateItem = NumberedIdentifier & { update: EventUpdateItem['update'] };

/** The filter part of a filter request: what counts and distinct values honour. */
export type EventSelection = Pick<EventFilterRequest, 'filter' | 'advancedFilter'>;

/** The columns whose distinct values are counted (an allow-list: the name is spliced into SQL). */
export const VALUE_COUNT_COLUMNS = { type: 'type', subType: 'sub_type', dataSetId: 'data_set_id' } as const;
export type ValueCountField = keyof typeof VALUE_COUNT_COLUMNS;

/** Distinct values returned by one value count, at most. */
export const VALUE_COUNTS_MAX = 1_000;

type NumberedRow = EventRow & { number: string | number };

/** Attaches numbers to events read by SPEC's calls; an event deleted meanwhile is left out. */
export async function withNumbers(db: Queryable, tenant: string, events: Event[]): Promise<NumberedEvent[]> {
  if (events.length === 0) return [];
  const { rows } = await db.query<{ id: string; number: string | number }>(NUMBERS_OF_EVENTS, [tenant, events.map((e) => e.id)]);
  const numbers = new Map(rows.map((r) => [r.id, Number(r.number)]));
  return events.flatMap((event) => {
    const number = numbers.get(event.id);
    return number === undefined ? [] : [{ number, event }];
  });
}

const keyOf = (identifier: NumberedIdentifier): string => ('id' in identifier ? `#${identifier.id}` : `@${identifier.externalId}`);

/**
 * The readable events each identifier names, in request order (an externalId: every event
 * under it, by eventTime), each event once. A name that matches no readable event is a
 * NotFoundError listing every such name, unless `ignoreUnknownIds`.
 */
export async function resolveNumbered(db: Queryable, access: Access, identifiers: NumberedIdentifier[], ignoreUnknownIds: boolean): Promise<{ identifier: NumberedIdentifier; rows: NumberedRow[] }[]> {
  const numbers = identifiers.flatMap((i) => ('id' in i ? [i.id] : []));
  const externalIds = identifiers.flatMap((i) => ('externalId' in i ? [i.externalId] : []));
  const { rows } = await db.query<NumberedRow>(NUMBERED_EVENTS_BY_KEYS, [access.tenant, numbers, externalIds]);
  const visible = rows.filter((r) => canRead(access, r.data_set_id));
  const named = new Map<string, NumberedRow[]>();
  for (const row of visible) {
    for (const key of [`#${Number(row.number)}`, `@${row.external_id}`]) {
      const list = named.get(key) ?? [];
      list.push(row);
      named.set(key, list);
    }
  }
  const out = identifiers.map((identifier) => ({ identifier, rows: 'id' in identifier ? (named.get(keyOf(identifier)) ?? []).slice(0, 1) : named.get(keyOf(identifier)) ?? [] }));
  const missing: Identifier[] = out.filter((o) => o.rows.length === 0).map((o) => ('id' in o.identifier ? { id: o.identifier.id } : { externalId: o.identifier.externalId }));
  if (missing.length > 0 && !ignoreUnknownIds) throw new NotFoundError(`Events not found: ${missing.slice(0, 5).map((m) => ('id' in m ? m.id : m.externalId)).join(', ')}`, missing);
  return out;
}

/** The resolved events in request order, each once. */
export function numberedInOrder(resolved: { rows: NumberedRow[] }[]): NumberedEvent[] {
  const seen = new Set<string>();
  const out: NumberedEvent[] = [];
  for (const { rows } of resolved) {
    for (const row of rows) {
      if (seen.has(row.id)) continue;
      seen.add(row.id);
      out.push({ number: Number(row.number), event: toEvent(row) });
    }
  }
  return out;
}

/** The UUID identifiers SPEC's update and delete take for resolved names (a number becomes its event's UUID). */
export function uuidIdentifiers(resolved: { identifier: NumberedIdentifier; rows: NumberedRow[] }[]): { id?: string; externalId?: string }[] {
  return resolved.flatMap(({ identifier, rows }): { id?: string; externalId?: string }[] => {
    if (rows.length === 0) return [];
    return 'id' in identifier ? [{ id: (rows[0] as NumberedRow).id }] : [{ externalId: identifier.externalId }];
  });
}

async function selectionWhere(db: Queryable, params: SqlParams, access: Access, selection: EventSelection): Promise<string> {
  return and([
    `tenant = ${params.bind(access.tenant)}`,
    readableEvents(params, access),
    await eventFilterWhere(db, params, access, selection.filter),
    selection.advancedFilter !== undefined ? advancedWhere(params, selection.advancedFilter) : undefined,
  ]);
}

/** The number of readable events the selection admits. */
export async function countSelected(db: Queryable, access: Access, selection: EventSelection): Promise<number> {
  const params = new SqlParams();
  const where = await selectionWhere(db, params, access, selection);
  const { rows } = await db.query<{ count: string | number }>(eventFilteredCountSql(where), params.values);
  return Number(rows[0]?.count ?? 0);
}

/** The distinct values of `field` among the readable events the selection admits, with their counts, most frequent first. */
export async function valueCounts(db: Queryable, access: Access, field: ValueCountField, selection: EventSelection): Promise<{ value: string | number; count: number }[]> {
  const column = VALUE_COUNT_COLUMNS[field];
  assert.ok(column, `value counts of an allow-listed field, not ${field}`);
  const params = new SqlParams();
  const where = await selectionWhere(db, params, access, selection);
  const { rows } = await db.query<{ value: string | number; count: string | number }>(eventValueCountsSql(column, where, params.bind(VALUE_COUNTS_MAX)), params.values);
  return rows.map((r) => ({ value: field === 'dataSetId' ? Number(r.value) : String(r.value), count: Number(r.count) }));
}

