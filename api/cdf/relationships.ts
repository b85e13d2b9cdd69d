// CDF's relationships routes (docs/cdf.md "Events, assets and relationships") over edges named
// by externalId (engine/graph/relationship-engine.ts): create, list, byids, delete.
// Translation is relationships-form.ts's.
import {
  CdfRelationshipByIdsRequest, CdfRelationshipCollection, CdfRelationshipCreateRequest, CdfRelationshipDeleteRequest, CdfRelationshipListRequest, CdfRelationshipPage,
} from '../../schemas/cdf/relationships.ts';
import { CdfEmpty } from '../../schemas/cdf/events.ts';
import type { RelationshipEngine } from '../../engine/graph/relationship-engine.ts';
import { ok, type Route } from '../route.ts';
import { cdfJsonRoute } from './cdf-route.ts';
import { fromCdfRelationshipCreates, fromCdfRelationshipList, refuseFetchResources, toCdfRelationship } from './relationships-form.ts';

const TAG = 'Relationships';

export function cdfRelationshipRoutes(relationships: RelationshipEngine): Route[] {
  return [
    cdfJsonRoute({
      method: 'post', path: '/relationships', operationId: 'createRelationships', tag: TAG,
      summary: 'Create relationships (CDF): edges between assets and time series, named by externalId; all-or-nothing, in request order',
      body: CdfRelationshipCreateRequest,
      responses: { 201: { description: 'the relationships, in request order', schema: CdfRelationshipCollection }, 400: { description: 'a field edges cannot carry, an unknown end' }, 409: { description: 'an externalId taken, or the same ends and label (`duplicated`)' } },
      handle: async ({ access, body }) => ok({ items: (await relationships.create(access, fromCdfRelationshipCreates(body.items))).map(toCdfRelationship) }, 201),
    }),
    cdfJsonRoute({
      method: 'post', path: '/relationships/list', operationId: 'listRelationships', tag: TAG,
      summary: 'List relationships with a filter (CDF), cursor paging',
      body: CdfRelationshipListRequest,
      responses: { 200: { description: 'a page', schema: CdfRelationshipPage } },
      async handle({ access, body }) {
        const page = await relationships.list(access, fromCdfRelationshipList(body));
        return ok({ items: page.items.map(toCdfRelationship), ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}) });
      },
    }),
    cdfJsonRoute({
      method: 'post', path: '/relationships/byids', operationId: 'relationshipsByIds', tag: TAG,
      summary: 'Relationships by externalId (CDF); unknown ones a 400 with missing unless ignoreUnknownIds',
      body: CdfRelationshipByIdsRequest,
      responses: { 200: { description: 'in request order', schema: CdfRelationshipCollection }, 400: { description: 'unknown externalIds (`missing`), fetchResources' } },
      async handle({ access, body }) {
        refuseFetchResources(body.fetchResources);
        return ok({ items: (await relationships.byExternalIds(access, body.items.map((i) => i.externalId), body.ignoreUnknownIds ?? false)).map(toCdfRelationship) });
      },
    }),
    cdfJsonRoute({
      method: 'post', path: '/relationships/delete', operationId: 'deleteRelationships', tag: TAG,
      summary: 'Delete relationships (CDF); unknown ones a 400 with missing unless ignoreUnknownIds',
      description: 'A delete that would leave a resource unreachable from a root is a 400 naming it (SPEC edge rule 7).',
      body: CdfRelationshipDeleteRequest,
      responses: { 200: { description: 'deleted', schema: CdfEmpty }, 400: { description: 'unknown externalIds (`missing`), stranded resources' } },
      async handle({ access, body }) {
        await relationships.delete(access, body.items.map((i) => i.externalId), body.ignoreUnknownIds ?? false);
        return ok({});
      },
    }),
  ];
}
