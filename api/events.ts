// Event routes (SPEC "Events").
import { Type } from '@sinclair/typebox';
import {
  DistinctListQuery, DistinctSearchQuery, DistinctValues, Event, EventCollection, EventCreateRequest, EventFilterRequest, EventIdentifiers, EventPage, EventSearchRequest, EventUpdateRequest,
} from '../schemas/events.ts';
import type { EventEngine } from '../engine/events/event-engine.ts';
import { DISTINCT_COLUMNS, DISTINCT_SEARCH_COLUMNS } from '../engine/events/event-read.ts';
import { jsonRoute, ok, queryRoute, type Route } from './route.ts';

const TAG = 'Events';
const DISTINCT_LIMIT_MAX = 10_000;

/** SPEC: a distinct-value `limit` (an integer, default 1,000: the query schema's) is clamped to 1-10,000, not refused. */
function distinctLimit(limit: number): number {
  return Math.min(DISTINCT_LIMIT_MAX, Math.max(1, limit));
}

export function eventRoutes(events: EventEngine): Route[] {
  const lists = Object.entries(DISTINCT_COLUMNS).map(([segment, column]): Route => queryRoute({
    method: 'get', path: `/events/list/${segment}`, operationId: `listEvent${segment.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase())}`, tag: TAG,
    summary: `Distinct event ${column.replace('_', '-')} values, alphabetical`,
    query: DistinctListQuery,
    responses: { 200: { description: 'distinct values of readable events', schema: DistinctValues } },
    handle: async ({ access, query }) => ok({ items: await events.distinct(access, column, distinctLimit(query.limit)) }),
  }));
  const searches = Object.entries(DISTINCT_SEARCH_COLUMNS).map(([segment, column]): Route => queryRoute({
    method: 'get', path: `/events/search/${segment}`, operationId: `searchEvent${segment.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase())}`, tag: TAG,
    summary: `Distinct event ${segment} values containing q (case-insensitive), alphabetical`,
    query: DistinctSearchQuery,
    responses: { 200: { description: 'matching distinct values', schema: DistinctValues }, 400: { description: '`q` missing or empty' } },
    handle: async ({ access, query }) => ok({ items: await events.distinct(access, column, distinctLimit(query.limit), query.q) }),
  }));
  return [
    jsonRoute({
      method: 'post', path: '/events/create', operationId: 'createEvents', tag: TAG,
      summary: 'Create events (all-or-nothing; 201)',
      description: 'At most 10,000 items. `eventTime` is required (epoch ms or ISO-8601; returned as epoch ms; never defaulted). `id` (a UUID) is kept when given and assigned (v7) when not; rows with one id collapse, so a retried create is idempotent and answers the stored events. `relatedResources` entries name resources, time series or data sets by `id` and/or `externalId`; the missing side is filled in; an unknown one, or one whose id and externalId name different nodes, is a 400. An unknown `dataSetId` is a 400. An empty metadata key is dropped. The removed `relatedResourceIds` / `relatedResourceExternalIds` (and any unknown property) are ignored. A created event is readable when the create answers. Charged to the daily `events` quota (429) and the cumulative `events` ceiling (403).',
      body: EventCreateRequest,
      responses: {
        201: { description: 'the stored events, in request order', schema: EventCollection },
        400: { description: 'missing eventTime, unknown related resources or data set, id and externalId naming different resources' },
        403: { description: 'no write grant on a data set, or the lifetime ceiling' }, 422: { description: 'field caps' }, 429: { description: 'daily events quota' },
      },
      handle: async ({ access, body }) => ok({ items: await events.create(access, body.items) }, 201),
    }),
    {
      method: 'get', path: '/events/count', operationId: 'countEvents', tag: TAG,
      summary: 'The number of readable events of the tenant',
      responses: { 200: { description: '{ count }', schema: Type.Object({ count: Type.Integer() }) } },
      handle: async ({ access }) => ok({ count: await events.count(access) }),
    },
    ...lists,
    ...searches,
    {
      method: 'get', path: '/events/{id}', operationId: 'getEvent', tag: TAG,
      summary: 'One event by id (a UUID)',
      responses: { 200: { description: 'the event', schema: Event }, 400: { description: 'not a UUID' }, 404: { description: 'missing or unreadable' } },
      handle: async ({ access, params }) => ok(await events.get(access, params['id'] ?? '')),
    },
    jsonRoute({
      method: 'post', path: '/events/byids', operationId: 'eventsByIds', tag: TAG,
      summary: 'Events by id, or every event under an externalId; misses omitted',
      body: EventIdentifiers,
      responses: { 200: { description: 'in request order, each once', schema: EventCollection } },
      handle: async ({ access, body }) => ok({ items: await events.byIds(access, body.items) }),
    }),
    jsonRoute({
      method: 'post', path: '/events/filter', operationId: 'filterEvents', tag: TAG,
      summary: 'Filter events with advanced filter, sort and cursor paging (SPEC event filter rules)',
      description: 'Fields AND-ed; list entries OR-ed except metadata and relatedResources (all must match). type/subType/status/source are patterns; externalId literals are case-sensitive, with a wildcard case-insensitive. eventTime min inclusive, max exclusive. advancedFilter: and/or/not over equals/prefix/in on id, externalId, type, subType, source, dataSetId, metadata (values compared as strings; only the first entry of `property` is read, so a metadata leaf matches any metadata value). Sort: one of eventTime (default, ascending), createdTime, lastUpdatedTime, externalId, type, subType, status, source, dataSetId; id appended; nulls last ascending, first descending; a non-sortable property is ignored; sorting by subType or status is not paged. nextCursor on a full page; an undecodable cursor restarts; a cursor of another sort answers an empty page. limit default 100, max 10,000; zero or negative is 100.',
      body: EventFilterRequest,
      responses: { 200: { description: 'a page', schema: EventPage }, 400: { description: 'a property not in the advanced filter list, a malformed advanced filter or bound' } },
      handle: async ({ access, body }) => ok(await events.filter(access, body)),
    }),
    jsonRoute({
      method: 'post', path: '/events/search', operationId: 'searchEvents', tag: TAG,
      summary: 'Full-text search over descriptions, ranked by relevance with id as tie-break',
      description: '`query`: 3-140 letters, digits and spaces, else 400; each word matches as a prefix, any word counts, ranked by cover density. `filter` is accepted and ignored. `limit` default 100, max 1,000.',
      body: EventSearchRequest,
      responses: { 200: { description: 'ranked events', schema: EventCollection }, 400: { description: 'a query with punctuation or outside 3-140 characters' } },
      handle: async ({ access, body }) => ok({ items: await events.search(access, body.search.query, body.limit) }),
    }),
    jsonRoute({
      method: 'post', path: '/events/update', operationId: 'updateEvents', tag: TAG,
      summary: 'Update events (all-or-nothing; 200)',
      description: 'By `id`, or `externalId` (every event under it). Verbs: `set` on all fields, `setNull: true` on nullable ones, `add`/`remove` on metadata and relatedResources (a removal matches an entry by id or externalId). `set` with `setNull` on one field, a `source` over 64 characters, an unknown target: 400, and nothing is changed. `eventTime` takes an ISO-8601 string (or epoch ms).',
      body: EventUpdateRequest,
      responses: { 200: { description: 'the events after update', schema: EventCollection }, 400: { description: 'invalid update' }, 403: { description: 'no write grant' } },
      handle: async ({ access, body }) => ok({ items: await events.update(access, body.items) }),
    }),
    jsonRoute({
      method: 'post', path: '/events/delete', operationId: 'deleteEvents', tag: TAG,
      summary: 'Delete events (200, idempotent); an externalId removes every event under it',
      description: 'Removed at once (SPEC allows a background job; a deleted event is never returned after the answer).',
      body: EventIdentifiers,
      responses: { 200: { description: 'deleted', schema: Type.Object({}) }, 403: { description: 'no write grant' } },
      async handle({ access, body }) {
        await events.delete(access, body.items);
        return ok({});
      },
    }),
  ];
}
