// The event log's use cases (SPEC "Events", issue 9) bound to PostgreSQL. Creates charge the
// daily `events` quota and the cumulative `events` ceiling before anything is written.
import type { Event, EventCreate, EventFilterRequest, EventUpdateItem } from '../schemas/events.ts';
import type { Access } from './grants/access.ts';
import { countEvents, distinctValues, eventsByIds, filterEventsJson, getEvent, searchEventsJson } from './events/event-read.ts';
import { pageJson } from './meta/timeseries-rows.ts';
import { createEvents, deleteEvents, updateEvents } from './events/event-write.ts';
import type { Quotas } from './quotas/quotas.ts';
import type { RelationalStore } from './stores/relational.ts';

export const EVENT_SEARCH_LIMIT_DEFAULT = 100;

type EventIdentifier = { id?: string; externalId?: string };

export interface EventEngine {
  /** All-or-nothing; a retried id answers the stored event. */
  create(access: Access, items: EventCreate[]): Promise<Event[]>;
  get(access: Access, id: string): Promise<Event>;
  byIds(access: Access, identifiers: EventIdentifier[]): Promise<Event[]>;
  /** A page `{ items, nextCursor? }` as JSON text, built by the database. */
  filter(access: Access, request: EventFilterRequest): Promise<string>;
  /** `{ items }` as JSON text, built by the database. */
  search(access: Access, query: string, limit?: number): Promise<string>;
  update(access: Access, items: EventUpdateItem[]): Promise<Event[]>;
  delete(access: Access, identifiers: EventIdentifier[]): Promise<void>;
  count(access: Access): Promise<number>;
  /** Distinct values of a column from DISTINCT_COLUMNS / DISTINCT_SEARCH_COLUMNS, alphabetical. */
  distinct(access: Access, column: string, limit: number, contains?: string): Promise<string[]>;
}

export function bindEventEngine(relational: RelationalStore, quotas: Quotas): EventEngine {
  const db = relational.pool;
  return {
    async create(access, items) {
      await quotas.chargeDaily(access.tenant, 'events', items.length);
      await quotas.chargeLifetime(access.tenant, 'events', items.length);
      return createEvents(relational, access, items);
    },
    get: (access, id) => getEvent(db, access, id),
    byIds: (access, identifiers) => eventsByIds(db, access, identifiers),
    filter: async (access, request) => pageJson(await filterEventsJson(db, access, request)),
    search: async (access, query, limit) => pageJson({ items: await searchEventsJson(db, access, query, limit ?? EVENT_SEARCH_LIMIT_DEFAULT) }),
    update: (access, items) => updateEvents(relational, access, items),
    delete: (access, identifiers) => deleteEvents(relational, access, identifiers),
    count: (access) => countEvents(db, access),
    distinct: (access, column, limit, contains) => distinctValues(db, access, column, limit, contains),
  };
}
