// Resolves the time series named by a data point request (id and/or externalId per item) to
// what the data point store addresses: series id and valueType. Unreadable series behave as
// missing; readable series the caller may not write make a write a 403 (SPEC Authentication).
import type { ValueType } from '../datapoints/types.ts';
import type { Identifier } from '../errors.ts';
import { assertCanWrite, canRead, type Access } from '../grants/access.ts';
import { identifierOf, resolveIdentifiers } from '../records/identifiers.ts';
import type { SeriesDirectory, SeriesKeyRow } from './series-directory.ts';

export interface SeriesTarget {
  seriesId: number;
  externalId: string;
  valueType: ValueType;
  dataSetId: number | null;
  /** Stepwise rather than linear between points (CDF's isStep); absent reads as false. */
  isStep?: boolean;
}

export interface ResolvedTargets {
  /** Parallel to the request's items; null where the series is missing or unreadable. */
  targets: (SeriesTarget | null)[];
  /** The identifiers of the missing items, as the client sent them. */
  missing: { index: number; identifier: Identifier }[];
}

/**
 * Resolves through the series directory (series-directory.ts): no PostgreSQL round trip for
 * series it holds. `identifiers` may carry other fields (a scanned item's place in its body):
 * only id and externalId are read, and only those reach an error or `missing`.
 */
export async function resolveSeriesTargets(directory: SeriesDirectory, access: Access, identifiers: readonly Identifier[], mode: 'read' | 'write'): Promise<ResolvedTargets> {
  const held = heldTargets(directory, access, identifiers);
  const resolved = held ? { targets: held, missing: [] } : await resolveGenerally(directory, access, identifiers.map(identifierOf));
  // A caller that may write every data set needs no list of them (the ingest path: ~100 a request).
  if (mode === 'write' && access.writable !== null) assertCanWrite(access, resolved.targets.map((t) => t?.dataSetId), 'data points');
  return resolved;
}

function toTarget(row: SeriesKeyRow): SeriesTarget {
  return { seriesId: row.id, externalId: row.external_id, valueType: row.value_type as ValueType, dataSetId: row.data_set_id, isStep: row.isStep };
}

/**
 * The target of a row the directory holds, made once per row: a gateway request resolves ~100
 * series, and a fresh object each was ~4% of all it allocated. A held row is never changed
 * (a change replaces it), so neither is its target (frozen: it is shared by every request).
 */
const heldTargetOf = new WeakMap<SeriesKeyRow, SeriesTarget>();
function targetOfHeld(row: SeriesKeyRow): SeriesTarget {
  let target = heldTargetOf.get(row);
  if (!target) heldTargetOf.set(row, (target = Object.freeze(toTarget(row))));
  return target;
}

/**
 * Every identifier answered from the directory's memory by one map lookup each: the usual
 * request (a gateway writing the series it wrote a second ago). Undefined whenever anything
 * needs the identifier resolver's rules (a series not held, an identifier with neither key,
 * an id and an externalId that do not name one series, an unreadable series): that path gives
 * the same answer for everything this one answers, and the errors for the rest.
 */
function heldTargets(directory: SeriesDirectory, access: Access, identifiers: readonly Identifier[]): SeriesTarget[] | undefined {
  const held = directory.held(access.tenant);
  if (!held) return undefined;
  const targets: SeriesTarget[] = new Array(identifiers.length);
  for (let i = 0; i < identifiers.length; i++) {
    const identifier = identifiers[i] as Identifier;
    const row = identifier.id !== undefined ? held.byId.get(identifier.id) : identifier.externalId !== undefined ? held.byExternalId.get(identifier.externalId) : undefined;
    if (!row || !canRead(access, row.data_set_id)) return undefined;
    if (identifier.externalId !== undefined && row.external_id !== identifier.externalId) return undefined;
    targets[i] = targetOfHeld(row);
  }
  return targets;
}

/**
 * The targets of a request whose every item the parse worker matched to one of the tenant's
 * hints by one identifier (target-hints.ts; `picks`: each item's hint), as they were resolved
 * when learned: no identifier is looked up (a gateway request's ~100 externalIds). Only while
 * the directory's epoch of the tenant is the one every hint was learned in: no key has changed
 * since, so each hint still names the series it named. Undefined when that does not hold or a
 * series is unreadable to the caller: the general path (resolveSeriesTargets) answers those,
 * errors included.
 */
export function hintedTargets(directory: SeriesDirectory, access: Access, hints: { epoch: number | undefined; targets: readonly SeriesTarget[] }, picks: Int32Array, mode: 'read' | 'write'): SeriesTarget[] | undefined {
  if (hints.epoch === undefined || directory.held(access.tenant)?.epoch !== hints.epoch) return undefined;
  const targets: SeriesTarget[] = new Array(picks.length);
  for (let i = 0; i < picks.length; i++) {
    const target = hints.targets[picks[i] as number];
    if (!target || !canRead(access, target.dataSetId)) return undefined;
    targets[i] = target;
  }
  if (mode === 'write' && access.writable !== null) assertCanWrite(access, targets.map((t) => t.dataSetId), 'data points');
  return targets;
}

/** The identifier resolver's rules, with PostgreSQL behind the directory for series it does not hold. */
async function resolveGenerally(directory: SeriesDirectory, access: Access, identifiers: Identifier[]): Promise<ResolvedTargets> {
  const resolved = await resolveIdentifiers(directory.family(), directory.db, access.tenant, identifiers, { visible: (row) => canRead(access, row.data_set_id) });
  const targets = resolved.map((r) => (r.row && canRead(access, r.row.data_set_id) ? toTarget(r.row) : null));
  const missing = resolved.filter((_, i) => targets[i] === null).map((r) => ({ index: r.index, identifier: r.identifier }));
  return { targets, missing };
}
