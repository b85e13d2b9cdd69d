// Units (SPEC "Units"): a central read-only catalogue addressed by externalId, and the value
// type advice of GET /timeseries/recommend-value-type/{unitExternalId}.
import { Type } from '@sinclair/typebox';
import { Unit, UnitByIdsRequest, UnitList, ValueTypeRecommendation } from '../schemas/units.ts';
import { NotFoundError } from '../engine/errors.ts';
import { getUnit, getUnits, listUnits } from '../engine/meta/units/units.ts';
import { recommendValueType } from '../engine/meta/units/recommend-value-type.ts';
import { ok, type Route } from './route.ts';

const TAG = 'Units';

export function unitRoutes(): Route[] {
  return [
    {
      method: 'get', path: '/units', operationId: 'listUnits', tag: TAG,
      summary: 'List the unit catalogue',
      query: { quantity: { schema: Type.String(), description: 'only units of this quantity (case-insensitive), e.g. Temperature' } },
      responses: { 200: { description: 'every unit (optionally of one quantity)', schema: UnitList } },
      async handle({ query }) {
        const quantity = query.get('quantity')?.toLowerCase();
        const units = listUnits();
        return ok({ items: quantity ? units.filter((u) => u.quantity.toLowerCase() === quantity) : units });
      },
    },
    {
      method: 'get', path: '/units/{externalId}', operationId: 'getUnit', tag: TAG,
      summary: 'Get one unit by externalId',
      responses: { 200: { description: 'the unit', schema: Unit }, 404: { description: 'no such unit' } },
      async handle({ params }) {
        const externalId = params['externalId'] ?? '';
        const unit = getUnit(externalId);
        if (!unit) throw new NotFoundError(`No unit with externalId "${externalId}"`, [{ externalId }]);
        return ok(unit);
      },
    },
    {
      method: 'post', path: '/units/byids', operationId: 'unitsByIds', tag: TAG,
      summary: 'Retrieve units by externalId; misses are silently omitted',
      body: UnitByIdsRequest,
      responses: { 200: { description: 'found units', schema: UnitList } },
      async handle({ body }) {
        return ok({ items: getUnits((body as { items: { externalId: string }[] }).items.map((i) => i.externalId)) });
      },
    },
    {
      method: 'get', path: '/timeseries/recommend-value-type/{unitExternalId}', operationId: 'recommendValueType', tag: 'Time series',
      summary: 'Advice on the value type for a unit; an unknown unit gets a default with recognized=false',
      responses: { 200: { description: 'the recommendation', schema: ValueTypeRecommendation } },
      async handle({ params }) {
        return ok(recommendValueType(params['unitExternalId'] ?? ''));
      },
    },
  ];
}
