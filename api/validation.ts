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

export type Validator = (value: unknown) => void;

export function compileValidator(schema: TSchema, what = 'request body'): Validator {
  const check = TypeCompiler.Compile(schema);
  return (value) => {
    if (check.Check(value)) return;
    const errors = firstPerPath([...check.Errors(value)]).slice(0, 100);
    const structural = errors.filter((e) => !(FIELD_CAP_ERRORS.has(e.type) || isMapKeyCap(e)) || isBatchCap(e));
    if (structural.length > 0) {
      throw new BadRequestError(`Invalid ${what}: ${structural.map((e) => `${toField(e).field}: ${e.message}`).slice(0, 5).join('; ')}`, structural.map(toField));
    }
    throw new UnprocessableError(`Invalid ${what}: ${errors.map((e) => `${toField(e).field}: ${e.message}`).slice(0, 5).join('; ')}`, errors.map(toField));
  };
}
