// Data sets (SPEC "Data sets"): nodes of kind 'dataset' in the shared node space; the parent
// link is a BELONGS_TO edge from child to parent, which grants follow down the tree.
import type { DataSet, DataSetCreate, DataSetUpdateItem } from '../../schemas/datasets.ts';
import { BadRequestError, DuplicateError, ForbiddenError, NotFoundError, UnprocessableError, type Identifier } from '../errors.ts';
import { assertNoRepeats, type IdentifierRules } from '../records/repeated-identifiers.ts';
import { readableIds, type Access } from '../grants/access.ts';
import { BELONGS_TO, ensureRelationshipType } from '../graph/relationship-types.ts';
import type { Queryable } from '../stores/queryable.ts';
import type { RelationalStore } from '../stores/relational.ts';
import { cursorCodec } from '../records/cursor-codec.ts';
import { applyMapVerb, applyScalarVerb, capProblemsAfterUpdate, updateVerbProblems, type UpdateRules } from '../records/update-verbs.ts';
import { lookupNodes, identifierOf } from './node-lookup.ts';
import {
  COUNT_DATA_SETS, DATA_SET_BELOW, DATA_SETS_BY_IDS, DELETE_PARENT_EDGE, INSERT_DATA_SET, INSERT_PARENT_EDGE, LIST_DATA_SETS, TAKEN_EXTERNAL_IDS, UPDATE_DATA_SET,
  EXISTING_DATA_SETS,
} from './datasets.sql.ts';

/** A list page resumes after the last data set id. */
const isDataSetPosition = (state: unknown): state is number => Number.isSafeInteger(state) && (state as number) >= 0;
const dataSetCursors = cursorCodec('datasets', 1, isDataSetPosition);

/** Data set update verbs; externalId and name take `set` only (the schema allows nothing else). */
const DATA_SET_UPDATE_RULES: UpdateRules = {
  externalId: { shape: 'scalar', required: true },
  name: { shape: 'scalar', required: true },
  description: { shape: 'scalar' },
  metadata: { shape: 'map' },
  parentId: { shape: 'scalar' },
  parentExternalId: { shape: 'scalar' },
};

interface DataSetRow {
  id: number;
  external_id: string;
  name: string | null;
  description: string | null;
  metadata: Record<string, string>;
  parent_id: number | null;
  parent_external_id: string | null;
  created_time: number;
  last_updated_time: number;
}

function assertNoneMissing(identifiers: { id?: number; externalId?: string }[]): void {
  if (identifiers.length === 0) return;
  const missing = identifiers.map((i): Identifier => (i.externalId !== undefined ? { externalId: i.externalId } : { id: i.id as number }));
  throw new NotFoundError(`Data sets not found: ${missing.map((m) => m.externalId ?? m.id).join(', ')}`, missing);
}

function toDataSet(r: DataSetRow): DataSet {
  return {
    id: r.id, externalId: r.external_id, name: r.name ?? '', metadata: r.metadata,
    createdTime: r.created_time, lastUpdatedTime: r.last_updated_time,
    ...(r.description !== null ? { description: r.description } : {}),
    ...(r.parent_id !== null ? { parentId: r.parent_id, parentExternalId: r.parent_external_id as string } : {}),
  };
}

const readable = (access: Access, id: number) => access.readable === null || access.readable.has(id);
const writable = (access: Access, id: number) => access.writable === null || access.writable.has(id);

async function setParent(db: Queryable, tenant: string, childId: number, parentId: number | null, now: number): Promise<void> {
  const typeId = await ensureRelationshipType(db, tenant, BELONGS_TO);
  await db.query(DELETE_PARENT_EDGE, [tenant, childId, typeId]);
  if (parentId === null) return;
  await db.query(INSERT_PARENT_EDGE, [tenant, childId, parentId, typeId, now]);
}

/** Resolves a parent reference (possibly created earlier in this batch) to an id. */
async function resolveParent(db: Queryable, tenant: string, ref: { parentId?: number; parentExternalId?: string }, field: string, index: number): Promise<number | null> {
  if (ref.parentId === undefined && ref.parentExternalId === undefined) return null;
  const [found] = await lookupNodes(db, tenant, 'dataset', [ref.parentId !== undefined ? { id: ref.parentId } : { externalId: ref.parentExternalId as string }]);
  if (!found?.row) throw new BadRequestError(`items[${index}]: parent data set not found`, [{ field: `items.${index}.${field}`, index, message: 'no such data set', value: ref.parentId ?? ref.parentExternalId }]);
  return found.row.id;
}

/** A create item; `name` may be absent (the CDF surface's is optional; SPEC's schema requires it). */
export type DataSetCreateInput = Omit<DataSetCreate, 'name'> & { name?: string };

export async function createDataSets(store: RelationalStore, access: Access, items: DataSetCreateInput[], rules: IdentifierRules = {}, now = Date.now()): Promise<DataSet[]> {
  const tenant = access.tenant;
  if (rules.refuseRepeats) assertNoRepeats(items.map((i) => ({ externalId: i.externalId })));
  return store.transaction(async (tx) => {
    const externalIds = items.map((i) => i.externalId);
    const seen = new Set<string>();
    const repeated = externalIds.filter((e) => (seen.has(e) ? true : (seen.add(e), false)));
    const { rows: taken } = await tx.query<{ external_id: string }>(TAKEN_EXTERNAL_IDS, [tenant, externalIds]);
    const duplicated = [...new Set([...taken.map((r) => r.external_id), ...repeated])];
    if (duplicated.length > 0) throw new DuplicateError(duplicated.map((externalId) => ({ externalId })));
    const ids: number[] = [];
    for (const [index, item] of items.entries()) {
      const parentId = await resolveParent(tx, tenant, item, item.parentId !== undefined ? 'parentId' : 'parentExternalId', index);
      if (parentId !== null && !writable(access, parentId)) throw new ForbiddenError(`No write access to parent data set ${parentId}`, [parentId]);
      if (parentId === null && access.writable !== null) {
        throw new ForbiddenError('Creating a root data set needs write access to every data set (a "*" write grant or no datasets claim)');
      }
      const { rows } = await tx.query<{ id: number }>(INSERT_DATA_SET, [
        tenant, item.externalId, item.name ?? null, item.description ?? null, JSON.stringify(item.metadata ?? {}), now,
      ]);
      const id = (rows[0] as { id: number }).id;
      ids.push(id);
      await setParent(tx, tenant, id, parentId, now);
    }
    const { rows } = await tx.query<DataSetRow>(DATA_SETS_BY_IDS, [tenant, ids]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => toDataSet(byId.get(id) as DataSetRow));
  });
}

/** Misses (unknown or unreadable alike) are omitted, or with `listMissing` a NotFoundError listing them. */
export async function dataSetsByIds(db: Queryable, access: Access, identifiers: Identifier[], rules: IdentifierRules = {}): Promise<DataSet[]> {
  const resolved = await lookupNodes(db, access.tenant, 'dataset', identifiers, false, { visible: (row) => readable(access, row.id) });
  if (rules.listMissing) assertNoneMissing(resolved.filter((r) => !r.row || !readable(access, r.row.id)).map((r) => r.identifier));
  const ids = [...new Set(resolved.flatMap((r) => (r.row && readable(access, r.row.id) ? [r.row.id] : [])))];
  if (ids.length === 0) return [];
  const { rows } = await db.query<DataSetRow>(DATA_SETS_BY_IDS, [access.tenant, ids]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => (byId.has(id) ? [toDataSet(byId.get(id) as DataSetRow)] : []));
}

/** What a list or count of data sets may filter on (metadata, times: the CDF surface's filter). */
export interface DataSetFilter {
  parentIds?: number[];
  externalIdPrefix?: string;
  /** Every entry must be present. */
  metadata?: Record<string, string>;
  createdTime?: { min?: number; max?: number };
  lastUpdatedTime?: { min?: number; max?: number };
}

/** LIST_DATA_SETS's parameters after the tenant: $2 after id, $3 … $11 (see datasets.sql.ts). */
function listParams(access: Access, filter: DataSetFilter, afterId: number, rows: number | null): unknown[] {
  return [
    access.tenant, afterId, readableIds(access), filter.parentIds ?? null, filter.externalIdPrefix ?? null, rows,
    filter.metadata ? JSON.stringify(filter.metadata) : null,
    filter.createdTime?.min ?? null, filter.createdTime?.max ?? null, filter.lastUpdatedTime?.min ?? null, filter.lastUpdatedTime?.max ?? null,
  ];
}

/** How many readable data sets match. */
export async function countDataSets(db: Queryable, access: Access, filter: DataSetFilter = {}): Promise<number> {
  const { rows } = await db.query<{ count: number }>(COUNT_DATA_SETS, listParams(access, { ...filter, parentIds: undefined }, 0, null));
  return Number(rows[0]?.count ?? 0);
}

export async function listDataSets(db: Queryable, access: Access, query: DataSetFilter & { limit: number; cursor?: string }): Promise<{ items: DataSet[]; nextCursor?: string }> {
  const decoded = query.cursor ? dataSetCursors.decode(query.cursor) : { ok: true as const, state: 0 };
  if (!decoded.ok) throw new BadRequestError('cursor is not one this service issued', [{ field: 'cursor', message: 'undecodable' }]);
  const afterId = decoded.state;
  const { rows } = await db.query<DataSetRow>(LIST_DATA_SETS, listParams(access, query, afterId, query.limit + 1));
  const page = rows.slice(0, query.limit).map(toDataSet);
  const last = page[page.length - 1];
  return rows.length > query.limit && last ? { items: page, nextCursor: dataSetCursors.encode(last.id) } : { items: page };
}

export async function updateDataSets(store: RelationalStore, access: Access, items: DataSetUpdateItem[], rules: IdentifierRules = {}, now = Date.now()): Promise<DataSet[]> {
  const tenant = access.tenant;
  if (rules.refuseRepeats) assertNoRepeats(items.map(identifierOf));
  const verbProblems = items.flatMap((item, index) => updateVerbProblems(item.update, DATA_SET_UPDATE_RULES, `items.${index}.update`, index));
  if (verbProblems.length > 0) throw new BadRequestError(`Invalid update: ${verbProblems.map((p) => `${p.field}: ${p.message}`).slice(0, 5).join('; ')}`, verbProblems);
  return store.transaction(async (tx) => {
    const resolved = await lookupNodes(tx, tenant, 'dataset', items.map(identifierOf), true, { visible: (row) => readable(access, row.id) });
    const missing = resolved.filter((r) => !r.row || !readable(access, r.row.id));
    if (rules.listMissing) assertNoneMissing(missing.map((m) => m.identifier));
    if (missing.length > 0) {
      throw new BadRequestError('Data set not found', missing.map((m) => ({ field: `items.${m.index}`, index: m.index, message: 'not found', value: m.identifier.externalId ?? m.identifier.id })));
    }
    const ids: number[] = [];
    for (const [index, item] of items.entries()) {
      const row = resolved[index]?.row as NonNullable<(typeof resolved)[number]['row']>;
      if (!writable(access, row.id)) throw new ForbiddenError(`No write access to data set ${row.id}`, [row.id]);
      const u = item.update;
      const parentSet = u.parentId?.set !== undefined || u.parentExternalId?.set !== undefined;
      if (parentSet && u.parentId?.setNull === true) {
        throw new BadRequestError('`set` and `setNull` cannot be combined', [{ field: `items.${index}.update.parentId`, index, message: 'set with setNull' }]);
      }
      const metadata = applyMapVerb(row.metadata, u.metadata);
      const capProblems = capProblemsAfterUpdate({ metadata }, `items.${index}.update`, index);
      if (capProblems.length > 0) throw new UnprocessableError('Field caps exceeded after update', capProblems);
      if (u.externalId?.set !== undefined && u.externalId.set !== row.external_id) {
        const { rows: taken } = await tx.query(TAKEN_EXTERNAL_IDS, [tenant, [u.externalId.set]]);
        if (taken.length > 0) throw new DuplicateError([{ externalId: u.externalId.set }]);
      }
      await tx.query(UPDATE_DATA_SET, [
        tenant, row.id, applyScalarVerb(row.external_id, u.externalId), applyScalarVerb(row.name, u.name), applyScalarVerb(row.description, u.description), JSON.stringify(metadata), now,
      ]);
      // An empty verb (`parentId: {}`) changes nothing, like every other field.
      if (parentSet || u.parentId?.setNull === true) {
        const parentId = u.parentId?.setNull ? null
          : await resolveParent(tx, tenant, { parentId: u.parentId?.set, parentExternalId: u.parentExternalId?.set }, 'update.parent', index);
        if (parentId !== null) {
          if (!writable(access, parentId)) throw new ForbiddenError(`No write access to parent data set ${parentId}`, [parentId]);
          const { rows: below } = await tx.query<{ id: number }>(DATA_SET_BELOW, [tenant, row.id, parentId]);
          if (below.length > 0) throw new BadRequestError('A data set cannot belong to itself or to one of its descendants', [{ field: `items.${index}.update.parent`, index, message: 'cycle', value: parentId }]);
        }
        await setParent(tx, tenant, row.id, parentId, now);
      }
      ids.push(row.id);
    }
    const { rows } = await tx.query<DataSetRow>(DATA_SETS_BY_IDS, [tenant, ids]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => toDataSet(byId.get(id) as DataSetRow));
  });
}

/**
 * SPEC: a record's `dataSetId` must name a data set of the tenant; a 400 naming each item's
 * `field` otherwise (time series and functions, on create and update).
 */
export async function assertDataSetsExist(db: Queryable, tenant: string, refs: readonly { index: number; field: string; dataSetId: number }[]): Promise<void> {
  if (refs.length === 0) return;
  const { rows } = await db.query<{ id: number }>(EXISTING_DATA_SETS, [tenant, [...new Set(refs.map((r) => r.dataSetId))]]);
  const known = new Set(rows.map((r) => r.id));
  const missing = refs.filter((r) => !known.has(r.dataSetId));
  if (missing.length > 0) {
    throw new BadRequestError(`Unknown dataSetId ${[...new Set(missing.map((m) => m.dataSetId))].join(', ')}`,
      missing.map((m) => ({ field: m.field, index: m.index, message: 'no data set with this id', value: m.dataSetId })));
  }
}
