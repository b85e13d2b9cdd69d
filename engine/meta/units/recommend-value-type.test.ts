// Goal: recommendValueType gives SPEC's answer shape for known and unknown units and the
// advice its table promises (counts → BIGINT, billed energy → NUMERIC, measurements → FLOAT).
// Method: one line per unit; every answer checked against the ValueTypeRecommendation schema;
// the table itself checked against the catalogue so no rule names a unit that is not there.
import t from 'tap';
import { Value } from '@sinclair/typebox/value';
import { ValueTypeRecommendation } from '../../../schemas/units.ts';
import { recommendValueType, VALUE_TYPE_RULES } from './recommend-value-type.ts';
import { listUnits, unitQuantities } from './units.ts';

t.test('advice per unit', async (t) => {
  const check = (unitExternalId: string, valueType: string, quantity: string | undefined) => {
    const advice = recommendValueType(unitExternalId);
    t.ok(Value.Check(ValueTypeRecommendation, advice), `${unitExternalId}: schema`);
    t.match(advice, { unitExternalId, recognized: quantity !== undefined, valueType, quantity }, `${unitExternalId} → ${valueType}`);
    t.ok(advice.reason.length > 20, 'a reason is given');
  };
  check('count:num', 'BIGINT', 'Count');
  check('count:thousand', 'BIGINT', 'Count');
  check('information:byte', 'BIGINT', 'Information');
  check('information:mega_byte', 'FLOAT', 'Information');
  check('energy:kilo_w_hr', 'NUMERIC', 'Energy');
  check('energy:mega_w_hr', 'NUMERIC', 'Energy');
  check('energy:j', 'FLOAT', 'Energy');
  check('temperature:deg_c', 'FLOAT', 'Temperature');
  check('pressure:bar', 'FLOAT', 'Pressure');
  check('volume_flow_rate:m3_per_hr', 'FLOAT', 'Volume Flow Rate');
  check('dimensionless_ratio:percent', 'FLOAT', 'Dimensionless Ratio');
  check('acidity:ph', 'FLOAT', 'Acidity');
});

t.test('unknown unit: a default with recognized=false', async (t) => {
  for (const id of ['no:such_unit', 'Temperature:DEG_C', '', 'kWh']) {
    const advice = recommendValueType(id);
    t.ok(Value.Check(ValueTypeRecommendation, advice));
    t.same({ ...advice, reason: undefined }, { unitExternalId: id, recognized: false, valueType: 'FLOAT', reason: undefined }, JSON.stringify(id));
    t.notOk('quantity' in advice, 'no quantity for an unknown unit');
    t.match(advice.reason, /GET \/units/);
  }
});

t.test('the rule table names only units and quantities of the catalogue', async (t) => {
  const names = new Set(listUnits().map((u) => u.name));
  const quantities = new Set(unitQuantities().map((q) => q.name));
  for (const rule of VALUE_TYPE_RULES) {
    t.same((rule.units ?? []).filter((n) => !names.has(n)), [], `${rule.valueType} rule units exist`);
    t.same((rule.quantities ?? []).filter((q) => !quantities.has(q)), [], `${rule.valueType} rule quantities exist`);
  }
});
