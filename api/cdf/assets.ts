// CDF's assets routes (docs/cdf.md "Events, assets and relationships") over resources seen as
// a tree (engine/graph/asset-engine.ts): create, list, byids, search, update, delete
// (recursive), aggregate (count). Translation is assets-form.ts's.
import { CdfAssetAggregateRequest, CdfAssetCollection, CdfAssetCreateRequest, CdfAssetDeleteRequest, CdfAssetListRequest, CdfAssetPage, CdfAssetSearchRequest, CdfAssetUpdateRequest } from '../../schemas/cdf/assets.ts';
import { CdfByIdsRequest, CdfCount, CdfEmpty } from '../../schemas/cdf/events.ts';
import type { AssetEngine } from '../../engine/graph/asset-engine.ts';
import { ok, type Route } from '../route.ts';
import { fromCdfAssetCreates, fromCdfAssetFilter, fromCdfAssetList, fromCdfAssetSearch, fromCdfAssetUpdates, toCdfAsset } from './assets-form.ts';
import { cdfJsonRoute } from './cdf-route.ts';

const TAG = 'Assets';

export function cdfAssetRoutes(assets: AssetEngine): Route[] {
  return [
    cdfJsonRoute({
      method: 'post', path: '/assets', operationId: 'createAssets', tag: TAG,
      summary: 'Create assets (CDF): resources, a parent as a containment edge; all-or-nothing, in request order',
      description: 'An asset without parentId / parentExternalId is a root resource; one with a parent hangs from it by a CONTAINS edge (parent → child), the parent in this request or stored before. externalId is required here; source is a 400 naming it.',
      body: CdfAssetCreateRequest,
      responses: { 201: { description: 'the assets, in request order', schema: CdfAssetCollection }, 400: { description: 'a field resources cannot carry, an unknown parent or data set' }, 409: { description: 'an externalId taken (`duplicated`)' } },
      handle: async ({ access, body }) => ok({ items: (await assets.create(access, fromCdfAssetCreates(body.items))).map(toCdfAsset) }, 201),
    }),
    cdfJsonRoute({
      method: 'post', path: '/assets/list', operationId: 'listAssets', tag: TAG,
      summary: 'List assets with a filter (CDF), cursor paging',
      body: CdfAssetListRequest,
      responses: { 200: { description: 'a page', schema: CdfAssetPage } },
      async handle({ access, body }) {
        const page = await assets.list(access, fromCdfAssetList(body));
        return ok({ items: page.items.map(toCdfAsset), ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}) });
      },
    }),
    cdfJsonRoute({
      method: 'post', path: '/assets/byids', operationId: 'assetsByIds', tag: TAG,
      summary: 'Assets by id or externalId (CDF); unknown ones a 400 with missing unless ignoreUnknownIds',
      body: CdfByIdsRequest,
      responses: { 200: { description: 'in request order', schema: CdfAssetCollection }, 400: { description: 'unknown ids (`missing`)' } },
      handle: async ({ access, body }) => ok({ items: (await assets.byIds(access, body.items, body.ignoreUnknownIds ?? false)).map(toCdfAsset) }),
    }),
    cdfJsonRoute({
      method: 'post', path: '/assets/search', operationId: 'searchAssets', tag: TAG,
      summary: 'Search assets by name, description or query (CDF), fuzzy and ranked',
      body: CdfAssetSearchRequest,
      responses: { 200: { description: 'ranked assets', schema: CdfAssetCollection }, 400: { description: 'a filter (not supported on search), or nothing to search for' } },
      handle: async ({ access, body }) => ok({ items: (await assets.search(access, fromCdfAssetSearch(body), body.limit)).map(toCdfAsset) }),
    }),
    cdfJsonRoute({
      method: 'post', path: '/assets/update', operationId: 'updateAssets', tag: TAG,
      summary: 'Update assets (CDF); all-or-nothing',
      body: CdfAssetUpdateRequest,
      responses: { 200: { description: 'the assets after update', schema: CdfAssetCollection }, 400: { description: 'unknown ids (`missing`), a field resources cannot carry' } },
      handle: async ({ access, body }) => ok({ items: (await assets.update(access, fromCdfAssetUpdates(body.items))).map(toCdfAsset) }),
    }),
    cdfJsonRoute({
      method: 'post', path: '/assets/delete', operationId: 'deleteAssets', tag: TAG,
      summary: 'Delete assets (CDF), with recursive the subtrees under them',
      description: 'Without `recursive`, deleting an asset whose children would be left unreachable from a root is a 400 naming them. The SDK always sends ignoreUnknownIds: true.',
      body: CdfAssetDeleteRequest,
      responses: { 200: { description: 'deleted', schema: CdfEmpty }, 400: { description: 'unknown ids (`missing`), or children left stranded' } },
      async handle({ access, body }) {
        await assets.delete(access, body.items, { recursive: body.recursive ?? false, ignoreUnknownIds: body.ignoreUnknownIds ?? false });
        return ok({});
      },
    }),
    cdfJsonRoute({
      method: 'post', path: '/assets/aggregate', operationId: 'aggregateAssets', tag: TAG,
      summary: 'Count assets (CDF), with the list\'s filter',
      body: CdfAssetAggregateRequest,
      responses: { 200: { description: '[{count}]', schema: CdfCount } },
      handle: async ({ access, body }) => ok({ items: [{ count: await assets.count(access, fromCdfAssetFilter(body.filter)) }] }),
    }),
  ];
}
