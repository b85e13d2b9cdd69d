// Resources seen as a tree of assets (docs/cdf.md "Assets"): SPEC's resource calls (the same
// rules, grants, quotas and all-or-nothing transactions, the graph guard included) with each
// resource's parent and root from the containment tree (asset-tree.ts), plus what such
// clients need that SPEC's surface lacks: an asset created under a parent (a root otherwise),
// a named resource that is unknown or unreadable as a NotFoundError listing it unless ignored,
// filters by parent and subtree, and a recursive delete.
import type { Resource, ResourceCreate, ResourceFilterRequest, ResourceUpdateItem } from '../../schemas/resources.ts';
import { BadRequestError, NotFoundError, type Identifier } from '../errors.ts';
import type { Access } from '../grants/access.ts';
import type { Queryable } from '../stores/queryable.ts';
import { CONTAINMENT_TYPE, containmentOf, descendantsOf, DESCENDANTS_MAX, type Containment } from './asset-tree.ts';
import { countResources } from './resource-read.ts';
import { assertNoRepeats } from '../records/repeated-identifiers.ts';
import type { ResourceGraph } from './resource-write.ts';

/** A resource with its place in the containment tree. */
export interface AssetRecord extends Containment {
  resource: Resource;
}

/** A resource to create, under `parent` (a containment edge parent → it) or, without one, a root. */
export interface AssetCreate {
  node: Omit<ResourceCreate, 'isRoot'>;
  parent?: Identifier;
}

/** A filter page request plus the tree's own filters: direct children of `parents`, the subtrees under `subtrees` (them included). */
export type AssetListRequest = ResourceFilterRequest & { limit: number; parents?: Identifier[]; subtrees?: Identifier[] };

export interface AssetEngine {
  /** All-or-nothing; answers in request order. */
  create(access: Access, items: AssetCreate[]): Promise<AssetRecord[]>;
  byIds(access: Access, identifiers: Identifier[], ignoreUnknownIds: boolean): Promise<AssetRecord[]>;
  list(access: Access, request: AssetListRequest): Promise<{ items: AssetRecord[]; nextCursor?: string }>;
  search(access: Access, query: string, limit?: number): Promise<AssetRecord[]>;
  /** All-or-nothing; every target must exist and be readable. */
  update(access: Access, items: ResourceUpdateItem[]): Promise<AssetRecord[]>;
  /** The number of readable assets the request's filters admit. */
  count(access: Access, request: Omit<AssetListRequest, 'limit' | 'cursor' | 'sort'>): Promise<number>;
  /** With `recursive`, every readable resource under the named ones goes too. */
  delete(access: Access, identifiers: Identifier[], options: { recursive: boolean; ignoreUnknownIds: boolean }): Promise<void>;
}

/** What the asset calls are made of: SPEC's resource calls. */
export interface ResourceCalls {
  create(access: Access, request: { nodes?: ResourceCreate[]; relations?: { fromId?: number; fromExternalId?: string; toExternalId?: string; relationshipType?: string }[] }): Promise<ResourceGraph>;
  update(access: Access, request: { nodes?: ResourceUpdateItem[] }): Promise<ResourceGraph>;
  byIds(access: Access, identifiers: Identifier[]): Promise<Resource[]>;
  filter(access: Access, request: ResourceFilterRequest): Promise<string>;
  search(access: Access, request: { search: { query: string }; limit?: number }): Promise<Resource[]>;
  delete(access: Access, identifiers: Identifier[]): Promise<void>;
}

async function withContainment(db: Queryable, access: Access, resources: Resource[]): Promise<AssetRecord[]> {
  const tree = await containmentOf(db, access, resources.map((r) => r.id));
  return resources.map((resource) => ({ resource, ...(tree.get(resource.id) ?? { rootId: resource.id }) }));
}

const names = (identifier: Identifier, resource: Resource): boolean =>
  (identifier.id === undefined || identifier.id === resource.id) && (identifier.externalId === undefined || identifier.externalId === resource.externalId);

/** The readable resources named, in request order; the unknown or unreadable ones a NotFoundError unless ignored. */
async function resolveNamed(resources: ResourceCalls, access: Access, identifiers: Identifier[], ignoreUnknownIds: boolean): Promise<Resource[]> {
  const found = await resources.byIds(access, identifiers);
  const missing = identifiers.filter((identifier) => !found.some((r) => names(identifier, r)));
  if (missing.length > 0 && !ignoreUnknownIds) {
    throw new NotFoundError(`Assets not found: ${missing.slice(0, 5).map((m) => m.externalId ?? m.id).join(', ')}`, missing);
  }
  return found;
}

async function treeFilterIds(db: Queryable, resources: ResourceCalls, access: Access, request: Pick<AssetListRequest, 'parents' | 'subtrees'>): Promise<number[] | undefined> {
  let ids: number[] | undefined;
  const narrow = (next: number[]) => { ids = ids === undefined ? next : ids.filter((id) => next.includes(id)); };
  const cap = (found: number[], field: string) => {
    if (found.length >= DESCENDANTS_MAX) throw new BadRequestError(`${field}: more than ${DESCENDANTS_MAX} assets match; narrow the filter`, [{ field, message: `more than ${DESCENDANTS_MAX} assets` }]);
    return found;
  };
  if (request.parents !== undefined) {
    const parents = await resources.byIds(access, request.parents);
    narrow(cap(await descendantsOf(db, access, parents.map((p) => p.id), { withSelf: false, childrenOnly: true }), 'filter.parentIds'));
  }
  if (request.subtrees !== undefined) {
    const tops = await resources.byIds(access, request.subtrees);
    narrow(cap(await descendantsOf(db, access, tops.map((p) => p.id), { withSelf: true }), 'filter.assetSubtreeIds'));
  }
  return ids;
}

export function bindAssetEngine(db: Queryable, resources: ResourceCalls): AssetEngine {
  return {
    async create(access, items) {
      const nodes = items.map((item) => ({ ...item.node, isRoot: item.parent === undefined }));
      const relations = items.flatMap((item) => (item.parent === undefined ? [] : [{
        ...(item.parent.id !== undefined ? { fromId: item.parent.id } : { fromExternalId: item.parent.externalId as string }),
        toExternalId: item.node.externalId, relationshipType: CONTAINMENT_TYPE,
      }]));
      const created = await resources.create(access, { nodes, relations });
      return withContainment(db, access, created.items);
    },
    byIds: async (access, identifiers, ignoreUnknownIds) => withContainment(db, access, await resolveNamed(resources, access, identifiers, ignoreUnknownIds)),
    async list(access, request) {
      const { parents: _parents, subtrees: _subtrees, ...page } = request;
      const ids = await treeFilterIds(db, resources, access, request);
      if (ids !== undefined && ids.length === 0) return { items: [] };
      const filter = ids === undefined ? page.filter : { ...page.filter, id: ids };
      const json = JSON.parse(await resources.filter(access, { ...page, ...(filter !== undefined ? { filter } : {}) })) as { items: Resource[]; nextCursor?: string };
      return { items: await withContainment(db, access, json.items), ...(json.nextCursor !== undefined ? { nextCursor: json.nextCursor } : {}) };
    },
    async count(access, request) {
      const ids = await treeFilterIds(db, resources, access, request);
      if (ids !== undefined && ids.length === 0) return 0;
      return countResources(db, access, ids === undefined ? request.filter : { ...request.filter, id: ids });
    },
    search: async (access, query, limit) => withContainment(db, access, await resources.search(access, { search: { query }, ...(limit !== undefined ? { limit } : {}) })),
    async update(access, items) {
      assertNoRepeats(items);
      await resolveNamed(resources, access, items.map((i) => (i.id !== undefined ? { id: i.id } : { externalId: i.externalId as string })), false);
      return withContainment(db, access, (await resources.update(access, { nodes: items })).items);
    },
    async delete(access, identifiers, { recursive, ignoreUnknownIds }) {
      assertNoRepeats(identifiers);
      const named = await resolveNamed(resources, access, identifiers, ignoreUnknownIds);
      if (named.length === 0) return;
      const ids = recursive ? await descendantsOf(db, access, named.map((r) => r.id), { withSelf: true }) : named.map((r) => r.id);
      if (ids.length >= DESCENDANTS_MAX) throw new BadRequestError(`A recursive delete reaches more than ${DESCENDANTS_MAX} assets; delete subtrees first`, [{ field: 'items', message: `more than ${DESCENDANTS_MAX} assets` }]);
      await resources.delete(access, [...new Set([...named.map((r) => r.id), ...ids])].map((id) => ({ id })));
    },
  };
}
