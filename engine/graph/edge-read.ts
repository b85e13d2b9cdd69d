// Reading edges (SPEC "Edges", rule 6): an edge is readable when both its ends are; a denied
// edge behaves as missing (404 on get, omitted from byids and from a resource's edges).
import type { Edge } from '../../schemas/edges.ts';
import { BadRequestError, NotFoundError } from '../errors.ts';
import { readableIds, type Access } from '../grants/access.ts';
import { cursorCodec } from '../records/cursor-codec.ts';
import type { Queryable } from '../stores/queryable.ts';
import { canReadEdge, toEdge, type EdgeRow } from './edge-write.ts';
import { EDGE_FILTER_JSON, EDGE_GRAPH_JSON, EDGES_BY_IDS, EDGES_OF_NODES } from './edges.sql.ts';

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

export interface EdgeFilter { startId?: number; endId?: number; type?: string }

/** An edge page's cursor: the last edge id, bound to the filter it was issued for. */
const edgeCursor = cursorCodec<{ after: number }>('edges', 1, (state): state is { after: number } => Number.isSafeInteger((state as { after?: unknown })?.after));

/**
 * A page of the readable edges matching the filter (an end, the other end, the type), by id,
 * with their end nodes once each; answered as JSON text `{ items, nodes, nextCursor? }`.
 * A cursor of another filter, or not ours, is a 400 naming `cursor`.
 */
export async function filterEdgesJson(db: Queryable, access: Access, filter: EdgeFilter, limit: number, cursor?: string): Promise<string> {
  const type = filter.type?.toUpperCase();
  const context = JSON.stringify([filter.startId ?? null, filter.endId ?? null, type ?? null]);
  let after = 0;
  if (cursor !== undefined) {
    const decoded = edgeCursor.decode(cursor, context);
    if (!decoded.ok) throw new BadRequestError('cursor: not a cursor of this filter', [{ field: 'cursor', message: 'not a cursor of this filter' }]);
    after = decoded.state.after;
  }
  const { rows } = await db.query<{ j: string; n: number; last: number | null }>(EDGE_FILTER_JSON, [
    access.tenant, filter.startId ?? null, filter.endId ?? null, type ?? null, after, limit, readableIds(access),
  ]);
  const { j, n, last } = rows[0] as { j: string; n: number; last: number | null };
  return n === limit && last !== null ? `${j},"nextCursor":${JSON.stringify(edgeCursor.encode({ after: last }, context))}}` : `${j}}`;
}
