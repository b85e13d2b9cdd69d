// Edge and relationship type routes (SPEC "Edges", its nine rules).
import {
  Edge, EdgeCollection, EdgeCreateRequest, EdgeFilterRequest, EdgeGraph, EdgeIdsRequest, EdgePage, EDGE_FILTER_LIMIT_DEFAULT, RelationshipTypeCollection, RelationshipTypeCreateRequest,
} from '../schemas/edges.ts';
import type { EdgeEngine } from '../engine/graph/graph-engine.ts';
import { idPathParam } from './query-params.ts';
import { jsonRoute, noContent, ok, type Route } from './route.ts';

const TAG = 'Edges';

export function edgeRoutes(edges: EdgeEngine): Route[] {
  return [
    jsonRoute({
      method: 'post', path: '/edges/create', operationId: 'createEdges', tag: TAG,
      summary: 'Create edges (all-or-nothing)',
      description: 'Ends by `fromId`/`fromExternalId` and `toId`/`toExternalId`, among the tenant\'s resources, time series and data sets; the type by `relationshipTypeId` or `relationshipType`, upper-cased only (`Flows To` is `FLOWS TO`), an unknown name creating the type. Rules: a missing end or type is a 400 naming it; a relation into a data set must be `BELONGS_TO`; a data set–time series edge only for a series without a data set (it then takes that data set) or already in it; 403 without write access to either end\'s data set; 409 DuplicateError when (start, end, type) exists or repeats in the batch, `duplicated` listing `{ start, end, type }`. Charged to the daily `relationships` quota.',
      body: EdgeCreateRequest,
      responses: {
        201: { description: 'created, in request order', schema: EdgeCollection },
        400: { description: 'a missing end or type, a non-BELONGS_TO relation into a data set, a series already in another data set' },
        403: { description: 'no write access to an end\'s data set' }, 409: { description: 'DuplicateError: (start, end, type) exists' }, 422: { description: 'field caps' },
      },
      handle: async ({ access, body }) => ok({ items: await edges.create(access, body.items) }, 201),
    }),
    {
      method: 'get', path: '/edges/types', operationId: 'listRelationshipTypes', tag: TAG,
      summary: 'The tenant\'s relationship type catalogue, by name',
      responses: { 200: { description: 'every type', schema: RelationshipTypeCollection } },
      handle: async ({ access }) => ok({ items: await edges.listTypes(access) }),
    },
    jsonRoute({
      method: 'post', path: '/edges/types/create', operationId: 'createRelationshipTypes', tag: TAG,
      summary: 'Register relationship types (one transaction; 201)',
      description: 'Names are snake-upper-cased (`Flows To`, `flows to` and `FLOWS_TO` are one type), up to 128 characters, with at least one letter or digit. No find-or-create: a name that exists (ignoring case) or repeats in the batch is a 409 DuplicateError listing `{ name }`, and nothing of the batch is created.',
      body: RelationshipTypeCreateRequest,
      responses: { 201: { description: 'created', schema: RelationshipTypeCollection }, 400: { description: 'a name without a letter or digit' }, 409: { description: 'DuplicateError: a name exists' } },
      handle: async ({ access, body }) => ok({ items: await edges.createTypes(access, body.items) }, 201),
    }),
    {
      method: 'get', path: '/edges/{id}', operationId: 'getEdge', tag: TAG,
      summary: 'One edge by id',
      responses: { 200: { description: 'the edge', schema: Edge }, 400: { description: 'id is not an integer' }, 404: { description: 'missing, or an end unreadable (indistinguishable)' } },
      handle: async ({ access, params }) => ok(await edges.get(access, idPathParam(params))),
    },
    jsonRoute({
      method: 'post', path: '/edges/byids', operationId: 'edgesByIds', tag: TAG,
      summary: 'Edges by id as a graph: edges under `relations`, their end nodes under `nodes`',
      description: 'Missing edges and edges with an unreadable end are omitted. `relations` follow the request order; `nodes` holds each end node once, by id, with its `kind` (`resource`, `timeseries`, `dataset`).',
      body: EdgeIdsRequest,
      responses: { 200: { description: 'the graph', schema: EdgeGraph } },
      handle: async ({ access, body }) => ok(await edges.byIds(access, body.items.map((i) => i.id))),
    }),
    jsonRoute({
      method: 'post', path: '/edges/filter', operationId: 'filterEdges', tag: TAG,
      summary: 'Edges by an end and a type, paged by id, with their end nodes',
      description: '`filter.startId` (edges out of a node), `filter.endId` (edges into it) and `filter.type` (the type name, upper-cased as `/edges/create` stores it) are AND-ed; none lists every edge. Edges with an end the caller may not read are left out. `nodes` holds the end nodes of the page\'s edges once each, by id, as `/edges/byids` does. `limit` default 100, at most 1,000; `nextCursor` on a full page, valid only with the same filter (another is a 400).',
      body: EdgeFilterRequest,
      responses: { 200: { description: 'a page of edges', schema: EdgePage }, 400: { description: 'a cursor of another filter' } },
      handle: async ({ access, body }) => ok(await edges.filter(access, { filter: body.filter, limit: body.limit ?? EDGE_FILTER_LIMIT_DEFAULT, cursor: body.cursor })),
    }),
    ...(['post', 'delete'] as const).map((method) => jsonRoute({
      method, path: '/edges/delete', operationId: method === 'post' ? 'deleteEdges' : 'deleteEdgesWithDelete', tag: TAG,
      summary: 'Delete edges (idempotent; unknown ids skipped)',
      description: 'Refused with 400 naming the resources it would leave unreachable from every root (nothing removed); 403 without write access to an end\'s data set.',
      body: EdgeIdsRequest,
      responses: { 204: { description: 'deleted' }, 400: { description: 'would strand resources (`fields` name them)' }, 403: { description: 'no write access to an end\'s data set' }, 409: { description: 'ConflictError' } },
      async handle({ access, body }) {
        await edges.delete(access, body.items.map((i) => i.id));
        return noContent();
      },
    })),
  ];
}
