// Units (SPEC "Units"): a central read-only catalogue addressed by externalId, and the value
// type advice of GET /timeseries/recommend-value-type/{unitExternalId}.
import { Unit, UnitByIdsRequest, UnitList, UnitListQuery, ValueTypeRecommendation } from '../schemas/units.ts';
import type { UnitEngine } from '../engine/meta/meta-engine.ts';
import { jsonRoute, ok, queryRoute, type Route } from './route.ts';

const TAG = 'Units';

export function unitRoutes(units: UnitEngine): Route[] {
  return [
    queryRoute({
      method: 'get', path: '/units', operationId: 'listUnits', tag: TAG,
      summary: 'List the unit catalogue',
      query: UnitListQuery,
      responses: { 200: { description: 'every unit (optionally of one quantity)', schema: UnitList } },
      handle: async ({ query }) => ok({ items: units.list(query.quantity) }),
    }),
    {
      method: 'get', path: '/units/{externalId}', operationId: 'getUnit', tag: TAG,
      summary: 'Get one unit by externalId',
      responses: { 200: { description: 'the unit', schema: Unit }, 404: { description: 'no such unit' } },
      handle: async ({ params }) => ok(units.get(params['externalId'] ?? '')),
    },
    jsonRoute({
      method: 'post', path: '/units/byids', operationId: 'unitsByIds', tag: TAG,
      summary: 'Retrieve units by externalId; misses are silently omitted',
      body: UnitByIdsRequest,
      responses: { 200: { description: 'found units', schema: UnitList } },
      handle: async ({ body }) => ok({ items: units.byExternalIds(body.items.map((i) => i.externalId)) }),
    }),
    {
      method: 'get', path: '/timeseries/recommend-value-type/{unitExternalId}', operationId: 'recommendValueType', tag: 'Time series',
      summary: 'Advice on the value type for a unit; an unknown unit gets a default with recognized=false',
      responses: { 200: { description: 'the recommendation', schema: ValueTypeRecommendation } },
      handle: async ({ params }) => ok(units.recommendValueType(params['unitExternalId'] ?? '')),
    },
  ];
}
