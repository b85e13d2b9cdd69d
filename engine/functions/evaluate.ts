// Evaluating an expression over the points of the series it names, in [start, end): the use
// case behind POST /timeseries/synthetic/query and POST /functions/call. The expression is
// parsed and checked (expression.ts), its inputs resolved in read mode (an unreadable series is
// unknown, as on every read), their acknowledged points made readable as a list read makes them
// (taken from the ingest log's memory, or waited for), aggregate inputs computed by CDF's
// aggregate read (aggregate-inputs.ts), and each page of the answer computed by one statement
// (synthetic.sql.ts) that reads a page's worth of every input. Points where the expression has
// no finite value (a division by zero, an argument outside a function's domain, an overflow)
// come back as errors, as CDF's do.
import { BadRequestError } from '../errors.ts';
import type { Access } from '../grants/access.ts';
import { bindTombstones, contextsOf } from '../datapoints/read/datapoint-read-context.ts';
import { bindQueued } from '../datapoints/read/queued-rows.ts';
import type { ListDatapointsDeps, ReadTarget } from '../datapoints/read/list-datapoints.ts';
import { FAMILY_SHAPES, familyOf } from '../datapoints/tables/families.ts';
import { unknownSeriesError } from '../datapoints/unknown-series.ts';
import { resolveSeriesTargets } from '../meta/series-targets.ts';
import type { QueryParams } from '../stores/columnar-params.ts';
import { aggregateColumns } from './aggregate-inputs.ts';
import { parseExpression, type InputRef } from './expression.ts';
import { boundParams, boundsSql, completeParam, CompileError, QUEUED_PARTS, queuedParamOf, syntheticSql, type StatementInput } from './synthetic.sql.ts';

/** One evaluation: an expression over [start, end), its first `limit` points. */
export interface EvaluationRequest {
  expression: string;
  start: number;
  end: number;
  limit: number;
}

/** Evaluates expressions for a caller, each request's points in request order: the data point engine's evaluate (bound to evaluateExpression). */
export type Evaluate = (access: Access, requests: readonly EvaluationRequest[]) => Promise<EvaluatedPoint[][]>;

/** A point of an evaluation: a value, or why the expression has none at that timestamp. */
export type EvaluatedPoint = { timestamp: number; value: number } | { timestamp: number; error: string };

export const POINT_ERROR = 'the expression has no finite value here (a division by zero, an argument outside a function\'s domain, or an overflow)';

/** The time one evaluation may run in the engine before it is stopped and refused. */
export const EVALUATION_SECONDS_MAX = 10;

/**
 * Evaluates `request` for `access`'s tenant. `field` names the request's item in errors
 * (`items[2]`). Throws BadRequestError for an expression that does not parse or cannot be
 * evaluated (naming the character offset), NotFoundError for inputs that are missing or
 * unreadable.
 */
export async function evaluateExpression(access: Access, request: EvaluationRequest, field: string, deps: ListDatapointsDeps): Promise<EvaluatedPoint[]> {
  const parsed = parseExpression(request.expression);
  if (!parsed.ok) throw expressionError(field, parsed.position, parsed.message);
  parsed.inputs.forEach((input) => {
    if (input.alignment !== undefined && input.alignment !== 0) {
      throw expressionError(field, request.expression.search(/alignment/i), 'alignment other than 0 is not evaluated by this service yet; buckets start at whole granularities (in UTC)');
    }
  });
  const identifiers = parsed.inputs.map((input) => (input.id !== undefined ? { id: input.id } : { externalId: input.externalId as string }));
  const { targets, missing } = await resolveSeriesTargets(deps.series, access, identifiers, 'read');
  if (missing.length > 0) throw unknownSeriesError(missing, `${field}: unknown time series in the expression`);
  const read = await readable(access.tenant, targets as ReadTarget[], deps);
  const contexts = await contextsOf(deps.store.columnar, access.tenant, read.map((t) => t.seriesId), deps.store.contexts);
  const tombstones = bindTombstones(contexts.values());
  const params: Record<string, QueryParams[string]> = { tenant: access.tenant, end: request.end, ...tombstones.params };
  const inputs: StatementInput[] = await Promise.all(read.map(async (target, k) => {
    const ref = parsed.inputs[k] as InputRef;
    const family = familyOf(target.valueType);
    if (ref.aggregate !== undefined) {
      const aggregate = await aggregateColumns(deps.store, access.tenant, target, ref, request.start, request.end, field);
      params[`agg_${k}`] = aggregate.source;
      return { shape: FAMILY_SHAPES[family], step: aggregate.step, text: false, queued: false, columns: `agg_${k}` };
    }
    params[`s${k}`] = target.seriesId;
    // One copy of its queued points, bound under each of its reads' names.
    const bound = bindQueued(access.tenant, family, [target], queuedParamOf(k, 'within'));
    Object.assign(params, bound.params);
    if (bound.queued) for (const part of QUEUED_PARTS) params[queuedParamOf(k, part)] = bound.params[queuedParamOf(k, 'within')] as QueryParams[string];
    return { shape: FAMILY_SHAPES[family], step: target.isStep === true, text: family === 'text', queued: bound.queued };
  }));
  let sql: string;
  try {
    sql = `${syntheticSql(parsed.expression, inputs, tombstones.form)}\nSETTINGS max_execution_time = ${EVALUATION_SECONDS_MAX}, join_use_nulls = 1`;
  } catch (error) {
    if (error instanceof CompileError) throw expressionError(field, error.position, error.message);
    throw error;
  }
  // Each statement answers the timestamps up to its cut; the next one goes on from there
  // until the page holds `limit` points or the window is done.
  const bounds = boundsSql(inputs, tombstones.form);
  const points: EvaluatedPoint[] = [];
  const deadline = Date.now() + EVALUATION_SECONDS_MAX * 1000;
  for (let start = request.start; start < request.end && points.length < request.limit;) {
    if (Date.now() > deadline) throw tooLong(field);
    const take = request.limit - points.length;
    const page = { ...params, start, take, ...await boundsOf(deps, bounds, inputs.length, { ...params, start, skip: take - 1 }, request.end) };
    const table = await deps.store.columnar.queryArrow(sql, page)
      .catch((error: unknown) => {
        throw /TIMEOUT_EXCEEDED|Timeout exceeded/i.test(String((error as Error)?.message)) ? tooLong(field) : error;
      });
    const times = table.getChild('ts_ms')?.toArray() as Float64Array | undefined;
    const values = table.getChild('value');
    const defined = table.getChild('defined')?.toArray() as Uint8Array | undefined;
    for (let i = 0; i < table.numRows && points.length < request.limit; i++) {
      if (defined?.[i] !== 1) continue;
      const timestamp = times?.[i] as number;
      const value = values?.get(i) as number | null;
      points.push(value === null ? { timestamp, error: POINT_ERROR } : { timestamp, value });
    }
    if (table.numRows === 0) break;
    start = table.getChild('cut_ms')?.get(0) as number;
  }
  return points;
}

/** Reads below every timestamp (and above) where an input has no bound. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/**
 * The bound params of every input for a page from `values.start` (boundsSql): found bounds
 * where the statement gives them, the widest otherwise; an input's page is complete up to its
 * {take}-th stored row's next ms, else to {end}.
 */
async function boundsOf(deps: ListDatapointsDeps, sql: string | undefined, inputCount: number, values: QueryParams, end: number): Promise<Record<string, number>> {
  const found = sql === undefined ? [] : await deps.store.columnar.query<{ k: number; side: number; ts: number }>(sql, values);
  const params: Record<string, number> = {};
  for (let k = 0; k < inputCount; k++) {
    const [before, last, after] = boundParams(k);
    params[before] = -UNBOUNDED;
    params[last] = UNBOUNDED;
    params[after] = UNBOUNDED;
    params[completeParam(k)] = end;
  }
  for (const { k, side, ts } of found) {
    const [before, last, after] = boundParams(Number(k));
    if (Number(side) === 0) params[before] = Number(ts);
    else if (Number(side) === 2) params[after] = Number(ts);
    else {
      params[last] = Number(ts);
      params[completeParam(Number(k))] = Math.min(end, Number(ts) + 1);
    }
  }
  return params;
}

function tooLong(field: string): BadRequestError {
  return new BadRequestError(`${field}: the expression took longer than ${EVALUATION_SECONDS_MAX} s to evaluate; narrow [start, end) or lower limit`, [{ field: `${field}.expression`, message: `over ${EVALUATION_SECONDS_MAX} s` }]);
}

function expressionError(field: string, position: number, message: string): BadRequestError {
  const at = Math.max(0, position);
  return new BadRequestError(`${field}.expression: at character ${at}: ${message}`, [{ field: `${field}.expression`, message: `at character ${at}: ${message}` }]);
}

/**
 * The inputs with their acknowledged points readable: copied from the ingest log's memory
 * where the engine reads JS columns, else waited for. All of each series' time, since a
 * neighbour anywhere before or after the window can give it its edge values.
 */
async function readable(tenant: string, targets: ReadTarget[], deps: ListDatapointsDeps): Promise<ReadTarget[]> {
  const ids = targets.map((t) => t.seriesId);
  const windows = targets.map(() => ({ start: -Infinity, end: Infinity }));
  if (!deps.queuedForRead) {
    await deps.readBarrier(tenant, ids, windows);
    return targets;
  }
  const queued = deps.queuedForRead(tenant, ids, windows);
  return targets.map((target, k) => (queued[k] ? { ...target, queued: queued[k] } : target));
}
