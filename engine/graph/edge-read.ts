// Reading edges (SPEC "Edges", rule 6): an edge is readable when both its ends are; a denied
// edge behaves as missing (404 on get, omitted from byids and from a resource's edges).
import type { Edge } from '../../schemas/edges.ts';
import { NotFoundError } from '../errors.ts';
import { readableIds, type Access } from '../grants/access.ts';
import type { Queryable } from '../stores/queryable.ts';
import { canReadEdge, toEdge, type EdgeRow } from './edge-write.ts';
import { EDGE_GRAPH_JSON, EDGES_BY_IDS, EDGES_OF_NODES } from './edges.sql.ts';

export async function getEdge(db: Queryable, access: Access, id: number): Promise<Edge> {
  const { rows } = await db.query<EdgeRow>(EDGES_BY_IDS, [access.tenant, [id]]);
  const row = rows[0];
  if (!row || !canReadEdge(access, row)) throw new NotFoundError(`No edge with id ${id}`, [{ id }]);
  return toEdge(row);
}

/**
 * SPEC byids: a graph: the readable edges asked for, in request order, and their end nodes,
 * each once, by id; the answer as JSON text `{"relations":[...],"nodes":[...]}`.
 */
export async function edgesByIdsJson(db: Queryable, access: Access, ids: readonly number[]): Promise<string> {
  const { rows } = await db.query<{ j: string }>(EDGE_GRAPH_JSON, [access.tenant, ids, readableIds(access)]);
  return (rows[0] as { j: string }).j;
}

/** The readable edges starting or ending at a node, at most `limit`, by id. */
export async function edgesOfNode(db: Queryable, access: Access, nodeId: number, limit: number): Promise<Edge[]> {
  const { rows } = await db.query<EdgeRow>(EDGES_OF_NODES, [access.tenant, [nodeId], limit]);
  return rows.filter((r) => canReadEdge(access, r)).map(toEdge);
}
