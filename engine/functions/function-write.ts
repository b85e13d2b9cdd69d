// Function create, update and delete, with the rules of the time series records: every batch
// is one transaction, all-or-nothing, every 400 / 403 / 409 / 422 found before a row is
// written; a function the caller cannot read behaves as missing. Beyond them: the expression
// must parse (function-syntax.ts) and a target must be a writable numeric series no other
// function keeps (function-target.ts).
import { BadRequestError, ConflictError, DuplicateError, UnprocessableError, type FieldProblem, type Identifier } from '../errors.ts';
import { assertCanWrite, type Access } from '../grants/access.ts';
import { identifierOf } from '../records/identifiers.ts';
import { applyMapVerb, applyScalarVerb, capProblemsAfterUpdate, updateVerbProblems, type UpdateRules } from '../records/update-verbs.ts';
import type { Queryable } from '../stores/queryable.ts';
import type { RelationalStore } from '../stores/relational.ts';
import { lookupFunctions, missingFunctionsError } from './function-read.ts';
import type { FunctionCreate, FunctionRow, FunctionUpdateItem } from './function-records.ts';
import { assertExpressionsValid, type ExpressionRef } from './function-syntax.ts';
import { assertTargetsFree, assertTargetsNotInputs, resolveTargets, targetsTakenError, type HeldTarget, type TargetRef } from './function-target.ts';
import { runGrantsOf } from './run-grants.ts';
import { assertNoTargetCycles } from './function-cycles.ts';
import { DELETE_FUNCTIONS, INSERT_FUNCTIONS, TAKEN_FUNCTION_EXTERNAL_IDS, UPDATE_FUNCTIONS } from './function-write.sql.ts';
import { assertDataSetsExist } from '../meta/datasets.ts';

const UNIQUE_VIOLATION = '23505';
/** The unique key on targets (migration 015); the other unique key is the externalId. */
const TARGET_KEY = 'functions_target';

/** Which unique key a concurrent write took between our checks and the write, if that is what failed. */
function uniqueViolationOf(error: unknown): 'target' | 'externalId' | undefined {
  const { code, constraint } = error as { code?: string; constraint?: string };
  if (code !== UNIQUE_VIOLATION) return undefined;
  return constraint === TARGET_KEY ? 'target' : 'externalId';
}

/** externalIds repeated inside the request or held by another function of the tenant (`exceptIds` are being renamed). */
async function duplicatedFunctionExternalIds(db: Queryable, tenant: string, externalIds: readonly string[], exceptIds: readonly number[] = []): Promise<string[]> {
  const seen = new Set<string>();
  const repeated = externalIds.filter((id) => (seen.has(id) ? true : (seen.add(id), false)));
  const { rows } = await db.query<{ external_id: string }>(TAKEN_FUNCTION_EXTERNAL_IDS, [tenant, [...seen], [...exceptIds]]);
  return [...new Set([...rows.map((r) => r.external_id), ...repeated])];
}

function duplicateExternalIdsError(externalIds: readonly string[]): DuplicateError {
  return new DuplicateError(externalIds.map((externalId) => ({ externalId })));
}

/** The batch's rows in request order (the insert returns them in any order). */
function inRequestOrder(items: readonly { externalId: string }[], rows: readonly FunctionRow[]): FunctionRow[] {
  const byExternalId = new Map(rows.map((row) => [row.external_id, row]));
  return items.map((item) => byExternalId.get(item.externalId) as FunctionRow);
}

export async function createFunctions(store: RelationalStore, access: Access, items: readonly FunctionCreate[], now = Date.now()): Promise<FunctionRow[]> {
  const tenant = access.tenant;
  await assertExpressionsValid(items.map((item, index): ExpressionRef => ({ index, field: `items.${index}.expression`, text: item.expression })));
  assertCanWrite(access, items.map((i) => i.dataSetId), 'function create');
  const targetRefs = items.flatMap((item, index): TargetRef[] => (item.target ? [{ index, field: `items.${index}.target.externalId`, externalId: item.target.externalId }] : []));
  try {
    return await store.transaction(async (tx) => {
      const duplicated = await duplicatedFunctionExternalIds(tx, tenant, items.map((i) => i.externalId));
      if (duplicated.length > 0) throw duplicateExternalIdsError(duplicated);
      await assertDataSetsExist(tx, tenant, items.flatMap((item, index) => (item.dataSetId !== undefined ? [{ index, field: `items.${index}.dataSetId`, dataSetId: item.dataSetId }] : [])));
      const seriesIds = await resolveTargets(tx, access, targetRefs);
      const held = targetRefs.map((ref, i): HeldTarget => ({ externalId: ref.externalId, seriesId: seriesIds[i] as number }));
      await assertTargetsFree(tx, tenant, held, []);
      assertTargetsNotInputs(targetRefs.map((ref, i) => ({ index: ref.index, field: ref.field, expression: (items[ref.index] as FunctionCreate).expression, target: held[i] as HeldTarget })));
      const seriesOf = new Map(targetRefs.map((ref, i) => [ref.index, seriesIds[i] as number]));
      await assertNoTargetCycles(tx, tenant, items.map((item, index) => ({ index, field: `items.${index}`, id: null, expression: item.expression, targetSeriesId: seriesOf.get(index) ?? null })));
      const { rows } = await tx.query<FunctionRow>(INSERT_FUNCTIONS, [
        tenant,
        items.map((i) => i.externalId),
        items.map((i) => i.name),
        items.map((i) => i.description ?? null),
        items.map((i) => i.dataSetId ?? null),
        items.map((i) => JSON.stringify(i.metadata ?? {})),
        items.map((i) => i.expression),
        items.map((i) => i.target?.externalId ?? null),
        items.map((_, index) => seriesOf.get(index) ?? null),
        now,
        JSON.stringify(runGrantsOf(access)),
      ]);
      return inRequestOrder(items, rows);
    });
  } catch (error) {
    // A concurrent create took an externalId or a target between our checks and the insert.
    const violated = uniqueViolationOf(error);
    if (violated === 'target') throw targetsTakenError(targetRefs.map((ref) => ref.externalId));
    if (violated === 'externalId') throw duplicateExternalIdsError(await duplicatedFunctionExternalIds(store.pool, tenant, items.map((i) => i.externalId)));
    throw error;
  }
}

/** As time series: externalId and name cannot be cleared, nor the expression; metadata takes add / remove. */
const FUNCTION_UPDATE_RULES: UpdateRules = {
  externalId: { shape: 'scalar', required: true },
  name: { shape: 'scalar', required: true },
  description: { shape: 'scalar' },
  dataSetId: { shape: 'scalar' },
  metadata: { shape: 'map' },
  expression: { shape: 'scalar', required: true },
  target: { shape: 'scalar' },
};

/** The 400s an update batch has before any row is read: identifiers and verbs. */
function updateShapeProblems(items: readonly FunctionUpdateItem[]): FieldProblem[] {
  return items.flatMap((item, index) => [
    ...(item.id === undefined && item.externalId === undefined ? [{ field: `items.${index}`, index, message: 'needs an id or an externalId' }] : []),
    ...updateVerbProblems(item.update, FUNCTION_UPDATE_RULES, `items.${index}.update`, index),
  ]);
}

/** A function's fields once its update is applied. */
interface NextFunction {
  id: number;
  externalId: string;
  name: string;
  description: string | null;
  dataSetId: number | null;
  metadata: Record<string, string>;
  expression: string;
  targetExternalId: string | null;
  targetSeriesId: number | null;
}

function nextFunction(row: FunctionRow, item: FunctionUpdateItem, newTargetSeriesId: number | undefined): NextFunction {
  const u = item.update;
  const target = u.target?.setNull === true ? null : u.target?.set;
  return {
    id: row.id,
    externalId: applyScalarVerb(row.external_id, u.externalId) as string,
    name: applyScalarVerb(row.name, u.name) as string,
    description: applyScalarVerb(row.description, u.description),
    dataSetId: applyScalarVerb(row.data_set_id, u.dataSetId),
    metadata: applyMapVerb(row.metadata, u.metadata),
    expression: applyScalarVerb(row.expression, u.expression) as string,
    targetExternalId: target === undefined ? row.target_external_id : target?.externalId ?? null,
    targetSeriesId: target === undefined ? row.target_series_id : target === null ? null : newTargetSeriesId as number,
  };
}

export async function updateFunctions(store: RelationalStore, access: Access, items: readonly FunctionUpdateItem[], now = Date.now()): Promise<FunctionRow[]> {
  const tenant = access.tenant;
  const problems = updateShapeProblems(items);
  if (problems.length > 0) throw new BadRequestError(`Invalid update: ${problems.map((p) => `${p.field}: ${p.message}`).slice(0, 5).join('; ')}`, problems);
  await assertExpressionsValid(items.flatMap((item, index): ExpressionRef[] => (item.update.expression?.set !== undefined ? [{ index, field: `items.${index}.update.expression.set`, text: item.update.expression.set }] : [])));
  const targetRefs = items.flatMap((item, index): TargetRef[] => (item.update.target?.set ? [{ index, field: `items.${index}.update.target.set.externalId`, externalId: item.update.target.set.externalId }] : []));
  try {
    return await store.transaction(async (tx) => {
      const rows = await updateFunctionsRows(tx, access, items);
      const renamed = items.flatMap((item, index) => (item.update.externalId?.set !== undefined ? [{ externalId: item.update.externalId.set, id: (rows[index] as FunctionRow).id }] : []));
      const duplicated = renamed.length > 0 ? await duplicatedFunctionExternalIds(tx, tenant, renamed.map((r) => r.externalId), renamed.map((r) => r.id)) : [];
      if (duplicated.length > 0) throw duplicateExternalIdsError(duplicated);
      const newDataSets = items.flatMap((item, index) => (item.update.dataSetId?.set !== undefined ? [{ index, field: `items.${index}.update.dataSetId`, dataSetId: item.update.dataSetId.set }] : []));
      await assertDataSetsExist(tx, tenant, newDataSets);
      assertCanWrite(access, [...rows.map((r) => r.data_set_id), ...newDataSets.map((d) => d.dataSetId)], 'function update');
      const seriesIds = await resolveTargets(tx, access, targetRefs);
      const seriesOf = new Map(targetRefs.map((ref, i) => [ref.index, seriesIds[i] as number]));
      const next = items.map((item, index) => nextFunction(rows[index] as FunctionRow, item, seriesOf.get(index)));
      const held = next.flatMap((n): HeldTarget[] => (n.targetSeriesId !== null ? [{ externalId: n.targetExternalId as string, seriesId: n.targetSeriesId }] : []));
      await assertTargetsFree(tx, tenant, held, next.map((n) => n.id));
      assertTargetsNotInputs(next.flatMap((n, index) => (n.targetSeriesId !== null
        ? [{ index, field: `items.${index}.update`, expression: n.expression, target: { externalId: n.targetExternalId as string, seriesId: n.targetSeriesId } }]
        : [])));
      // Only the items that set an expression or a target can close a cycle.
      await assertNoTargetCycles(tx, tenant, next.flatMap((n, index) => {
        const { expression, target } = (items[index] as FunctionUpdateItem).update;
        return expression?.set !== undefined || target !== undefined
          ? [{ index, field: `items.${index}.update`, id: n.id, expression: n.expression, targetSeriesId: n.targetSeriesId }]
          : [];
      }));
      const capProblems = next.flatMap((n, index) => capProblemsAfterUpdate({ metadata: n.metadata }, `items.${index}.update`, index));
      if (capProblems.length > 0) throw new UnprocessableError('Field caps exceeded after update', capProblems);
      const { rows: updated } = await tx.query<FunctionRow>(UPDATE_FUNCTIONS, [
        tenant,
        next.map((n) => n.id),
        next.map((n) => n.externalId),
        next.map((n) => n.name),
        next.map((n) => n.description),
        next.map((n) => n.dataSetId),
        next.map((n) => JSON.stringify(n.metadata)),
        next.map((n) => n.expression),
        next.map((n) => n.targetExternalId),
        next.map((n) => n.targetSeriesId),
        now,
        JSON.stringify(runGrantsOf(access)),
        items.map((item) => item.update.expression?.set !== undefined || item.update.target !== undefined),
      ]);
      // The rows are locked since the lookup: one missing now means the store changed under us.
      if (updated.length !== next.length) throw new ConflictError();
      const byId = new Map(updated.map((row) => [row.id, row]));
      return next.map((n) => byId.get(n.id) as FunctionRow);
    });
  } catch (error) {
    const violated = uniqueViolationOf(error);
    if (violated === 'target') throw targetsTakenError(targetRefs.map((ref) => ref.externalId));
    if (violated === 'externalId') throw duplicateExternalIdsError(items.flatMap((i) => (i.update.externalId?.set !== undefined ? [i.update.externalId.set] : [])));
    throw error;
  }
}

/**
 * The batch's functions in request order, locked; as time series, an unknown or unreadable one
 * is a 400 naming the item, and one function named twice is a 400.
 */
async function updateFunctionsRows(tx: Queryable, access: Access, items: readonly FunctionUpdateItem[]): Promise<FunctionRow[]> {
  const resolved = await lookupFunctions(tx, access, items.map((item) => identifierOf(item)), true);
  const missing = resolved.filter((r) => !r.row);
  if (missing.length > 0) {
    throw new BadRequestError(`Functions not found: ${missing.slice(0, 10).map((m) => m.identifier.externalId ?? m.identifier.id).join(', ')}`,
      missing.map((m) => ({ field: `items.${m.index}`, index: m.index, message: 'not found', value: m.identifier.externalId ?? m.identifier.id })));
  }
  const rows = resolved.map((r) => r.row as FunctionRow);
  if (new Set(rows.map((r) => r.id)).size !== rows.length) {
    throw new BadRequestError('The same function appears twice in one update', [{ field: 'items', message: 'names one function twice' }]);
  }
  return rows;
}

/**
 * Deletes functions. Unknown or unreadable ones are skipped with `ignoreUnknownIds`, else a
 * NotFoundError lists them and nothing is deleted; a readable one the caller may not write is
 * a 403.
 */
export async function deleteFunctions(store: RelationalStore, access: Access, identifiers: readonly Identifier[], ignoreUnknownIds: boolean): Promise<void> {
  await store.transaction(async (tx) => {
    const resolved = await lookupFunctions(tx, access, identifiers, true);
    const missing = resolved.filter((r) => !r.row).map((r) => r.identifier as Identifier);
    if (missing.length > 0 && !ignoreUnknownIds) throw missingFunctionsError(missing);
    const rows = resolved.flatMap((r) => (r.row ? [r.row] : []));
    if (rows.length === 0) return;
    assertCanWrite(access, rows.map((r) => r.data_set_id), 'function delete');
    await tx.query(DELETE_FUNCTIONS, [access.tenant, [...new Set(rows.map((r) => r.id))]]);
  });
}
