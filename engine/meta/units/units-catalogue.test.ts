// Goal: units-catalogue.json is a sound catalogue: several hundred units, unique externalIds,
// every unit valid against schemas/units.ts, conversions right, source and licence recorded,
// and the file equal to what build-catalogue.ts makes of QUDT. Method: read the JSON as the
// service does; check conversions against values from the SI brochure and NIST SP 811, not
// against QUDT; regenerate from the cached QUDT tarball when there is one.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Unit } from '../../../schemas/units.ts';
import { buildCatalogue, catalogueJson, loadQudtUnits, OUTPUT_PATH, quantitySlug, unitSlug } from './build-catalogue.ts';

interface CatalogueFile {
  source: { name: string; url: string; licence: string; distribution: string; attribution: string };
  unitCount: number;
  quantities: { name: string; baseUnitExternalId: string; unitCount: number }[];
  units: Unit[];
}

const text = readFileSync(OUTPUT_PATH, 'utf8');
const catalogue = JSON.parse(text) as CatalogueFile;
const byId = new Map(catalogue.units.map((u) => [u.externalId, u]));

t.test('size, unique externalIds, header', async (t) => {
  t.ok(catalogue.units.length >= 300, `${catalogue.units.length} units`);
  t.ok(catalogue.units.length <= 600, 'a curated catalogue, not all of QUDT');
  t.equal(byId.size, catalogue.units.length, 'externalIds are unique');
  t.equal(catalogue.unitCount, catalogue.units.length);
  t.equal(catalogue.source.licence, 'CC-BY-4.0');
  t.match(catalogue.source.distribution, /^@qudtlib\/allunits@\d+\.\d+\.\d+/);
  t.match(catalogue.source.attribution, /QUDT/);
});

t.test('every unit validates against the Unit schema', async (t) => {
  const check = TypeCompiler.Compile(Unit);
  const invalid = catalogue.units.filter((u) => !check.Check(u as unknown));
  t.same(invalid.map((u) => [u.externalId, [...check.Errors(u)].map((e) => `${e.path}: ${e.message}`)]), []);
  // A time series `unitExternalId` allows 128 characters (schemas/timeseries.ts).
  t.same(catalogue.units.filter((u) => u.externalId.length > 128).map((u) => u.externalId), []);
});

t.test('externalIds are <quantity>:<QUDT name> in snake case', async (t) => {
  const wrong = catalogue.units.filter((u) => u.externalId !== `${quantitySlug(u.quantity)}:${unitSlug(u.name)}`);
  t.same(wrong.map((u) => u.externalId), []);
  t.equal(unitSlug('KiloW-HR'), 'kilo_w_hr');
  t.equal(unitSlug('DEG_C'), 'deg_c');
  t.equal(unitSlug('MicroS-PER-CentiM'), 'micro_s_per_centi_m');
  t.equal(quantitySlug('Volume Flow Rate'), 'volume_flow_rate');
});

t.test('quantities: each base unit converts as itself, unit counts agree', async (t) => {
  for (const quantity of catalogue.quantities) {
    const base = byId.get(quantity.baseUnitExternalId);
    t.equal(base?.quantity, quantity.name, `${quantity.name} base ${quantity.baseUnitExternalId}`);
    t.same(base?.conversion, { multiplier: 1, offset: 0 });
    t.equal(catalogue.units.filter((u) => u.quantity === quantity.name).length, quantity.unitCount);
  }
  t.same([...new Set(catalogue.units.map((u) => u.quantity))], catalogue.quantities.map((q) => q.name), 'units are grouped in quantity order');
});

t.test('a spelling names one unit within a quantity', async (t) => {
  const owners = new Map<string, string[]>();
  for (const u of catalogue.units) {
    for (const name of new Set([u.symbol, ...u.aliasNames])) {
      const key = `${u.quantity} | ${name}`;
      owners.set(key, [...(owners.get(key) ?? []), u.externalId]);
    }
  }
  t.same([...owners].filter(([, ids]) => ids.length > 1), []);
});

t.test('covers the quantities a plant measures', async (t) => {
  const needed = ['Temperature', 'Pressure', 'Volume Flow Rate', 'Mass Flow Rate', 'Length', 'Mass', 'Energy', 'Power',
    'Electric Current', 'Voltage', 'Frequency', 'Angular Velocity', 'Density', 'Dimensionless Ratio', 'Count', 'Time'];
  const present = new Set(catalogue.quantities.map((q) => q.name));
  t.same(needed.filter((q) => !present.has(q)), []);
  for (const q of needed) t.ok(catalogue.units.filter((u) => u.quantity === q).length >= 5, `${q} has at least 5 units`);
});

t.test('conversions match independently known values', async (t) => {
  /** value in the unit → expected value in the quantity's base unit, to 1e-6 relative (QUDT rounds some factors). */
  const check = (externalId: string, value: number, expectedBase: number) => {
    const unit = byId.get(externalId);
    if (!unit) return t.fail(`${externalId} missing`);
    const base = value * unit.conversion.multiplier + unit.conversion.offset;
    t.ok(Math.abs(base - expectedBase) <= 1e-6 * Math.abs(expectedBase) + 1e-9, `${value} ${externalId} = ${expectedBase} (got ${base})`);
  };
  check('temperature:deg_c', 0, 273.15);
  check('temperature:deg_c', 100, 373.15);
  check('temperature:deg_f', 32, 273.15);
  check('temperature:deg_f', 212, 373.15);
  check('temperature:deg_f', -40, 233.15);
  check('temperature:deg_r', 491.67, 273.15);
  check('temperature:k', 300, 300);
  check('pressure:bar', 1, 100_000);
  check('pressure:milli_bar', 1013.25, 101_325);
  check('pressure:hecto_pa', 1, 100);
  check('pressure:kilo_pa', 1, 1000);
  check('pressure:mega_pa', 1, 1e6);
  check('pressure:psi', 1, 6894.757293168361); // 0.45359237 kg * 9.80665 m/s² / (0.0254 m)²
  check('pressure:atm', 1, 101_325);
  check('pressure:milli_m_hg', 1, 133.322387415);
  check('pressure:kilo_gm_f_per_centi_m2', 1, 98_066.5);
  check('energy:kilo_w_hr', 1, 3.6e6);
  check('energy:mega_w_hr', 1, 3.6e9);
  check('energy:btu_it', 1, 1055.05585262);
  check('energy:kilo_cal_it', 1, 4186.8);
  check('energy:therm_us', 1, 105_480_400);
  check('power:kilo_w', 1, 1000);
  check('power:hp', 1, 745.69987158227022); // mechanical horsepower, 550 ft·lbf/s
  check('power:btu_it_per_hr', 1, 0.29307107017222);
  check('volume_flow_rate:m3_per_hr', 3600, 1);
  check('volume_flow_rate:l_per_min', 60_000, 1);
  check('volume_flow_rate:gal_us_per_min', 1, 0.003785411784 / 60);
  check('volume_flow_rate:bbl_us_per_day', 1, 0.158987294928 / 86_400);
  check('mass_flow_rate:tonne_per_hr', 3.6, 1);
  check('length:ft', 1, 0.3048);
  check('length:in', 1, 0.0254);
  check('length:mi', 1, 1609.344);
  check('length:mi_n', 1, 1852);
  check('mass:lb', 1, 0.45359237);
  check('mass:tonne', 1, 1000);
  check('volume:gal_us', 1, 0.003785411784);
  check('volume:l', 1000, 1);
  check('time:hr', 1, 3600);
  check('time:day', 1, 86_400);
  check('speed:kilo_m_per_hr', 3.6, 1);
  check('speed:kn', 1, 1852 / 3600);
  check('acceleration:g', 1, 9.80665);
  check('angular_velocity:rev_per_min', 60, 2 * Math.PI);
  check('angle:deg', 180, Math.PI);
  check('dimensionless_ratio:percent', 50, 0.5);
  check('dimensionless_ratio:ppm', 1, 1e-6);
  check('dynamic_viscosity:centi_poise', 1, 0.001);
  check('electrical_conductivity:micro_s_per_centi_m', 1, 1e-4);
  check('information:byte', 1, 8);
  check('information:kibi_byte', 1, 8192);
});

const qudtUnits = await loadQudtUnits({ fetchIfMissing: false });
const driftSkip = qudtUnits ? false : 'QUDT tarball not in node_modules/.cache (run `npx tsx engine/meta/units/build-catalogue.ts` once to enable this drift check)';
t.test('the JSON is what build-catalogue.ts makes of QUDT', { skip: driftSkip }, async (t) => {
  if (!qudtUnits) return;
  t.equal(catalogueJson(buildCatalogue(qudtUnits)), text, 'regenerate with build-catalogue.ts instead of editing the JSON');
});
