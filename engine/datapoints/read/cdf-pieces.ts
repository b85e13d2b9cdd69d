// CDF's interpolating aggregates (https://docs.cognite.com/dev/concepts/aggregation/) of one
// bucket, from pieces: a piece sums up a run of consecutive live points (one point, or the
// points of a minute or an hour as the CDF rollup columns keep them), so a bucket is computed
// the same way from raw points and from rollup rows. Within a piece the series f is linear
// between points (or holds each value until the next, for a stepwise series); between pieces
// and at the bucket's edges the combination below adds the segments joining them.
//
// Moments combine pairwise (Chan, Golub, LeVeque: "Algorithms for computing the sample
// variance", 1983): each part carries its size, its sum and its squared deviations from its
// own mean, so no sum of large squares is ever subtracted (a 1000.0 ± 0.01 sensor keeps its
// variance's digits).

/** CDF's aggregate names (cdf-aggregates.ts serves them). */
export const CDF_AGGREGATES = [
  'average', 'max', 'min', 'count', 'sum', 'interpolation', 'stepInterpolation', 'totalVariation', 'continuousVariance', 'discreteVariance',
] as const;
export type CdfAggregateName = (typeof CDF_AGGREGATES)[number];

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

/** A run of consecutive live points of one series, first to last, as the CDF rollups keep it. */
export interface Piece {
  firstTs: number;
  lastTs: number;
  firstV: number;
  lastV: number;
  /** Points, their sum, and their squared deviations from sum / n (discreteVariance). */
  n: number;
  sum: number;
  m2: number;
  /** ∫f over [firstTs, lastTs] (value x ms) for f linear between points, and ∫(f - mean)². */
  linInt: number;
  linM2: number;
  /** The same for f holding each value until the next point. */
  stepInt: number;
  stepM2: number;
  /** Σ |v(i+1) - v(i)| over consecutive points. */
  tv: number;
}

/** A point as a piece of its own. */
export function pointPiece(ts: number, v: number): Piece {
  return { firstTs: ts, lastTs: ts, firstV: v, lastV: v, n: 1, sum: v, m2: 0, linInt: 0, linM2: 0, stepInt: 0, stepM2: 0, tv: 0 };
}

/** A point of the series, as a neighbour of a bucket. */
export interface Point { ts: number; v: number }

/** Edge points of a continuous series further than this from the bucket are not interpolated to. */
export const NEIGHBOUR_MS_MAX = 3_600_000;

/** Length, integral and squared deviations of a function over a span. */
interface Moments { length: number; integral: number; m2: number }

function addMoments(into: Moments, length: number, integral: number, m2: number): void {
  if (length <= 0) return;
  if (into.length > 0) {
    const delta = integral / length - into.integral / into.length;
    into.m2 += m2 + (delta * delta * into.length * length) / (into.length + length);
  } else {
    into.m2 += m2;
  }
  into.length += length;
  into.integral += integral;
}

/** The segment from (x0, y0) to (x1, y1): linear, or holding y0 when step. */
function addSegment(into: Moments, x0: number, y0: number, x1: number, y1: number, step: boolean): void {
  const d = x1 - x0;
  if (step) addMoments(into, d, d * y0, 0);
  else addMoments(into, d, (d * (y0 + y1)) / 2, (d * (y1 - y0) * (y1 - y0)) / 12);
}

const lerp = (x0: number, y0: number, x1: number, y1: number, x: number) => (x1 === x0 ? y0 : y0 + ((y1 - y0) * (x - x0)) / (x1 - x0));

/**
 * The interpolating aggregates of the bucket [a, b) holding pieces[from..to] (at least one, in
 * time order, all inside the bucket), `before` the last point before the bucket and `after` the
 * first at or after its end. At the edges a continuous series is interpolated to a neighbour
 * only if it is at most NEIGHBOUR_MS_MAX away; a stepwise one uses the point before whatever its
 * distance and holds its last value to the bucket's end. Without a usable neighbour the
 * integrals cover the span from the first to the last point, and `average` and
 * `continuousVariance` divide by that span (a single point: its value, variance 0).
 */
export function bucketFromPieces(
  pieces: readonly Piece[], from: number, to: number, before: Point | undefined, after: Point | undefined,
  a: number, b: number, isStep: boolean, wanted: ReadonlySet<CdfAggregateName>,
): CdfAggregateBucket {
  const out: CdfAggregateBucket = { timestamp: a };
  const first = pieces[from] as Piece;
  const last = pieces[to] as Piece;
  if (wanted.has('discreteVariance')) {
    let [n, sum, m2] = [0, 0, 0];
    for (let j = from; j <= to; j++) {
      const p = pieces[j] as Piece;
      if (n > 0) {
        const delta = p.sum / p.n - sum / n;
        m2 += p.m2 + (delta * delta * n * p.n) / (n + p.n);
      } else {
        m2 = p.m2;
      }
      [n, sum] = [n + p.n, sum + p.sum];
    }
    out.discreteVariance = m2 / n;
  }
  // The value at the bucket's start, stepwise and interpolated.
  const stepAt = first.firstTs === a ? first.firstV : before?.v;
  const usableBefore = before !== undefined && (isStep || a - before.ts <= NEIGHBOUR_MS_MAX) ? before : undefined;
  const linearAt = first.firstTs === a ? first.firstV : usableBefore !== undefined ? lerp(usableBefore.ts, usableBefore.v, first.firstTs, first.firstV, a) : undefined;
  if (wanted.has('stepInterpolation') && stepAt !== undefined) out.stepInterpolation = stepAt;
  const interpolation = isStep ? stepAt : linearAt;
  if (wanted.has('interpolation') && interpolation !== undefined) out.interpolation = interpolation;
  if (!wanted.has('average') && !wanted.has('continuousVariance') && !wanted.has('totalVariation')) return out;
  const f: Moments = { length: 0, integral: 0, m2: 0 };
  let variation = 0;
  const edgeAt = isStep ? stepAt : linearAt;
  if (edgeAt !== undefined && first.firstTs > a) {
    addSegment(f, a, edgeAt, first.firstTs, first.firstV, isStep);
    variation += Math.abs(first.firstV - edgeAt);
  }
  for (let j = from; j <= to; j++) {
    const p = pieces[j] as Piece;
    if (j > from) {
      const q = pieces[j - 1] as Piece;
      addSegment(f, q.lastTs, q.lastV, p.firstTs, p.firstV, isStep);
      variation += Math.abs(p.firstV - q.lastV);
    }
    addMoments(f, p.lastTs - p.firstTs, isStep ? p.stepInt : p.linInt, isStep ? p.stepM2 : p.linM2);
    variation += p.tv;
  }
  // Stepwise, f at the bucket's end is the last value held (no jump counted there).
  if (isStep) {
    addSegment(f, last.lastTs, last.lastV, b, last.lastV, true);
  } else if (after !== undefined && after.ts - b <= NEIGHBOUR_MS_MAX) {
    const atEnd = lerp(last.lastTs, last.lastV, after.ts, after.v, b);
    addSegment(f, last.lastTs, last.lastV, b, atEnd, false);
    variation += Math.abs(atEnd - last.lastV);
  }
  const mean = f.length > 0 ? f.integral / f.length : first.firstV;
  if (wanted.has('average')) out.average = mean;
  if (wanted.has('continuousVariance')) out.continuousVariance = f.length > 0 ? f.m2 / f.length : 0;
  if (wanted.has('totalVariation')) out.totalVariation = variation;
  return out;
}
