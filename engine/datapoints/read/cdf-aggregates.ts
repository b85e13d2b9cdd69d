// CDF's aggregates (https://docs.cognite.com/dev/concepts/aggregation/) over the same bucket
// grid as SPEC's (aggregate-grid.ts): `count`, `sum`, `min`, `max` of the stored points in a
// bucket, from the rollups (datapoint-aggregate.ts); `average` (time-weighted), `interpolation`,
// `stepInterpolation`, `totalVariation`, `continuousVariance` and `discreteVariance` from pieces
// (cdf-pieces.ts): the CDF rollup columns of minute or hour rows where the grid is made of whole
// minutes or hours, raw points of dirty minutes, finer grids and MIXED series, and the neighbours
// of the page's buckets (cdf-piece-source.ts); rows of a series whose CDF columns the fold does
// not keep yet list it and leave the page to raw points. The rollup read also decides which buckets exist
// (those holding a point; CDF returns nothing for an empty range) and pages them, and a page
// whose pieces do not hold the points that read counted is computed again from raw points, so
// both halves answer the same buckets, exact under overwrites, late points and deletes.
//
// The series f between points is linear (continuous) or holds each value until the next point
// (`isStep`). At a bucket's edges a continuous series is interpolated to the point before or
// after only if that point is at most an hour from the bucket; a stepwise one uses the point
// before whatever its distance and holds its last value to the bucket's end. Where a continuous
// bucket has no usable neighbour, the integrals cover the span from its first to its last point
// and `average` and `continuousVariance` divide by that covered span (a single point: its value,
// variance 0); `totalVariation` then has no edge term on that side.
import { BadRequestError } from '../../errors.ts';
import type { ColumnarStore } from '../../stores/columnar.ts';
import { aggregateMany, aggregateRange } from './datapoint-aggregate.ts';
import { bucketEndOf } from './aggregate-grid.ts';
import { CDF_AGGREGATES, bucketFromPieces, type CdfAggregateBucket, type CdfAggregateName, type Piece, type Point } from './cdf-pieces.ts';
import { hasCdfRollups, listCdfSeries, numberOf, pointPieces, remarkIncomplete, rollupPieces, type PieceRun } from './cdf-piece-source.ts';
import type { ReadContextCache } from './read-context-cache.ts';
import type { AggregateName, SeriesRef } from '../types.ts';

export { CDF_AGGREGATES, type CdfAggregateBucket, type CdfAggregateName } from './cdf-pieces.ts';

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

export interface CdfAggregateResult {
  buckets: CdfAggregateBucket[];
  nextCursor?: string;
}

const FROM_ROLLUPS: Partial<Record<CdfAggregateName, AggregateName>> = { count: 'COUNT', sum: 'SUM', min: 'MIN', max: 'MAX' };

/** The first piece starting at or after ms. */
function lowerBound(pieces: readonly Piece[], ms: number): number {
  let lo = 0;
  let hi = pieces.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((pieces[mid] as Piece).firstTs < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The interpolating aggregates of each bucket [a, b) from the run's pieces, or undefined where
 * `counts` is given and a bucket's pieces do not hold as many points as the rollup read counted
 * (rows folded before the CDF rollup columns existed, or a write between the two reads).
 */
function bucketsOf(run: PieceRun, buckets: readonly { a: number; b: number; count?: number }[], isStep: boolean, wanted: ReadonlySet<CdfAggregateName>, checkCounts: boolean): CdfAggregateBucket[] | undefined {
  const { pieces } = run;
  const pointBefore = (i: number): Point | undefined => (i >= 0 ? { ts: (pieces[i] as Piece).lastTs, v: (pieces[i] as Piece).lastV } : run.before);
  const pointAfter = (i: number): Point | undefined => (i < pieces.length ? { ts: (pieces[i] as Piece).firstTs, v: (pieces[i] as Piece).firstV } : run.after);
  const out: CdfAggregateBucket[] = [];
  for (const { a, b, count } of buckets) {
    const from = lowerBound(pieces, a);
    const to = lowerBound(pieces, b) - 1;
    if (checkCounts) {
      let n = 0;
      for (let j = from; j <= to; j++) n += (pieces[j] as Piece).n;
      if (n !== count) return undefined;
    }
    out.push(from > to ? { timestamp: a } : bucketFromPieces(pieces, from, to, pointBefore(from - 1), pointAfter(to + 1), a, b, isStep, wanted));
  }
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
  const ranges = rollupRequests.map((request) => aggregateRange(request));
  const pages = await aggregateMany(store, tenant, rollupRequests, cache);
  return Promise.all(requests.map(async ({ series, options }, index) => {
    const page = pages[index];
    const range = ranges[index];
    if (!page || !range) return { buckets: [] };
    const wanted = new Set(options.aggregates);
    const buckets: CdfAggregateBucket[] = page.buckets.map((bucket) => {
      const out: CdfAggregateBucket = { timestamp: bucket.timestampMs };
      if (wanted.has('count')) out.count = bucket.count;
      if (wanted.has('sum') && bucket.sum !== undefined) out.sum = numberOf(series, bucket.sum);
      if (wanted.has('min') && bucket.min !== undefined) out.min = numberOf(series, bucket.min);
      if (wanted.has('max') && bucket.max !== undefined) out.max = numberOf(series, bucket.max);
      return out;
    });
    const interpolating = new Set([...wanted].filter((name) => FROM_ROLLUPS[name] === undefined));
    if (interpolating.size > 0 && page.buckets.length > 0) {
      const bounds = page.buckets.map((bucket) => ({ a: bucket.timestampMs, b: bucketEndOf(range.grid, bucket.timestampMs), count: bucket.count }));
      const [from, to] = [(bounds[0] as { a: number }).a, (bounds[bounds.length - 1] as { b: number }).b];
      // Rollup rows hold whole minutes or hours: grids of those (range.base) read them.
      const rollups = range.base > 0 && hasCdfRollups(series);
      // The first such read of a series lists it for the CDF columns (cdf-piece-source.ts).
      if (rollups) await listCdfSeries(store, tenant, series);
      const run = rollups ? await rollupPieces(store, tenant, series, range.base, from, to, cache) : undefined;
      // Rows still without them: marked for the fold again, and this page read raw.
      if (run?.complete === false) await remarkIncomplete(store, tenant, series, from, to);
      const fromRollups = run?.complete ? bucketsOf(run, bounds, options.isStep, interpolating, true) : undefined;
      const computed = fromRollups ?? bucketsOf(await pointPieces(store, tenant, series, from, to, cache), bounds, options.isStep, interpolating, false) ?? [];
      buckets.forEach((bucket, i) => Object.assign(bucket, computed[i]));
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
