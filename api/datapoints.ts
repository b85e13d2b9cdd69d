// Data point routes (SPEC /timeseries/data family): insert through the parse workers and the
// ingest log, raw and aggregate reads, latest, and deletes by time range.
import {
  DatapointDeleteRequest, DatapointInsertRequest, DatapointLatestRequest, DatapointLatestResponse, DatapointListRequest,
  DatapointListResponse, type DatapointListRequest as ListBody,
} from '../schemas/datapoints.ts';
import { BadRequestError, NotFoundError, UnprocessableError, type FieldProblem, type Identifier } from '../engine/errors.ts';
import { AGGREGATES_LIMIT_MAX, DATAPOINT_BODY_BYTES_MAX, DATAPOINTS_LIMIT_DEFAULT, DATAPOINTS_LIMIT_MAX, TIMESTAMP_MS_MAX, TIMESTAMP_MS_MIN } from '../engine/limits.ts';
import { mergeSameSeries } from '../engine/datapoints/merge-series.ts';
import { parseInstant } from '../engine/datapoints/instant.ts';
import { coalesceDeleteRanges } from '../engine/datapoints/delete-ranges.ts';
import type { AggregateName, Granularity, SeriesPoints } from '../engine/datapoints/types.ts';
import { resolveSeriesTargets, type SeriesTarget } from '../engine/meta/series-targets.ts';
import type { Slab } from '../engine/memory/slab-pool.ts';
import type { ScannedBody } from '../workers/datapoint-body.ts';
import { encodeOutputBytes, type PointValueError } from '../workers/datapoint-encode.ts';
import { scanScratchBytes } from '../workers/datapoint-scan.ts';
import { speculativeOutputBytes } from '../workers/datapoint-task.ts';
import { TargetHints } from './target-hints.ts';
import { aggregateItemJson, itemsJson, rawItemFromJson, rawItemJson } from './datapoint-json.ts';
import type { DatapointEngine } from './datapoint-engine.ts';
import { isJson } from './http-server.ts';
import { timed } from '../engine/metrics.ts';
import { noContent, type Reply, type Route } from './route.ts';
import type { Services } from './services.ts';

const TAG = 'Data points';

function identifierOf(item: { id?: number; externalId?: string }): Identifier {
  return { ...(item.id !== undefined ? { id: item.id } : {}), ...(item.externalId !== undefined ? { externalId: item.externalId } : {}) };
}

/** `items[3].datapoints[7].value` (the workers' JSON path) as the API's field names: `items.3.datapoints.7.value`. */
function fieldName(path: string): string {
  return path.replace(/\[(\d+)\]/g, '.$1');
}

function scanProblems(scanned: ScannedBody): FieldProblem[] {
  return scanned.errors.map((e) => ({
    field: fieldName(e.field), message: e.message,
    ...(e.itemIndex !== undefined ? { index: e.itemIndex } : {}),
    ...(e.pointIndex !== undefined ? { pointIndex: e.pointIndex } : {}),
    ...(e.limit !== undefined ? { limit: e.limit } : {}),
  }));
}

function valueProblems(errors: PointValueError[]): FieldProblem[] {
  return errors.map((e) => ({
    field: fieldName(e.field), message: e.message, index: e.itemIndex, pointIndex: e.pointIndex, value: e.value, valueType: e.valueType, reason: e.reason,
    ...(e.limit !== undefined ? { limit: e.limit } : {}),
  }));
}

function notFound(missing: { index: number; identifier: Identifier }[], what: string): NotFoundError {
  return new NotFoundError(`${what}: no time series for ${missing.map((m) => JSON.stringify(m.identifier)).slice(0, 5).join(', ')}`, missing.map((m) => m.identifier));
}

export function datapointRoutes(services: Services, engine: DatapointEngine): Route[] {
  const db = services.relational.pool;
  const targetHints = new TargetHints();

  async function insert(caller: Parameters<Services['access']>[0], rawBody: Uint8Array, contentType: string): Promise<Reply> {
    if (!isJson(contentType)) throw new BadRequestError(`Content-Type must be application/json, got "${contentType || '(none)'}"`, [{ field: 'Content-Type', message: 'expected application/json' }]);
    const access = await services.access(caller);
    // Announced while parsing, so the group commit can wait for this request to join it.
    const appended = engine.ingestLog.expectAppend?.();
    // The scanned and the encoded columns live in pooled shared memory until the points are
    // durable (the insert copies them into its own columns); nothing is allocated per request.
    const slabs: Slab[] = [];
    try {
      return await insertAnnounced(access, rawBody, appended, slabs);
    } finally {
      appended?.();
      for (const slab of slabs) slab.release();
    }
  }

  async function insertAnnounced(access: Awaited<ReturnType<Services['access']>>, rawBody: Uint8Array, appended: (() => void) | undefined, slabs: Slab[]): Promise<Reply> {
    const scratch = engine.slabs.acquire(scanScratchBytes(rawBody.byteLength));
    slabs.push(scratch);
    // With what we last knew of this tenant's series, the worker encodes in the scan task too.
    const hints = targetHints.hintsFor(access.tenant);
    const guessed = hints ? engine.slabs.acquire(speculativeOutputBytes(rawBody.byteLength)) : undefined;
    if (guessed) slabs.push(guessed);
    const { body, scanned, speculative } = await engine.pool.scan(rawBody, scratch.buffer, hints && guessed ? { hints, output: guessed.buffer } : undefined);
    if (scanned.errors.length > 0) throw new BadRequestError(`Invalid data point request: ${scanned.errors[0]?.message}`, scanProblems(scanned));
    const { targets, missing } = await resolveSeriesTargets(db, access, scanned.items.map(identifierOf), 'write');
    targetHints.learn(access.tenant, scanned.items, targets);
    const valueTypes = targets.map((t) => t?.valueType ?? null);
    const seriesIds = targets.map((t) => t?.seriesId ?? null);
    // The guess stands only if every item resolved to exactly the series and valueType assumed.
    const guessRight = speculative !== undefined && valueTypes.every((v, i) => v === speculative.valueTypes[i] && seriesIds[i] === speculative.seriesIds[i]);
    let encoded = guessRight ? speculative.encoded : undefined;
    if (!encoded) {
      const output = engine.slabs.acquire(encodeOutputBytes(scanned.pointCount, scanned.items.length));
      slabs.push(output);
      encoded = await engine.pool.encode(body, scanned, valueTypes, seriesIds, output.buffer);
    }
    const capErrors = encoded.errors.filter((e) => e.reason === 'points-cap');
    if (capErrors.length > 0) throw new BadRequestError('Too many data points in one collection; split the batch', valueProblems(capErrors));
    // SPEC: a value that does not parse against the valueType is a 422; nothing is written.
    if (encoded.errors.length > 0) throw new UnprocessableError(`${encoded.errors.length} value(s) do not parse against their series' valueType`, valueProblems(encoded.errors));
    const series = mergeSameSeries(encoded.series.filter((s): s is SeriesPoints => s !== null && s.timestampMs.length > 0));
    if (series.length > 0) {
      let pointCount = 0;
      let textCount = 0;
      for (const s of series) {
        pointCount += s.timestampMs.length;
        if (s.valueType === 'TEXT' || s.valueType === 'MIXED') textCount += s.timestampMs.length;
      }
      await services.quotas.chargeDatapoints(access.tenant, pointCount, textCount);
      const appending = engine.ingestLog.append({ tenant: access.tenant, series });
      appended?.();
      await timed(services.metrics, 'ingest-log', 'append', () => appending);
      services.metrics.datapointsIngested.inc({ mode: engine.mode }, pointCount);
    }
    // SPEC: 404 when some targets are missing; the others are still inserted.
    if (missing.length > 0) throw notFound(missing, 'Some items were not inserted');
    return noContent();
  }

  return [
    {
      method: 'post', path: '/timeseries/data', operationId: 'insertDatapoints', tag: TAG,
      summary: 'Insert data points; a point at an existing timestamp replaces the old value',
      description: '204 once every point is durable. 404 lists the items whose series is missing (the others are inserted). 422 names each item and point whose value does not parse against the valueType (nothing is inserted). 400 for a malformed body or a collection over its cap (100 000 points for numeric series, 10 000 for TEXT/MIXED). Values: FLOAT/FLOAT32 decimal or exponent notation, finite (FLOAT32 rounded to 32 bits); BIGINT an integer in -2^63..2^63-1, exact; NUMERIC Decimal(18,6) and DECIMAL32 Decimal(9,3), extra fractional digits rounded half to even; TEXT strings only; MIXED: JSON numbers and numeric strings are numbers, other strings text. Timestamps: integer epoch ms from 1900 to 2099.',
      rawBody: true, rawBodyPool: engine.slabs, rawBodySchema: DatapointInsertRequest, bodyBytesMax: DATAPOINT_BODY_BYTES_MAX,
      responses: {
        204: { description: 'all accepted and durable' }, 400: { description: 'malformed body or batch cap' }, 403: { description: 'no write grant' },
        404: { description: 'some series missing; `missing` lists them, the others were inserted' }, 413: { description: 'body over 16 MiB' },
        422: { description: 'values that do not parse against the valueType' }, 503: { description: 'ingest queue full; retry after Retry-After' },
      },
      handle: ({ caller, rawBody, headers }) => insert(caller, rawBody as Uint8Array, headers.contentType),
    },
    {
      method: 'post', path: '/timeseries/data/list', operationId: 'listDatapoints', tag: TAG,
      summary: 'Raw or aggregated data points per series, with cursor paging',
      description: 'Raw: `start` inclusive, `end` exclusive; without `start` the most recent `limit` points (ascending). `limit` default 100, max 100 000 (raw) or 10 000 (aggregates). Aggregates AVG, MIN, MAX, COUNT, SUM over UTC-aligned 1m/1h/1d buckets; overwritten and deleted points never count. TEXT series support COUNT only; MIXED aggregates the numeric points. 400 for granularity without aggregates (or aggregates without granularity) and start after end. Unknown series are a 404 unless `ignoreUnknownIds`.',
      body: DatapointListRequest,
      responses: { 200: { description: 'per-series points', schema: DatapointListResponse }, 400: { description: 'invalid query' }, 404: { description: 'unknown series' } },
      async handle({ caller, body }) {
        const request = body as ListBody;
        const access = await services.access(caller);
        // A 2xx insert means readable: wait for acknowledged points still on their way to the store.
        await engine.readBarrier();
        const queries = request.items.map((item, index) => listQuery(item, request, index));
        const { targets, missing } = await resolveSeriesTargets(db, access, request.items.map(identifierOf), 'read');
        if (missing.length > 0 && !request.ignoreUnknownIds) throw notFound(missing, 'Unknown time series');
        const aggregateIndexes: number[] = [];
        targets.forEach((target, i) => {
          const q = queries[i] as ListQuery;
          if (!target || !q.aggregates) return;
          if (target.valueType === 'TEXT' && q.aggregates.some((a) => a !== 'COUNT')) {
            throw new BadRequestError(`items[${i}]: a TEXT series supports only the COUNT aggregate`, [{ field: `items.${i}.aggregates`, index: i, message: 'only COUNT on TEXT series' }]);
          }
          aggregateIndexes.push(i);
        });
        // All aggregate items in one store statement (Q2: 100 series in one round trip).
        const aggregates = aggregateIndexes.length === 0 ? [] : await timed(services.metrics, 'clickhouse', 'aggregate', () => engine.store.aggregateMany(access.tenant, aggregateIndexes.map((i) => {
          const q = queries[i] as ListQuery;
          return {
            series: targets[i] as SeriesTarget,
            options: { start: q.start ?? TIMESTAMP_MS_MIN, end: q.end ?? TIMESTAMP_MS_MAX + 1, granularity: q.granularity as Granularity, aggregates: q.aggregates as AggregateName[], limit: q.limit, cursor: q.cursor },
          };
        })));
        const aggregateByIndex = new Map(aggregateIndexes.map((index, k) => [index, aggregates[k]]));
        const parts = await Promise.all(targets.map(async (target, i) => {
          if (!target) return undefined;
          const q = queries[i] as ListQuery;
          const aggregated = aggregateByIndex.get(i);
          if (aggregated) return aggregateItemJson(target, aggregated.buckets, q.aggregates as AggregateName[], aggregated.nextCursor);
          const result = await timed(services.metrics, 'clickhouse', 'read-raw', () => engine.store.readRawJson(access.tenant, target, { start: q.start, end: q.end, limit: q.limit, cursor: q.cursor }));
          return rawItemFromJson(target, result.datapoints, result.nextCursor);
        }));
        return { status: 200, body: itemsJson(parts.filter((p) => p !== undefined)) };
      },
    },
    ...(['post', 'delete'] as const).map((method): Route => ({
      method, path: '/timeseries/data/delete', operationId: method === 'post' ? 'deleteDatapoints' : 'deleteDatapointsWithDelete', tag: TAG,
      summary: 'Delete data points in [inclusiveBegin, exclusiveEnd); both omitted clears the series',
      description: 'Bounds are ISO-8601 instants or epoch ms. Clearing keeps the definition, edges and subscriptions. Visible to reads at once; a replayed older write can never bring a deleted point back. 400 for an unknown series or a bad bound; 5xx is retryable.',
      body: DatapointDeleteRequest,
      responses: { 204: { description: 'deleted' }, 400: { description: 'unknown series or bad bound' }, 403: { description: 'no write grant' } },
      async handle({ caller, body }) {
        const items = (body as { items: { id?: number; externalId?: string; inclusiveBegin?: unknown; exclusiveEnd?: unknown }[] }).items;
        const bounds = items.map((item, i) => ({ begin: parseInstant(item.inclusiveBegin, `items.${i}.inclusiveBegin`), end: parseInstant(item.exclusiveEnd, `items.${i}.exclusiveEnd`) }));
        const access = await services.access(caller);
        const { targets, missing } = await resolveSeriesTargets(db, access, items.map(identifierOf), 'write');
        if (missing.length > 0) {
          throw new BadRequestError('Unknown time series', missing.map((m) => ({ field: `items.${m.index}`, index: m.index, message: 'no such time series', value: m.identifier.externalId ?? m.identifier.id })));
        }
        // One store write for every item, ranges of a series merged first: a 10 000-item
        // delete of consecutive windows is one tombstone, which every later read binds.
        await engine.store.deleteRanges(access.tenant, coalesceDeleteRanges(targets.map((target, i) => ({
          seriesId: (target as SeriesTarget).seriesId, inclusiveBeginMs: bounds[i]?.begin, exclusiveEndMs: bounds[i]?.end,
        }))));
        return noContent();
      },
    })),
    {
      method: 'post', path: '/timeseries/data/latest', operationId: 'latestDatapoints', tag: TAG,
      summary: 'The point with the highest timestamp per series; series without points are omitted',
      body: DatapointLatestRequest,
      responses: { 200: { description: 'latest points', schema: DatapointLatestResponse }, 404: { description: 'unknown series (unless ignoreUnknownIds)' } },
      async handle({ caller, body }) {
        const request = body as { items: { id?: number; externalId?: string }[]; ignoreUnknownIds?: boolean };
        const access = await services.access(caller);
        await engine.readBarrier();
        const { targets, missing } = await resolveSeriesTargets(db, access, request.items.map(identifierOf), 'read');
        if (missing.length > 0 && !request.ignoreUnknownIds) throw notFound(missing, 'Unknown time series');
        const present = targets.filter((t): t is SeriesTarget => t !== null);
        const unique = [...new Map(present.map((t) => [t.seriesId, t])).values()];
        const latest = await timed(services.metrics, 'clickhouse', 'latest', () => engine.store.latest(access.tenant, unique));
        const bySeries = new Map(latest.map((p) => [p.seriesId, p]));
        const items = present.flatMap((t) => {
          const point = bySeries.get(t.seriesId);
          if (!point) return [];
          const one: SeriesPoints = pointColumns(t, point.timestampMs, point.value);
          return [rawItemJson(t, one)];
        });
        return { status: 200, body: itemsJson(items) };
      },
    },
  ];
}

interface ListQuery {
  start?: number;
  end?: number;
  aggregates?: AggregateName[];
  granularity?: string;
  limit: number;
  cursor?: string;
}

/** Item fields over top-level defaults, with SPEC's 400s. */
function listQuery(item: ListBody['items'][number], top: ListBody, index: number): ListQuery {
  const start = parseInstant(item.start ?? top.start, `items.${index}.start`);
  const end = parseInstant(item.end ?? top.end, `items.${index}.end`);
  const aggregates = (item.aggregates ?? top.aggregates) as AggregateName[] | undefined;
  const granularity = item.granularity ?? top.granularity;
  const problem = (message: string, field: string) => new BadRequestError(`items[${index}]: ${message}`, [{ field: `items.${index}.${field}`, index, message }]);
  if (granularity !== undefined && !aggregates) throw problem('granularity needs aggregates', 'granularity');
  if (aggregates && granularity === undefined) throw problem('aggregates need a granularity (1m, 1h or 1d)', 'aggregates');
  if (start !== undefined && end !== undefined && start > end) throw problem('start is after end', 'start');
  // No point lies outside the timestamp window, so bounds beyond it mean the window's edge
  // (a bound of -2^53 made the aggregate bucket arithmetic fail with a 500).
  const clamp = (ms: number | undefined) => (ms === undefined ? undefined : Math.min(Math.max(ms, TIMESTAMP_MS_MIN), TIMESTAMP_MS_MAX + 1));
  const limitMax = aggregates ? AGGREGATES_LIMIT_MAX : DATAPOINTS_LIMIT_MAX;
  const limit = item.limit ?? top.limit ?? DATAPOINTS_LIMIT_DEFAULT;
  if (limit > limitMax) throw problem(`limit is at most ${limitMax} here`, 'limit');
  return { start: clamp(start), end: clamp(end), aggregates: aggregates ? [...new Set(aggregates)] : undefined, granularity, limit, cursor: item.cursor };
}

function pointColumns(target: SeriesTarget, timestampMs: number, value: number | bigint | string): SeriesPoints {
  const vt = target.valueType;
  const points: SeriesPoints = { seriesId: target.seriesId, valueType: vt, timestampMs: Float64Array.of(timestampMs) };
  if (vt === 'BIGINT') points.bigint = BigInt64Array.of(value as bigint);
  else if (vt === 'NUMERIC' || vt === 'DECIMAL32') points.scaled = BigInt64Array.of(value as bigint);
  else if (vt === 'TEXT') points.text = [value as string];
  else if (vt === 'MIXED') {
    const isText = typeof value === 'string';
    points.isText = Uint8Array.of(isText ? 1 : 0);
    points.text = [isText ? value : ''];
    points.float = Float64Array.of(isText ? 0 : (value as number));
  } else points.float = Float64Array.of(value as number);
  return points;
}

