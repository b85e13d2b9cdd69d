// CDF's aggregates (https://docs.cognite.com/dev/concepts/aggregation/) over the same bucket
// grid as SPEC's (aggregate-grid.ts): `count`, `sum`, `min`, `max` of the stored points in a
// bucket, from the rollups (datapoint-aggregate.ts); `average` (time-weighted), `interpolation`,
// `stepInterpolation`, `totalVariation`, `continuousVariance` and `discreteVariance` from the
// live raw points of the page's buckets and their neighbours. The rollup read also decides which
// buckets exist (those holding a point; CDF returns nothing for an empty range) and pages them,
// so both halves answer the same buckets, exact under overwrites, late points and deletes.
//
// The series f between points is linear (continuous) or holds each value until the next point
// (`isStep`). At a bucket's edges a continuous series is interpolated to the point before or
// after only if that point is at most an hour from the bucket; a stepwise one uses the point
// before whatever its distance and holds its last value to the bucket's end. Where a continuous
// bucket has no usable neighbour, the integrals cover the span from its first to its last point
// and `average` and `continuousVariance` divide by that covered span (a single point: its value,
// variance 0); `totalVariation` then has no edge term on that side.
import { BadRequestError } from '../../errors.ts';
import { DATAPOINTS_LIMIT_MAX, TIMESTAMP_MS_MAX } from '../../limits.ts';
import type { ColumnarStore } from '../../stores/columnar.ts';
import { aggregateMany, aggregateRange } from './datapoint-aggregate.ts';
import { bucketEndOf } from './aggregate-grid.ts';
import { formatDatapointValue } from './datapoint-format.ts';
import { readRaw } from './datapoint-read.ts';
import type { ReadContextCache } from './read-context-cache.ts';
import type { AggregateName, SeriesPoints, SeriesRef } from '../types.ts';

export const CDF_AGGREGATES = [
  'average', 'max', 'min', 'count', 'sum', 'interpolation', 'stepInterpolation', 'totalVariation', 'continuousVariance', 'discreteVariance',
] as const;
export type CdfAggregateName = (typeof CDF_AGGREGATES)[number];

export interface CdfAggregateOptions {
  /** Epoch ms, inclusive; rounded down to the granularity's unit (in the zone for hours and longer). */
  start: number;
  /** Epoch ms, exclusive: the last bucket is the one holding end - 1. */
  end: number;
  /** A CDF granularity (`15m`, `2h`, `1d`, `1w`, `1mo`, ...: aggregate-grid.ts). */
  granularity: string;
  /** An IANA name or fixed offset (time-zone.ts); UTC when omitted. */
  timeZone?: string;
  aggregates: readonly CdfAggregateName[];
  /** Whether the series holds each value until the next point (else linear between points). */
  isStep: boolean;
  /** Buckets per page, 1 to AGGREGATES_LIMIT_MAX. */
  limit: number;
  cursor?: string;
}

/** One bucket with CDF's field names; only the requested aggregates, each where defined. */
export interface CdfAggregateBucket {
  timestamp: number;
  average?: number;
  max?: number;
  min?: number;
  count?: number;
  sum?: number;
  interpolation?: number;
  stepInterpolation?: number;
  totalVariation?: number;
  continuousVariance?: number;
  discreteVariance?: number;
}

export interface CdfAggregateResult {
  buckets: CdfAggregateBucket[];
  nextCursor?: string;
}

const FROM_ROLLUPS: Partial<Record<CdfAggregateName, AggregateName>> = { count: 'COUNT', sum: 'SUM', min: 'MIN', max: 'MAX' };
/** Edge points of a continuous series further than this from the bucket are not interpolated to. */
const NEIGHBOUR_MS_MAX = 3_600_000;

function numberOf(series: SeriesRef, value: number | bigint): number {
  return typeof value === 'number' ? value : Number(formatDatapointValue(series.valueType, value));
}

/** Live numeric points of one series as parallel arrays (MIXED: its numeric points). */
interface Points { ts: number[]; v: number[] }

function appendPoints(into: Points, series: SeriesRef, page: SeriesPoints): void {
  for (let i = 0; i < page.timestampMs.length; i++) {
    if (page.isText?.[i]) continue;
    const value = page.float?.[i] ?? page.bigint?.[i] ?? page.scaled?.[i];
    if (value === undefined) continue;
    into.ts.push(page.timestampMs[i] as number);
    into.v.push(numberOf(series, value));
  }
}

/** The points of [from, to) with the last one before and the first one at or after, ascending. */
async function pointsAround(store: ColumnarStore, tenant: string, series: SeriesRef, from: number, to: number, cache?: ReadContextCache): Promise<Points> {
  const points: Points = { ts: [], v: [] };
  const previous = await readRaw(store, tenant, series, { end: from, limit: 1 }, cache);
  appendPoints(points, series, previous.points);
  let cursor: string | undefined;
  do {
    const page = await readRaw(store, tenant, series, { start: from, end: to, limit: DATAPOINTS_LIMIT_MAX, cursor }, cache);
    appendPoints(points, series, page.points);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  if (to <= TIMESTAMP_MS_MAX) appendPoints(points, series, (await readRaw(store, tenant, series, { start: to, limit: 1 }, cache)).points);
  return points;
}

/** The first index with ts >= ms. */
function lowerBound(ts: readonly number[], ms: number): number {
  let lo = 0;
  let hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((ts[mid] as number) < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const lerp = (x0: number, y0: number, x1: number, y1: number, x: number) => (x1 === x0 ? y0 : y0 + ((y1 - y0) * (x - x0)) / (x1 - x0));

/** The raw-point aggregates of the bucket [a, b) holding points first..last (indexes into p). */
function rawAggregates(p: Points, a: number, b: number, isStep: boolean, wanted: ReadonlySet<CdfAggregateName>): CdfAggregateBucket {
  const out: CdfAggregateBucket = { timestamp: a };
  const first = lowerBound(p.ts, a);
  const last = lowerBound(p.ts, b) - 1;
  const prev = first - 1 >= 0 ? first - 1 : undefined;
  const next = last + 1 < p.ts.length ? last + 1 : undefined;
  const t = (i: number) => p.ts[i] as number;
  const v = (i: number) => p.v[i] as number;
  if (wanted.has('discreteVariance')) {
    // Two passes (the mean, then squared deviations): no cancellation of large squares.
    const n = last - first + 1;
    let sum = 0;
    for (let i = first; i <= last; i++) sum += v(i);
    const mean = sum / n;
    let deviations = 0;
    for (let i = first; i <= last; i++) deviations += (v(i) - mean) ** 2;
    out.discreteVariance = deviations / n;
  }
  // The value at the bucket's start, stepwise and interpolated.
  const stepAt = t(first) === a ? v(first) : prev !== undefined ? v(prev) : undefined;
  const usablePrev = prev !== undefined && (isStep || a - t(prev) <= NEIGHBOUR_MS_MAX) ? prev : undefined;
  const linearAt = t(first) === a ? v(first) : usablePrev !== undefined ? lerp(t(usablePrev), v(usablePrev), t(first), v(first), a) : undefined;
  if (wanted.has('stepInterpolation') && stepAt !== undefined) out.stepInterpolation = stepAt;
  const interpolation = isStep ? stepAt : linearAt;
  if (wanted.has('interpolation') && interpolation !== undefined) out.interpolation = interpolation;
  if (!wanted.has('average') && !wanted.has('continuousVariance') && !wanted.has('totalVariation')) return out;
  // f as its breakpoints over the covered span: edges where a neighbour may be used.
  const xs: number[] = [];
  const ys: number[] = [];
  if (isStep) {
    if (stepAt !== undefined && t(first) > a) [xs[0], ys[0]] = [a, stepAt];
  } else if (linearAt !== undefined && t(first) > a) {
    [xs[0], ys[0]] = [a, linearAt];
  }
  for (let i = first; i <= last; i++) [xs[xs.length], ys[ys.length]] = [t(i), v(i)];
  if (isStep) {
    [xs[xs.length], ys[ys.length]] = [b, v(last)];
  } else if (next !== undefined && t(next) - b <= NEIGHBOUR_MS_MAX) {
    [xs[xs.length], ys[ys.length]] = [b, lerp(t(last), v(last), t(next), v(next), b)];
  }
  let [integral, variation] = [0, 0];
  for (let k = 0; k + 1 < xs.length; k++) {
    const [x0, y0, x1, y1] = [xs[k] as number, ys[k] as number, xs[k + 1] as number, ys[k + 1] as number];
    integral += isStep ? (x1 - x0) * y0 : ((x1 - x0) * (y0 + y1)) / 2;
    // Stepwise, f at the bucket's end is the last value held (no jump counted there).
    variation += Math.abs(y1 - y0);
  }
  const span = (xs[xs.length - 1] as number) - (xs[0] as number);
  const mean = span > 0 ? integral / span : (ys[0] as number);
  if (wanted.has('average')) out.average = mean;
  if (wanted.has('continuousVariance')) {
    // (1/L)∫f² − ((1/L)∫f)² as (1/L)∫(f − mean)²: the same value without cancelling large squares.
    let deviations = 0;
    for (let k = 0; k + 1 < xs.length; k++) {
      const [p, q] = [(ys[k] as number) - mean, (isStep ? (ys[k] as number) : (ys[k + 1] as number)) - mean];
      deviations += ((xs[k + 1] as number) - (xs[k] as number)) * (p * p + p * q + q * q) / 3;
    }
    out.continuousVariance = span > 0 ? deviations / span : 0;
  }
  if (wanted.has('totalVariation')) out.totalVariation = variation;
  return out;
}

export interface CdfAggregateRequest {
  series: SeriesRef;
  options: CdfAggregateOptions;
}

function validate({ series, options }: CdfAggregateRequest): void {
  if (series.valueType === 'TEXT') {
    throw new BadRequestError('string time series cannot be aggregated', [{ field: 'aggregates', message: 'needs a numeric time series', value: [...options.aggregates] }]);
  }
  const unknown = options.aggregates.filter((name) => !(CDF_AGGREGATES as readonly string[]).includes(name));
  if (unknown.length > 0) throw new BadRequestError(`unknown aggregates: ${unknown.join(', ')}`, [{ field: 'aggregates', message: 'not a CDF aggregate', value: unknown }]);
}

/**
 * CDF's aggregates of several numeric series, in request order: the rollup halves of all of
 * them in the statements SPEC's aggregate reads share (items alike: one statement), then the
 * raw halves per series. Throws BadRequestError for a bad granularity, time zone or limit and
 * for a TEXT series (CDF aggregates numeric series only).
 */
export async function cdfAggregateMany(
  store: ColumnarStore, tenant: string, requests: readonly CdfAggregateRequest[], cache?: ReadContextCache,
): Promise<CdfAggregateResult[]> {
  requests.forEach(validate);
  const rollupRequests = requests.map(({ series, options }) => {
    // COUNT always: it tells which buckets hold a point.
    const names = new Set<AggregateName>(['COUNT', ...options.aggregates.flatMap((name) => FROM_ROLLUPS[name] ?? [])]);
    return { series, options: { start: options.start, end: options.end, granularity: options.granularity, timeZone: options.timeZone, aggregates: [...names], limit: options.limit, cursor: options.cursor } };
  });
  const grids = rollupRequests.map((request) => aggregateRange(request)?.grid);
  const pages = await aggregateMany(store, tenant, rollupRequests, cache);
  return Promise.all(requests.map(async ({ series, options }, index) => {
    const page = pages[index];
    const grid = grids[index];
    if (!page || !grid) return { buckets: [] };
    const wanted = new Set(options.aggregates);
    const buckets: CdfAggregateBucket[] = page.buckets.map((bucket) => {
      const out: CdfAggregateBucket = { timestamp: bucket.timestampMs };
      if (wanted.has('count')) out.count = bucket.count;
      if (wanted.has('sum') && bucket.sum !== undefined) out.sum = numberOf(series, bucket.sum);
      if (wanted.has('min') && bucket.min !== undefined) out.min = numberOf(series, bucket.min);
      if (wanted.has('max') && bucket.max !== undefined) out.max = numberOf(series, bucket.max);
      return out;
    });
    const rawWanted = new Set([...wanted].filter((name) => FROM_ROLLUPS[name] === undefined));
    const first = buckets[0];
    const last = buckets[buckets.length - 1];
    if (rawWanted.size > 0 && first && last) {
      const points = await pointsAround(store, tenant, series, first.timestamp, bucketEndOf(grid, last.timestamp), cache);
      for (const bucket of buckets) Object.assign(bucket, rawAggregates(points, bucket.timestamp, bucketEndOf(grid, bucket.timestamp), options.isStep, rawWanted));
    }
    return page.nextCursor === undefined ? { buckets } : { buckets, nextCursor: page.nextCursor };
  }));
}

export async function cdfAggregate(
  store: ColumnarStore, tenant: string, series: SeriesRef, options: CdfAggregateOptions, cache?: ReadContextCache,
): Promise<CdfAggregateResult> {
  return (await cdfAggregateMany(store, tenant, [{ series, options }], cache))[0] as CdfAggregateResult;
}

/** Numbers as JSON writes them; non-finite ones (never produced from finite points) as null. */
const json = (value: number) => (Number.isFinite(value) ? String(value) : 'null');

/**
 * The `datapoints` array of a CDF aggregate answer as JSON text (`[{"timestamp":..,"average":..},..]`),
 * the requested fields in `aggregates` order, values as JSON numbers.
 */
export function cdfAggregateDatapointsJson(buckets: readonly CdfAggregateBucket[], aggregates: readonly CdfAggregateName[]): string {
  const names = [...new Set(aggregates)];
  const keys = names.map((name) => `,"${name}":`);
  let out = '[';
  for (let i = 0; i < buckets.length; i++) {
    const bucket = buckets[i] as CdfAggregateBucket;
    out += `${i > 0 ? ',' : ''}{"timestamp":${bucket.timestamp}`;
    for (let k = 0; k < names.length; k++) {
      const value = bucket[names[k] as CdfAggregateName];
      if (value !== undefined) out += `${keys[k]}${json(value)}`;
    }
    out += '}';
  }
  return `${out}]`;
}
