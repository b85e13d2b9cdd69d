// Reading a route's query parameters strictly: a value the parameter's declared
// schema refuses is a 400 naming the parameter, never silently replaced by a default or
// clamped. Handlers read the first value of a repeated parameter. GET /timeseries keeps its
// own plain-text 400 (SPEC), so it does not use this.
import type { TObject, TSchema } from '@sinclair/typebox';
import { BadRequestError, UnprocessableError } from '../engine/errors.ts';

export interface IntegerParam {
  minimum: number;
  maximum: number;
  /** When the parameter is absent. */
  default: number;
}

/** An integer query parameter written in plain decimal, within its bounds; a 400 otherwise. */
export function integerQueryParam(query: URLSearchParams, name: string, spec: IntegerParam): number {
  const raw = query.get(name);
  if (raw === null) return spec.default;
  const value = /^-?(0|[1-9]\d{0,15})$/.test(raw) ? Number(raw) : Number.NaN;
  if (Number.isSafeInteger(value) && value >= spec.minimum && value <= spec.maximum) return value;
  const shown = raw.length > 40 ? `${raw.slice(0, 40)}…` : raw;
  throw new BadRequestError(`Query parameter ${name} must be an integer from ${spec.minimum} to ${spec.maximum}, got "${shown}"`, [
    { field: name, message: `an integer from ${spec.minimum} to ${spec.maximum}`, value: shown },
  ]);
}

/** A path parameter that must be a record id (an integer up to 2^53-1); a 400 naming it otherwise. */
export function idPathParam(params: Record<string, string>, name = 'id'): number {
  const raw = params[name] ?? '';
  const id = Number(raw);
  if (!/^\d{1,16}$/.test(raw) || !Number.isSafeInteger(id) || id < 1) {
    const shown = raw.length > 40 ? `${raw.slice(0, 40)}…` : raw;
    throw new BadRequestError(`${name} must be an integer id, got "${shown}"`, [{ field: name, message: 'not an integer id', value: shown }]);
  }
  return id;
}

/**
 * Every query parameter's name and value free of U+0000 (`%00`), which no text in PostgreSQL
 * can hold: a 422 naming the parameter, like a NUL in a JSON field (validation.ts), before any
 * handler sees it. Parameters declared as numbers are left to their own parser (GET
 * /timeseries answers those with SPEC's plain-text 400). A lone surrogate cannot arrive here:
 * URLSearchParams decodes percent-encoded bytes as UTF-8, invalid ones as U+FFFD.
 */
export function assertQueryText(query: URLSearchParams, declared?: TObject): void {
  for (const [name, value] of query) {
    if (!name.includes('\u0000') && !value.includes('\u0000')) continue;
    const type: unknown = (declared?.properties[name] as TSchema | undefined)?.['type'];
    if (type === 'integer' || type === 'number') continue;
    const field = name.replace(/\u0000/g, '\\u0000');
    throw new UnprocessableError(`Query parameter ${field}: the NUL character (U+0000, %00) is not allowed${name.includes('\u0000') ? ' in its name' : ''}`, [
      { field, message: 'the NUL character (U+0000) is not allowed' },
    ]);
  }
}
