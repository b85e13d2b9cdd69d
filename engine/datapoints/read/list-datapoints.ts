// The list use case (POST /timeseries/data/list): raw or aggregated points per named series with
// cursor paging, answered as JSON chunks the store wrote (datapoint-json.ts): a 100 000-point page
// goes out as it came from the store, never copied into one more buffer (bench Q3). Its checks,
// series and read barrier (planListDatapoints) are shared with the Arrow answer
// (list-datapoints-arrow.ts).
import type { DatapointListRequest } from '../../../schemas/datapoints.ts';
import { BadRequestError } from '../../errors.ts';
import type { Access } from '../../grants/access.ts';
import { AGGREGATES_LIMIT_MAX, DATAPOINTS_LIMIT_DEFAULT, DATAPOINTS_LIMIT_MAX, TIMESTAMP_MS_MAX, TIMESTAMP_MS_MIN } from '../../limits.ts';
import type { DatapointStore } from '../datapoint-store.ts';
import { parseInstant } from '../../records/instant.ts';
import { unknownSeriesError } from '../unknown-series.ts';
import { identifierOf } from '../../records/identifiers.ts';
import type { AggregateName, AggregateResult, DatapointForm, Granularity, QueuedRun } from '../types.ts';
import type { SeriesDirectory } from '../../meta/series-directory.ts';
import { resolveSeriesTargets, type SeriesTarget } from '../../meta/series-targets.ts';
import { timed, type Metrics } from '../../metrics.ts';
import { aggregateItemJson, cdfAggregateItemJson, itemsJson, rawItemFromJson } from './datapoint-json.ts';
import { cdfAggregateDatapointsJson, type CdfAggregateName } from './cdf-aggregates.ts';
import { bucketReach, parseGranularity } from './aggregate-grid.ts';
import type { ReadWindow } from '../../ingest/ingest-log.ts';
import { parseTimeZone } from './time-zone.ts';

export interface ListDatapointsDeps {
  /** Where the series are resolved (PostgreSQL behind keys held in memory). */
  series: SeriesDirectory;
  store: DatapointStore;
  /** Resolves once every acknowledged insert of these series of the tenant is readable, within each series' window (parallel to seriesIds). */
  readBarrier(tenant: string, seriesIds: readonly number[], windows: readonly ReadWindow[]): Promise<void>;
  /**
   * Where the store can read JS columns: instead of readBarrier, the acknowledged points of
   * these series not yet in the store, within each window, copied from the ingest log's
   * memory (IngestLog.queuedForRead); the reads add them to what the store holds.
   */
  queuedForRead?(tenant: string, seriesIds: readonly number[], windows: readonly ReadWindow[]): (QueuedRun[] | undefined)[];
  metrics: Metrics;
}

/** An item of a list request: SPEC's, plus CDF's includeOutsidePoints (api/cdf). */
export type ListDatapointsItem = DatapointListRequest['items'][number] & { includeOutsidePoints?: boolean };

/** SPEC's list request, or one the CDF surface translated into it. */
export interface ListDatapointsRequest extends Omit<DatapointListRequest, 'items'> {
  items: ListDatapointsItem[];
}

export interface ListDatapointsOptions {
  /** The answer's JSON form. @default 'spec' */
  form?: DatapointForm;
  /** Raw points all items may ask for together (the sum of their limits): CDF's cap per request. Unbounded when omitted. */
  rawPointsPerRequestMax?: number;
}

/** An item's query after the request's defaults, clamps and checks. */
export interface ListQuery {
  start?: number;
  end?: number;
  aggregates?: AggregateName[];
  granularity?: string;
  timeZone?: string;
  limit: number;
  cursor?: string;
  /** The last point before start (first page only) and the first at or after end (last page only), besides the page. */
  includeOutsidePoints: boolean;
}

/** A series a list item reads, with the acknowledged points it takes from the ingest log's memory (SeriesRef.queued). */
export type ReadTarget = SeriesTarget & { queued?: readonly QueuedRun[] };

/** A list request checked and resolved: what each item asks and the series it names. */
export interface ListPlan {
  queries: readonly ListQuery[];
  /** Per item in request order; null where an unknown series is ignored (`ignoreUnknownIds`). */
  targets: readonly (ReadTarget | null)[];
  /** Items that ask for aggregates, ascending. */
  aggregateIndexes: readonly number[];
}

/**
 * The time whose points can change an item's answer: raw points in [start, end) (the newest
 * ones when start is omitted: everything before end), buckets as far as they reach
 * (bucketReach), everything with CDF's includeOutsidePoints and for CDF's aggregates (their
 * edges interpolate to the points around a bucket, a stepwise series' from any distance).
 */
function barrierWindow(q: ListQuery, form: DatapointForm): ReadWindow {
  if (q.includeOutsidePoints || (form === 'cdf' && q.aggregates)) return { start: -Infinity, end: Infinity };
  const start = q.start ?? -Infinity;
  const end = q.end ?? Infinity;
  if (!q.aggregates || q.granularity === undefined) return { start, end };
  return bucketReach(parseGranularity(q.granularity), start, end);
}

/**
 * The rules every answer of a list request shares, whatever its form (JSON here, Arrow in
 * list-datapoints-arrow.ts): each item's query (SPEC's 400s), the series resolved in read mode
 * (grants: an unreadable series is unknown), unknown series a 404 unless `ignoreUnknownIds`,
 * and the read barrier on the series read.
 */
export async function planListDatapoints(access: Access, request: ListDatapointsRequest, deps: ListDatapointsDeps, options: ListDatapointsOptions = {}): Promise<ListPlan> {
  const form = options.form ?? 'spec';
  const queries = request.items.map((item, index) => listQuery(item, request, index));
  if (options.rawPointsPerRequestMax !== undefined) assertRawPointsPerRequest(queries, options.rawPointsPerRequestMax);
  const { targets, missing } = await resolveSeriesTargets(deps.series, access, request.items.map(identifierOf), 'read');
  if (missing.length > 0 && !request.ignoreUnknownIds) throw unknownSeriesError(missing, 'Unknown time series');
  // A 2xx insert means readable: acknowledged points of these series still on their way to the
  // store, within the time each item reads, are taken from the ingest log's memory, or (an
  // engine that cannot read them) waited for; never other series' points, nor a series'
  // points the answer cannot hold (a history read while the present is written).
  const windowed = targets.flatMap((target, i) => (target ? [{ i, seriesId: target.seriesId, window: barrierWindow(queries[i] as ListQuery, form) }] : []));
  const ids = windowed.map((r) => r.seriesId);
  const windows = windowed.map((r) => r.window);
  const read: (ReadTarget | null)[] = [...targets];
  if (deps.queuedForRead) {
    const queued = deps.queuedForRead(access.tenant, ids, windows);
    windowed.forEach(({ i }, k) => {
      const runs = queued[k];
      if (runs) read[i] = { ...(targets[i] as SeriesTarget), queued: runs };
    });
  } else {
    await deps.readBarrier(access.tenant, ids, windows);
  }
  const aggregateIndexes: number[] = [];
  read.forEach((target, i) => {
    const q = queries[i] as ListQuery;
    if (!target || !q.aggregates) return;
    // CDF's aggregates take numeric series only (cdf-aggregates.ts says so by name).
    if (form === 'spec' && target.valueType === 'TEXT' && q.aggregates.some((a) => a !== 'COUNT')) {
      throw new BadRequestError(`items[${i}]: a TEXT series supports only the COUNT aggregate`, [{ field: `items.${i}.aggregates`, index: i, message: 'only COUNT on TEXT series' }]);
    }
    aggregateIndexes.push(i);
  });
  return { queries, targets: read, aggregateIndexes };
}

/**
 * `{"items":[...]}` as the chunks of one answer, one item per named series in request order.
 * Throws BadRequestError for an invalid item query (SPEC's 400s), NotFoundError for unknown
 * series unless `ignoreUnknownIds`.
 */
export async function listDatapoints(access: Access, request: ListDatapointsRequest, deps: ListDatapointsDeps, options: ListDatapointsOptions = {}): Promise<Uint8Array[]> {
  const form = options.form ?? 'spec';
  const plan = await planListDatapoints(access, request, deps, options);
  const { targets, queries, aggregateIndexes } = plan;
  const aggregateJson = aggregateIndexes.length === 0 ? new Map<number, string>() : form === 'cdf'
    ? await cdfAggregateItems(access, targets, queries, aggregateIndexes, deps)
    : specAggregateItems(plan, await specAggregateResults(access, plan, deps));
  const parts = await Promise.all(targets.map(async (target, i) => {
    if (!target) return undefined;
    const q = queries[i] as ListQuery;
    const aggregated = aggregateJson.get(i);
    if (aggregated !== undefined) return aggregated;
    const result = await timed(deps.metrics, 'clickhouse', 'read-raw', () => deps.store.readRawJson(access.tenant, target, { start: q.start, end: q.end, limit: q.limit, cursor: q.cursor, form }));
    if (!q.includeOutsidePoints) return rawItemFromJson(target, result.datapoints, result.nextCursor, form);
    const [before, after] = await Promise.all([
      q.cursor === undefined && q.start !== undefined ? deps.store.readRawJson(access.tenant, target, { end: q.start, limit: 1, form }) : undefined,
      result.nextCursor === undefined && q.end !== undefined ? deps.store.readRawJson(access.tenant, target, { start: q.end, limit: 1, form }) : undefined,
    ]);
    return rawItemFromJson(target, [before?.datapoints ?? EMPTY, result.datapoints, after?.datapoints ?? EMPTY], result.nextCursor, form);
  }));
  return itemsJson(parts.filter((p) => p !== undefined));
}

const EMPTY = new Uint8Array(0);

type Targets = readonly (SeriesTarget | null)[];

/** SPEC's aggregates of a plan's aggregate items, all in one store statement (Q2: 100 series in one round trip), by item index. */
export async function specAggregateResults(access: Access, plan: ListPlan, deps: ListDatapointsDeps): Promise<Map<number, AggregateResult>> {
  const { targets, queries, aggregateIndexes: indexes } = plan;
  if (indexes.length === 0) return new Map();
  const results = await timed(deps.metrics, 'clickhouse', 'aggregate', () => deps.store.aggregateMany(access.tenant, indexes.map((i) => {
    const q = queries[i] as ListQuery;
    return {
      series: targets[i] as SeriesTarget,
      options: { start: q.start ?? TIMESTAMP_MS_MIN, end: q.end ?? TIMESTAMP_MS_MAX + 1, granularity: q.granularity as Granularity, timeZone: q.timeZone, aggregates: q.aggregates as AggregateName[], limit: q.limit, cursor: q.cursor },
    };
  })));
  return new Map(indexes.map((i, k) => [i, results[k] as AggregateResult]));
}

/** SPEC's aggregate items as item JSON by index. */
function specAggregateItems(plan: ListPlan, results: ReadonlyMap<number, AggregateResult>): Map<number, string> {
  return new Map([...results].map(([i, result]) => [i, aggregateItemJson(plan.targets[i] as SeriesTarget, result.buckets, (plan.queries[i] as ListQuery).aggregates as AggregateName[], result.nextCursor)]));
}

/** CDF's aggregate items (CDF's names and meanings, the series' isStep), as item JSON by index. */
async function cdfAggregateItems(access: Access, targets: Targets, queries: readonly ListQuery[], indexes: readonly number[], deps: ListDatapointsDeps): Promise<Map<number, string>> {
  const results = await timed(deps.metrics, 'clickhouse', 'aggregate', () => deps.store.cdfAggregateMany(access.tenant, indexes.map((i) => {
    const q = queries[i] as ListQuery;
    const target = targets[i] as SeriesTarget;
    return {
      series: target,
      options: {
        start: q.start ?? TIMESTAMP_MS_MIN, end: q.end ?? TIMESTAMP_MS_MAX + 1, granularity: q.granularity as string, timeZone: q.timeZone,
        aggregates: q.aggregates as unknown as CdfAggregateName[], isStep: target.isStep === true, limit: q.limit, cursor: q.cursor,
      },
    };
  })));
  return new Map(indexes.map((i, k) => {
    const result = results[k] as (typeof results)[number];
    const names = (queries[i] as ListQuery).aggregates as unknown as CdfAggregateName[];
    return [i, cdfAggregateItemJson(targets[i] as SeriesTarget, cdfAggregateDatapointsJson(result.buckets, names), result.nextCursor)];
  }));
}

/** CDF: the raw points of one request, all items' limits together, are capped (a 400 naming `limit`). */
function assertRawPointsPerRequest(queries: readonly ListQuery[], max: number): void {
  const asked = queries.reduce((sum, q) => sum + (q.aggregates ? 0 : q.limit), 0);
  if (asked <= max) return;
  throw new BadRequestError(`The items ask for ${asked} raw data points together; at most ${max} per request: lower their limits or split the request`, [
    { field: 'limit', message: `at most ${max} raw points per request`, value: asked, limit: max },
  ]);
}

/** Item fields over top-level defaults, with SPEC's 400s. */
function listQuery(item: ListDatapointsItem, top: ListDatapointsRequest, index: number): ListQuery {
  const start = parseInstant(item.start ?? top.start, `items.${index}.start`);
  const end = parseInstant(item.end ?? top.end, `items.${index}.end`);
  const aggregates = (item.aggregates ?? top.aggregates) as AggregateName[] | undefined;
  const granularity = item.granularity ?? top.granularity;
  const timeZone = item.timeZone ?? top.timeZone;
  const problem = (message: string, field: string) => new BadRequestError(`items[${index}]: ${message}`, [{ field: `items.${index}.${field}`, index, message }]);
  if (granularity !== undefined && !aggregates) throw problem('granularity needs aggregates', 'granularity');
  if (aggregates && granularity === undefined) throw problem('aggregates need a granularity (1m, 15m, 1h, 1d, 1w, 1mo, ...)', 'aggregates');
  if (timeZone !== undefined && !aggregates) throw problem('timeZone needs aggregates', 'timeZone');
  // The engine's parsers, so that a bad one is named by its item.
  for (const [field, check] of [['granularity', () => granularity !== undefined && parseGranularity(granularity)], ['timeZone', () => parseTimeZone(timeZone)]] as const) {
    try {
      check();
    } catch (error) {
      throw problem(error instanceof Error ? error.message : `bad ${field}`, field);
    }
  }
  if (start !== undefined && end !== undefined && start > end) throw problem('start is after end', 'start');
  // No point lies outside the timestamp window, so bounds beyond it mean the window's edge
  // (a bound of -2^53 made the aggregate bucket arithmetic fail with a 500).
  const clamp = (ms: number | undefined) => (ms === undefined ? undefined : Math.min(Math.max(ms, TIMESTAMP_MS_MIN), TIMESTAMP_MS_MAX + 1));
  const limitMax = aggregates ? AGGREGATES_LIMIT_MAX : DATAPOINTS_LIMIT_MAX;
  const limit = item.limit ?? top.limit ?? DATAPOINTS_LIMIT_DEFAULT;
  if (limit > limitMax) throw problem(`limit is at most ${limitMax} here`, 'limit');
  const includeOutsidePoints = item.includeOutsidePoints === true && !aggregates;
  return { start: clamp(start), end: clamp(end), aggregates: aggregates ? [...new Set(aggregates)] : undefined, granularity, timeZone, limit, cursor: item.cursor, includeOutsidePoints };
}
