// Naming policies (docs/api.md "Policies"): create, read, update and delete, each batch one
// transaction, all-or-nothing. A policy's data set decides who may read and write it, as for
// every record; one without a data set is open to every token of the tenant. Evaluation of
// policies on writes lives in policy-evaluation.ts.
import type { Policy, PolicyCreate, PolicyUpdateItem } from '../../schemas/policies.ts';
import { BadRequestError, ConflictError, DuplicateError, type FieldProblem, type Identifier } from '../errors.ts';
import { assertCanWrite, canRead, type Access } from '../grants/access.ts';
import { lookupNodes } from '../meta/node-lookup.ts';
import { cursorCodec } from '../records/cursor-codec.ts';
import { identifierOf, resolveIdentifiers, type RecordFamily } from '../records/identifiers.ts';
import { applyScalarVerb, updateVerbProblems, type UpdateRules } from '../records/update-verbs.ts';
import type { Queryable } from '../stores/queryable.ts';
import type { RelationalStore } from '../stores/relational.ts';
import { namingPatternProblem } from './naming-pattern.ts';
import {
  DELETE_POLICIES, INSERT_POLICIES, LIST_POLICIES, POLICIES_BY_KEYS, POLICIES_BY_KEYS_FOR_UPDATE, TAKEN_POLICY_EXTERNAL_IDS, UPDATE_POLICY,
} from './policies.sql.ts';

export interface PolicyRow {
  id: number;
  external_id: string;
  name: string;
  description: string | null;
  target: Policy['target'];
  field: Policy['field'];
  pattern: string;
  mode: Policy['mode'];
  data_set_id: number | null;
  template_external_id: string | null;
  created_time: number;
  last_updated_time: number;
}

export function toPolicy(r: PolicyRow): Policy {
  return {
    id: r.id, externalId: r.external_id, name: r.name, target: r.target, field: r.field, pattern: r.pattern, mode: r.mode,
    createdTime: r.created_time, lastUpdatedTime: r.last_updated_time,
    ...(r.description !== null ? { description: r.description } : {}),
    ...(r.data_set_id !== null ? { dataSetId: r.data_set_id } : {}),
    ...(r.template_external_id !== null ? { templateExternalId: r.template_external_id } : {}),
  };
}

const LOCK_NOT_AVAILABLE = '55P03';
const UNIQUE_VIOLATION = '23505';

const POLICY_FAMILY: RecordFamily<PolicyRow> = {
  async fetch(db, tenant, ids, externalIds, forUpdate) {
    return (await db.query<PolicyRow>(forUpdate ? POLICIES_BY_KEYS_FOR_UPDATE : POLICIES_BY_KEYS, [tenant, ids, externalIds])).rows;
  },
  idOf: (row) => row.id,
  externalIdOf: (row) => row.external_id,
};

const visibleTo = (access: Access) => (row: PolicyRow) => canRead(access, row.data_set_id);

/** 400 listing every pattern that cannot be a policy's. */
function assertPatterns(patterns: { pattern: string; field: string; index: number }[]): void {
  const problems: FieldProblem[] = patterns.flatMap(({ pattern, field, index }) => {
    const problem = namingPatternProblem(pattern);
    return problem ? [{ field, index, message: `the pattern ${problem}`, value: pattern }] : [];
  });
  if (problems.length > 0) throw new BadRequestError(`Invalid pattern: ${problems.map((p) => `${p.field} ${p.message}`).slice(0, 3).join('; ')}`, problems);
}

/** 400 naming every dataSetId that is not one of the tenant's data sets. */
async function assertDataSets(db: Queryable, tenant: string, refs: { dataSetId: number; field: string; index: number }[]): Promise<void> {
  if (refs.length === 0) return;
  const found = await lookupNodes(db, tenant, 'dataset', refs.map((r) => ({ id: r.dataSetId })));
  const missing = refs.filter((_, k) => !found[k]?.row);
  if (missing.length > 0) {
    throw new BadRequestError(`Unknown dataSetId ${missing.map((m) => m.dataSetId).join(', ')}`, missing.map((m) => ({ field: m.field, index: m.index, message: 'no data set with this id', value: m.dataSetId })));
  }
}

async function takenExternalIds(db: Queryable, tenant: string, externalIds: string[], exceptIds: number[] = []): Promise<string[]> {
  const seen = new Set<string>();
  const repeated = externalIds.filter((e) => (seen.has(e) ? true : (seen.add(e), false)));
  const { rows } = await db.query<{ external_id: string }>(TAKEN_POLICY_EXTERNAL_IDS, [tenant, externalIds, exceptIds]);
  return [...new Set([...rows.map((r) => r.external_id), ...repeated])];
}

/** Inserts policies inside the caller's transaction (create and template apply). */
export async function insertPolicies(tx: Queryable, access: Access, items: (PolicyCreate & { templateExternalId?: string })[], now: number): Promise<Policy[]> {
  const tenant = access.tenant;
  assertPatterns(items.map((item, index) => ({ pattern: item.pattern, field: `items.${index}.pattern`, index })));
  assertCanWrite(access, items.map((i) => i.dataSetId), 'policy create');
  const duplicated = await takenExternalIds(tx, tenant, items.map((i) => i.externalId));
  if (duplicated.length > 0) throw new DuplicateError(duplicated.map((externalId) => ({ externalId })));
  await assertDataSets(tx, tenant, items.flatMap((item, index) => (item.dataSetId !== undefined ? [{ dataSetId: item.dataSetId, field: `items.${index}.dataSetId`, index }] : [])));
  const { rows } = await tx.query<PolicyRow>(INSERT_POLICIES, [
    tenant,
    items.map((i) => i.externalId), items.map((i) => i.name), items.map((i) => i.description ?? null),
    items.map((i) => i.target), items.map((i) => i.field), items.map((i) => i.pattern), items.map((i) => i.mode ?? 'advisory'),
    items.map((i) => i.dataSetId ?? null), items.map((i) => i.templateExternalId ?? null),
    now,
  ]);
  const byExternalId = new Map(rows.map((r) => [r.external_id, r]));
  return items.map((i) => toPolicy(byExternalId.get(i.externalId) as PolicyRow));
}

export async function createPolicies(store: RelationalStore, access: Access, items: PolicyCreate[], now = Date.now()): Promise<Policy[]> {
  try {
    return await store.transaction((tx) => insertPolicies(tx, access, items, now));
  } catch (error) {
    if ((error as { code?: string }).code === UNIQUE_VIOLATION) {
      throw new DuplicateError((await takenExternalIds(store.pool, access.tenant, items.map((i) => i.externalId))).map((externalId) => ({ externalId })));
    }
    throw error;
  }
}

const policyCursors = cursorCodec('policies', 1, (s: unknown): s is number => Number.isSafeInteger(s) && (s as number) >= 0);

/** A page of readable policies by id; `cursor` from the previous page. */
export async function listPolicies(db: Queryable, access: Access, limit: number, cursor?: string): Promise<{ items: Policy[]; nextCursor?: string }> {
  let after = 0;
  if (cursor !== undefined) {
    const decoded = policyCursors.decode(cursor);
    if (!decoded.ok) throw new BadRequestError('Invalid cursor: send back a nextCursor of this list', [{ field: 'cursor', message: 'not a cursor of this list', value: cursor }]);
    after = decoded.state;
  }
  // Unreadable policies are skipped; read on until the page is full or the table ends.
  const items: Policy[] = [];
  for (;;) {
    const { rows } = await db.query<PolicyRow>(LIST_POLICIES, [access.tenant, after, limit + 1]);
    for (const row of rows.slice(0, limit + 1)) {
      if (items.length === limit) return { items, nextCursor: policyCursors.encode(after) };
      after = row.id;
      if (canRead(access, row.data_set_id)) items.push(toPolicy(row));
    }
    if (rows.length <= limit) return { items };
  }
}

/** Readable policies in request order; misses omitted. */
export async function policiesByIds(db: Queryable, access: Access, identifiers: Identifier[]): Promise<Policy[]> {
  const resolved = await resolveIdentifiers(POLICY_FAMILY, db, access.tenant, identifiers.map(identifierOf), { visible: visibleTo(access) });
  const seen = new Set<number>();
  return resolved.flatMap((r) => (r.row && !seen.has(r.row.id) ? (seen.add(r.row.id), [toPolicy(r.row)]) : []));
}

const POLICY_UPDATE_RULES: UpdateRules = {
  externalId: { shape: 'scalar', required: true },
  name: { shape: 'scalar', required: true },
  description: { shape: 'scalar' },
  target: { shape: 'scalar', required: true },
  field: { shape: 'scalar', required: true },
  pattern: { shape: 'scalar', required: true },
  mode: { shape: 'scalar', required: true },
  dataSetId: { shape: 'scalar' },
};

/** Locks the rows or answers 409: a concurrent change holds them. */
async function lockedPolicies(tx: Queryable, access: Access, identifiers: Identifier[]) {
  try {
    return await resolveIdentifiers(POLICY_FAMILY, tx, access.tenant, identifiers.map(identifierOf), { forUpdate: true, visible: visibleTo(access) });
  } catch (error) {
    if ((error as { code?: string }).code === LOCK_NOT_AVAILABLE) throw new ConflictError();
    throw error;
  }
}

export async function updatePolicies(store: RelationalStore, access: Access, items: PolicyUpdateItem[], now = Date.now()): Promise<Policy[]> {
  const problems = items.flatMap((item, index) => updateVerbProblems(item.update, POLICY_UPDATE_RULES, `items.${index}.update`, index));
  if (problems.length > 0) throw new BadRequestError(`Invalid update: ${problems.map((p) => `${p.field}: ${p.message}`).slice(0, 5).join('; ')}`, problems);
  assertPatterns(items.flatMap((item, index) => (item.update.pattern ? [{ pattern: item.update.pattern.set, field: `items.${index}.update.pattern`, index }] : [])));
  const tenant = access.tenant;
  try {
    return await store.transaction(async (tx) => {
      const resolved = await lockedPolicies(tx, access, items);
      const missing = resolved.filter((r) => !r.row);
      if (missing.length > 0) {
        throw new BadRequestError(`Policy not found: ${missing.map((m) => m.identifier.externalId ?? m.identifier.id).join(', ')}`,
          missing.map((m) => ({ field: `items.${m.index}`, index: m.index, message: 'not found', value: m.identifier.externalId ?? m.identifier.id })));
      }
      const rows = resolved.map((r) => r.row as PolicyRow);
      if (new Set(rows.map((r) => r.id)).size !== rows.length) throw new BadRequestError('The same policy appears twice in one update', [{ field: 'items', message: 'duplicate target' }]);
      const newDataSets = items.flatMap((item, index) => (item.update.dataSetId?.set !== undefined ? [{ dataSetId: item.update.dataSetId.set, field: `items.${index}.update.dataSetId`, index }] : []));
      assertCanWrite(access, [...rows.map((r) => r.data_set_id), ...newDataSets.map((d) => d.dataSetId)], 'policy update');
      await assertDataSets(tx, tenant, newDataSets);
      const renamed = items.flatMap((item, index) => (item.update.externalId ? [{ externalId: item.update.externalId.set, id: (rows[index] as PolicyRow).id }] : []));
      const duplicated = renamed.length ? await takenExternalIds(tx, tenant, renamed.map((r) => r.externalId), renamed.map((r) => r.id)) : [];
      if (duplicated.length > 0) throw new DuplicateError(duplicated.map((externalId) => ({ externalId })));
      const updated: Policy[] = [];
      for (const [index, item] of items.entries()) {
        const row = rows[index] as PolicyRow;
        const u = item.update;
        const { rows: out } = await tx.query<PolicyRow>(UPDATE_POLICY, [
          tenant, row.id,
          u.externalId?.set ?? row.external_id, u.name?.set ?? row.name, applyScalarVerb(row.description, u.description),
          u.target?.set ?? row.target, u.field?.set ?? row.field, u.pattern?.set ?? row.pattern, u.mode?.set ?? row.mode,
          applyScalarVerb(row.data_set_id, u.dataSetId), now,
        ]);
        if (!out[0]) throw new ConflictError();
        updated.push(toPolicy(out[0]));
      }
      return updated;
    });
  } catch (error) {
    if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw new DuplicateError(items.flatMap((i) => (i.update.externalId ? [{ externalId: i.update.externalId.set }] : [])));
    throw error;
  }
}

/** Idempotent: unknown (or unreadable) identifiers are skipped; 403 without write on a policy's data set. */
export async function deletePolicies(store: RelationalStore, access: Access, identifiers: Identifier[]): Promise<void> {
  await store.transaction(async (tx) => {
    const rows = (await lockedPolicies(tx, access, identifiers)).flatMap((r) => (r.row ? [r.row] : []));
    if (rows.length === 0) return;
    assertCanWrite(access, rows.map((r) => r.data_set_id), 'policy delete');
    await tx.query(DELETE_POLICIES, [access.tenant, rows.map((r) => r.id)]);
  });
}
