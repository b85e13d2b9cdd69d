// A route's query parameters checked like a body: the route declares a TypeBox object (in its
// family's schemas/ file), and before the handler runs the query string becomes that object
// and passes its compiled check, or the request is a 400 naming the parameter (SPEC Errors:
// `fields` with field, message and the value). The first value of a repeated parameter counts;
// parameters the schema does not declare are ignored. Each value is read by its property's
// type: an integer in plain decimal (no sign on 0, no leading zeros, no exponent), a boolean as
// `true` or `false`; anything else stays the string it was and fails the check. An absent
// parameter takes its schema's `default`: such a parameter is declared without Optional, so
// the handler's type has it, and /openapi.json shows it not required. Compiled once per route
// at start-up (STYLE §2).
import type { TObject, TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { BadRequestError } from '../engine/errors.ts';

/** Plain decimal integers of at most 16 digits (2^53 has 16); anything longer fails the check as text. */
const PLAIN_INTEGER = /^(0|-?[1-9]\d{0,15})$/;
/** Characters of a refused value shown back in the message and `fields`. */
const SHOWN_CHARS_MAX = 40;

/** Turns a request's query string into the route's typed query; throws BadRequestError naming the parameter. */
export type QueryReader = (search: URLSearchParams) => Record<string, unknown>;

function typeOf(schema: TSchema): string | undefined {
  return typeof schema['type'] === 'string' ? schema['type'] : undefined;
}

function valueOf(schema: TSchema, raw: string): unknown {
  switch (typeOf(schema)) {
    case 'integer': case 'number': return PLAIN_INTEGER.test(raw) ? Number(raw) : raw;
    case 'boolean': return raw === 'true' ? true : raw === 'false' ? false : raw;
    default: return raw;
  }
}

function shownOf(raw: string): string {
  return raw.length > SHOWN_CHARS_MAX ? `${raw.slice(0, SHOWN_CHARS_MAX)}…` : raw;
}

/** What the parameter must be, in words, from its schema. */
function expectationOf(schema: TSchema): string {
  const { minimum, maximum } = schema as { minimum?: number; maximum?: number };
  switch (typeOf(schema)) {
    case 'integer':
      if (minimum !== undefined && maximum !== undefined) return `an integer from ${minimum} to ${maximum}`;
      if (minimum !== undefined) return `an integer of at least ${minimum}`;
      return maximum !== undefined ? `an integer of at most ${maximum}` : 'an integer';
    case 'boolean': return 'true or false';
    case 'string': {
      const { minLength, maxLength } = schema as { minLength?: number; maxLength?: number };
      if (minLength !== undefined && maxLength !== undefined) return `a string of ${minLength} to ${maxLength} characters`;
      if (minLength !== undefined) return `a string of at least ${minLength} character${minLength === 1 ? '' : 's'}`;
      return maxLength !== undefined ? `a string of at most ${maxLength} characters` : 'a string';
    }
    default: return 'a value its schema accepts (see /openapi.json)';
  }
}

function refusal(name: string, schema: TSchema, raw: string | null): BadRequestError {
  if (raw === null) return new BadRequestError(`Query parameter ${name} is required`, [{ field: name, message: 'required' }]);
  const expected = expectationOf(schema);
  const shown = shownOf(raw);
  return new BadRequestError(`Query parameter ${name} must be ${expected}, got "${shown}"`, [{ field: name, message: expected, value: shown }]);
}

/** The reader of one route's query parameters, compiled from its schema. */
export function compileQuery(schema: TObject): QueryReader {
  const check = TypeCompiler.Compile(schema);
  const properties = Object.entries(schema.properties).map(([name, property]) => ({ name, property, check: TypeCompiler.Compile(property) }));
  const required = new Set(schema.required ?? []);
  return (search) => {
    const query: Record<string, unknown> = {};
    for (const { name, property } of properties) {
      const raw = search.get(name);
      if (raw !== null) query[name] = valueOf(property, raw);
      else if (property.default !== undefined) query[name] = property.default;
    }
    if (check.Check(query)) return query;
    // The first parameter in declaration order that fails is named (a missing one first).
    for (const { name, property, check: checkOne } of properties) {
      const raw = search.get(name);
      if (raw === null ? required.has(name) && property.default === undefined : !checkOne.Check(query[name])) throw refusal(name, property, raw);
    }
    const first = check.Errors(query).First();
    const name = first?.path.split('/')[1] ?? '(query)';
    throw new BadRequestError(`Query parameter ${name}: ${first?.message ?? 'not accepted'}`, [{ field: name, message: first?.message ?? 'not accepted' }]);
  };
}

/** The OpenAPI `parameters` of a query schema: one `in: query` entry per property, with its schema. */
export function queryParameters(schema: TObject | undefined): Record<string, unknown>[] {
  if (!schema) return [];
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, property]) => ({
    name, in: 'query', required: required.has(name) && property.default === undefined,
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
    schema: JSON.parse(JSON.stringify(property)) as unknown,
  }));
}
