// The event log's use cases (SPEC "Events") bound to PostgreSQL. Creates charge the
// daily `events` quota and the cumulative `events` ceiling before anything is written.
import type { Event, EventCreate, EventFilterRequest, EventUpdateItem } from '../../schemas/events.ts';
import type { Access } from '../grants/access.ts';
import { countEvents, distinctValues, eventsByIds, filterEvents, getEvent, searchEvents } from './event-read.ts';
import { countSelected, numberedInOrder, resolveNumbered, uuidIdentifiers, valueCounts, withNumbers, type EventSelection, type NumberedEvent, type NumberedIdentifier, type NumberedUpdateItem, type ValueCountField } from './event-numbers.ts';
import { createEvents, deleteEvents, updateEvents } from './event-write.ts';
import type { TableStats } from '../meta/table-stats.ts';
import { assertNoRepeats } from '../records/repeated-identifiers.ts';
import type { Quotas } from '../quotas/quotas.ts';
import type { RelationalStore } from '../stores/relational.ts';

export const EVENT_SEARCH_LIMIT_DEFAULT = 100;

type EventIdentifier = { id?: string; externalId?: string };

export interface EventEngine {
  /** All-or-nothing; a retried id answers the stored event. */
  create(access: Access, items: EventCreate[]): Promise<Event[]>;
  get(access: Access, id: string): Promise<Event>;
  byIds(access: Access, identifiers: EventIdentifier[]): Promise<Event[]>;
  filter(access: Access, request: EventFilterRequest): Promise<{ items: Event[]; nextCursor?: string }>;
  search(access: Access, query: string, limit?: number): Promise<Event[]>;
  update(access: Access, items: EventUpdateItem[]): Promise<Event[]>;
  delete(access: Access, identifiers: EventIdentifier[]): Promise<void>;
  count(access: Access): Promise<number>;
  /** Distinct values of a column from DISTINCT_COLUMNS / DISTINCT_SEARCH_COLUMNS, alphabetical. */
  distinct(access: Access, column: string, limit: number, contains?: string): Promise<string[]>;
  /** The same use cases with events named by number (event-numbers.ts). */
  numbered: NumberedEventEngine;
}

/**
 * SPEC's event calls for clients that name events by number: each answers the events with
 * their numbers; a named event that is unknown or unreadable is a NotFoundError listing it
 * unless `ignoreUnknownIds`; counts and distinct values take a filter.
 */
export interface NumberedEventEngine {
  create(access: Access, items: EventCreate[]): Promise<NumberedEvent[]>;
  byIds(access: Access, identifiers: NumberedIdentifier[], ignoreUnknownIds: boolean): Promise<NumberedEvent[]>;
  filter(access: Access, request: EventFilterRequest): Promise<{ items: NumberedEvent[]; nextCursor?: string }>;
  search(access: Access, query: string, limit?: number): Promise<NumberedEvent[]>;
  /** All-or-nothing; every target must exist and be readable. */
  update(access: Access, items: NumberedUpdateItem[]): Promise<NumberedEvent[]>;
  delete(access: Access, identifiers: NumberedIdentifier[], ignoreUnknownIds: boolean): Promise<void>;
  count(access: Access, selection: EventSelection): Promise<number>;
  valueCounts(access: Access, field: ValueCountField, selection: EventSelection): Promise<{ value: string | number; count: number }[]>;
}

function bindNumberedEventEngine(relational: RelationalStore, events: Omit<EventEngine, 'numbered'>): NumberedEventEngine {
  const db = relational.pool;
  return {
    create: async (access, items) => withNumbers(db, access.tenant, await events.create(access, items)),
    byIds: async (access, identifiers, ignoreUnknownIds) => numberedInOrder(await resolveNumbered(db, access, identifiers, ignoreUnknownIds)),
    async filter(access, request) {
      const page = await events.filter(access, request);
      return { items: await withNumbers(db, access.tenant, page.items), ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}) };
    },
    search: async (access, query, limit) => withNumbers(db, access.tenant, await events.search(access, query, limit)),
    async update(access, items) {
      assertNoRepeats(items);
      const resolved = await resolveNumbered(db, access, items, false);
      const updates = uuidIdentifiers(resolved).map((identifier, index) => ({ ...identifier, update: (items[index] as NumberedUpdateItem).update }));
      return withNumbers(db, access.tenant, await events.update(access, updates));
    },
    async delete(access, identifiers, ignoreUnknownIds) {
      assertNoRepeats(identifiers);
      const targets = uuidIdentifiers(await resolveNumbered(db, access, identifiers, ignoreUnknownIds));
      if (targets.length > 0) await events.delete(access, targets);
    },
    count: (access, selection) => countSelected(db, access, selection),
    valueCounts: (access, field, selection) => valueCounts(db, access, field, selection),
  };
}

/** `eventStats`: bulk creates are followed by ANALYZE and the GIN pending lists' cleaning (table-stats.ts). */
export function bindEventEngine(relational: RelationalStore, quotas: Quotas, eventStats?: TableStats): EventEngine {
  const db = relational.pool;
  const events: Omit<EventEngine, 'numbered'> = {
    async create(access, items) {
      await quotas.chargeDaily(access.tenant, 'events', items.length);
      await quotas.chargeLifetime(access.tenant, 'events', items.length);
      const created = await createEvents(relational, access, items);
      eventStats?.noteWrites(items.length);
      return created;
    },
    get: (access, id) => getEvent(db, access, id),
    byIds: (access, identifiers) => eventsByIds(db, access, identifiers),
    filter: (access, request) => filterEvents(db, access, request),
    search: (access, query, limit) => searchEvents(db, access, query, limit ?? EVENT_SEARCH_LIMIT_DEFAULT),
    update: (access, items) => updateEvents(relational, access, items),
    delete: (access, identifiers) => deleteEvents(relational, access, identifiers),
    count: (access) => countEvents(db, access),
    distinct: (access, column, limit, contains) => distinctValues(db, access, column, limit, contains),
  };
  return { ...events, numbered: bindNumberedEventEngine(relational, events) };
}
