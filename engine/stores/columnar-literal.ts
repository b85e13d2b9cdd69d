// The one escaping function of the columnar seam (STYLE §7: values are bound, or go through
// one tested escaping function in stores/). chdb binds {name:Type} parameters through a single
// process-wide queue (its libchdb cannot bind on two connections at once), so every bound
// statement waited for every other: reads queued behind a 200 ms insert. The chdb driver
// therefore renders placeholders here as typed literals, CAST(<literal> AS <Type>), and the
// statement runs unqueued. A server keeps real query_params; the SQL text is the same.
import type { ParamValue, QueryParams } from './columnar-params.ts';

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*):([A-Za-z0-9_(), ]+)\}/g;
const SCALAR_TYPES = new Set(['String', 'UInt8', 'UInt32', 'UInt64', 'Int32', 'Int64', 'Float64']);
const INTEGER = /^-?\d{1,20}$/;

function typeError(name: string, type: string, value: unknown): Error {
  return new Error(`query parameter ${name}: ${typeof value} ${JSON.stringify(typeof value === 'bigint' ? String(value) : value)} is not a ${type}`);
}

/** A ClickHouse string literal: only \ and ' could end it; control bytes are escaped for clean text. */
export function stringLiteral(value: string): string {
  let out = "'";
  for (const char of value) {
    const code = char.codePointAt(0) as number;
    if (char === '\\') out += '\\\\';
    else if (char === "'") out += "\\'";
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += char;
  }
  return `${out}'`;
}

function scalarLiteral(name: string, type: string, value: unknown): string {
  if (type === 'String') {
    if (typeof value !== 'string') throw typeError(name, type, value);
    return stringLiteral(value);
  }
  if (type === 'Float64') {
    if (typeof value !== 'number' || !Number.isFinite(value)) throw typeError(name, type, value);
    return String(value);
  }
  // Integers: a safe JS integer or a bigint, written as plain digits.
  const text = typeof value === 'bigint' ? value.toString() : typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : '';
  if (!INTEGER.test(text)) throw typeError(name, type, value);
  return text;
}

function literal(name: string, type: string, value: ParamValue): string {
  const array = /^Array\((\w+)\)$/.exec(type);
  if (array) {
    const element = array[1] as string;
    if (!SCALAR_TYPES.has(element) || !Array.isArray(value)) throw typeError(name, type, value);
    return `[${(value as readonly unknown[]).map((item) => scalarLiteral(name, element, item)).join(', ')}]`;
  }
  if (!SCALAR_TYPES.has(type)) throw new Error(`query parameter ${name}: type ${type} is not supported`);
  return scalarLiteral(name, type, value);
}

/** The statement with each {name:Type} replaced by CAST(<literal> AS <Type>). */
export function renderParams(sql: string, params: QueryParams | undefined): string {
  return sql.replace(PLACEHOLDER, (_match, name: string, type: string) => {
    const value = params?.[name];
    if (value === undefined) throw new Error(`query parameter ${name} has no value`);
    return `CAST(${literal(name, type.trim(), value)} AS ${type.trim()})`;
  });
}
