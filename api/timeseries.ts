// Time series routes (SPEC "Time series"), other than the /timeseries/data family.
import { Type } from '@sinclair/typebox';
import {
  TimeSeriesByIdsRequest, TimeSeriesCollection, TimeSeriesCreateRequest, TimeSeriesDeleteRequest, TimeSeriesFilterRequest,
  TimeSeriesListQuery, TimeSeriesPage, TimeSeriesSearchRequest, TimeSeriesUpdateRequest,
} from '../schemas/timeseries.ts';
import { TIMESERIES_LIST_LIMIT_DEFAULT, TIMESERIES_LIST_LIMIT_MAX } from '../engine/limits.ts';
import type { TimeSeriesEngine } from '../engine/meta/meta-engine.ts';
import { idPathParam } from './query-params.ts';
import { jsonRoute, noContent, ok, queryRoute, type Route } from './route.ts';

const TAG = 'Time series';

export function timeseriesRoutes(timeseries: TimeSeriesEngine): Route[] {
  return [
    queryRoute({
      method: 'get', path: '/timeseries', operationId: 'listTimeSeries', tag: TAG,
      summary: 'List time series, newest first',
      description: `\`limit\` defaults to ${TIMESERIES_LIST_LIMIT_DEFAULT} (the parameter's documented default; SPEC's prose says 100), max ${TIMESERIES_LIST_LIMIT_MAX}. \`dataSetId\` includes descendant data sets; unreadable ones are silently omitted. A bad \`limit\` or \`dataSetId\` is a 400 with a plain-text body.`,
      query: TimeSeriesListQuery,
      // SPEC: a bad `limit` or `dataSetId` is a 400 with a plain string body.
      queryErrorsAsText: true,
      responses: { 200: { description: 'time series, newest first', schema: TimeSeriesPage }, 400: { description: 'bad limit or dataSetId (text/plain)', contentType: 'text/plain', schema: Type.String() } },
      handle: async ({ access, query }) => ok(await timeseries.list(access, { dataSetId: query.dataSetId, limit: query.limit, cursor: query.cursor })),
    }),
    {
      method: 'get', path: '/timeseries/{id}', operationId: 'getTimeSeries', tag: TAG,
      summary: 'Get one time series by id',
      responses: { 200: { description: 'a collection of one', schema: TimeSeriesCollection }, 400: { description: 'id is not an integer' }, 404: { description: 'missing or not readable (indistinguishable)' } },
      handle: async ({ access, params }) => ok({ items: [await timeseries.get(access, idPathParam(params))] }),
    },
    jsonRoute({
      method: 'post', path: '/timeseries/byids', operationId: 'timeSeriesByIds', tag: TAG,
      summary: 'Retrieve time series by id or externalId; misses are silently omitted',
      body: TimeSeriesByIdsRequest,
      responses: { 200: { description: 'found time series, in request order', schema: TimeSeriesCollection }, 400: { description: 'invalid request' } },
      handle: async ({ access, body }) => ok(await timeseries.byIds(access, body.items)),
    }),
    jsonRoute({
      method: 'post', path: '/timeseries/create', operationId: 'createTimeSeries', tag: TAG,
      summary: 'Create time series (all-or-nothing)',
      body: TimeSeriesCreateRequest,
      responses: {
        201: { description: 'created, with ids', schema: TimeSeriesCollection },
        400: { description: 'missing required field, invalid valueType, unknown dataSetId or unit' },
        403: { description: 'no write grant on a dataSetId' },
        409: { description: 'DuplicateError listing `duplicated` externalIds' },
        422: { description: 'field caps (lengths, metadata, labels) exceeded' },
      },
      handle: async ({ access, body }) => ok({ items: await timeseries.create(access, body.items) }, 201),
    }),
    jsonRoute({
      method: 'post', path: '/timeseries/update', operationId: 'updateTimeSeries', tag: TAG,
      summary: 'Update time series with set / setNull / add / remove (all-or-nothing)',
      description: 'Verbs: `set`, `setNull: true`; `metadata` and `labels` also take `add` and `remove`. 400: no identifier, not found, `set` with `setNull`, `setNull` on name or externalId, a valueType change. 409: the new externalId is taken.',
      body: TimeSeriesUpdateRequest,
      responses: {
        200: { description: 'time series after update', schema: TimeSeriesCollection },
        400: { description: 'invalid update' }, 403: { description: 'no write grant' }, 409: { description: 'DuplicateError or ConflictError' }, 422: { description: 'field caps' },
      },
      handle: async ({ access, body }) => ok({ items: await timeseries.update(access, body.items) }),
    }),
    jsonRoute({
      method: 'post', path: '/timeseries/filter', operationId: 'filterTimeSeries', tag: TAG,
      summary: 'Filter time series with cursor paging',
      description: 'Fields AND-ed. `externalId`, `name`, `source`, `unit`, `unitExternalId` are pattern lists (`*` and `%` wildcards, `_` literal, case-insensitive; no wildcard = exact). `labels`: all must be present. `metadata`: every entry; null matches the key alone. Sort by one property; `id` is appended. Default: newest created first. The cursor is bound to its sort (a cursor from another sort is a 400).',
      body: TimeSeriesFilterRequest,
      responses: { 200: { description: 'a page', schema: TimeSeriesPage }, 400: { description: 'invalid filter, sort or cursor' } },
      handle: async ({ access, body }) => ok(await timeseries.filter(access, body)),
    }),
    jsonRoute({
      method: 'post', path: '/timeseries/search', operationId: 'searchTimeSeries', tag: TAG,
      summary: 'Fuzzy search over name, externalId and description, ranked by relevance',
      body: TimeSeriesSearchRequest,
      responses: { 200: { description: 'ranked by relevance, id as tie-break', schema: TimeSeriesCollection }, 400: { description: 'invalid request' } },
      handle: async ({ access, body }) => ok({ items: await timeseries.search(access, body) }),
    }),
    ...(['post', 'delete'] as const).map((method) => jsonRoute({
      method, path: '/timeseries/delete', operationId: method === 'post' ? 'deleteTimeSeries' : 'deleteTimeSeriesWithDelete', tag: TAG,
      summary: 'Delete time series (idempotent); their data points are purged in the background',
      body: TimeSeriesDeleteRequest,
      responses: {
        204: { description: 'deleted (unknown identifiers skipped)' },
        400: { description: 'a target starts a relationship or is bound to a subscription; `fields` name it' },
        403: { description: 'no write grant' }, 409: { description: 'ConflictError' },
      },
      async handle({ access, body }) {
        await timeseries.delete(access, body.items);
        return noContent();
      },
    })),
  ];
}
