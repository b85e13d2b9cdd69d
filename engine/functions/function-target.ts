// A function's target: the time series it keeps up to date. On every write that names one it
// must be a numeric series of the tenant that the writer may write (a function writes its
// points with its writer's grant), and no other function may keep it. A series the writer
// cannot read is reported as unknown, exactly as a missing one.
import { BadRequestError, DuplicateError, type FieldProblem } from '../errors.ts';
import { canRead, canWrite, type Access } from '../grants/access.ts';
import type { Queryable } from '../stores/queryable.ts';
import { parseExpression } from './expression.ts';
import { TARGET_SERIES, TARGETS_HELD } from './function-target.sql.ts';

/** Value types whose points a function's numbers can be written as: every one but TEXT and MIXED. */
export const TARGET_VALUE_TYPES: ReadonlySet<string> = new Set(['BIGINT', 'FLOAT', 'FLOAT32', 'NUMERIC', 'DECIMAL32']);

/** A target an item names: its position in the batch and the field path that named it. */
export interface TargetRef {
  index: number;
  field: string;
  externalId: string;
}

interface TargetSeriesRow {
  id: number;
  external_id: string;
  value_type: string;
  data_set_id: number | null;
}

/** Why the series named cannot be a target, or undefined when it can. */
function targetProblem(access: Access, series: TargetSeriesRow | undefined): string | undefined {
  if (!series || !canRead(access, series.data_set_id)) return 'no such time series';
  if (!canWrite(access, series.data_set_id)) return 'no write access to the data set of this time series';
  if (!TARGET_VALUE_TYPES.has(series.value_type)) return `a ${series.value_type} time series cannot be a target; it must be numeric (${[...TARGET_VALUE_TYPES].join(', ')})`;
  return undefined;
}

/**
 * The series id of every ref, in ref order, the series locked until the caller's transaction
 * ends. Throws one BadRequestError naming every ref that is unknown, unreadable, not
 * writable or not numeric.
 */
export async function resolveTargets(db: Queryable, access: Access, refs: readonly TargetRef[]): Promise<number[]> {
  if (refs.length === 0) return [];
  const { rows } = await db.query<TargetSeriesRow>(TARGET_SERIES, [access.tenant, [...new Set(refs.map((r) => r.externalId))]]);
  const byExternalId = new Map(rows.map((row) => [row.external_id, row]));
  const problems: FieldProblem[] = [];
  const ids = refs.map((ref) => {
    const series = byExternalId.get(ref.externalId);
    const problem = targetProblem(access, series);
    if (problem) problems.push({ field: ref.field, index: ref.index, message: problem, value: ref.externalId });
    return series?.id ?? 0;
  });
  if (problems.length > 0) {
    throw new BadRequestError(`Invalid target: ${problems.slice(0, 5).map((p) => `${JSON.stringify(p.value)} (${p.field}): ${p.message}`).join('; ')}`, problems);
  }
  return ids;
}

/** A function's target once the write is applied. */
export interface HeldTarget {
  externalId: string;
  seriesId: number;
}

/**
 * SPEC's 409 for a unique key taken, applied to targets: every series that two functions of
 * the batch would keep, or that a function outside `batchFunctionIds` keeps already. The
 * other function is never named: the writer may not be able to read it.
 */
export async function assertTargetsFree(db: Queryable, tenant: string, targets: readonly HeldTarget[], batchFunctionIds: readonly number[]): Promise<void> {
  if (targets.length === 0) return;
  const named = new Map<number, string>();
  const taken = new Map<number, string>();
  for (const target of targets) {
    if (named.has(target.seriesId)) taken.set(target.seriesId, target.externalId);
    else named.set(target.seriesId, target.externalId);
  }
  const { rows } = await db.query<{ target_series_id: number }>(TARGETS_HELD, [tenant, [...named.keys()], [...batchFunctionIds]]);
  for (const { target_series_id: seriesId } of rows) taken.set(seriesId, named.get(seriesId) as string);
  if (taken.size > 0) throw targetsTakenError([...taken.values()]);
}

/** 409 DuplicateError listing the targets' externalIds as `{ target: { externalId } }`. */
export function targetsTakenError(externalIds: readonly string[]): DuplicateError {
  const unique = [...new Set(externalIds)];
  return new DuplicateError(unique.map((externalId) => ({ target: { externalId } })),
    `A time series is kept up to date by one function at most; already a target: ${unique.slice(0, 10).join(', ')}${unique.length > 10 ? ` (and ${unique.length - 10} more)` : ''}`);
}

/** A function as written: its expression and the target it keeps, with the field that names the target. */
export interface WrittenTarget {
  index: number;
  field: string;
  expression: string;
  target: HeldTarget;
}

/**
 * A function may not read the series it writes: each of its own writes would call for another
 * recompute. Throws one BadRequestError naming every such item (the expressions parse: checked
 * before).
 */
export function assertTargetsNotInputs(written: readonly WrittenTarget[]): void {
  const problems: FieldProblem[] = [];
  for (const { index, field, expression, target } of written) {
    const parsed = parseExpression(expression);
    if (!parsed.ok) continue;
    if (parsed.inputs.some((input) => input.id === target.seriesId || input.externalId === target.externalId)) {
      problems.push({ field, index, message: 'the expression reads its own target; a function cannot keep a series it reads', value: target.externalId });
    }
  }
  if (problems.length > 0) throw new BadRequestError(`Invalid target: ${problems.slice(0, 5).map((p) => `${JSON.stringify(p.value)} (${p.field}): ${p.message}`).join('; ')}`, problems);
}
