// Reading edges (SPEC "Edges", rule 6): an edge is readable when both its ends are; a denied
// edge behaves as missing (404 on get, omitted from byids and from a resource's edges).
import type { Edge, GraphNode } from '../../schemas/edges.ts';
import { NotFoundError } from '../errors.ts';
import type { Access } from '../grants/access.ts';
import type { Queryable } from '../stores/queryable.ts';
import { canReadEdge, toEdge, type EdgeRow } from './edge-write.ts';
import { EDGES_BY_IDS, EDGES_OF_NODES, GRAPH_NODES } from './edges.sql.ts';

interface GraphNodeRow {
  id: number;
  kind: GraphNode['kind'];
  external_id: string;
  name: string | null;
  description: string | null;
  is_root: boolean;
  data_set_id: number | null;
  labels: string[];
  metadata: Record<string, string>;
  created_time: number;
  last_updated_time: number;
}

function toGraphNode(r: GraphNodeRow): GraphNode {
  return {
    id: r.id, kind: r.kind, externalId: r.external_id, name: r.name ?? '', metadata: r.metadata, createdTime: r.created_time, lastUpdatedTime: r.last_updated_time,
    ...(r.description !== null ? { description: r.description } : {}),
    ...(r.kind === 'resource' ? { isRoot: r.is_root } : {}),
    ...(r.data_set_id !== null ? { dataSetId: r.data_set_id } : {}),
    ...(r.kind !== 'dataset' ? { labels: r.labels } : {}),
  };
}

export async function getEdge(db: Queryable, access: Access, id: number): Promise<Edge> {
  const { rows } = await db.query<EdgeRow>(EDGES_BY_IDS, [access.tenant, [id]]);
  const row = rows[0];
  if (!row || !canReadEdge(access, row)) throw new NotFoundError(`No edge with id ${id}`, [{ id }]);
  return toEdge(row);
}

/** SPEC byids: a graph: the readable edges asked for, in request order, and their end nodes, each once. */
export async function edgesByIds(db: Queryable, access: Access, ids: readonly number[]): Promise<{ relations: Edge[]; nodes: GraphNode[] }> {
  const { rows } = await db.query<EdgeRow>(EDGES_BY_IDS, [access.tenant, [...new Set(ids)]]);
  const byId = new Map(rows.filter((r) => canReadEdge(access, r)).map((r) => [r.id, r]));
  const seen = new Set<number>();
  const edges = ids.flatMap((id) => {
    const row = byId.get(id);
    if (!row || seen.has(id)) return [];
    seen.add(id);
    return [row];
  });
  const nodeIds = [...new Set(edges.flatMap((e) => [e.start_id, e.end_id]))];
  const { rows: nodes } = nodeIds.length === 0 ? { rows: [] } : await db.query<GraphNodeRow>(GRAPH_NODES, [access.tenant, nodeIds]);
  return { relations: edges.map(toEdge), nodes: nodes.sort((a, b) => a.id - b.id).map(toGraphNode) };
}

/** The readable edges starting or ending at a node, at most `limit`, by id. */
export async function edgesOfNode(db: Queryable, access: Access, nodeId: number, limit: number): Promise<Edge[]> {
  const { rows } = await db.query<EdgeRow>(EDGES_OF_NODES, [access.tenant, [nodeId], limit]);
  return rows.filter((r) => canReadEdge(access, r)).map(toEdge);
}
