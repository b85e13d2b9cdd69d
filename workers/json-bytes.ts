// The JSON byte grammar the fast body scanner (datapoint-scan.ts) stands on: whitespace,
// comparing keys in place, the unknown keys of open objects (duplicates), and
// validating-then-skipping the values it does not read (unknown keys) as strictly as
// JSON.parse would. Anything it cannot prove valid throws BAIL, and the scanner hands the body
// to the JSON.parse scanner (datapoint-scan-json.ts). Functions over the body's bytes; the
// point columns are the scanner's.
import { jsonStringEnd, jsonStringFlags } from './datapoint-body.ts';
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

/** ObjectKeys flags of a key: it holds an escape, or a byte of 0x80 and up. */
export const KEY_ESCAPED = 1;
export const KEY_NON_ASCII = 2;

/**
 * Keys ObjectKeys holds at once over all open objects; one more sends the body to the
 * fallback (unknown keys are rare, and each new one is compared with its object's others).
 */
export const OBJECT_KEYS_MAX = 64;

/**
 * The keys read so far in each open object whose keys are not known in advance (a
 * key named twice in one object is refused, not last-wins as in JSON.parse): byte ranges on
 * one bounded stack, innermost object last. An object remembers `top` when it opens (its
 * base) and sets it back when it closes. The fast path decides only what raw bytes can
 * prove: equal bytes are the same key (BAIL, the fallback words the error); different bytes
 * are different keys unless an escape is involved (`"\u0061"` is `"a"`) or both keys hold
 * bytes of 0x80 and up (two invalid UTF-8 sequences both decode to U+FFFD). Those undecided
 * pairs BAIL too, and the JSON.parse scanner compares decoded keys.
 */
export class ObjectKeys {
  readonly start = new Int32Array(OBJECT_KEYS_MAX);
  readonly length = new Int32Array(OBJECT_KEYS_MAX);
  readonly flags = new Uint8Array(OBJECT_KEYS_MAX);
  top = 0;

  /** Adds the key at [start, start + length) to the object whose keys begin at `base`; BAIL when it may repeat one. */
  add(b: Uint8Array, base: number, start: number, length: number, flags: number): void {
    const top = this.top;
    for (let i = base; i < top; i++) {
      const other = this.start[i]!;
      if (this.length[i] === length && bytesEqual(b, start, other, length)) throw BAIL;
      const otherFlags = this.flags[i]!;
      if (((flags | otherFlags) & KEY_ESCAPED) !== 0 || (flags & otherFlags & KEY_NON_ASCII) !== 0) throw BAIL;
    }
    if (top === OBJECT_KEYS_MAX) throw BAIL;
    this.start[top] = start;
    this.length[top] = length;
    this.flags[top] = flags;
    this.top = top + 1;
  }
}

function bytesEqual(b: Uint8Array, a: number, c: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (b[a + i] !== b[c + i]) return false;
  return true;
}

/** KEY_ESCAPED and KEY_NON_ASCII of the string contents [start, end). */
function keyFlagsOf(b: Uint8Array, start: number, end: number): number {
  let flags = 0;
  for (let i = start; i < end; i++) {
    const c = b[i]!;
    if (c === 0x5c) flags |= KEY_ESCAPED;
    else if (c >= 0x80) flags |= KEY_NON_ASCII;
  }
  return flags;
}

/** At the opening quote of a string: validates it, returns the index after its closing quote. */
function skipString(b: Uint8Array, start: number, n: number): number {
  const close = jsonStringEnd(b, start, n);
  if (close < 0) throw BAIL;
  return close + 1;
}

/**
 * Any JSON value (unknown keys) at `start`, validated as strictly as JSON.parse would, its
 * objects' keys checked for duplicates on `keys`; returns the index after it.
 */
export function skipValue(b: Uint8Array, start: number, n: number, depth: number, keys: ObjectKeys): number {
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
  if (c === 0x7b) return skipObject(b, start, n, depth, keys);
  if (c === 0x5b) return skipArray(b, start, n, depth, keys);
  throw BAIL;
}

function skipLiteral(b: Uint8Array, start: number, literal: Uint8Array): number {
  if (!matchesBytes(b, start, literal.length, literal)) throw BAIL;
  return start + literal.length;
}

function skipObject(b: Uint8Array, start: number, n: number, depth: number, keys: ObjectKeys): number {
  let p = skipWhitespace(b, start + 1, n);
  if (b[p] === 0x7d) return p + 1;
  const base = keys.top;
  for (;;) {
    // Keys here are only compared with each other (ObjectKeys), so escapes in them are fine.
    if (b[p] !== 0x22) throw BAIL;
    const close = jsonStringEnd(b, p, n);
    if (close < 0) throw BAIL;
    keys.add(b, base, p + 1, close - p - 1, jsonStringFlags & 0x80 ? keyFlagsOf(b, p + 1, close) : 0);
    p = skipWhitespace(b, close + 1, n);
    if (b[p] !== 0x3a) throw BAIL;
    p = skipWhitespace(b, skipValue(b, skipWhitespace(b, p + 1, n), n, depth + 1, keys), n);
    if (b[p] === 0x2c) p = skipWhitespace(b, p + 1, n);
    else if (b[p] === 0x7d) break;
    else throw BAIL;
  }
  keys.top = base;
  return p + 1;
}

function skipArray(b: Uint8Array, start: number, n: number, depth: number, keys: ObjectKeys): number {
  let p = skipWhitespace(b, start + 1, n);
  if (b[p] === 0x5d) return p + 1;
  for (;;) {
    p = skipWhitespace(b, skipValue(b, p, n, depth + 1, keys), n);
    if (b[p] === 0x2c) p = skipWhitespace(b, p + 1, n);
    else if (b[p] === 0x5d) return p + 1;
    else throw BAIL;
  }
}
