// Aggregates over a function (POST /functions/call with `granularity` and `aggregates`): the
// function's points evaluated page by page over the buckets of the window and folded into
// them, in this process: count, sum, min, max and the average (sum / count) of the points in
// each bucket that have a value. Error points are left out; a bucket without values is
// absent, as on data point reads. Buckets are the data point reads' (aggregate-grid.ts: CDF's
// granularities, UTC), the first starting at `start` rounded down to the unit.
import { BadRequestError } from '../errors.ts';
import type { Access } from '../grants/access.ts';
import { FUNCTION_CALL_POINTS_MAX } from '../limits.ts';
import { bucketStartOf, requestGrid } from '../datapoints/read/aggregate-grid.ts';
import { EVALUATION_SECONDS_MAX, type Evaluate, type EvaluatedPoint } from './evaluate.ts';

/** The aggregates a function's buckets answer, in the order their columns come. */
export const FUNCTION_AGGREGATES = ['average', 'min', 'max', 'count', 'sum'] as const;
export type FunctionAggregate = (typeof FUNCTION_AGGREGATES)[number];

/** SPEC's names (AVG, MIN, MAX, COUNT, SUM) and CDF's (average, ...), in any case. */
const NAMES: Readonly<Record<string, FunctionAggregate>> = { avg: 'average', average: 'average', min: 'min', max: 'max', count: 'count', sum: 'sum' };

/** A bucket: its start and the aggregates asked for. */
export interface AggregatePoint {
  timestamp: number;
  average?: number;
  min?: number;
  max?: number;
  count?: number;
  sum?: number;
}

/** The aggregates an item names, or a 400 naming the first unknown one. */
export function functionAggregatesOf(names: readonly string[], field: string): FunctionAggregate[] {
  const known = names.map((name) => NAMES[name.toLowerCase()]);
  const unknown = names.find((_, i) => known[i] === undefined);
  if (unknown !== undefined || names.length === 0) {
    throw new BadRequestError(`${field}: ${unknown === undefined ? 'no aggregate named' : `unknown aggregate ${JSON.stringify(unknown)}`}; one or more of AVG, MIN, MAX, COUNT, SUM`, [{ field, message: 'one or more of AVG, MIN, MAX, COUNT, SUM', ...(unknown !== undefined ? { value: unknown } : {}) }]);
  }
  return FUNCTION_AGGREGATES.filter((a) => known.includes(a));
}

interface Bucket { start: number; count: number; sum: number; min: number; max: number }

/**
 * The first `limit` buckets with values of `expression` over [start, end) at `granularity`,
 * and where the next page starts when more follow. The evaluation of the window's points runs
 * at most EVALUATION_SECONDS_MAX in all.
 */
export async function aggregateFunction(
  access: Access, evaluate: Evaluate,
  request: { expression: string; start: number; end: number; limit: number; granularity: string; aggregates: readonly FunctionAggregate[]; from?: number },
  field: string,
): Promise<{ datapoints: AggregatePoint[]; nextStart?: number }> {
  const grid = requestGrid(request.granularity, undefined, request.start, request.end, request.from);
  if (!grid) return { datapoints: [] };
  // Points from the first bucket's start (before `start` when it is rounded down) up to `end`, exclusive.
  const end = Math.min(grid.end, request.end);
  const buckets: Bucket[] = [];
  const deadline = Date.now() + EVALUATION_SECONDS_MAX * 1000;
  let nextStart: number | undefined;
  for (let from = grid.start; from < end && nextStart === undefined;) {
    if (Date.now() > deadline) {
      throw new BadRequestError(`${field}: the aggregates took longer than ${EVALUATION_SECONDS_MAX} s to evaluate; narrow [start, end), coarsen the granularity or lower limit`, [{ field, message: `over ${EVALUATION_SECONDS_MAX} s` }]);
    }
    const [page = []] = await evaluate(access, [{ expression: request.expression, start: from, end, limit: FUNCTION_CALL_POINTS_MAX }]);
    for (const point of page) {
      if (!('value' in point)) continue;
      const start = bucketStartOf(grid, point.timestamp);
      let bucket = buckets[buckets.length - 1];
      if (!bucket || bucket.start !== start) {
        if (buckets.length === request.limit) {
          nextStart = start;
          break;
        }
        bucket = { start, count: 0, sum: 0, min: Infinity, max: -Infinity };
        buckets.push(bucket);
      }
      bucket.count++;
      bucket.sum += point.value;
      bucket.min = Math.min(bucket.min, point.value);
      bucket.max = Math.max(bucket.max, point.value);
    }
    if (page.length < FUNCTION_CALL_POINTS_MAX) break;
    from = (page[page.length - 1] as EvaluatedPoint).timestamp + 1;
  }
  const datapoints = buckets.map((b) => {
    const point: AggregatePoint = { timestamp: b.start };
    for (const name of request.aggregates) point[name] = name === 'average' ? b.sum / b.count : b[name];
    return point;
  });
  return nextStart === undefined ? { datapoints } : { datapoints, nextStart };
}
