// Time series create, update and delete (SPEC "Time series" endpoints): every batch is one
// transaction, all-or-nothing, with SPEC's 400 / 403 / 409 / 422 cases checked before any
// row is written.
import type { TimeSeries, TimeSeriesCreate, TimeSeriesUpdateItem } from '../../schemas/timeseries.ts';
import { BadRequestError, ConflictError, DuplicateError, UnprocessableError, type FieldProblem, type Identifier } from '../errors.ts';
import { assertCanWrite, type Access } from '../grants/access.ts';
import { LABELS_MAX, METADATA_ENTRIES_MAX } from '../limits.ts';
import type { RelationalStore } from '../stores/relational.ts';
import type { Queryable } from '../stores/queryable.ts';
import { ensureLabels } from './labels.ts';
import { identifierOf, lookupNodes } from './node-lookup.ts';
import { NODE_COLUMNS, toTimeSeries, type NodeRow } from './timeseries-rows.ts';
import { checkUnitFields } from './timeseries-units.ts';

const UNIQUE_VIOLATION = '23505';

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === UNIQUE_VIOLATION;
}

/** externalIds repeated inside the request or already taken in the tenant. */
async function duplicatedExternalIds(db: Queryable, tenant: string, externalIds: string[], exceptIds: number[] = []): Promise<string[]> {
  const seen = new Set<string>();
  const repeated = new Set(externalIds.filter((id) => (seen.has(id) ? true : (seen.add(id), false))));
  const { rows } = await db.query<{ external_id: string }>(
    'SELECT external_id FROM nodes WHERE tenant = $1 AND external_id = ANY($2::text[]) AND NOT (id = ANY($3::bigint[]))',
    [tenant, externalIds, exceptIds],
  );
  return [...new Set([...rows.map((r) => r.external_id), ...repeated])];
}

/** SPEC: `dataSetId` must reference an existing data set (400 naming the item). */
async function assertDataSetsExist(db: Queryable, tenant: string, refs: { index: number; dataSetId: number }[], field = 'dataSetId'): Promise<void> {
  if (refs.length === 0) return;
  const { rows } = await db.query<{ id: number }>(
    "SELECT id FROM nodes WHERE tenant = $1 AND kind = 'dataset' AND id = ANY($2::bigint[])",
    [tenant, [...new Set(refs.map((r) => r.dataSetId))]],
  );
  const known = new Set(rows.map((r) => r.id));
  const missing = refs.filter((r) => !known.has(r.dataSetId));
  if (missing.length > 0) {
    throw new BadRequestError(`Unknown dataSetId ${[...new Set(missing.map((m) => m.dataSetId))].join(', ')}`, missing.map((m) => ({
      field: `items.${m.index}.${field}`, index: m.index, message: 'no data set with this id', value: m.dataSetId,
    })));
  }
}

export async function createTimeSeries(store: RelationalStore, access: Access, items: TimeSeriesCreate[], now = Date.now()): Promise<TimeSeries[]> {
  const tenant = access.tenant;
  const unitProblems = items.flatMap((item, index) => checkUnitFields(item, `items.${index}`, index));
  if (unitProblems.length > 0) throw new BadRequestError(`Unknown unit: ${unitProblems.map((p) => p.value).join(', ')}`, unitProblems);
  assertCanWrite(access, items.map((i) => i.dataSetId), 'time series create');
  try {
    return await store.transaction(async (tx) => {
      const duplicated = await duplicatedExternalIds(tx, tenant, items.map((i) => i.externalId));
      if (duplicated.length > 0) throw new DuplicateError(duplicated.map((externalId) => ({ externalId })));
      await assertDataSetsExist(tx, tenant, items.flatMap((item, index) => (item.dataSetId !== undefined ? [{ index, dataSetId: item.dataSetId }] : [])));
      const { rows } = await tx.query<NodeRow>(
        `INSERT INTO nodes (tenant, id, kind, external_id, name, description, data_set_id, labels, metadata, source, value_type, unit, unit_external_id, created_time, last_updated_time)
         SELECT $1, nextval('node_id_seq'), 'timeseries', e, n, d, ds, ARRAY(SELECT jsonb_array_elements_text(l)), m, s, vt, u, ue, $12, $12
           FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::jsonb[], $7::jsonb[], $8::text[], $9::text[], $10::text[], $11::text[])
                AS t(e, n, d, ds, l, m, s, vt, u, ue)
         RETURNING ${NODE_COLUMNS}`,
        [
          tenant,
          items.map((i) => i.externalId),
          items.map((i) => i.name),
          items.map((i) => i.description ?? null),
          items.map((i) => i.dataSetId ?? null),
          items.map((i) => JSON.stringify([...new Set(i.labels ?? [])])),
          items.map((i) => JSON.stringify(i.metadata ?? {})),
          items.map((i) => i.source ?? null),
          items.map((i) => i.valueType),
          items.map((i) => i.unit ?? null),
          items.map((i) => i.unitExternalId ?? null),
          now,
        ],
      );
      await ensureLabels(tx, tenant, items.flatMap((i) => i.labels ?? []), now);
      const byExternalId = new Map(rows.map((r) => [r.external_id, r]));
      return items.map((i) => toTimeSeries(byExternalId.get(i.externalId) as NodeRow));
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

type Verb<T> = { set?: T; setNull?: boolean } | undefined;

/** set and setNull together, or setNull on a required field, are 400 (SPEC update rules). */
function verbProblems(item: TimeSeriesUpdateItem, index: number): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const [field, verb] of Object.entries(item.update) as [string, Verb<unknown> & Record<string, unknown>][]) {
    if (!verb) continue;
    const field_ = `items.${index}.update.${field}`;
    if (verb.set !== undefined && verb.setNull === true) problems.push({ field: field_, index, message: '`set` and `setNull` cannot be combined' });
    if ((field === 'name' || field === 'externalId') && verb.setNull === true) problems.push({ field: field_, index, message: `${field} cannot be cleared` });
    if ((field === 'metadata' || field === 'labels') && verb.set !== undefined && (verb['add'] !== undefined || verb['remove'] !== undefined)) {
      problems.push({ field: field_, index, message: '`set` cannot be combined with `add` or `remove`' });
    }
  }
  return problems;
}

function applyVerb<T>(current: T | null, verb: Verb<T>): T | null {
  if (!verb) return current;
  if (verb.setNull === true) return null;
  return verb.set !== undefined ? verb.set : current;
}

function nextMetadata(current: Record<string, string>, verb: TimeSeriesUpdateItem['update']['metadata']): Record<string, string> {
  if (!verb) return current;
  if (verb.setNull === true) return {};
  if (verb.set !== undefined) return { ...verb.set };
  const out = { ...current, ...(verb.add ?? {}) };
  for (const key of verb.remove ?? []) delete out[key];
  return out;
}

function nextLabels(current: string[], verb: TimeSeriesUpdateItem['update']['labels']): string[] {
  if (!verb) return current;
  if (verb.setNull === true) return [];
  if (verb.set !== undefined) return [...new Set(verb.set)];
  const remove = new Set(verb.remove ?? []);
  return [...new Set([...current, ...(verb.add ?? [])])].filter((l) => !remove.has(l));
}

export async function updateTimeSeries(store: RelationalStore, access: Access, items: TimeSeriesUpdateItem[], now = Date.now()): Promise<TimeSeries[]> {
  const tenant = access.tenant;
  const problems = items.flatMap((item, index) => [
    ...(item.id === undefined && item.externalId === undefined ? [{ field: `items.${index}`, index, message: 'needs an id or an externalId' }] : []),
    ...verbProblems(item, index),
    ...checkUnitFields({ unit: item.update.unit?.set, unitExternalId: item.update.unitExternalId?.set }, `items.${index}.update`, index),
  ]);
  if (problems.length > 0) throw new BadRequestError(`Invalid update: ${problems.map((p) => `${p.field}: ${p.message}`).slice(0, 5).join('; ')}`, problems);
  try {
    return await store.transaction(async (tx) => {
      const resolved = await lookupNodes(tx, tenant, 'timeseries', items.map(identifierOf), true);
      const missing = resolved.filter((r) => !r.row || !canReadRow(access, r.row));
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
      const newDataSets = items.flatMap((item, index) => (item.update.dataSetId?.set !== undefined ? [{ index, dataSetId: item.update.dataSetId.set }] : []));
      await assertDataSetsExist(tx, tenant, newDataSets, 'update.dataSetId');
      assertCanWrite(access, [...rows.map((r) => r.data_set_id), ...newDataSets.map((d) => d.dataSetId)], 'time series update');
      const updated: TimeSeries[] = [];
      const capProblems: FieldProblem[] = [];
      const next = items.map((item, index) => {
        const row = rows[index] as NodeRow;
        const u = item.update;
        const metadata = nextMetadata(row.metadata, u.metadata);
        const labels = nextLabels(row.labels, u.labels);
        if (Object.keys(metadata).length > METADATA_ENTRIES_MAX) capProblems.push({ field: `items.${index}.update.metadata`, index, message: `more than ${METADATA_ENTRIES_MAX} entries after update` });
        if (labels.length > LABELS_MAX) capProblems.push({ field: `items.${index}.update.labels`, index, message: `more than ${LABELS_MAX} labels after update` });
        return {
          id: row.id,
          externalId: applyVerb(row.external_id, u.externalId) as string,
          name: applyVerb(row.name, u.name) as string,
          description: applyVerb(row.description, u.description),
          unit: applyVerb(row.unit, u.unit),
          unitExternalId: applyVerb(row.unit_external_id, u.unitExternalId),
          dataSetId: applyVerb(row.data_set_id, u.dataSetId),
          source: applyVerb(row.source, u.source),
          metadata,
          labels,
        };
      });
      if (capProblems.length > 0) throw new UnprocessableError('Field caps exceeded after update', capProblems);
      for (const n of next) {
        const { rows: out } = await tx.query<NodeRow>(
          `UPDATE nodes SET external_id = $3, name = $4, description = $5, unit = $6, unit_external_id = $7, data_set_id = $8,
                  source = $9, metadata = $10::jsonb, labels = $11::text[], last_updated_time = $12
            WHERE tenant = $1 AND id = $2 AND kind = 'timeseries' RETURNING ${NODE_COLUMNS}`,
          [tenant, n.id, n.externalId, n.name, n.description, n.unit, n.unitExternalId, n.dataSetId, n.source, JSON.stringify(n.metadata), n.labels, now],
        );
        if (!out[0]) throw new ConflictError();
        updated.push(toTimeSeries(out[0]));
      }
      await ensureLabels(tx, tenant, next.flatMap((n) => n.labels), now);
      return updated;
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new DuplicateError(items.flatMap((i) => (i.update.externalId?.set ? [{ externalId: i.update.externalId.set }] : [])));
    }
    throw error;
  }
}

function canReadRow(access: Access, row: NodeRow): boolean {
  return row.data_set_id === null || access.readable === null || access.readable.has(row.data_set_id);
}

/**
 * Deletes time series: unknown (or unreadable) identifiers are skipped; a series that starts a
 * relationship is refused with 400 naming it. Returns the deleted ids, whose points the caller
 * purges in the background (SPEC lifecycle: unreachable at once, purged asynchronously).
 */
export async function deleteTimeSeries(store: RelationalStore, access: Access, identifiers: Identifier[]): Promise<number[]> {
  const tenant = access.tenant;
  return store.transaction(async (tx) => {
    const resolved = await lookupNodes(tx, tenant, 'timeseries', identifiers, true);
    const rows = resolved.flatMap((r) => (r.row && canReadRow(access, r.row) ? [r.row] : []));
    if (rows.length === 0) return [];
    assertCanWrite(access, rows.map((r) => r.data_set_id), 'time series delete');
    const ids = rows.map((r) => r.id);
    const { rows: starts } = await tx.query<{ id: number; start_id: number; name: string }>(
      `SELECT e.id, e.start_id, rt.name FROM edges e JOIN relationship_types rt ON rt.tenant = e.tenant AND rt.id = e.type_id
        WHERE e.tenant = $1 AND e.start_id = ANY($2::bigint[]) ORDER BY e.id LIMIT 1000`,
      [tenant, ids],
    );
    if (starts.length > 0) {
      throw new BadRequestError('A time series that starts a relationship cannot be deleted; delete the relationship first',
        starts.map((s) => ({ field: 'items', message: 'starts a relationship', type: 'relationship', relationshipType: s.name, edgeId: s.id, timeseriesId: s.start_id })));
    }
    await tx.query('DELETE FROM edges WHERE tenant = $1 AND end_id = ANY($2::bigint[])', [tenant, ids]);
    await tx.query("DELETE FROM nodes WHERE tenant = $1 AND kind = 'timeseries' AND id = ANY($2::bigint[])", [tenant, ids]);
    return ids;
  });
}
