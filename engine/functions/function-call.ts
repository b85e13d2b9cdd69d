// Calling functions on demand (POST /functions/call): each item names a function the caller
// may read and a window; its expression is evaluated over the window as the caller (who must
// read every input: an unreadable one is unknown, as on data point reads), and the points are
// answered in the data point answer's shape, a page at a time with a cursor.
import { BadRequestError, type Identifier } from '../errors.ts';
import type { Access } from '../grants/access.ts';
import { DATAPOINTS_LIMIT_DEFAULT, FUNCTION_CALL_POINTS_MAX, TIMESTAMP_MS_MAX } from '../limits.ts';
import { decodeCursor, encodeCursor } from '../datapoints/read/datapoint-cursor.ts';
import type { Queryable } from '../stores/queryable.ts';
import type { EvaluatedPoint, EvaluationRequest } from './evaluate.ts';
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
  granularity?: string;
  aggregates?: string[];
}

export interface FunctionCallResult {
  id: number;
  externalId: string;
  datapoints: EvaluatedPoint[];
  nextCursor?: string;
}

/** Evaluates expressions for a caller: the data point engine's evaluate (functions/evaluate.ts). */
export type Evaluate = (access: Access, requests: readonly EvaluationRequest[]) => Promise<EvaluatedPoint[][]>;

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
  items.forEach((item, i) => {
    if (item.granularity !== undefined || item.aggregates !== undefined) {
      throw new BadRequestError(`items[${i}]: granularity and aggregates are not evaluated over functions yet; call for the points and aggregate them`, [{ field: `items.${i}.aggregates`, index: i, message: 'not evaluated over functions yet' }]);
    }
  });
  const resolved = await lookupFunctions(db, access, items.map(({ id, externalId }) => ({ id, externalId })));
  const missing = resolved.filter((r) => !r.row).map((r) => r.identifier as Identifier);
  if (missing.length > 0 && !ignoreUnknownIds) throw missingFunctionsError(missing);
  const calls = items.flatMap((item, i) => {
    const row = resolved[i]?.row;
    if (!row) return [];
    const start = Math.max(item.start ?? 0, item.cursor === undefined ? -Infinity : decodeCursor(item.cursor, 'a'));
    const end = Math.min(item.end ?? nowMs, TIMESTAMP_MS_MAX + 1);
    // One point past the page tells whether another follows.
    return [{ row, limit: limits[i] as number, request: { expression: row.expression, start, end, limit: (limits[i] as number) + 1 } }];
  });
  const answers = await evaluate(access, calls.map((c) => c.request));
  return calls.map(({ row, limit }, k) => {
    const points = answers[k] as EvaluatedPoint[];
    const result: FunctionCallResult = { id: Number(row.id), externalId: row.external_id, datapoints: points.slice(0, limit) };
    if (points.length > limit) result.nextCursor = encodeCursor('a', (points[limit - 1] as EvaluatedPoint).timestamp + 1);
    return result;
  });
}
