// CDF's time series routes (POST /timeseries, /timeseries/list, /byids, /search, /update,
// /delete, /aggregate and GET /timeseries) over the engine's time series records; forms in
// timeseries-form.ts. Data point routes are datapoints*.ts's.
import {
  CDF_PAGE_LIMIT_DEFAULT, CdfByIdsRequest, CdfCountItems, CdfDeleteRequest, CdfTimeSeriesAggregateRequest, CdfTimeSeriesCreateRequest,
  CdfTimeSeriesItems, CdfTimeSeriesListQuery, CdfTimeSeriesListRequest, CdfTimeSeriesPage, CdfTimeSeriesSearchRequest, CdfTimeSeriesUpdateRequest,
} from '../../schemas/cdf/timeseries.ts';
import { BadRequestError } from '../../engine/errors.ts';
import type { TimeSeriesEngine } from '../../engine/meta/meta-engine.ts';
import { ok, type Route } from '../route.ts';
import { cdfJsonRoute, cdfQueryRoute } from './cdf-route.ts';
import { cdfTimeSeriesOfJson, fromCdfCreate, fromCdfFilter, fromCdfUpdate, searchPhraseOf, toCdfTimeSeries } from './timeseries-form.ts';

const TAG = 'Time series';

/** CDF's `partition` splits a list for parallel readers; one reader here, so it is refused by name. */
function refusePartition(partition: string | undefined): void {
  if (partition !== undefined) throw new BadRequestError('partition: not supported; page with cursor', [{ field: 'partition', message: 'not supported' }]);
}

function page(json: { items: string[]; nextCursor?: string }, includeMetadata = true) {
  const items = json.items.map(cdfTimeSeriesOfJson);
  if (!includeMetadata) for (const item of items) delete (item as { metadata?: unknown }).metadata;
  return { items, ...(json.nextCursor !== undefined ? { nextCursor: json.nextCursor } : {}) };
}

export function cdfTimeSeriesRoutes(timeseries: TimeSeriesEngine): Route[] {
  return [
    cdfJsonRoute({
      method: 'post', path: '/timeseries', operationId: 'createTimeSeries', tag: TAG,
      summary: 'Create time series (all-or-nothing), in request order',
      body: CdfTimeSeriesCreateRequest,
      responses: {
        201: { description: 'created, in request order', schema: CdfTimeSeriesItems },
        400: { description: 'no externalId, an assetId, security categories, unknown data set or unit' },
        409: { description: 'externalIds already exist (`duplicated`)' }, 422: { description: 'an externalId repeated in the request (`duplicated`)' },
      },
      handle: async ({ access, body }) => {
        const items = body.items.map(fromCdfCreate);
        const created = await timeseries.createRecords(access, items, { refuseRepeats: true });
        return ok({ items: created.map(toCdfTimeSeries) }, 201);
      },
    }),
    cdfJsonRoute({
      method: 'post', path: '/timeseries/list', operationId: 'filterTimeSeries', tag: TAG,
      summary: 'Filter time series with cursor paging, newest first',
      body: CdfTimeSeriesListRequest,
      responses: { 200: { description: 'a page; `nextCursor` while more follow', schema: CdfTimeSeriesPage }, 400: { description: 'invalid filter or cursor' } },
      handle: async ({ access, body }) => {
        refusePartition(body.partition);
        return ok(page(await timeseries.filterRecords(access, { filter: fromCdfFilter(body.filter), limit: body.limit ?? CDF_PAGE_LIMIT_DEFAULT, cursor: body.cursor })));
      },
    }),
    cdfQueryRoute({
      method: 'get', path: '/timeseries', operationId: 'listTimeSeries', tag: TAG,
      summary: 'List time series with cursor paging, newest first',
      query: CdfTimeSeriesListQuery,
      responses: { 200: { description: 'a page; `nextCursor` while more follow', schema: CdfTimeSeriesPage }, 400: { description: 'invalid parameter or cursor' } },
      handle: async ({ access, query }) => {
        refusePartition(query.partition);
        const filter = query.externalIdPrefix !== undefined ? { externalIdPrefix: query.externalIdPrefix } : undefined;
        return ok(page(await timeseries.filterRecords(access, { filter, limit: query.limit ?? CDF_PAGE_LIMIT_DEFAULT, cursor: query.cursor }), query.includeMetadata !== false));
      },
    }),
    cdfJsonRoute({
      method: 'post', path: '/timeseries/byids', operationId: 'timeSeriesByIds', tag: TAG,
      summary: 'Retrieve time series by id or externalId, in request order',
      body: CdfByIdsRequest,
      responses: { 200: { description: 'found time series, in request order', schema: CdfTimeSeriesItems }, 400: { description: 'unknown ids (`missing`) without ignoreUnknownIds' } },
      handle: async ({ access, body }) => ok(page({ items: await timeseries.recordsByIds(access, body.items, body.ignoreUnknownIds === true) })),
    }),
    cdfJsonRoute({
      method: 'post', path: '/timeseries/search', operationId: 'searchTimeSeries', tag: TAG,
      summary: 'Search time series by name, description or a query over both, with a filter',
      body: CdfTimeSeriesSearchRequest,
      responses: { 200: { description: 'ranked by relevance', schema: CdfTimeSeriesItems }, 400: { description: 'invalid request' } },
      handle: async ({ access, body }) => {
        const filter = fromCdfFilter(body.filter);
        const limit = body.limit ?? CDF_PAGE_LIMIT_DEFAULT;
        const phrase = searchPhraseOf(body.search);
        if (phrase === undefined) return ok(page({ items: (await timeseries.filterRecords(access, { filter, limit })).items }));
        return ok({ items: (await timeseries.searchRecords(access, { search: phrase, filter, limit })).map(toCdfTimeSeries) });
      },
    }),
    cdfJsonRoute({
      method: 'post', path: '/timeseries/update', operationId: 'updateTimeSeries', tag: TAG,
      summary: 'Update time series with set / setNull / add / remove (all-or-nothing)',
      body: CdfTimeSeriesUpdateRequest,
      responses: {
        200: { description: 'time series after update, in request order', schema: CdfTimeSeriesItems },
        400: { description: 'unknown ids (`missing`) or an invalid update' }, 409: { description: 'the new externalId is taken (`duplicated`)' },
        422: { description: 'a time series named twice (`duplicated`)' },
      },
      handle: async ({ access, body }) => {
        const items = body.items.map(fromCdfUpdate);
        const updated = await timeseries.updateRecords(access, items, { refuseRepeats: true, listMissing: true });
        return ok({ items: updated.map(toCdfTimeSeries) });
      },
    }),
    cdfJsonRoute({
      method: 'post', path: '/timeseries/delete', operationId: 'deleteTimeSeries', tag: TAG,
      summary: 'Delete time series; their data points are purged in the background',
      body: CdfDeleteRequest,
      responses: {
        200: { description: 'deleted' }, 400: { description: 'unknown ids (`missing`) without ignoreUnknownIds; a series that starts a relationship' },
        422: { description: 'a time series named twice (`duplicated`)' },
      },
      handle: async ({ access, body }) => {
        await timeseries.delete(access, body.items, { refuseRepeats: true, listMissing: body.ignoreUnknownIds !== true });
        return ok({});
      },
    }),
    cdfJsonRoute({
      method: 'post', path: '/timeseries/aggregate', operationId: 'aggregateTimeSeries', tag: TAG,
      summary: 'Count the time series a filter matches',
      body: CdfTimeSeriesAggregateRequest,
      responses: { 200: { description: '`[{count}]`', schema: CdfCountItems }, 400: { description: 'invalid filter' } },
      handle: async ({ access, body }) => ok({ items: [{ count: await timeseries.count(access, fromCdfFilter(body.filter)) }] }),
    }),
  ];
}
