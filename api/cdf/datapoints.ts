// CDF's data point routes (POST /timeseries/data, /data/list, /data/latest, /data/delete under
// /api/v1/projects/{project}): each handler translates CDF's body (datapoints-form.ts), makes
// the same engine call as SPEC's route with the CDF surface's options, and replies. The insert
// body goes unparsed to the same workers as SPEC's (they take CDF's JSON numbers as they are);
// the reads answer with the JSON chunks the engine wrote in CDF's form.
import assert from 'node:assert/strict';
import type { DatapointEngine } from '../../engine/datapoints/datapoint-engine.ts';
import { DATAPOINT_BODY_BYTES_MAX } from '../../engine/limits.ts';
import {
  CdfDatapointDeleteRequest, CdfDatapointInsertRequest, CdfDatapointLatestRequest, CdfDatapointListRequest, CdfDatapointListResponse, CdfEmptyResponse,
} from '../../schemas/cdf/datapoints.ts';
import { ok, type Route } from '../route.ts';
import { cdfJsonRoute, cdfRoute } from './cdf-route.ts';
import {
  CDF_DELETE_OPTIONS, CDF_INSERT_OPTIONS, CDF_LATEST_OPTIONS, CDF_LIST_OPTIONS, deleteRequestFromCdf, latestRequestFromCdf, listRequestFromCdf,
} from './datapoints-form.ts';

const TAG = 'Data points';

export function cdfDatapointRoutes(datapoints: DatapointEngine): Route[] {
  return [
    cdfRoute({
      method: 'post', path: '/timeseries/data', operationId: 'insertDatapoints', tag: TAG,
      summary: 'Insert data points by id or externalId; a point at an existing timestamp replaces the old value',
      description: '200 `{}` once every point is durable. All or nothing: an unknown or unreadable series is a 400 listing `missing`, a value that does not fit its series a 422, over 100 000 points or 10 000 series a 400; nothing is written then.',
      rawBody: true, rawBodyJson: true, rawBodyPool: datapoints.slabs, rawBodySchema: CdfDatapointInsertRequest, bodyBytesMax: DATAPOINT_BODY_BYTES_MAX,
      responses: {
        200: { description: 'all inserted and durable', schema: CdfEmptyResponse }, 400: { description: 'malformed body, a cap passed, or unknown series (`missing`)' },
        413: { description: 'body over 16 MiB' }, 422: { description: 'values that do not fit their series' }, 503: { description: 'ingest queue full; retry' },
      },
      async handle({ access, rawBody }) {
        assert(rawBody, 'a rawBody route is handed its body');
        await datapoints.insert(access, rawBody, CDF_INSERT_OPTIONS);
        return ok({});
      },
    }),
    cdfJsonRoute({
      method: 'post', path: '/timeseries/data/list', operationId: 'listDatapoints', tag: TAG,
      summary: 'Raw data points per series, with a cursor per item',
      description: 'start inclusive (default 0), end exclusive (default now), as epoch ms or `now` / `<n><s|m|h|d|w>-ago`; limit default 100, at most 100 000 over all items. Resend an item with `cursor` = its `nextCursor` for the next page. Unknown series are a 400 listing `missing` unless `ignoreUnknownIds`.',
      body: CdfDatapointListRequest,
      responses: { 200: { description: 'per-series points', schema: CdfDatapointListResponse }, 400: { description: 'invalid query or unknown series' } },
      handle: async ({ access, body }) => ok(await datapoints.list(access, listRequestFromCdf(body, Date.now()), CDF_LIST_OPTIONS)),
    }),
    cdfJsonRoute({
      method: 'post', path: '/timeseries/data/latest', operationId: 'latestDatapoints', tag: TAG,
      summary: 'The latest point before `before` (default now) per series; empty `datapoints` when there is none',
      body: CdfDatapointLatestRequest,
      responses: { 200: { description: 'one item per query, in request order', schema: CdfDatapointListResponse }, 400: { description: 'unknown series (unless ignoreUnknownIds)' } },
      handle: async ({ access, body }) => ok(await datapoints.latest(access, latestRequestFromCdf(body, Date.now()), CDF_LATEST_OPTIONS)),
    }),
    cdfJsonRoute({
      method: 'post', path: '/timeseries/data/delete', operationId: 'deleteDatapoints', tag: TAG,
      summary: 'Delete data points in [inclusiveBegin, exclusiveEnd); without exclusiveEnd the point at inclusiveBegin',
      body: CdfDatapointDeleteRequest,
      responses: { 200: { description: 'deleted', schema: CdfEmptyResponse }, 400: { description: 'unknown series (`missing`) or a bad bound' } },
      async handle({ access, body }) {
        await datapoints.delete(access, deleteRequestFromCdf(body, Date.now()), CDF_DELETE_OPTIONS);
        return ok({});
      },
    }),
  ];
}
