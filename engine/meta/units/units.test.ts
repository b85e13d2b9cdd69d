// Goal: the runtime catalogue lists, fetches by externalId and resolves the spellings a time
// series `unit` uses (SPEC: `unit` must name a known unit). Method: one line per spelling,
// exact and lenient, shared spellings resolved as documented, unknown ones refused.
import t from 'tap';
import type { Unit } from '../../../schemas/units.ts';
import { findUnitByName, getUnit, getUnits, listUnits, unitQuantities } from './units.ts';

t.test('listUnits and unitQuantities', async (t) => {
  const units = listUnits();
  t.ok(units.length >= 300);
  t.equal(units.length, unitQuantities().reduce((sum, q) => sum + q.unitCount, 0));
  for (const quantity of unitQuantities()) {
    t.same(getUnit(quantity.baseUnitExternalId)?.conversion, { multiplier: 1, offset: 0 }, quantity.name);
  }
  t.ok(unitQuantities().some((q) => q.name === 'Temperature' && q.baseUnitExternalId === 'temperature:k'));
  t.throws(() => { (units as Unit[]).push(units[0] as Unit); }, 'the list is frozen');
  t.throws(() => { (units[0] as { symbol: string }).symbol = 'x'; }, 'units are frozen');
});

t.test('getUnit and getUnits', async (t) => {
  t.equal(getUnit('temperature:deg_c')?.symbol, '°C');
  t.equal(getUnit('pressure:bar')?.longName, 'Bar');
  t.equal(getUnit('Temperature:DEG_C'), undefined, 'externalIds are exact');
  t.equal(getUnit(''), undefined);
  t.equal(getUnit('temperature:nope'), undefined);
  const found = getUnits(['power:kilo_w', 'no:such', 'temperature:deg_c', 'power:kilo_w']);
  t.same(found.map((u) => u.externalId), ['power:kilo_w', 'temperature:deg_c', 'power:kilo_w'], 'request order, misses omitted');
  t.same(getUnits([]), []);
});

t.test('findUnitByName', async (t) => {
  const check = (text: string, expected: string | undefined) =>
    t.equal(findUnitByName(text)?.externalId, expected, `${JSON.stringify(text)} → ${expected}`);
  // symbol, aliases, name, longName, externalId
  check('°C', 'temperature:deg_c');
  check('degC', 'temperature:deg_c');
  check('DEG_C', 'temperature:deg_c');
  check('Degree Celsius', 'temperature:deg_c');
  check('temperature:deg_c', 'temperature:deg_c');
  check('kWh', 'energy:kilo_w_hr');
  check('kW·h', 'energy:kilo_w_hr');
  check('m3/h', 'volume_flow_rate:m3_per_hr');
  check('m³/h', 'volume_flow_rate:m3_per_hr');
  check('rpm', 'angular_velocity:rev_per_min');
  check('psi', 'pressure:psi');
  check('lbf/in²', 'pressure:psi');
  check('bara', 'pressure:bar_a');
  check('%', 'dimensionless_ratio:percent');
  check('gpm', 'volume_flow_rate:gal_us_per_min');
  check('uS/cm', 'electrical_conductivity:micro_s_per_centi_m');
  check('µS/cm', 'electrical_conductivity:micro_s_per_centi_m');
  check('μS/cm', 'electrical_conductivity:micro_s_per_centi_m');
  // exact case decides between prefixes
  check('MW', 'power:mega_w');
  check('mW', 'power:milli_w');
  check('MPa', 'pressure:mega_pa');
  check('mPa', 'pressure:milli_pa');
  check('A', 'electric_current:a');
  // lenient: case, spaces, compatibility forms
  check('KWH', 'energy:kilo_w_hr');
  check(' kWh ', 'energy:kilo_w_hr');
  check('degree fahrenheit', 'temperature:deg_f');
  check('℃', 'temperature:deg_c');
  // shared spellings resolve to the quantity listed first (process quantities first)
  check('C', 'temperature:deg_c');
  check('F', 'temperature:deg_f');
  check('pH', 'acidity:ph');
  check('rad', 'angle:rad');
  // unknown
  check('', undefined);
  check('furlong per fortnight', undefined);
  check('degC2', undefined);
});
