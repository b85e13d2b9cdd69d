// Resource routes (SPEC "Resources"; the shapes SPEC leaves open are in docs/api.md).
import {
  GRAPH_ITEMS_PER_REQUEST_MAX, Resource, ResourceCollection, ResourceCreateRequest, ResourceFilterRequest, ResourceGraphResponse, ResourceIdentifiers,
  ResourcePage, ResourceSearchRequest, ResourceUpdateRequest,
} from '../schemas/resources.ts';
import type { ResourceEngine } from '../engine/graph/graph-engine.ts';
import { idPathParam } from './query-params.ts';
import { jsonRoute, noContent, ok, type Route } from './route.ts';

const TAG = 'Resources';

export function resourceRoutes(resources: ResourceEngine): Route[] {
  return [
    jsonRoute({
      method: 'post', path: '/resources/create', operationId: 'createResources', tag: TAG,
      summary: 'Create resources and relations in one transaction (all-or-nothing)',
      description: `\`nodes\` and \`relations\` (at most ${GRAPH_ITEMS_PER_REQUEST_MAX} each; more is a 400 naming the cap). A relation may name nodes created in the same request; relations follow every rule of POST /edges/create. Every resource must be reachable from a root (a resource created with \`isRoot: true\`) following edges of any type in their direction, through time series and data sets too: a non-root resource nothing reachable points at is a 400 whose \`fields\` entries \`{ field: "items", id, externalId }\` name each such resource (at most 1,000). \`geoLocation\` is raw GeoJSON (RFC 7946: a geometry, Feature or FeatureCollection; foreign members kept), checked with @placemarkio/check-geojson (400), up to 65,536 characters of its compact JSON (422); \`null\` is the same as leaving it out. A new label name creates the label. Naming policies apply (422 under an enforce policy). Charged to the daily \`nodes\` and \`relationships\` quotas and the objects ceiling.`,
      body: ResourceCreateRequest,
      responses: {
        201: { description: 'the resources (request order) under `items`, the edges under `relations`', schema: ResourceGraphResponse },
        400: { description: 'unknown data set or relation end, invalid GeoJSON, a resource no root reaches, a cap passed' },
        403: { description: 'no write grant on a data set' }, 409: { description: 'DuplicateError (externalId taken, or an edge exists)' }, 422: { description: 'field caps or an enforce naming policy' },
      },
      handle: async ({ access, body }) => ok(await resources.create(access, body), 201),
    }),
    jsonRoute({
      method: 'post', path: '/resources/update', operationId: 'updateResources', tag: TAG,
      summary: 'Update resources and add relations in one transaction (all-or-nothing)',
      description: '`nodes`: `{ id or externalId, update: { field: verb } }` with the time series update verbs (`set`, `setNull`, and `add`/`remove` on `metadata` and `labels`); `externalId`, `name` and `isRoot` cannot be cleared; `isRoot` takes `set` only (demoting a root is refused with the stranding 400 when it would strand resources, itself included when nothing else reaches it); `geoLocation: { set: null }` clears like `setNull`. A resource named twice is a 400. An empty `update` only moves `lastUpdatedTime`. `relations` are added, with the rules of POST /edges/create. At most 1,000 of each; all-or-nothing.',
      body: ResourceUpdateRequest,
      responses: {
        200: { description: 'the resources after update under `items`, the added edges under `relations`', schema: ResourceGraphResponse },
        400: { description: 'no identifier, not found, `set` with `setNull`, `setNull` on name or externalId, would strand resources' },
        403: { description: 'no write grant' }, 409: { description: 'DuplicateError or ConflictError' }, 422: { description: 'field caps or an enforce naming policy' },
      },
      handle: async ({ access, body }) => ok(await resources.update(access, body)),
    }),
    {
      method: 'get', path: '/resources/{id}', operationId: 'getResource', tag: TAG,
      summary: 'One resource by id',
      description: 'Answers the resource itself (not an `items` envelope).',
      responses: { 200: { description: 'the resource', schema: Resource }, 400: { description: 'id is not an integer' }, 404: { description: 'missing or unreadable (indistinguishable)' } },
      handle: async ({ access, params }) => ok(await resources.get(access, idPathParam(params))),
    },
    jsonRoute({
      method: 'post', path: '/resources/byids', operationId: 'resourcesByIds', tag: TAG,
      summary: 'Resources by id or externalId; misses and unreadable ones omitted',
      description: 'In request order, a resource named twice answered once. Time series and data sets share the node space but are never answered here. An identifier whose id and externalId name two different records is a 400.',
      body: ResourceIdentifiers,
      responses: { 200: { description: 'found resources, in request order', schema: ResourceCollection }, 400: { description: 'an identifier naming two records' } },
      handle: async ({ access, body }) => ok({ items: await resources.byIds(access, body.items) }),
    }),
    jsonRoute({
      method: 'post', path: '/resources/filter', operationId: 'filterResources', tag: TAG,
      summary: 'Filter resources with cursor paging',
      description: 'The time series filter\'s rules where the fields match: `externalId`, `name`, `description` pattern lists (`*` and `%` wildcards, `_` literal, case-insensitive; no wildcard = exact), `labels` (all present), `metadata` (every entry; null matches the key), `createdTime`/`lastUpdatedTime` ranges, `id`; plus `isRoot` and `dataSetId` (entries by id or externalId, descendants included). `limit` default 1,000, max 10,000. Sort by one of id, externalId, name, description, createdTime, lastUpdatedTime, dataSetId; default newest created first; `id` appended. The cursor is bound to its sort.',
      body: ResourceFilterRequest,
      responses: { 200: { description: 'a page', schema: ResourcePage }, 400: { description: 'invalid filter, sort or cursor' } },
      handle: async ({ access, body }) => ok(await resources.filter(access, body)),
    }),
    jsonRoute({
      method: 'post', path: '/resources/search', operationId: 'searchResources', tag: TAG,
      summary: 'Fuzzy search over name, externalId and description, ranked by relevance (charged as a read)',
      description: '`search.query` (1 to 1,000 characters) is matched by trigram word similarity against name (weighted up), externalId and description (weighted down); a name or externalId equal to the query ranks first. Ranked by relevance with id as tie-break; `limit` default 100, max 1,000. Its `filter` is accepted and ignored, as SPEC says.',
      body: ResourceSearchRequest,
      responses: { 200: { description: 'ranked resources', schema: ResourceCollection } },
      handle: async ({ access, body }) => ok({ items: await resources.search(access, body) }),
    }),
    ...(['post', 'delete'] as const).map((method) => jsonRoute({
      method, path: '/resources/delete', operationId: method === 'post' ? 'deleteResources' : 'deleteResourcesWithDelete', tag: TAG,
      summary: 'Delete resources with all their relationships (idempotent, all-or-nothing)',
      description: 'Unknown and unreadable identifiers are skipped; every edge starting or ending at a deleted resource goes with it. Refused with 400 naming the resources it would leave unreachable from every root (`fields` entries `{ field: "items", id, externalId }`; include them in the same delete, or re-attach them first); nothing is removed. A tenant\'s graph writes are serialised, so a concurrent change is seen rather than raced: it shows as that 400, or as an identifier already gone (skipped); the 409 ConflictError SPEC lists does not arise.',
      body: ResourceIdentifiers,
      responses: { 204: { description: 'deleted' }, 400: { description: 'would strand resources (`fields` name them)' }, 403: { description: 'no write grant' }, 409: { description: 'ConflictError (listed by SPEC; graph writes are serialised, so it does not arise)' } },
      async handle({ access, body }) {
        await resources.delete(access, body.items);
        return noContent();
      },
    })),
  ];
}
