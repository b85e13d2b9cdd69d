// The resource use cases (SPEC "Resources") bound to PostgreSQL. Writes run through
// the graph guard (every resource stays reachable from a root) with naming policies evaluated
// in the same transaction; creates charge the daily `nodes` quota and the objects ceiling, and
// relations the daily `relationships` quota, before anything is written.
import type { Edge, RelationCreate } from '../../schemas/edges.ts';
import type { Resource, ResourceCreate, ResourceFilterRequest, ResourceSearchRequest, ResourceUpdateItem } from '../../schemas/resources.ts';
import type { Identifier } from '../errors.ts';
import type { Access } from '../grants/access.ts';
import { bindAssetEngine, type AssetEngine } from './asset-engine.ts';
import type { GraphGuard } from './graph-guard.ts';
import { filterResourcesJson, getResource, getResourceWithEdges, resourcesByIds, searchResources } from './resource-read.ts';
import { createResources, deleteResources, updateResources, type ResourceGraph } from './resource-write.ts';
import type { TableStats } from '../meta/table-stats.ts';
import { pageJson } from '../meta/timeseries-rows.ts';
import type { PolicyEvaluator } from '../policies/policy-evaluation.ts';
import type { Quotas } from '../quotas/quotas.ts';
import type { RelationalStore } from '../stores/relational.ts';

/** SPEC has no figure for resource filter pages: the time series filter's. */
export const RESOURCE_FILTER_LIMIT_DEFAULT = 1_000;
export const RESOURCE_SEARCH_LIMIT_DEFAULT = 100;

export interface ResourceEngine {
  /** Nodes and relations in one transaction, all-or-nothing. */
  create(access: Access, request: { nodes?: ResourceCreate[]; relations?: RelationCreate[] }): Promise<ResourceGraph>;
  /** Node updates and added relations in one transaction, all-or-nothing. */
  update(access: Access, request: { nodes?: ResourceUpdateItem[]; relations?: RelationCreate[] }): Promise<ResourceGraph>;
  /** Throws NotFoundError when missing or unreadable. */
  get(access: Access, id: number): Promise<Resource>;
  /** A resource with its readable edges, both directions (for /mcp). */
  getWithEdges(access: Access, identifier: Identifier): Promise<{ item: Resource; relations: Edge[] }>;
  byIds(access: Access, identifiers: Identifier[]): Promise<Resource[]>;
  /** A page of `{"items":[...],"nextCursor"?}` JSON. */
  filter(access: Access, request: ResourceFilterRequest): Promise<string>;
  search(access: Access, request: ResourceSearchRequest): Promise<Resource[]>;
  /** Idempotent; refused (400) when it would strand a resource. */
  delete(access: Access, identifiers: Identifier[]): Promise<void>;
  /** The same resources as a tree of assets (asset-engine.ts). */
  assets: AssetEngine;
}

export interface ResourceEngineDeps {
  relational: RelationalStore;
  quotas: Quotas;
  graph: GraphGuard;
  policies: PolicyEvaluator;
  /** Planner statistics of the node table, kept fresh after bulk creates. */
  nodeStats: TableStats;
}

export function bindResourceEngine(deps: ResourceEngineDeps): ResourceEngine {
  const { relational, quotas, nodeStats } = deps;
  const db = relational.pool;
  const resources: Omit<ResourceEngine, 'assets'> = {
    async create(access, { nodes = [], relations = [] }) {
      await quotas.chargeNodes(access.tenant, nodes.length);
      await quotas.chargeDaily(access.tenant, 'relationships', relations.length);
      const created = await createResources(deps, access, nodes, relations);
      nodeStats.noteWrites(created.items.length);
      return created;
    },
    async update(access, { nodes = [], relations = [] }) {
      await quotas.chargeDaily(access.tenant, 'relationships', relations.length);
      return updateResources(deps, access, nodes, relations);
    },
    get: (access, id) => getResource(db, access, id),
    getWithEdges: (access, identifier) => getResourceWithEdges(db, access, identifier),
    byIds: (access, identifiers) => resourcesByIds(db, access, identifiers),
    filter: async (access, request) => pageJson(await filterResourcesJson(db, access, { ...request, limit: request.limit ?? RESOURCE_FILTER_LIMIT_DEFAULT })),
    search: (access, request) => searchResources(db, access, { search: request.search.query, limit: request.limit ?? RESOURCE_SEARCH_LIMIT_DEFAULT }),
    delete: (access, identifiers) => deleteResources(deps, access, identifiers),
  };
  return { ...resources, assets: bindAssetEngine(db, resources) };
}
