// Compiled TypeBox checks (compiled once at start-up, STYLE §2) and the mapping of their
// findings to SPEC's errors: structural problems (wrong type, missing required field,
// unknown enum value, batch caps on `items`) are 400; a field that fails a length or
// character rule is 422 (SPEC Errors: "field failed validation (length, characters,
// required-ness)").
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { BadRequestError, UnprocessableError, type FieldProblem } from '../engine/errors.ts';

const FIELD_CAP_ERRORS = new Set<ValueErrorType>([
  ValueErrorType.ArrayMaxItems,
  ValueErrorType.StringMaxLength,
  ValueErrorType.StringMinLength,
  ValueErrorType.StringPattern,
  ValueErrorType.ObjectMaxProperties,
]);

/**
 * A key that fails the key rule of a map (a Record: patternProperties, no other keys), such
 * as a metadata key over 128 characters, is a field cap of the map itself.
 */
function isMapKeyCap(error: ValueError): boolean {
  return error.type === ValueErrorType.ObjectAdditionalProperties && error.schema.patternProperties !== undefined;
}

/** `/items` (the envelope) and its size are batch caps: 400, split the batch. */
function isBatchCap(error: ValueError): boolean {
  return /^\/items$/.test(error.path) || (error.type === ValueErrorType.ArrayMaxItems && error.path.split('/').length <= 2);
}

function toField(error: ValueError): FieldProblem {
  const segments = error.path.split('/').slice(1);
  const index = segments[0] === 'items' && segments[1] !== undefined ? Number(segments[1]) : undefined;
  const mapKey = isMapKeyCap(error) ? segments.pop()?.replace(/~1/g, '/').replace(/~0/g, '~') : undefined;
  const field = segments.length ? segments.join('.') : '(body)';
  const seen = mapKey ?? error.value;
  const value = typeof seen === 'string' && seen.length > 80 ? `${seen.slice(0, 80)}…` : seen;
  const message = mapKey !== undefined ? `key not allowed (${String(error.schema.description ?? 'see the schema')})` : error.message;
  return { field, message, ...(value !== undefined && typeof value !== 'object' ? { value } : {}), ...(index !== undefined && Number.isInteger(index) ? { index } : {}) };
}

/** One finding per field path: the first (most specific) message wins. */
function firstPerPath(errors: ValueError[]): ValueError[] {
  const seen = new Map<string, ValueError>();
  for (const error of errors) if (!seen.has(error.path)) seen.set(error.path, error);
  return [...seen.values()];
}

const NUL_MESSAGE = 'the NUL character (U+0000) is not allowed';

function nulCharacterProblem(segments: string[], key?: string): FieldProblem {
  const index = segments[0] === 'items' && segments[1] !== undefined ? Number(segments[1]) : undefined;
  return {
    field: segments.join('.') || '(body)',
    message: key === undefined ? NUL_MESSAGE : `a key: ${NUL_MESSAGE}`,
    ...(key !== undefined ? { value: key.replace(/\u0000/g, '\\u0000') } : {}),
    ...(index !== undefined && Number.isInteger(index) ? { index } : {}),
  };
}

interface PendingValue {
  value: unknown;
  /** The segment that leads here from `parent` (a key or an index). */
  segment?: string;
  parent?: PendingValue;
  /** A key of `parent` that holds U+0000 (reported in document order, not walked). */
  badKey?: string;
}

function pathOf(entry: PendingValue): string[] {
  const segments: string[] = [];
  for (let at: PendingValue | undefined = entry; at?.segment !== undefined; at = at.parent) segments.push(at.segment);
  return segments.reverse();
}

/**
 * Strings (values or map keys) holding U+0000, at most `max`, in document order. The
 * relational store cannot keep that character in text, so it fails the character rule (422)
 * before reaching the store. Walks with its own stack: no value can overflow the call stack.
 */
function nulCharacterProblems(root: unknown, max = 100): FieldProblem[] {
  const found: FieldProblem[] = [];
  const pending: PendingValue[] = [{ value: root }];
  while (pending.length > 0 && found.length < max) {
    const entry = pending.pop() as PendingValue;
    const { value } = entry;
    if (entry.badKey !== undefined) {
      found.push(nulCharacterProblem(entry.parent ? pathOf(entry.parent) : [], entry.badKey));
    } else if (typeof value === 'string') {
      if (value.includes('\u0000')) found.push(nulCharacterProblem(pathOf(entry)));
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) pending.push({ value: value[i], segment: String(i), parent: entry });
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value);
      const children: PendingValue[] = [];
      for (const key of keys) {
        children.push(key.includes('\u0000') ? { value: undefined, badKey: key, parent: entry } : { value: (value as Record<string, unknown>)[key], segment: key, parent: entry });
      }
      for (let i = children.length - 1; i >= 0; i--) pending.push(children[i] as PendingValue);
    }
  }
  return found;
}

/**
 * Checks a value against the compiled schema; throws BadRequestError (400) or
 * UnprocessableError (422). `mayHoldNul: false` (the body's text has no `\u0000` escape, so
 * no string in it holds U+0000) skips the walk that looks for that character.
 */
export type Validator = (value: unknown, mayHoldNul?: boolean) => void;

/** Findings taken from TypeBox before grouping by path: a body of a million wrong values lists no more. */
const VALUE_ERRORS_READ_MAX = 1_000;

function firstValueErrors(errors: Iterable<ValueError>): ValueError[] {
  const out: ValueError[] = [];
  for (const error of errors) {
    out.push(error);
    if (out.length >= VALUE_ERRORS_READ_MAX) break;
  }
  return out;
}

export function compileValidator(schema: TSchema, what = 'request body'): Validator {
  const check = TypeCompiler.Compile(schema);
  return (value, mayHoldNul = true) => {
    if (check.Check(value)) {
      const nul = mayHoldNul ? nulCharacterProblems(value) : [];
      if (nul.length > 0) throw new UnprocessableError(`Invalid ${what}: ${nul.map((p) => `${p.field}: ${p.message}`).slice(0, 5).join('; ')}`, nul);
      return;
    }
    // TypeBox's Errors() recurses along schema and value together; JSON bodies reach it no
    // deeper than JSON_DEPTH_MAX (json-body.ts), far from the stack limit.
    const errors = firstPerPath(firstValueErrors(check.Errors(value))).slice(0, 100);
    const structural = errors.filter((e) => !(FIELD_CAP_ERRORS.has(e.type) || isMapKeyCap(e)) || isBatchCap(e));
    if (structural.length > 0) {
      throw new BadRequestError(`Invalid ${what}: ${structural.map((e) => `${toField(e).field}: ${e.message}`).slice(0, 5).join('; ')}`, structural.map(toField));
    }
    throw new UnprocessableError(`Invalid ${what}: ${errors.map((e) => `${toField(e).field}: ${e.message}`).slice(0, 5).join('; ')}`, errors.map(toField));
  };
}
