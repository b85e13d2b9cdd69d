// Reading a route's query parameters strictly: a value the parameter's declared
// schema refuses is a 400 naming the parameter, never silently replaced by a default or
// clamped. Handlers read the first value of a repeated parameter. GET /timeseries keeps its
// own plain-text 400 (SPEC), so it does not use this.
import { BadRequestError } from '../engine/errors.ts';

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
