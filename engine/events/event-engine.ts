// The event log's use cases (SPEC "Events") bound to PostgreSQL. Creates charge the
// daily `events` quota and the cumulative `events` ceiling before anything is written.
import type { Event, EventCreate, EventFilterRequest, EventUpdateItem } from '../../schemas/events.ts';
import type { Access } from '../grants/access.ts';
import { countEvents, distinctValues, eventsByIds, filterEvents, getEvent, searchEvents } from './event-read.ts';
import { createEvents, deleteEvents, updateEvents } from './event-write.ts';
import type { TableStats } from '../meta/table-stats.ts';
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
}

/** `eventStats`: bulk creates are followed by ANALYZE and the GIN pending lists' cleaning (table-stats.ts). */
export function bindEventEngine(relational: RelationalStore, quotas: Quotas, eventStats?: TableStats): EventEngine {
  const db = relational.pool;
  return {
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
}
