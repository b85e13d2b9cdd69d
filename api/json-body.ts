// Strict reading of JSON request bodies: a body is UTF-8 (RFC 8259 §8.1), nests at most
// JSON_DEPTH_MAX deep, names each key of an object once (RFC 8259 §4 leaves duplicates to the
// parser; we refuse them rather than keep one silently) and holds no lone surrogate escape
// (`\ud800` alone is JSON text but no Unicode text: the escaped twin of invalid UTF-8, which
// no store can keep). Everything is a 400 naming what is wrong. Checking the value against the route's schema is validation.ts's business.
//
// Cost (json-body.test.ts prints it; a loaded 2-core machine, 3.9 MiB of time series items,
// warm): isUtf8 0.2 ms (simdutf), the structure scan 5-9 ms, the key count over the parsed
// value about 2 ms; in all 6-7 ms over JSON.parse's 20-30 ms. A body of a few KiB costs
// microseconds. Nothing here recurses, so no body can overflow the stack.
import { isUtf8 } from 'node:buffer';
import { BadRequestError } from '../engine/errors.ts';
import { JSON_DEPTH_MAX } from '../engine/limits.ts';
// The data point scanner's duplicate-key finder serves every route (one of each mechanism).
import { countObjectKeys, duplicateKeysOf } from '../workers/json-duplicate-keys.ts';
import { hasLoneSurrogate } from '../workers/storable-text.ts';

export function isJsonContentType(contentType: string): boolean {
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || type.endsWith('+json');
}

/**
 * Offset of the first byte that does not begin a well-formed UTF-8 sequence (RFC 3629: no
 * overlongs, no surrogates, nothing above U+10FFFF), or -1. Only for error messages: the
 * fast check is node:buffer's isUtf8.
 */
export function invalidUtf8Offset(bytes: Uint8Array): number {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const lead = bytes[i] as number;
    if (lead < 0x80) {
      i++;
      continue;
    }
    const follow = lead >= 0xc2 && lead <= 0xdf ? 1 : lead >= 0xe0 && lead <= 0xef ? 2 : lead >= 0xf0 && lead <= 0xf4 ? 3 : 0;
    if (follow === 0 || i + follow >= n) return i;
    // The second byte's range excludes overlongs (E0, F0), surrogates (ED) and > U+10FFFF (F4).
    const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
    const second = bytes[i + 1] as number;
    if (second < low || second > high) return i;
    for (let k = 2; k <= follow; k++) if (((bytes[i + k] as number) & 0xc0) !== 0x80) return i;
    i += follow + 1;
  }
  return -1;
}

/** A JSON body must be UTF-8: a 400 naming the first bad byte otherwise. */
export function assertUtf8(bytes: Uint8Array, what = 'request body'): void {
  if (isUtf8(bytes)) return;
  const offset = invalidUtf8Offset(bytes);
  throw new BadRequestError(`The ${what} is not valid UTF-8 (byte ${offset} of ${bytes.byteLength}); send JSON encoded as UTF-8`, [
    { field: '(body)', message: `invalid UTF-8 at byte ${offset}` },
  ]);
}

export interface JsonStructure {
  /** Object members (key: value pairs) in the text. */
  memberCount: number;
  /** Byte offset of the first `{` or `[` nested deeper than the limit, or -1. */
  tooDeepAt: number;
}

/**
 * One pass over the bytes, outside strings: nesting depth and the count of object members
 * (every member has exactly one colon outside strings). Stops at the first bracket past
 * `depthMax`. Garbage in gives garbage counts, never an exception: JSON.parse judges syntax.
 */
export function scanJsonStructure(bytes: Uint8Array, depthMax = JSON_DEPTH_MAX): JsonStructure {
  const n = bytes.length;
  let depth = 0;
  let memberCount = 0;
  for (let i = 0; i < n; i++) {
    const c = bytes[i] as number;
    if (c === 0x22) { // a string: skip to its closing quote, stepping over escapes
      for (i++; i < n; i++) {
        const d = bytes[i] as number;
        if (d === 0x22) break;
        if (d === 0x5c) i++;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > depthMax) return { memberCount, tooDeepAt: i };
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    } else if (c === 0x3a) {
      memberCount++;
    }
  }
  return { memberCount, tooDeepAt: -1 };
}



const NUL_ESCAPE = Buffer.from('\\u0000');

/**
 * Whether a string of this JSON text may hold U+0000: JSON writes it only as the escape
 * `\u0000` (a raw control character is invalid), so without that escape none can (native search).
 */
export function mayHoldNul(raw: Uint8Array): boolean {
  return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).indexOf(NUL_ESCAPE) >= 0;
}

const SURROGATE_ESCAPES = [Buffer.from('\\ud'), Buffer.from('\\uD')];

/**
 * Whether a string of this JSON text may hold a lone surrogate: raw surrogate bytes are
 * invalid UTF-8 (refused before), so only an escape `\uD800`-`\uDFFF` can write one (native
 * search; a false hit only costs the exact walk).
 */
export function mayHoldLoneSurrogate(raw: Uint8Array): boolean {
  const buffer = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  return SURROGATE_ESCAPES.some((escape) => buffer.indexOf(escape) >= 0);
}

interface PendingString {
  value: unknown;
  path: string[];
}

/**
 * The path of the first string (a value, or an object's key) holding a lone surrogate, in
 * document order, or undefined. Its own stack: no value can overflow the call stack.
 */
export function loneSurrogatePath(root: unknown): { path: string[]; inKey: boolean } | undefined {
  const pending: PendingString[] = [{ value: root, path: [] }];
  while (pending.length > 0) {
    const { value, path } = pending.pop() as PendingString;
    if (typeof value === 'string') {
      if (hasLoneSurrogate(value)) return { path, inKey: false };
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) pending.push({ value: value[i], path: [...path, String(i)] });
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value);
      for (const key of keys) if (hasLoneSurrogate(key)) return { path, inKey: true };
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        pending.push({ value: (value as Record<string, unknown>)[key], path: [...path, key] });
      }
    }
  }
  return undefined;
}

/** A 400 naming the field whose string holds a lone surrogate (`items.0.name`). */
function assertNoLoneSurrogate(value: unknown): void {
  const found = loneSurrogatePath(value);
  if (!found) return;
  const field = found.path.join('.') || '(body)';
  const index = found.path[0] === 'items' && found.path[1] !== undefined ? Number(found.path[1]) : undefined;
  const where = found.inKey ? `a key of ${field}` : field;
  throw new BadRequestError(`The request body's ${where} holds a lone UTF-16 surrogate escape (\\uD800-\\uDFFF without its pair), which is no Unicode text; send each surrogate pair whole or the character itself`, [
    { field, message: `${found.inKey ? 'a key: ' : ''}a lone surrogate (not Unicode text)`, ...(index !== undefined && Number.isInteger(index) ? { index } : {}) },
  ]);
}

function badBody(message: string, field: string, problem: string): BadRequestError {
  return new BadRequestError(message, [{ field, message: problem }]);
}

/** A 400 unless the Content-Type names JSON. */
export function assertJsonContentType(contentType: string, alternatives: readonly string[] = []): void {
  if (!isJsonContentType(contentType)) {
    const expected = ['application/json', ...alternatives].join(' or ');
    throw badBody(`Content-Type must be ${expected}, got "${contentType || '(none)'}"`, 'Content-Type', `expected ${expected}`);
  }
}

/**
 * The JSON value of a request body, or a 400: wrong Content-Type, empty, invalid UTF-8,
 * nested deeper than JSON_DEPTH_MAX, not JSON, a key named twice in one object, or a lone
 * surrogate in a string.
 */
export function parseJsonBody(raw: Uint8Array, contentType: string): unknown {
  assertJsonContentType(contentType);
  if (raw.byteLength === 0) throw badBody('The request body is empty; a JSON object is expected', '(body)', 'empty');
  assertUtf8(raw);
  const structure = scanJsonStructure(raw);
  if (structure.tooDeepAt >= 0) {
    throw badBody(`The request body nests objects and arrays deeper than ${JSON_DEPTH_MAX} levels (at byte ${structure.tooDeepAt})`, '(body)', `nested deeper than ${JSON_DEPTH_MAX}`);
  }
  const text = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw badBody(`The request body is not valid JSON: ${(error as Error).message}`, '(body)', 'invalid JSON');
  }
  if (countObjectKeys(value) !== structure.memberCount) {
    const [duplicate] = duplicateKeysOf(raw, 1);
    if (duplicate) {
      const at = duplicate.path.slice(0, -1).join('.');
      throw badBody(`The request body names the key "${duplicate.key}" twice in one object${at ? ` (at ${at})` : ''}; send each key once`, duplicate.path.join('.'), 'duplicate key');
    }
  }
  if (mayHoldLoneSurrogate(raw)) assertNoLoneSurrogate(value);
  return value;
}
