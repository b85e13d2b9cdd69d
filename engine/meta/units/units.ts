// The unit catalogue at runtime (SPEC "Units"): read-only, loaded once from the generated
// units-catalogue.json, looked up by externalId or by the spelling a time series `unit` uses.
// HTTP shapes live in schemas/units.ts; building the JSON is build-catalogue.ts's job.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Unit } from '../../../schemas/units.ts';

/** A quantity of the catalogue and the unit its conversions target. */
export interface UnitQuantity {
  /** e.g. 'Temperature', as in `Unit.quantity`. */
  name: string;
  /** externalId of the unit with conversion { multiplier: 1, offset: 0 }, e.g. 'temperature:k'. */
  baseUnitExternalId: string;
  unitCount: number;
}

interface CatalogueFile {
  quantities: UnitQuantity[];
  units: Unit[];
}

function loadCatalogue(): CatalogueFile {
  const path = new URL('./units-catalogue.json', import.meta.url);
  const file = JSON.parse(readFileSync(path, 'utf8')) as CatalogueFile;
  assert.ok(Array.isArray(file.units) && file.units.length > 0, `${path.pathname}: no units`);
  assert.ok(Array.isArray(file.quantities) && file.quantities.length > 0, `${path.pathname}: no quantities`);
  for (const unit of file.units) {
    Object.freeze(unit.aliasNames);
    Object.freeze(unit.conversion);
    Object.freeze(unit);
  }
  for (const quantity of file.quantities) Object.freeze(quantity);
  return file;
}

/** Lenient form of a spelling: compatibility-normalised (℃ → °C, µ → μ), trimmed, lower case. */
function foldUnitName(text: string): string {
  return text.normalize('NFKC').trim().toLowerCase();
}

/**
 * Spelling → unit, first writer wins, in catalogue order: quantities as listed in the JSON
 * (process quantities first, so 'C' is °C rather than coulomb), then units within each.
 */
function indexUnitNames(units: readonly Unit[], keyOf: (text: string) => string): Map<string, Unit> {
  const index = new Map<string, Unit>();
  for (const unit of units) {
    for (const text of [unit.symbol, ...unit.aliasNames, unit.name, unit.longName, unit.externalId]) {
      const key = keyOf(text);
      if (!index.has(key)) index.set(key, unit);
    }
  }
  return index;
}

const catalogue = loadCatalogue();
const units: readonly Unit[] = Object.freeze(catalogue.units);
const quantities: readonly UnitQuantity[] = Object.freeze(catalogue.quantities);
const unitsByExternalId = new Map(units.map((u) => [u.externalId, u]));
const unitsByExactName = indexUnitNames(units, (text) => text);
const unitsByFoldedName = indexUnitNames(units, foldUnitName);
assert.equal(unitsByExternalId.size, units.length, 'units-catalogue.json: duplicate externalIds');

/** Every unit of the catalogue, grouped by quantity. The array and its units are frozen. */
export function listUnits(): readonly Unit[] {
  return units;
}

/** The unit with this externalId (exact, case-sensitive), or undefined. */
export function getUnit(externalId: string): Unit | undefined {
  return unitsByExternalId.get(externalId);
}

/** The units with these externalIds, in request order; unknown ones are silently omitted. */
export function getUnits(externalIds: readonly string[]): Unit[] {
  const found: Unit[] = [];
  for (const externalId of externalIds) {
    const unit = unitsByExternalId.get(externalId);
    if (unit) found.push(unit);
  }
  return found;
}

/**
 * The unit a time series `unit` string names (SPEC: it "must name a known unit"), or
 * undefined. Matches symbol, aliasNames, name, longName or externalId: first exactly, then
 * ignoring case, surrounding spaces and Unicode compatibility forms. A spelling two units
 * share resolves to the one listed first (see indexUnitNames): 'MW' is megawatt and 'mW'
 * milliwatt, while 'mw', matching both only without case, resolves to the first listed.
 */
export function findUnitByName(text: string): Unit | undefined {
  return unitsByExactName.get(text) ?? unitsByFoldedName.get(foldUnitName(text));
}

/** The quantities of the catalogue, in catalogue order, with their base units. Frozen. */
export function unitQuantities(): readonly UnitQuantity[] {
  return quantities;
}
