// Resource create, update and delete (SPEC "Resources"): each request is one
// transaction under the tenant's graph lock (graph-guard.ts), nodes and relations together,
// all-or-nothing. Every check runs before the first row is written where it can; what only
// the written graph can tell (a resource no root reaches) is checked by the guard before
// commit, which rolls the whole request back.
import type { Edge, RelationCreate } from '../../schemas/edges.ts';
import type { Resource, ResourceCreate, ResourceUpdateItem } from '../../schemas/resources.ts';
import { BadRequestError, ConflictError, DuplicateError, UnprocessableError, type FieldProblem, type Identifier } from '../errors.ts';
import { assertCanWrite, canRead, type Access } from '../grants/access.ts';
import { duplicatedExternalIds } from '../meta/external-ids.ts';
import { ensureLabels } from '../meta/labels.ts';
import { lookupNodes } from '../meta/node-lookup.ts';
import { governedFieldsWritten, type PolicyEvaluator } from '../policies/policy-evaluation.ts';
import { resolveIdentifiers, type RecordFamily } from '../records/identifiers.ts';
import { applyListVerb, applyMapVerb, applyScalarVerb, capProblemsAfterUpdate, updateVerbProblems, type UpdateRules } from '../records/update-verbs.ts';
import type { Queryable } from '../stores/queryable.ts';
import { insertEdges } from './edge-write.ts';
import { assertGeoLocations, geoLocationProblems } from './geo-location.ts';
import type { GraphEdge, GraphGuard } from './graph-guard.ts';
import { toResource, type ResourceRow } from './resource-rows.ts';
import { DELETE_EDGES_AT, DELETE_RESOURCES, INSERT_RESOURCES, RESOURCES_FOR_UPDATE, UPDATE_RESOURCE } from './resource-write.sql.ts';

const UNIQUE_VIOLATION = '23505';

/** What a resource write needs besides the store. */
export interface ResourceWriteDeps {
  graph: GraphGuard;
  policies: Pick<PolicyEvaluator, 'evaluate'>;
}

/** Each item's data set (by id or externalId), which must exist and be readable: a 400 naming the item otherwise. */
async function resolveDataSets(db: Queryable, access: Access, refs: { dataSetId?: number; dataSetExternalId?: string }[], field: (index: number) => string): Promise<(number | null)[]> {
  const named = refs.flatMap((r, index) => (r.dataSetId !== undefined || r.dataSetExternalId !== undefined ? [{ index, identifier: { ...(r.dataSetId !== undefined ? { id: r.dataSetId } : {}), ...(r.dataSetExternalId !== undefined ? { externalId: r.dataSetExternalId } : {}) } }] : []));
  const out: (number | null)[] = refs.map(() => null);
  if (named.length === 0) return out;
  const found = await lookupNodes(db, access.tenant, 'dataset', named.map((n) => n.identifier), false, {
    visible: (row) => canRead(access, row.id), field: (k) => field((named[k] as { index: number }).index),
  });
  const missing: FieldProblem[] = [];
  found.forEach((f, k) => {
    const { index, identifier } = named[k] as { index: number; identifier: Identifier };
    if (f.row) out[index] = f.row.id;
    else missing.push({ field: field(index), index, message: 'no such data set', value: identifier.id ?? identifier.externalId });
  });
  if (missing.length > 0) throw new BadRequestError(`Unknown data set: ${missing.map((m) => m.value).join(', ')}`, missing);
  return out;
}

export interface ResourceGraph {
  items: Resource[];
  relations: Edge[];
}

export async function createResources(
  deps: ResourceWriteDeps, access: Access, nodes: ResourceCreate[], relations: RelationCreate[], now = Date.now(),
): Promise<ResourceGraph> {
  const tenant = access.tenant;
  assertGeoLocations(nodes.map((n, index) => geoLocationProblems(n.geoLocation, `nodes.${index}.geoLocation`, index)));
  try {
    return await deps.graph.write(access, async (tx) => {
      const duplicated = await duplicatedExternalIds(tx, tenant, nodes.map((n) => n.externalId));
      if (duplicated.length > 0) throw new DuplicateError(duplicated.map((externalId) => ({ externalId })));
      // 403 before existence, as for time series: a data set named by id that the caller may not write.
      assertCanWrite(access, nodes.map((n) => n.dataSetId), 'resource create');
      const dataSets = await resolveDataSets(tx, access, nodes, (index) => `nodes.${index}.dataSetId`);
      assertCanWrite(access, dataSets, 'resource create');
      const { rows } = nodes.length === 0 ? { rows: [] as ResourceRow[] } : await tx.query<ResourceRow>(INSERT_RESOURCES, [
        tenant,
        nodes.map((n) => n.externalId),
        nodes.map((n) => n.name),
        nodes.map((n) => n.description ?? null),
        dataSets,
        nodes.map((n) => JSON.stringify([...new Set(n.labels ?? [])])),
        nodes.map((n) => JSON.stringify(n.metadata ?? {})),
        nodes.map((n) => n.isRoot ?? false),
        nodes.map((n) => (n.geoLocation === undefined || n.geoLocation === null ? null : JSON.stringify(n.geoLocation))),
        now,
      ]);
      await ensureLabels(tx, tenant, nodes.flatMap((n) => n.labels ?? []), now);
      const byExternalId = new Map(rows.map((r) => [r.external_id, r]));
      const created = nodes.map((n) => byExternalId.get(n.externalId) as ResourceRow);
      const edges = await insertEdges(tx, access, relations, { field: 'relations', now });
      await deps.policies.evaluate(tx, tenant, 'resource', created.map((r, index) => ({
        id: r.id, externalId: r.external_id, name: r.name ?? '', description: r.description, dataSetId: r.data_set_id, path: `nodes.${index}`,
      })), now);
      return {
        result: { items: created.map(toResource), relations: edges.edges },
        change: { addedNodes: created.map((r) => ({ id: r.id, isRoot: r.is_root })), addedEdges: edges.added },
      };
    });
  } catch (error) {
    if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw new DuplicateError(nodes.map((n) => ({ externalId: n.externalId })), 'A resource externalId was taken concurrently');
    throw error;
  }
}

/** SPEC update verbs, as for time series; `isRoot` takes `set` only. */
const RESOURCE_UPDATE_RULES: UpdateRules = {
  externalId: { shape: 'scalar', required: true },
  name: { shape: 'scalar', required: true },
  description: { shape: 'scalar' },
  isRoot: { shape: 'scalar', required: true },
  dataSetId: { shape: 'scalar' },
  geoLocation: { shape: 'scalar' },
  metadata: { shape: 'map' },
  labels: { shape: 'list' },
};

/** Resources as the resolver's family, locked (inside the graph lock, so never contended by another graph write). */
const LOCKED_RESOURCES: RecordFamily<ResourceRow> = {
  async fetch(db, tenant, ids, externalIds) {
    return (await db.query<ResourceRow>(RESOURCES_FOR_UPDATE, [tenant, ids, externalIds])).rows;
  },
  idOf: (row) => row.id,
  externalIdOf: (row) => row.external_id,
};

export async function updateResources(
  deps: ResourceWriteDeps, access: Access, items: ResourceUpdateItem[], relations: RelationCreate[], now = Date.now(),
): Promise<ResourceGraph> {
  const tenant = access.tenant;
  const problems = items.flatMap((item, index) => [
    ...(item.id === undefined && item.externalId === undefined ? [{ field: `nodes.${index}`, index, message: 'needs an id or an externalId' }] : []),
    ...updateVerbProblems(item.update, RESOURCE_UPDATE_RULES, `nodes.${index}.update`, index),
  ]);
  if (problems.length > 0) throw new BadRequestError(`Invalid update: ${problems.map((p) => `${p.field}: ${p.message}`).slice(0, 5).join('; ')}`, problems);
  assertGeoLocations(items.map((item, index) => geoLocationProblems(item.update.geoLocation?.set, `nodes.${index}.update.geoLocation`, index)));
  try {
    return await deps.graph.write(access, async (tx) => {
      const resolved = await resolveIdentifiers(LOCKED_RESOURCES, tx, tenant, items, {
        forUpdate: true, visible: (row) => canRead(access, row.data_set_id), field: (index) => `nodes.${index}`,
      });
      const missing = resolved.filter((r) => !r.row);
      if (missing.length > 0) {
        throw new BadRequestError(`Resource not found: ${missing.map((m) => m.identifier.externalId ?? m.identifier.id).join(', ')}`,
          missing.map((m) => ({ field: `nodes.${m.index}`, index: m.index, message: 'not found', value: m.identifier.externalId ?? m.identifier.id })));
      }
      const rows = resolved.map((r) => r.row as ResourceRow);
      if (new Set(rows.map((r) => r.id)).size !== rows.length) throw new BadRequestError('The same resource appears twice in one update', [{ field: 'nodes', message: 'duplicate target' }]);
      assertCanWrite(access, [...rows.map((r) => r.data_set_id), ...items.map((i) => i.update.dataSetId?.set)], 'resource update');
      const newDataSets = await resolveDataSets(tx, access, items.map((i) => ({ dataSetId: i.update.dataSetId?.set })), (index) => `nodes.${index}.update.dataSetId`);
      assertCanWrite(access, [...rows.map((r) => r.data_set_id), ...newDataSets], 'resource update');
      const renamed = items.flatMap((item, index) => (item.update.externalId?.set !== undefined ? [{ externalId: item.update.externalId.set, id: (rows[index] as ResourceRow).id }] : []));
      const duplicated = renamed.length ? await duplicatedExternalIds(tx, tenant, renamed.map((r) => r.externalId), renamed.map((r) => r.id)) : [];
      if (duplicated.length > 0) throw new DuplicateError(duplicated.map((externalId) => ({ externalId })));
      const capProblems: FieldProblem[] = [];
      const updated: ResourceRow[] = [];
      for (const [index, item] of items.entries()) {
        const row = rows[index] as ResourceRow;
        const u = item.update;
        const metadata = applyMapVerb(row.metadata, u.metadata);
        const labels = applyListVerb(row.labels, u.labels);
        capProblems.push(...capProblemsAfterUpdate({ metadata, labels }, `nodes.${index}.update`, index));
        if (capProblems.length > 0) continue;
        const geo = applyScalarVerb(row.geo_location, u.geoLocation);
        const { rows: out } = await tx.query<ResourceRow>(UPDATE_RESOURCE, [
          tenant, row.id,
          applyScalarVerb(row.external_id, u.externalId) as string,
          applyScalarVerb(row.name, u.name) as string,
          applyScalarVerb(row.description, u.description),
          u.dataSetId === undefined ? row.data_set_id : u.dataSetId.setNull === true ? null : newDataSets[index],
          JSON.stringify(metadata), labels, u.isRoot?.set ?? row.is_root,
          geo === null || geo === undefined ? null : JSON.stringify(geo), now,
        ]);
        if (!out[0]) throw new ConflictError();
        updated.push(out[0]);
      }
      if (capProblems.length > 0) throw new UnprocessableError('Field caps exceeded after update', capProblems);
      await ensureLabels(tx, tenant, updated.flatMap((r) => r.labels), now);
      const edges = await insertEdges(tx, access, relations, { field: 'relations', now });
      await deps.policies.evaluate(tx, tenant, 'resource', updated.map((r, index) => ({
        id: r.id, externalId: r.external_id, name: r.name ?? '', description: r.description, dataSetId: r.data_set_id,
        path: `nodes.${index}.update`, changed: governedFieldsWritten((items[index] as ResourceUpdateItem).update),
      })), now);
      const rootChanges = updated.flatMap((r, index) => (r.is_root !== (rows[index] as ResourceRow).is_root ? [{ id: r.id, isRoot: r.is_root }] : []));
      return { result: { items: updated.map(toResource), relations: edges.edges }, change: { rootChanges, addedEdges: edges.added } };
    });
  } catch (error) {
    if ((error as { code?: string }).code === UNIQUE_VIOLATION) {
      throw new DuplicateError(items.flatMap((i) => (i.update.externalId?.set ? [{ externalId: i.update.externalId.set }] : [])));
    }
    throw error;
  }
}

/**
 * SPEC delete: idempotent (unknown or unreadable identifiers skipped), every relationship of
 * the resources removed with them, 400 naming the resources it would strand (the guard), 403
 * without write access; all-or-nothing.
 */
export async function deleteResources(deps: ResourceWriteDeps, access: Access, identifiers: Identifier[]): Promise<void> {
  const tenant = access.tenant;
  await deps.graph.write(access, async (tx) => {
    const resolved = await resolveIdentifiers(LOCKED_RESOURCES, tx, tenant, identifiers, { forUpdate: true, visible: (row) => canRead(access, row.data_set_id) });
    const rows = [...new Map(resolved.flatMap((r) => (r.row ? [[r.row.id, r.row] as const] : []))).values()];
    if (rows.length === 0) return { result: undefined, change: {} };
    assertCanWrite(access, rows.map((r) => r.data_set_id), 'resource delete');
    const ids = rows.map((r) => r.id);
    const { rows: edges } = await tx.query<{ id: number; start_id: number; end_id: number }>(DELETE_EDGES_AT, [tenant, ids]);
    await tx.query(DELETE_RESOURCES, [tenant, ids]);
    const removedEdges: GraphEdge[] = edges.map((e) => ({ id: e.id, start: e.start_id, end: e.end_id }));
    return { result: undefined, change: { removedNodes: ids, removedEdges } };
  });
}
