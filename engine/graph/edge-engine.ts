// The edge and relationship type use cases (SPEC "Edges") bound to PostgreSQL. Every write
// runs through the graph guard (engine/graph/graph-guard.ts): writes of one tenant's graph are
// serialised, and a delete that would strand a resource from every root is refused.
import type { Edge, RelationCreate, RelationshipType, RelationshipTypeCreate } from '../../schemas/edges.ts';
import type { Access } from '../grants/access.ts';
import { edgesByIdsJson, filterEdgesJson, getEdge, type EdgeFilter } from './edge-read.ts';
import { insertEdges, removeEdges } from './edge-write.ts';
import type { GraphGuard } from './graph-guard.ts';
import { bindRelationshipEngine, type RelationshipEngine } from './relationship-engine.ts';
import { createRelationshipTypes, listRelationshipTypes } from './relationship-types.ts';
import type { SeriesDirectory } from '../meta/series-directory.ts';
import type { Quotas } from '../quotas/quotas.ts';
import type { RelationalStore } from '../stores/relational.ts';

export interface EdgeEngine {
  /** All-or-nothing; charges the daily `relationships` quota first. */
  create(access: Access, items: RelationCreate[]): Promise<Edge[]>;
  /** Throws NotFoundError when missing or unreadable. */
  get(access: Access, id: number): Promise<Edge>;
  /** JSON text: the readable edges in request order under `relations`, their end nodes under `nodes`. */
  byIds(access: Access, ids: number[]): Promise<string>;
  /** JSON text: a page of the readable edges matching the filter, by id, with their end nodes. */
  filter(access: Access, query: { filter?: EdgeFilter; limit: number; cursor?: string }): Promise<string>;
  /** Idempotent; refused (400) when it would strand a resource. */
  delete(access: Access, ids: number[]): Promise<void>;
  listTypes(access: Access): Promise<RelationshipType[]>;
  /** One transaction; a taken name is a 409 and nothing is created. */
  createTypes(access: Access, items: RelationshipTypeCreate[]): Promise<RelationshipType[]>;
  /** Edges named by externalId (relationship-engine.ts). */
  relationships: RelationshipEngine;
}

export interface EdgeEngineDeps {
  relational: RelationalStore;
  quotas: Quotas;
  graph: GraphGuard;
  /** A time series that takes a data set through an edge (rule 3) changes its held keys. */
  series: SeriesDirectory;
}

export function bindEdgeEngine(deps: EdgeEngineDeps): EdgeEngine {
  const { relational, quotas, graph } = deps;
  const db = relational.pool;
  return {
    async create(access, items) {
      await quotas.chargeDaily(access.tenant, 'relationships', items.length);
      const { edges, seriesMoved } = await graph.write(access, async (tx) => {
        const inserted = await insertEdges(tx, access, items, { field: 'items', now: Date.now() });
        return { result: inserted, change: { addedEdges: inserted.added } };
      });
      if (seriesMoved > 0) deps.series.forgetTenant(access.tenant);
      return edges;
    },
    get: (access, id) => getEdge(db, access, id),
    byIds: (access, ids) => edgesByIdsJson(db, access, ids),
    filter: (access, query) => filterEdgesJson(db, access, query.filter ?? {}, query.limit, query.cursor),
    async delete(access, ids) {
      await graph.write(access, async (tx) => {
        const removed = await removeEdges(tx, access, ids);
        return { result: undefined, change: { removedEdges: removed } };
      });
    },
    listTypes: (access) => listRelationshipTypes(db, access.tenant),
    createTypes: (access, items) => createRelationshipTypes(relational, access.tenant, items),
    relationships: bindRelationshipEngine(deps),
  };
}
