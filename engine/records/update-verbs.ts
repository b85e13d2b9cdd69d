// The one applier of update verbs (SPEC "Update verbs per field", event update): `set`
// replaces, `setNull: true` clears, and on map fields (metadata) and list fields (labels,
// relatedResources) `add` and `remove` edit entries. Pure: the caller loads the record,
// checks the verbs here (every 400 at once), applies them, checks field caps on the result
// and writes it.
import type { FieldProblem } from '../errors.ts';
import { LABELS_MAX, METADATA_ENTRIES_MAX } from '../limits.ts';

/** A verb on a scalar field. */
export interface ScalarVerb<T> {
  set?: T;
  setNull?: boolean;
}

/** A verb on a map field (string to string): add sets keys, remove deletes keys. */
export interface MapVerb {
  set?: Record<string, string>;
  setNull?: boolean;
  add?: Record<string, string>;
  remove?: string[];
}

/** A verb on a list field: add appends missing entries, remove drops matching ones. */
export interface ListVerb<T, R = T> {
  set?: T[];
  setNull?: boolean;
  add?: T[];
  remove?: R[];
}

/** What a field of a record family accepts. */
export interface FieldRule {
  shape: 'scalar' | 'map' | 'list';
  /** A required field cannot be cleared (`setNull` is a 400). @default false */
  required?: boolean;
}

/** The update rules of a record family: field name → rule. Fields absent here are left to the caller. */
export type UpdateRules = Readonly<Record<string, FieldRule>>;

function isVerbObject(verb: unknown): verb is Record<string, unknown> {
  return typeof verb === 'object' && verb !== null && !Array.isArray(verb);
}

/**
 * The 400s of one item's update (SPEC: `set` with `setNull`; `setNull` on a required field;
 * `set` combined with `add` or `remove`; `add` / `remove` on a scalar field), each naming
 * `${prefix}.${field}`.
 */
export function updateVerbProblems(update: object, rules: UpdateRules, prefix: string, index: number): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const [name, verb] of Object.entries(update)) {
    const rule = rules[name];
    if (!rule || !isVerbObject(verb)) continue;
    const field = `${prefix}.${name}`;
    const edits = verb['add'] !== undefined || verb['remove'] !== undefined;
    if (verb['set'] !== undefined && verb['setNull'] === true) problems.push({ field, index, message: '`set` and `setNull` cannot be combined' });
    if (rule.required && verb['setNull'] === true) problems.push({ field, index, message: `${name} cannot be cleared` });
    if (rule.shape !== 'scalar' && verb['set'] !== undefined && edits) problems.push({ field, index, message: '`set` cannot be combined with `add` or `remove`' });
    if (rule.shape === 'scalar' && edits) problems.push({ field, index, message: `\`add\` and \`remove\` do not apply to ${name}` });
    if (rule.shape !== 'scalar' && verb['setNull'] === true && edits) problems.push({ field, index, message: '`setNull` cannot be combined with `add` or `remove`' });
  }
  return problems;
}

/** The field's next value; an absent verb or an empty one (`{}`) keeps it. */
export function applyScalarVerb<T>(current: T | null, verb: ScalarVerb<T> | undefined): T | null {
  if (!verb) return current;
  if (verb.setNull === true) return null;
  return verb.set !== undefined ? verb.set : current;
}

/** The map's next entries: `setNull` clears, `set` replaces, else `add` then `remove`. */
export function applyMapVerb(current: Readonly<Record<string, string>>, verb: MapVerb | undefined): Record<string, string> {
  if (!verb) return { ...current };
  if (verb.setNull === true) return {};
  if (verb.set !== undefined) return { ...verb.set };
  const out: Record<string, string> = { ...current, ...(verb.add ?? {}) };
  for (const key of verb.remove ?? []) delete out[key];
  return out;
}

/**
 * The list's next entries, without repeats (`same` decides, default ===): `setNull` clears,
 * `set` replaces, else `add` appends entries not yet present, then `remove` drops every
 * entry `matches` a removal (default: `same`), so an event's relatedResources entry can be
 * removed by its id or its externalId.
 */
export function applyListVerb<T, R = T>(
  current: readonly T[], verb: ListVerb<T, R> | undefined,
  same: (a: T, b: T) => boolean = Object.is, matches: (entry: T, removal: R) => boolean = same as unknown as (entry: T, removal: R) => boolean,
): T[] {
  const unique = (list: readonly T[]) => list.reduce<T[]>((out, entry) => (out.some((e) => same(e, entry)) ? out : (out.push(entry), out)), []);
  if (!verb) return [...current];
  if (verb.setNull === true) return [];
  if (verb.set !== undefined) return unique(verb.set);
  const removals = verb.remove ?? [];
  return unique([...current, ...(verb.add ?? [])]).filter((entry) => !removals.some((removal) => matches(entry, removal)));
}

/**
 * SPEC Conventions: the caps apply on update too, to what `add` leaves. A problem (422) for
 * the metadata and labels of one item's result that pass METADATA_ENTRIES_MAX or LABELS_MAX.
 */
export function capProblemsAfterUpdate(result: { metadata?: Readonly<Record<string, string>>; labels?: readonly unknown[] }, prefix: string, index: number): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (result.metadata && Object.keys(result.metadata).length > METADATA_ENTRIES_MAX) {
    problems.push({ field: `${prefix}.metadata`, index, message: `more than ${METADATA_ENTRIES_MAX} entries after update` });
  }
  if (result.labels && result.labels.length > LABELS_MAX) problems.push({ field: `${prefix}.labels`, index, message: `more than ${LABELS_MAX} labels after update` });
  return problems;
}
