// Generates units-catalogue.json from QUDT (SPEC "Units"). Run by hand when the
// selection changes: `npx tsx engine/meta/units/build-catalogue.ts [--list]`. The runtime reads
// only the JSON; this script, QUDT and QUDTLib are never loaded by the service.
//
// Source: the QUDT ontologies (qudt.org, CC BY 4.0) as packaged by QUDTLib in the npm package
// @qudtlib/allunits (CC BY 4.0). That package declares lerna and gulp as runtime dependencies
// (about 200 MB, 480 packages), so it is not a devDependency: this script fetches its tarball
// with `npm pack`, checks the pinned integrity and unpacks it under node_modules/.cache. What it
// really imports, @qudtlib/core (and its decimal.js), is a devDependency.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Unit as QudtUnit } from '@qudtlib/core';
import { GLOBAL_EXCLUDE, QUANTITY_TABLE, type QuantitySpec } from './catalogue-quantities.ts';
import { aliasNames } from './unit-aliases.ts';

const QUDT_PACKAGE = {
  name: '@qudtlib/allunits',
  version: '7.1.0',
  integrity: 'sha512-dRaIHY4Ajy8OHVw6ymtbCRJ8rDv/0cmcVlUGHdc9MCX3xx7hvuogasEihk9k8DArAQvxdLpbMPTarG3iTIOE8g==',
} as const;

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const OUTPUT_PATH = fileURLToPath(new URL('./units-catalogue.json', import.meta.url));

/** One unit of the generated catalogue (the shape of schemas/units.ts `Unit`). */
export interface CatalogueUnit {
  externalId: string;
  name: string;
  longName: string;
  symbol: string;
  aliasNames: string[];
  quantity: string;
  conversion: { multiplier: number; offset: number };
  source: string;
  sourceReference: string;
}

/** One quantity of the generated catalogue, with the unit its conversions target. */
export interface CatalogueQuantity {
  name: string;
  baseUnitExternalId: string;
  unitCount: number;
  qudtQuantityKinds: string[];
}

/** Where the unpacked @qudtlib/allunits tarball lives (node_modules/.cache, never committed). */
const QUDT_CACHE_DIR = join(REPO_ROOT, 'node_modules', '.cache', `qudt-allunits-${QUDT_PACKAGE.version}`);
const QUDT_ENTRY = join(QUDT_CACHE_DIR, 'package', 'dist', 'mjs', 'units.js');

/** Fetches the pinned @qudtlib/allunits tarball with `npm pack`, checks its integrity, unpacks it. */
function fetchQudtPackage(): void {
  mkdirSync(QUDT_CACHE_DIR, { recursive: true });
  const spec = `${QUDT_PACKAGE.name}@${QUDT_PACKAGE.version}`;
  const packed = JSON.parse(execFileSync('npm', ['pack', spec, '--json', '--pack-destination', QUDT_CACHE_DIR], { encoding: 'utf8' })) as
    { integrity: string; filename: string }[];
  const tarball = packed[0];
  assert.ok(tarball, `npm pack ${spec} returned nothing`);
  assert.equal(tarball.integrity, QUDT_PACKAGE.integrity, `${spec} integrity differs from the pinned one`);
  execFileSync('tar', ['-xzf', join(QUDT_CACHE_DIR, tarball.filename), '-C', QUDT_CACHE_DIR]);
}

/**
 * Every unit QUDTLib defines, or undefined when the tarball is not cached and fetching is not
 * allowed (the drift test runs offline).
 */
export async function loadQudtUnits(options: { fetchIfMissing: boolean }): Promise<QudtUnit[] | undefined> {
  if (!existsSync(QUDT_ENTRY)) {
    if (!options.fetchIfMissing) return undefined;
    fetchQudtPackage();
  }
  const qudt = (await import(pathToFileURL(QUDT_ENTRY).href)) as { config: { units: Map<string, QudtUnit> } };
  return [...qudt.config.units.values()];
}

/** 'KiloW-HR' → 'kilo_w_hr', 'DEG_C' → 'deg_c', 'M3-PER-HR' → 'm3_per_hr'. */
export function unitSlug(localName: string): string {
  return localName
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .replace(/-/g, '_')
    .toLowerCase()
    .replace(/_+/g, '_');
}

/** 'Volume Flow Rate' → 'volume_flow_rate'. */
export function quantitySlug(quantity: string): string {
  return quantity.toLowerCase().replace(/[^a-z0-9]+/g, '_');
}

function localName(iri: string): string {
  return iri.slice(iri.lastIndexOf('/') + 1);
}

function englishLabels(unit: QudtUnit): string[] {
  const english = unit.labels.filter((l) => l.languageTag === undefined || l.languageTag.startsWith('en'));
  // 'en' (Metre) before 'en-US' (Meter): the longName uses the first.
  return english.sort((a, b) => (a.languageTag ?? '').length - (b.languageTag ?? '').length).map((l) => l.text);
}

/**
 * value_base = value * multiplier + offset. QUDT states value_SI = (value + o) * m for every
 * unit, so against a base unit b: multiplier = m / m_b, offset = o * m / m_b - o_b.
 */
function conversionToBase(unit: QudtUnit, base: QudtUnit): { multiplier: number; offset: number } {
  if (unit === base) return { multiplier: 1, offset: 0 };
  const multiplier = unit.conversionMultiplier.div(base.conversionMultiplier);
  const offset = unit.conversionOffset.mul(multiplier).minus(base.conversionOffset);
  return { multiplier: Number(multiplier.toString()), offset: Number(offset.toString()) };
}

/** Units of one quantity before naming: QUDT units, most used first, duplicates merged. */
interface Selected {
  unit: QudtUnit;
  extraAliases: string[];
}

function isCandidate(unit: QudtUnit, spec: QuantitySpec, base: QudtUnit): boolean {
  const name = localName(unit.iri);
  if (unit.deprecated || unit.generated || unit.isCurrencyUnit()) return false;
  if (GLOBAL_EXCLUDE.test(name) || spec.exclude?.test(name)) return false;
  const ofKind = spec.include?.includes(name) || unit.quantityKindIris.some((k) => spec.kinds.includes(localName(k)));
  if (!ofKind || unit.dimensionVectorIri !== base.dimensionVectorIri) return false;
  // A zero multiplier marks a non-linear scale (pH, dB, degrees Baumé): only a base unit may have one.
  return unit === base || !unit.conversionMultiplier.isZero();
}

function isSameUnit(a: QudtUnit, b: QudtUnit): boolean {
  return a.exactMatchIris.includes(b.iri) || b.exactMatchIris.includes(a.iri) ||
    (a.symbol === b.symbol && a.conversionMultiplier.equals(b.conversionMultiplier) && a.conversionOffset.equals(b.conversionOffset));
}

/** Picks the units of one quantity from those not yet taken; marks them taken. */
function selectQuantityUnits(spec: QuantitySpec, base: QudtUnit, units: QudtUnit[], taken: Set<string>): Selected[] {
  const candidates = units
    .filter((u) => !taken.has(u.iri) && isCandidate(u, spec, base))
    .sort((a, b) => Number(b === base) - Number(a === base) || b.dependents - a.dependents || localName(a.iri).localeCompare(localName(b.iri)));
  assert.ok(candidates[0] === base, `${spec.quantity}: base unit ${spec.baseUnit} is not a candidate (taken by an earlier quantity or excluded)`);
  const selected: Selected[] = [];
  for (const unit of candidates) {
    taken.add(unit.iri);
    const same = spec.keepDistinct?.includes(localName(unit.iri)) ? undefined : selected.find((s) => isSameUnit(s.unit, unit));
    if (same) same.extraAliases.push(...(unit.symbol ? [unit.symbol] : []), ...englishLabels(unit), localName(unit.iri));
    else selected.push({ unit, extraAliases: [] });
  }
  return selected;
}

function toCatalogueUnit(spec: QuantitySpec, base: QudtUnit, selected: Selected): CatalogueUnit {
  const { unit } = selected;
  const name = localName(unit.iri);
  const labels = englishLabels(unit);
  const longName = labels[0] ?? name;
  const symbol = unit.symbol ?? longName.toLowerCase();
  const aliases = aliasNames({ localName: name, symbol, labels: [...labels.slice(1), ...selected.extraAliases] });
  return {
    externalId: `${quantitySlug(spec.quantity)}:${unitSlug(name)}`,
    name,
    longName,
    symbol,
    aliasNames: aliases.filter((a) => a !== name && a !== longName),
    quantity: spec.quantity,
    conversion: conversionToBase(unit, base),
    source: 'qudt.org',
    sourceReference: unit.iri,
  };
}

/** Builds the catalogue from QUDT's units, one quantity after another (QUANTITY_TABLE order). */
export function buildCatalogue(units: QudtUnit[]): { quantities: CatalogueQuantity[]; units: CatalogueUnit[] } {
  const byName = new Map(units.map((u) => [localName(u.iri), u]));
  const taken = new Set<string>();
  const quantities: CatalogueQuantity[] = [];
  const catalogue: CatalogueUnit[] = [];
  for (const spec of QUANTITY_TABLE) {
    const base = byName.get(spec.baseUnit);
    assert.ok(base, `${spec.quantity}: no QUDT unit ${spec.baseUnit}`);
    for (const name of spec.include ?? []) assert.ok(byName.has(name), `${spec.quantity}: no QUDT unit ${name} to include`);
    const entries = selectQuantityUnits(spec, base, units, taken).map((s) => toCatalogueUnit(spec, base, s));
    entries.sort((a, b) => a.externalId.localeCompare(b.externalId));
    const baseEntry = entries.find((e) => e.name === spec.baseUnit);
    assert.ok(baseEntry);
    quantities.push({ name: spec.quantity, baseUnitExternalId: baseEntry.externalId, unitCount: entries.length, qudtQuantityKinds: [...spec.kinds] });
    catalogue.push(...entries);
  }
  dropAmbiguousAliases(catalogue);
  return { quantities, units: catalogue };
}

/**
 * An alias written the same way (case included) by two units of one quantity names neither:
 * it is removed from both, and reported. A symbol is never removed: two units sharing one
 * fails the build, to be fixed in catalogue-quantities.ts.
 */
function dropAmbiguousAliases(units: CatalogueUnit[]): void {
  const owners = new Map<string, CatalogueUnit[]>();
  for (const unit of units) {
    for (const alias of new Set([unit.symbol, ...unit.aliasNames])) {
      const key = `${unit.quantity}\u0000${alias}`;
      owners.set(key, [...(owners.get(key) ?? []), unit]);
    }
  }
  for (const [key, sharing] of owners) {
    if (sharing.length < 2) continue;
    const alias = key.split('\u0000')[1] ?? '';
    const symbolOwners = sharing.filter((u) => u.symbol === alias);
    assert.ok(symbolOwners.length <= 1, `symbol ${alias} is shared by ${symbolOwners.map((u) => u.externalId).join(', ')}`);
    for (const unit of sharing) unit.aliasNames = unit.aliasNames.filter((a) => a !== alias);
    process.stderr.write(`ambiguous alias dropped: ${alias} (${sharing.map((u) => u.externalId).join(', ')})\n`);
  }
}

/** The JSON text: a header, then one unit per line so that diffs stay readable. */
export function catalogueJson(catalogue: { quantities: CatalogueQuantity[]; units: CatalogueUnit[] }): string {
  const header = {
    description: 'Read-only catalogue of measurement units. Generated by engine/meta/units/build-catalogue.ts; do not edit by hand.',
    source: {
      name: 'QUDT: Quantities, Units, Dimensions and Types',
      url: 'https://qudt.org',
      licence: 'CC-BY-4.0',
      licenceUrl: 'https://creativecommons.org/licenses/by/4.0/',
      distribution: `${QUDT_PACKAGE.name}@${QUDT_PACKAGE.version} (QUDTLib, npm, CC-BY-4.0)`,
      attribution: 'Unit definitions, symbols, labels and conversion factors from the QUDT ontologies (qudt.org), licensed CC BY 4.0, as packaged by QUDTLib.',
      changes: 'A selection of QUDT units grouped into quantities; externalIds, aliasNames and conversions relative to each quantity\'s base unit derived here.',
    },
    conversion: 'value_in_base_unit = value * multiplier + offset; the base unit of each quantity is quantities[].baseUnitExternalId (the SI coherent unit where SI has one).',
    unitCount: catalogue.units.length,
  };
  const head = JSON.stringify(header, null, 2).replace(/\n}$/, '');
  const quantities = catalogue.quantities.map((q) => `    ${JSON.stringify(q)}`);
  const units = catalogue.units.map((u) => `    ${JSON.stringify(u)}`);
  return `${head},\n  "quantities": [\n${quantities.join(',\n')}\n  ],\n  "units": [\n${units.join(',\n')}\n  ]\n}\n`;
}

async function main(): Promise<void> {
  const qudtUnits = await loadQudtUnits({ fetchIfMissing: true });
  assert.ok(qudtUnits);
  const catalogue = buildCatalogue(qudtUnits);
  if (process.argv.includes('--list')) {
    for (const q of catalogue.quantities) {
      const names = catalogue.units.filter((u) => u.quantity === q.name).map((u) => `${u.name}[${u.symbol}]`);
      process.stdout.write(`${q.name} (${q.unitCount}): ${names.join(' ')}\n`);
    }
  }
  writeFileSync(OUTPUT_PATH, catalogueJson(catalogue));
  process.stdout.write(`wrote ${catalogue.units.length} units in ${catalogue.quantities.length} quantities to ${OUTPUT_PATH}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
