// Calling functions on demand (POST /functions/call): each item names a function the caller
// may read and a window; its expression is evaluated over the window as the caller (who must
// read every input: an unreadable one is unknown, as on data point reads), and the points are
// answered in the data point answer's shape, a page at a time with a cursor.
import { BadRequestError, type Identifier } from '../errors.ts';
import type { Access } from '../grants/access.ts';
import { DATAPOINTS_LIMIT_DEFAULT, FUNCTION_CALL_POINTS_MAX, TIMESTAMP_MS_MAX } from '../limits.ts';
import { decodeCursor, encodeCursor } from '../datapoints/read/datapoint-cursor.ts';
import type { Queryable } from '../stores/queryable.ts';
import type { Evaluate, EvaluatedPoint } from './evaluate.ts';
import { aggregateFunction, functionAggregatesOf, type AggregatePoint } from './function-aggregate.ts';
import { lookupFunctions, missingFunctionsError } from './function-read.ts';

export interface FunctionCallItem extends Identifier {
  /** Inclusive, epoch ms. @default 0 */
  start?: number;
  /** Exclusive, epoch ms. @default the call's time */
  end?: number;
  /** Points of this item's page. @default DATAPOINTS_LIMIT_DEFAULT */
  limit?: number;
  /** An earlier page's nextCursor: the page after it. */
  cursor?: string;
  /** With `aggregates`: buckets of the function's points (function-aggregate.ts) instead of the points. */
  granularity?: string;
  aggregates?: string[];
}

export interface FunctionCallResult {
  id: number;
  externalId: string;
  /** The points, or with `aggregates` the buckets. */
  datapoints: EvaluatedPoint[] | AggregatePoint[];
  nextCursor?: string;
}

export type { Evaluate } from './evaluate.ts';

/**
 * One result per item, in request order (an item naming a missing function is left out with
 * `ignoreUnknownIds`, else the call is a 404 listing every miss). The items' limits together
 * are at most FUNCTION_CALL_POINTS_MAX.
 */
export async function callFunctions(db: Queryable, access: Access, items: readonly FunctionCallItem[], ignoreUnknownIds: boolean, evaluate: Evaluate, nowMs: number): Promise<FunctionCallResult[]> {
  const limits = items.map((item) => item.limit ?? DATAPOINTS_LIMIT_DEFAULT);
  const total = limits.reduce((sum, limit) => sum + limit, 0);
  if (total > FUNCTION_CALL_POINTS_MAX) {
    throw new BadRequestError(`The items ask for ${total} points together; at most ${FUNCTION_CALL_POINTS_MAX} per call (page with nextCursor).`, [{ field: 'items', message: `limits sum to at most ${FUNCTION_CALL_POINTS_MAX}` }]);
  }
  // SPEC's rule for data point reads: granularity and aggregates come together.
  const aggregatesOf = items.map((item, i) => {
    if ((item.granularity === undefined) !== (item.aggregates === undefined)) {
      throw new BadRequestError(`items[${i}]: granularity and aggregates go together`, [{ field: `items.${i}.${item.granularity === undefined ? 'granularity' : 'aggregates'}`, index: i, message: 'granularity and aggregates go together' }]);
    }
    return item.aggregates === undefined ? undefined : functionAggregatesOf(item.aggregates, `items.${i}.aggregates`);
  });
  const resolved = await lookupFunctions(db, access, items.map(({ id, externalId }) => ({ id, externalId })));
  const missing = resolved.filter((r) => !r.row).map((r) => r.identifier as Identifier);
  if (missing.length > 0 && !ignoreUnknownIds) throw missingFunctionsError(missing);
  const calls = items.flatMap((item, i) => {
    const row = resolved[i]?.row;
    if (!row) return [];
    const start = Math.max(item.start ?? 0, item.cursor === undefined ? -Infinity : decodeCursor(item.cursor, 'a'));
    const end = Math.min(item.end ?? nowMs, TIMESTAMP_MS_MAX + 1);
    return [{ row, index: i, start, end, limit: limits[i] as number }];
  });
  const raw = calls.filter((c) => aggregatesOf[c.index] === undefined);
  // One point past the page tells whether another follows.
  const answers = await evaluate(access, raw.map((c) => ({ expression: c.row.expression, start: c.start, end: c.end, limit: c.limit + 1 })));
  const rawAnswers = new Map(raw.map((c, k) => [c.index, answers[k] as EvaluatedPoint[]]));
  return Promise.all(calls.map(async ({ row, index, start, end, limit }) => {
    const result: FunctionCallResult = { id: Number(row.id), externalId: row.external_id, datapoints: [] };
    const aggregates = aggregatesOf[index];
    if (aggregates) {
      const item = items[index] as FunctionCallItem;
      // A cursor names the first bucket of the next page; the grid still starts where `start` puts it.
      const from = item.cursor === undefined ? undefined : start;
      const page = await aggregateFunction(access, evaluate, { expression: row.expression, start: item.start ?? 0, end, limit, granularity: item.granularity as string, aggregates, ...(from !== undefined ? { from } : {}) }, `items[${index}]`);
      result.datapoints = page.datapoints;
      if (page.nextStart !== undefined) result.nextCursor = encodeCursor('a', page.nextStart);
      return result;
    }
    const points = rawAnswers.get(index) as EvaluatedPoint[];
    result.datapoints = points.slice(0, limit);
    if (points.length > limit) result.nextCursor = encodeCursor('a', (points[limit - 1] as EvaluatedPoint).timestamp + 1);
    return result;
  }));
}
