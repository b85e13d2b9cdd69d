// Goal: the unit schemas accept what SPEC and the catalogue produce and refuse the rest, and
// the value type enum stays equal to engine/datapoints/types.ts. Method: one line per case,
// at each limit and one past it.
import t from 'tap';
import { Value } from '@sinclair/typebox/value';
import { VALUE_TYPES } from '../engine/datapoints/types.ts';
import { RECOMMENDABLE_VALUE_TYPES, Unit, UNIT_BY_IDS_ITEMS_MAX, UnitByIdsRequest, ValueTypeRecommendation } from './units.ts';

t.test('value types are those of engine/datapoints/types.ts', async (t) => {
  t.same([...RECOMMENDABLE_VALUE_TYPES], [...VALUE_TYPES]);
});

t.test('UnitByIdsRequest', async (t) => {
  const check = (body: unknown, valid: boolean, what: string) => t.equal(Value.Check(UnitByIdsRequest, body), valid, what);
  const items = (n: number) => ({ items: Array.from({ length: n }, (_, i) => ({ externalId: `count:u${i}` })) });
  check(items(1), true, 'one item');
  check(items(UNIT_BY_IDS_ITEMS_MAX), true, 'at the limit');
  check(items(UNIT_BY_IDS_ITEMS_MAX + 1), false, 'one past the limit');
  check(items(0), false, 'no items');
  check({ items: [{ externalId: '' }] }, false, 'empty externalId');
  check({ items: [{ externalId: 'x'.repeat(129) }] }, false, 'externalId over 128');
  check({ items: [{ id: 1 }] }, false, 'units have no numeric id');
  check({ items: [{ externalId: 'a:b', extra: 1 }] }, false, 'unknown property');
});

t.test('Unit', async (t) => {
  const unit = {
    externalId: 'temperature:deg_c', name: 'DEG_C', longName: 'Degree Celsius', symbol: '°C', aliasNames: ['degC'],
    quantity: 'Temperature', conversion: { multiplier: 1, offset: 273.15 }, source: 'qudt.org', sourceReference: 'http://qudt.org/vocab/unit/DEG_C',
  };
  t.ok(Value.Check(Unit, unit));
  t.notOk(Value.Check(Unit, { ...unit, externalId: 'Temperature:DEG_C' }), 'externalId is lower snake case');
  t.notOk(Value.Check(Unit, { ...unit, externalId: 'deg_c' }), 'externalId has a quantity prefix');
  t.notOk(Value.Check(Unit, { ...unit, conversion: { multiplier: 0, offset: 0 } }), 'multiplier is positive');
  t.notOk(Value.Check(Unit, { ...unit, symbol: '' }));
});

t.test('ValueTypeRecommendation', async (t) => {
  const advice = { unitExternalId: 'x', recognized: false, valueType: 'FLOAT', reason: 'r' };
  t.ok(Value.Check(ValueTypeRecommendation, advice));
  t.ok(Value.Check(ValueTypeRecommendation, { ...advice, recognized: true, quantity: 'Count', valueType: 'BIGINT' }));
  t.notOk(Value.Check(ValueTypeRecommendation, { ...advice, valueType: 'DOUBLE' }));
  t.notOk(Value.Check(ValueTypeRecommendation, { ...advice, recognized: undefined }));
});
