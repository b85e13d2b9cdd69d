// CDF's events routes (docs/cdf.md "Events, assets and relationships") over the event log's
// numbered calls (engine/events/event-numbers.ts): create, list, byids, search, update,
// delete, aggregate (count, uniqueValues). Translation is events-form.ts's.
import {
  CdfByIdsRequest, CdfDeleteRequest, CdfEmpty, CdfEventAggregateRequest, CdfEventAggregateResponse, CdfEventCollection, CdfEventCreateRequest,
  CdfEventListRequest, CdfEventPage, CdfEventSearchRequest, CdfEventUpdateRequest,
} from '../../schemas/cdf/events.ts';
import type { EventEngine } from '../../engine/events/event-engine.ts';
import { ok, type Route } from '../route.ts';
import { cdfJsonRoute } from './cdf-route.ts';
import { fromCdfEventCreates, fromCdfEventFilter, fromCdfEventList, fromCdfEventSearch, fromCdfEventUpdates, toCdfEvent, uniqueValuesField } from './events-form.ts';

const TAG = 'Events';

export function cdfEventRoutes(events: EventEngine): Route[] {
  const numbered = events.numbered;
  return [
    cdfJsonRoute({
      method: 'post', path: '/events', operationId: 'createEvents', tag: TAG,
      summary: 'Create events (CDF); all-or-nothing, in request order',
      description: 'externalId and startTime are required here; an endTime other than the startTime is a 400 naming it (events are instants); assetIds are the events\' related resources.',
      body: CdfEventCreateRequest,
      responses: { 201: { description: 'the events, in request order', schema: CdfEventCollection }, 400: { description: 'a field the event log cannot carry, unknown assets or data set' } },
      handle: async ({ access, body }) => ok({ items: (await numbered.create(access, fromCdfEventCreates(body.items))).map(toCdfEvent) }, 201),
    }),
    cdfJsonRoute({
      method: 'post', path: '/events/list', operationId: 'listEvents', tag: TAG,
      summary: 'List events with a filter (CDF), cursor paging',
      body: CdfEventListRequest,
      responses: { 200: { description: 'a page', schema: CdfEventPage } },
      async handle({ access, body }) {
        const page = await numbered.filter(access, fromCdfEventList(body));
        return ok({ items: page.items.map(toCdfEvent), ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}) });
      },
    }),
    cdfJsonRoute({
      method: 'post', path: '/events/byids', operationId: 'eventsByIds', tag: TAG,
      summary: 'Events by id or externalId (CDF); unknown ones a 400 with missing unless ignoreUnknownIds',
      body: CdfByIdsRequest,
      responses: { 200: { description: 'in request order', schema: CdfEventCollection }, 400: { description: 'unknown ids (`missing`)' } },
      handle: async ({ access, body }) => ok({ items: (await numbered.byIds(access, body.items, body.ignoreUnknownIds ?? false)).map(toCdfEvent) }),
    }),
    cdfJsonRoute({
      method: 'post', path: '/events/search', operationId: 'searchEvents', tag: TAG,
      summary: 'Search event descriptions (CDF), ranked',
      body: CdfEventSearchRequest,
      responses: { 200: { description: 'ranked events', schema: CdfEventCollection }, 400: { description: 'a filter (not supported on search), or no word' } },
      async handle({ access, body }) {
        return ok({ items: (await numbered.search(access, fromCdfEventSearch(body), body.limit)).map(toCdfEvent) });
      },
    }),
    cdfJsonRoute({
      method: 'post', path: '/events/update', operationId: 'updateEvents', tag: TAG,
      summary: 'Update events (CDF); all-or-nothing',
      body: CdfEventUpdateRequest,
      responses: { 200: { description: 'the events after update', schema: CdfEventCollection }, 400: { description: 'unknown ids (`missing`), a field the event log cannot carry' } },
      handle: async ({ access, body }) => ok({ items: (await numbered.update(access, fromCdfEventUpdates(body.items))).map(toCdfEvent) }),
    }),
    cdfJsonRoute({
      method: 'post', path: '/events/delete', operationId: 'deleteEvents', tag: TAG,
      summary: 'Delete events (CDF); unknown ones a 400 with missing unless ignoreUnknownIds',
      body: CdfDeleteRequest,
      responses: { 200: { description: 'deleted', schema: CdfEmpty }, 400: { description: 'unknown ids (`missing`)' } },
      async handle({ access, body }) {
        await numbered.delete(access, body.items, body.ignoreUnknownIds ?? false);
        return ok({});
      },
    }),
    cdfJsonRoute({
      method: 'post', path: '/events/aggregate', operationId: 'aggregateEvents', tag: TAG,
      summary: 'Count events, or count the unique values of type, subtype or dataSetId (CDF)',
      body: CdfEventAggregateRequest,
      responses: { 200: { description: '[{count}] or [{count, value}]', schema: CdfEventAggregateResponse } },
      async handle({ access, body }) {
        const selection = fromCdfEventFilter(body.filter);
        if (body.aggregate === 'uniqueValues') {
          return ok({ items: await numbered.valueCounts(access, uniqueValuesField(body.fields), selection) });
        }
        return ok({ items: [{ count: await numbered.count(access, selection) }] });
      },
    }),
  ];
}
