// The JSON byte grammar the fast body scanner (datapoint-scan.ts) stands on: whitespace,
// comparing keys in place, and validating-then-skipping the values it does not read (unknown
// keys) as strictly as JSON.parse would. Anything it cannot prove valid throws BAIL, and the
// scanner hands the body to the JSON.parse scanner (datapoint-scan-json.ts). Pure functions
// over the body's bytes; the point columns are the scanner's.
import { jsonStringEnd } from './datapoint-body.ts';
import { scanJsonNumber } from './number-text.ts';

/** Thrown (not an Error: no stack to capture) to leave the fast path for the fallback. */
export const BAIL = { bail: true } as const;

/** Unknown values nested deeper than this go to the fallback (bounds the recursion). */
const SKIP_DEPTH_MAX = 64;

const LITERAL_TRUE = bytesOf('true');
const LITERAL_FALSE = bytesOf('false');
const LITERAL_NULL = bytesOf('null');

export function bytesOf(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

export function skipWhitespace(b: Uint8Array, start: number, n: number): number {
  let p = start;
  while (p < n) {
    const c = b[p]!;
    if (c > 0x20 || (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09)) break;
    p++;
  }
  return p;
}

/** True when b holds "key" (with its quotes) at p. */
export function isQuotedKeyAt(b: Uint8Array, p: number, key: Uint8Array): boolean {
  if (b[p] !== 0x22 || b[p + key.length + 1] !== 0x22) return false;
  for (let i = 0; i < key.length; i++) if (b[p + 1 + i] !== key[i]) return false;
  return true;
}

export function matchesBytes(b: Uint8Array, start: number, length: number, expected: Uint8Array): boolean {
  if (length !== expected.length) return false;
  for (let i = 0; i < length; i++) if (b[start + i] !== expected[i]) return false;
  return true;
}

/** At the opening quote of a string: validates it, returns the index after its closing quote. */
function skipString(b: Uint8Array, start: number, n: number): number {
  const close = jsonStringEnd(b, start, n);
  if (close < 0) throw BAIL;
  return close + 1;
}

/** Any JSON value (unknown keys) at `start`, validated as strictly as JSON.parse would; returns the index after it. */
export function skipValue(b: Uint8Array, start: number, n: number, depth: number): number {
  const c = b[start];
  if (c === 0x22) return skipString(b, start, n);
  if (c === 0x2d || (c !== undefined && c >= 0x30 && c <= 0x39)) {
    const end = scanJsonNumber(b, start, n);
    if (end < 0) throw BAIL;
    return end;
  }
  if (c === 0x74) return skipLiteral(b, start, LITERAL_TRUE);
  if (c === 0x66) return skipLiteral(b, start, LITERAL_FALSE);
  if (c === 0x6e) return skipLiteral(b, start, LITERAL_NULL);
  if (depth > SKIP_DEPTH_MAX) throw BAIL;
  if (c === 0x7b) return skipObject(b, start, n, depth);
  if (c === 0x5b) return skipArray(b, start, n, depth);
  throw BAIL;
}

function skipLiteral(b: Uint8Array, start: number, literal: Uint8Array): number {
  if (!matchesBytes(b, start, literal.length, literal)) throw BAIL;
  return start + literal.length;
}

function skipObject(b: Uint8Array, start: number, n: number, depth: number): number {
  let p = skipWhitespace(b, start + 1, n);
  if (b[p] === 0x7d) return p + 1;
  for (;;) {
    // Keys of unknown objects are never compared, so escapes in them are fine.
    if (b[p] !== 0x22) throw BAIL;
    p = skipWhitespace(b, skipString(b, p, n), n);
    if (b[p] !== 0x3a) throw BAIL;
    p = skipWhitespace(b, skipValue(b, skipWhitespace(b, p + 1, n), n, depth + 1), n);
    if (b[p] === 0x2c) p = skipWhitespace(b, p + 1, n);
    else if (b[p] === 0x7d) return p + 1;
    else throw BAIL;
  }
}

function skipArray(b: Uint8Array, start: number, n: number, depth: number): number {
  let p = skipWhitespace(b, start + 1, n);
  if (b[p] === 0x5d) return p + 1;
  for (;;) {
    p = skipWhitespace(b, skipValue(b, p, n, depth + 1), n);
    if (b[p] === 0x2c) p = skipWhitespace(b, p + 1, n);
    else if (b[p] === 0x5d) return p + 1;
    else throw BAIL;
  }
}
