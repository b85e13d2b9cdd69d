// Data point routes (SPEC /timeseries/data family): each handler hands its typed body to one
// use case of the data point engine (engine/datapoints/datapoint-engine.ts) and replies; the reads answer
// with the JSON chunks the engine wrote, sent without joining them.
import assert from 'node:assert/strict';
import {
  DatapointDeleteRequest, DatapointInsertRequest, DatapointLatestRequest, DatapointLatestResponse, DatapointListRequest, DatapointListResponse,
} from '../schemas/datapoints.ts';
import type { DatapointEngine } from '../engine/datapoints/datapoint-engine.ts';
import { DATAPOINT_BODY_BYTES_MAX } from '../engine/limits.ts';
import { jsonRoute, noContent, ok, type Route } from './route.ts';
import { prefersOverJson } from './accept.ts';
import { ARROW_STREAM_MEDIA_TYPE as ARROW_STREAM, isArrowStreamContentType } from './arrow-media.ts';

const TAG = 'Data points';

export function datapointRoutes(datapoints: DatapointEngine): Route[] {
  return [
    {
      method: 'post', path: '/timeseries/data', operationId: 'insertDatapoints', tag: TAG,
      summary: 'Insert data points; a point at an existing timestamp replaces the old value',
      description: '204 once every point is durable. The body is JSON, or with `Content-Type: application/vnd.apache.arrow.stream` an Arrow IPC stream of one row per point (columns externalId or id, timestamp, value; docs/api.md "Arrow bodies"), under the same rules. 404 lists the items whose series is missing (the others are inserted). 422 names each item and point whose value does not parse against the valueType (nothing is inserted). 400 for a malformed body or a collection over its cap (100 000 points for numeric series, 10 000 for TEXT/MIXED). Values: FLOAT/FLOAT32 decimal or exponent notation, finite (FLOAT32 rounded to 32 bits); BIGINT an integer in -2^63..2^63-1, exact; NUMERIC Decimal(18,6) and DECIMAL32 Decimal(9,3), extra fractional digits rounded half to even; TEXT strings only; MIXED: JSON numbers and numeric strings are numbers, other strings text. Timestamps: integer epoch ms from 1900 to 2099.',
      rawBody: true, rawBodyJson: true, rawBodyArrow: true, rawBodyPool: datapoints.slabs, rawBodySchema: DatapointInsertRequest, bodyBytesMax: DATAPOINT_BODY_BYTES_MAX,
      responses: {
        204: { description: 'all accepted and durable' }, 400: { description: 'malformed body or batch cap' }, 403: { description: 'no write grant' },
        404: { description: 'some series missing; `missing` lists them, the others were inserted' }, 413: { description: 'body over 16 MiB' },
        422: { description: 'values that do not parse against the valueType' }, 503: { description: 'ingest queue full; retry after Retry-After' },
      },
      async handle({ access, rawBody, headers }) {
        assert(rawBody, 'a rawBody route is handed its body');
        await datapoints.insert(access, rawBody, { format: isArrowStreamContentType(headers.contentType) ? 'arrow' : 'json' });
        return noContent();
      },
    },
    jsonRoute({
      method: 'post', path: '/timeseries/data/list', operationId: 'listDatapoints', tag: TAG,
      summary: 'Raw or aggregated data points per series, with cursor paging',
      description: 'Raw: `start` inclusive, `end` exclusive; without `start` the most recent `limit` points (ascending). `limit` default 100, max 100 000 (raw) or 10 000 (aggregates). Aggregates AVG, MIN, MAX, COUNT, SUM over buckets of any CDF granularity (`30s`, `15m`, `2h`, `1d`, `1w`, `1mo`, `1q`, `1y`, ...) aligned to its unit in `timeZone` (IANA name or fixed offset, default UTC; days and months follow daylight saving); overwritten and deleted points never count. TEXT series support COUNT only; MIXED aggregates the numeric points. 400 for granularity without aggregates (or aggregates without granularity) and start after end. Unknown series are a 404 unless `ignoreUnknownIds`. With `Accept: application/vnd.apache.arrow.stream` the 200 is an Arrow IPC stream instead (errors stay JSON): one schema, one record batch per item in request order (series ignored by `ignoreUnknownIds` have none), columns `id` int64, `externalId` utf8 dictionary (null when the series has none), `timestamp` timestamp[ms, UTC], then `value` for raw items (float64 for FLOAT, FLOAT32, NUMERIC, DECIMAL32 (the double nearest the decimal) and MIXED; int64 for BIGINT, exact; utf8 for TEXT) and `text` (utf8) when a raw item reads a MIXED series (a MIXED point is in `value` or in `text`, the other null), and for aggregate items `average`, `min`, `max`, `sum` (float64) and `count` (int64), those some item asked for; a column an item does not fill is null. The custom metadata of each batch holds `id`, `externalId`, `valueType` and `nextCursor` (the cursor of the JSON answer; absent on the last page), and the schema metadata `items`, the same as a JSON list. 400 when raw items read series whose values need different Arrow types (float64, int64, utf8): ask for them in separate requests.',
      body: DatapointListRequest,
      responses: {
        200: { description: 'per-series points (JSON); with Accept application/vnd.apache.arrow.stream, an Arrow IPC stream (docs/api.md "Arrow answers")', schema: DatapointListResponse },
        400: { description: 'invalid query; Arrow: raw items whose values need different Arrow types' }, 404: { description: 'unknown series' },
      },
      requestHeaders: ['accept'],
      handle: async ({ access, body, headers }) => (prefersOverJson(headers['accept'], ARROW_STREAM)
        ? { status: 200, body: await datapoints.listArrow(access, body), contentType: ARROW_STREAM }
        : ok(await datapoints.list(access, body))),
    }),
    ...(['post', 'delete'] as const).map((method) => jsonRoute({
      method, path: '/timeseries/data/delete', operationId: method === 'post' ? 'deleteDatapoints' : 'deleteDatapointsWithDelete', tag: TAG,
      summary: 'Delete data points in [inclusiveBegin, exclusiveEnd); both omitted clears the series',
      description: 'Bounds are ISO-8601 instants or epoch ms. Clearing keeps the definition, edges and subscriptions. Visible to reads at once; a replayed older write can never bring a deleted point back. 400 for an unknown series or a bad bound; 5xx is retryable.',
      body: DatapointDeleteRequest,
      responses: { 204: { description: 'deleted' }, 400: { description: 'unknown series or bad bound' }, 403: { description: 'no write grant' } },
      async handle({ access, body }) {
        await datapoints.delete(access, body);
        return noContent();
      },
    })),
    jsonRoute({
      method: 'post', path: '/timeseries/data/latest', operationId: 'latestDatapoints', tag: TAG,
      summary: 'The point with the highest timestamp per series; series without points are omitted',
      body: DatapointLatestRequest,
      responses: { 200: { description: 'latest points', schema: DatapointLatestResponse }, 404: { description: 'unknown series (unless ignoreUnknownIds)' } },
      handle: async ({ access, body }) => ok(await datapoints.latest(access, body)),
    }),
  ];
}
