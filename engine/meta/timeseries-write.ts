// Time series create, update and delete (SPEC "Time series" endpoints): every batch is one
// transaction, all-or-nothing, with SPEC's 400 / 403 / 409 / 422 cases checked before any
// row is written.
import type { TimeSeriesCreate, TimeSeriesUpdateItem } from '../../schemas/timeseries.ts';
import { BadRequestError, ConflictError, DuplicateError, NotFoundError, UnprocessableError, type FieldProblem, type Identifier } from '../errors.ts';

export type { IdentifierRules };
import { assertCanWrite, type Access } from '../grants/access.ts';
import type { RelationalStore } from '../stores/relational.ts';
import type { Queryable } from '../stores/queryable.ts';
import type { GraphGuard } from '../graph/graph-guard.ts';
import { governedFieldsWritten, type PolicyEvaluator } from '../policies/policy-evaluation.ts';
import { duplicatedExternalIds } from './external-ids.ts';
import { assertNoRepeats, type IdentifierRules } from '../records/repeated-identifiers.ts';
import { ensureLabels } from './labels.ts';
import { identifierOf, lookupNodes } from './node-lookup.ts';
import type { NodeRow } from './timeseries-rows.ts';
import { checkUnitFields } from './timeseries-units.ts';
import { applyListVerb, applyMapVerb, applyScalarVerb, capProblemsAfterUpdate, updateVerbProblems, type UpdateRules } from '../records/update-verbs.ts';
import { assertDataSetsExist } from './datasets.ts';
import {
  DELETE_EDGES_ENDING_AT, DELETE_TIMESERIES, EDGES_STARTING_AT, INSERT_TIMESERIES, SUBSCRIPTIONS_BINDING, UPDATE_TIMESERIES,
} from './timeseries-write.sql.ts';

const UNIQUE_VIOLATION = '23505';

/**
 * What a create may carry beyond SPEC's fields: `isStep` (stepwise rather than linear; false
 * unless set), which only the CDF surface accepts, and a `name` that may be absent (CDF's is
 * optional; SPEC's schema requires it).
 */
export type TimeSeriesCreateInput = Omit<TimeSeriesCreate, 'name'> & { name?: string; isStep?: boolean };

/** An update as the engine takes it: SPEC's verbs, plus `isStep: {set}` (the CDF surface only). */
export type TimeSeriesUpdateInput = Omit<TimeSeriesUpdateItem, 'update'> & { update: TimeSeriesUpdateItem['update'] & { isStep?: { set?: boolean } } };

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === UNIQUE_VIOLATION;
}

/** Naming policies checked in the write's transaction (engine/policies/policy-evaluation.ts). */
type Policies = Pick<PolicyEvaluator, 'evaluate'>;

const governed = (row: NodeRow, path: string, changed?: ReadonlySet<'name' | 'externalId' | 'description'>) =>
  ({ id: row.id, externalId: row.external_id, name: row.name ?? '', description: row.description, dataSetId: row.data_set_id, path, ...(changed ? { changed } : {}) });

export async function createTimeSeries(store: RelationalStore, access: Access, items: TimeSeriesCreateInput[], policies: Policies, rules: IdentifierRules = {}, now = Date.now()): Promise<NodeRow[]> {
  const tenant = access.tenant;
  if (rules.refuseRepeats) assertNoRepeats(items.map((i) => ({ externalId: i.externalId })));
  const unitProblems = items.flatMap((item, index) => checkUnitFields(item, `items.${index}`, index));
  if (unitProblems.length > 0) throw new BadRequestError(`Unknown unit: ${unitProblems.map((p) => p.value).join(', ')}`, unitProblems);
  assertCanWrite(access, items.map((i) => i.dataSetId), 'time series create');
  try {
    return await store.transaction(async (tx) => {
      const duplicated = await duplicatedExternalIds(tx, tenant, items.map((i) => i.externalId));
      if (duplicated.length > 0) throw new DuplicateError(duplicated.map((externalId) => ({ externalId })));
      await assertDataSetsExist(tx, tenant, items.flatMap((item, index) => (item.dataSetId !== undefined ? [{ index, field: `items.${index}.dataSetId`, dataSetId: item.dataSetId }] : [])));
      const { rows } = await tx.query<NodeRow>(INSERT_TIMESERIES, [
          tenant,
          items.map((i) => i.externalId),
          items.map((i) => i.name ?? null),
          items.map((i) => i.description ?? null),
          items.map((i) => i.dataSetId ?? null),
          items.map((i) => JSON.stringify([...new Set(i.labels ?? [])])),
          items.map((i) => JSON.stringify(i.metadata ?? {})),
          items.map((i) => i.source ?? null),
          items.map((i) => i.valueType),
          items.map((i) => i.unit ?? null),
          items.map((i) => i.unitExternalId ?? null),
          now,
          items.map((i) => i.isStep ?? false),
      ]);
      await ensureLabels(tx, tenant, items.flatMap((i) => i.labels ?? []), now);
      const byExternalId = new Map(rows.map((r) => [r.external_id, r]));
      const created = items.map((i) => byExternalId.get(i.externalId) as NodeRow);
      await policies.evaluate(tx, tenant, 'timeseries', created.map((row, index) => governed(row, `items.${index}`)), now);
      return created;
    });
  } catch (error) {
    // A concurrent create took an externalId between our check and the insert.
    if (isUniqueViolation(error)) {
      const duplicated = await duplicatedExternalIds(store.pool, tenant, items.map((i) => i.externalId));
      throw new DuplicateError(duplicated.map((externalId) => ({ externalId })));
    }
    throw error;
  }
}

/** SPEC time series update: name and externalId cannot be cleared; metadata and labels take add / remove. */
const TIMESERIES_UPDATE_RULES: UpdateRules = {
  externalId: { shape: 'scalar', required: true },
  name: { shape: 'scalar', required: true },
  description: { shape: 'scalar' },
  unit: { shape: 'scalar' },
  unitExternalId: { shape: 'scalar' },
  dataSetId: { shape: 'scalar' },
  source: { shape: 'scalar' },
  valueType: { shape: 'scalar' },
  metadata: { shape: 'map' },
  labels: { shape: 'list' },
  isStep: { shape: 'scalar', required: true },
};

export async function updateTimeSeries(store: RelationalStore, access: Access, items: TimeSeriesUpdateInput[], policies: Policies, rules: IdentifierRules = {}, now = Date.now()): Promise<NodeRow[]> {
  const tenant = access.tenant;
  if (rules.refuseRepeats) assertNoRepeats(items);
  const problems = items.flatMap((item, index) => [
    ...(item.id === undefined && item.externalId === undefined ? [{ field: `items.${index}`, index, message: 'needs an id or an externalId' }] : []),
    ...updateVerbProblems(item.update, TIMESERIES_UPDATE_RULES, `items.${index}.update`, index),
    ...checkUnitFields({ unit: item.update.unit?.set, unitExternalId: item.update.unitExternalId?.set }, `items.${index}.update`, index),
  ]);
  if (problems.length > 0) throw new BadRequestError(`Invalid update: ${problems.map((p) => `${p.field}: ${p.message}`).slice(0, 5).join('; ')}`, problems);
  try {
    return await store.transaction(async (tx) => {
      const resolved = await lookupNodes(tx, tenant, 'timeseries', items.map(identifierOf), true, { visible: (row) => canReadRow(access, row) });
      const missing = resolved.filter((r) => !r.row || !canReadRow(access, r.row));
      if (missing.length > 0 && rules.listMissing) throw missingError(missing.map((m) => m.identifier));
      if (missing.length > 0) {
        throw new BadRequestError(`Time series not found: ${missing.map((m) => m.identifier.externalId ?? m.identifier.id).join(', ')}`,
          missing.map((m) => ({ field: `items.${m.index}`, index: m.index, message: 'not found', value: m.identifier.externalId ?? m.identifier.id })));
      }
      const rows = resolved.map((r) => r.row as NodeRow);
      if (new Set(rows.map((r) => r.id)).size !== rows.length) {
        throw new BadRequestError('The same time series appears twice in one update', [{ field: 'items', message: 'duplicate target' }]);
      }
      const valueTypeChanges = items.flatMap((item, index) => {
        const verb = item.update.valueType;
        return verb && (verb.setNull === true || (verb.set !== undefined && verb.set !== rows[index]?.value_type))
          ? [{ field: `items.${index}.update.valueType`, index, message: 'valueType is immutable after creation' }] : [];
      });
      if (valueTypeChanges.length > 0) throw new BadRequestError('valueType cannot be changed', valueTypeChanges);
      const newExternalIds = items.flatMap((item) => (item.update.externalId?.set !== undefined ? [item.update.externalId.set] : []));
      const renamed = rows.filter((_, i) => items[i]?.update.externalId?.set !== undefined).map((r) => r.id);
      const duplicated = newExternalIds.length ? await duplicatedExternalIds(tx, tenant, newExternalIds, renamed) : [];
      if (duplicated.length > 0) throw new DuplicateError(duplicated.map((externalId) => ({ externalId })));
      const newDataSets = items.flatMap((item, index) => (item.update.dataSetId?.set !== undefined ? [{ index, field: `items.${index}.update.dataSetId`, dataSetId: item.update.dataSetId.set }] : []));
      await assertDataSetsExist(tx, tenant, newDataSets);
      assertCanWrite(access, [...rows.map((r) => r.data_set_id), ...newDataSets.map((d) => d.dataSetId)], 'time series update');
      const updated: NodeRow[] = [];
      const capProblems: FieldProblem[] = [];
      const next = items.map((item, index) => {
        const row = rows[index] as NodeRow;
        const u = item.update;
        const metadata = applyMapVerb(row.metadata, u.metadata);
        const labels = applyListVerb(row.labels, u.labels);
        capProblems.push(...capProblemsAfterUpdate({ metadata, labels }, `items.${index}.update`, index));
        return {
          id: row.id,
          externalId: applyScalarVerb(row.external_id, u.externalId) as string,
          name: applyScalarVerb(row.name, u.name) as string,
          description: applyScalarVerb(row.description, u.description),
          unit: applyScalarVerb(row.unit, u.unit),
          unitExternalId: applyScalarVerb(row.unit_external_id, u.unitExternalId),
          dataSetId: applyScalarVerb(row.data_set_id, u.dataSetId),
          source: applyScalarVerb(row.source, u.source),
          metadata,
          labels,
          isStep: u.isStep?.set ?? row.is_step,
        };
      });
      if (capProblems.length > 0) throw new UnprocessableError('Field caps exceeded after update', capProblems);
      for (const n of next) {
        const { rows: out } = await tx.query<NodeRow>(UPDATE_TIMESERIES, [
          tenant, n.id, n.externalId, n.name, n.description, n.unit, n.unitExternalId, n.dataSetId, n.source, JSON.stringify(n.metadata), n.labels, now, n.isStep,
        ]);
        if (!out[0]) throw new ConflictError();
        updated.push(out[0]);
      }
      await ensureLabels(tx, tenant, next.flatMap((n) => n.labels), now);
      await policies.evaluate(tx, tenant, 'timeseries', updated.map((row, index) => governed(row, `items.${index}.update`, governedFieldsWritten((items[index] as TimeSeriesUpdateInput).update))), now);
      return updated;
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new DuplicateError(items.flatMap((i) => (i.update.externalId?.set ? [{ externalId: i.update.externalId.set }] : [])));
    }
    throw error;
  }
}

/** Unknown and unreadable series alike, as the request named them. */
function missingError(identifiers: { id?: number; externalId?: string }[]): NotFoundError {
  const missing = identifiers.map((i): Identifier => (i.externalId !== undefined ? { externalId: i.externalId } : { id: i.id as number }));
  return new NotFoundError(`Time series not found: ${missing.map((m) => m.externalId ?? m.id).join(', ')}`, missing);
}

function canReadRow(access: Access, row: NodeRow): boolean {
  return row.data_set_id === null || access.readable === null || access.readable.has(row.data_set_id);
}

/**
 * Deletes time series: unknown (or unreadable) identifiers are skipped; a series that starts a
 * relationship is refused with 400 naming it. Returns the deleted ids, whose points the caller
 * purges in the background (SPEC lifecycle: unreachable at once, purged asynchronously).
 */
export async function deleteTimeSeries(store: RelationalStore, access: Access, identifiers: Identifier[], graph: Pick<GraphGuard, 'lock'>, rules: IdentifierRules = {}): Promise<number[]> {
  const tenant = access.tenant;
  if (rules.refuseRepeats) assertNoRepeats(identifiers);
  return store.transaction(async (tx) => {
    // Serialised with the tenant's graph writes: an edge created from the series meanwhile
    // would otherwise survive it, pointing from a deleted node.
    await graph.lock(tx, tenant);
    const resolved = await lookupNodes(tx, tenant, 'timeseries', identifiers, true, { visible: (row) => canReadRow(access, row) });
    const missing = resolved.filter((r) => !r.row || !canReadRow(access, r.row));
    if (missing.length > 0 && rules.listMissing) throw missingError(missing.map((m) => m.identifier));
    const rows = resolved.flatMap((r) => (r.row && canReadRow(access, r.row) ? [r.row] : []));
    if (rows.length === 0) return [];
    assertCanWrite(access, rows.map((r) => r.data_set_id), 'time series delete');
    const ids = rows.map((r) => r.id);
    const { rows: starts } = await tx.query<{ id: number; start_id: number; name: string }>(EDGES_STARTING_AT, [tenant, ids]);
    if (starts.length > 0) {
      throw new BadRequestError('A time series that starts a relationship cannot be deleted; delete the relationship first',
        starts.map((s) => ({ field: 'items', message: 'starts a relationship', type: 'relationship', relationshipType: s.name, edgeId: s.id, timeseriesId: s.start_id })));
    }
    // A series a subscription names cannot be deleted (subscription writes take the
    // same graph lock, so none binds one meanwhile).
    const { rows: bound } = await tx.query<{ subscription_id: number; subscription_external_id: string; timeseries_id: number }>(SUBSCRIPTIONS_BINDING, [tenant, ids]);
    if (bound.length > 0) {
      throw new BadRequestError('A time series bound to a subscription cannot be deleted; remove it from the subscription first',
        bound.map((b) => ({ field: 'items', message: 'bound to a subscription', type: 'subscription', subscriptionId: b.subscription_id, subscriptionExternalId: b.subscription_external_id, timeseriesId: b.timeseries_id })));
    }
    await tx.query(DELETE_EDGES_ENDING_AT, [tenant, ids]);
    await tx.query(DELETE_TIMESERIES, [tenant, ids]);
    return ids;
  });
}
