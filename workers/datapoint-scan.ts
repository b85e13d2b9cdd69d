// Phase 1 of POST /timeseries/data (issue 3, "Pipeline"): a byte-level scanner for the body's
// one shape that writes the flat point columns directly. It takes only bodies it can prove
// valid and error-free; anything else (a syntax or shape error, escaped keys, duplicate
// `items`/`datapoints` keys, very deep unknown values) goes to the JSON.parse scanner, which
// is the reference: both give identical ScannedBody values (property-tested).

import { ColumnArena } from '../engine/memory/column-arena.ts';
import { ITEMS_PER_REQUEST_MAX, TIMESTAMP_MS_MAX, TIMESTAMP_MS_MIN } from '../engine/limits.ts';
import {
  type ScannedBody,
  type ScannedItem,
  decodeJsonString,
  isSeriesId,
  jsonStringEnd,
  jsonStringFlags,
  isTimestampMs,
  makeScannedItem,
  timestampFromText,
  VALUE_KIND_NUMBER,
  VALUE_KIND_STRING,
  VALUE_KIND_STRING_ENCODED,
} from './datapoint-body.ts';
import { scanDatapointBodyWithJsonParse } from './datapoint-scan-json.ts';
import { jsonNumberValue, parseNumericText, scanJsonNumber } from './number-text.ts';

/**
 * Scans a POST /timeseries/data body (UTF-8 JSON bytes) into items and point columns.
 * Never throws on bad input: problems come back in `errors`.
 */
export function scanDatapointBody(body: Uint8Array, scratch?: SharedArrayBuffer): ScannedBody {
  return scanDatapointBodyBytes(body, scratch) ?? scanDatapointBodyWithJsonParse(body);
}

/**
 * The fast path alone; null when the body is not one it takes. Its columns are carved out of
 * `scratch` when that holds scanScratchBytes(body.length) bytes (else allocated).
 */
export function scanDatapointBodyBytes(body: Uint8Array, scratch?: SharedArrayBuffer): ScannedBody | null {
  // The scanner writes every entry below pointCount and nothing reads past it: no zeroing.
  const scanner = new BytesScanner(body, new ColumnArena(scratch, { zero: false }));
  try {
    scanner.scanBody();
  } catch (error) {
    if (error === BAIL) return null;
    throw error;
  }
  return scanner.result();
}

/** Thrown (not an Error: no stack to capture) to leave the fast path for the fallback. */
const BAIL = { bail: true } as const;

/** Smallest bytes a point can take: {"timestamp":1,"value":1} is 25. */
const POINT_BYTES_MIN = 25;

function pointCapacity(bodyBytes: number): number {
  return Math.floor(bodyBytes / POINT_BYTES_MIN) + 1;
}

/** Bytes of scratch that hold the fast path's columns for a body of this size. */
export function scanScratchBytes(bodyBytes: number): number {
  const capacity = pointCapacity(bodyBytes);
  return ColumnArena.bytesFor([capacity * 8, capacity * 8, capacity * 4, capacity * 4, capacity]);
}
/** Unknown values nested deeper than this go to the fallback (bounds the recursion). */
const SKIP_DEPTH_MAX = 64;

// Imported constants read in the per-point loops, as module constants: in the worker threads
// tsx compiles these modules to CommonJS (piscina require()s the task), where each read of an
// imported binding is a getter call (about a third of the workers' CPU, issue 3).
const KIND_NUMBER = VALUE_KIND_NUMBER;
const KIND_STRING = VALUE_KIND_STRING;
const CANONICAL_TIMESTAMP_MIN = TIMESTAMP_MS_MIN;
const CANONICAL_TIMESTAMP_MAX = TIMESTAMP_MS_MAX;

/** scanPointCanonical's fixed bytes. */
const CANONICAL_TIMESTAMP = bytesOf('{"timestamp":');
const CANONICAL_VALUE = bytesOf(',"value":');
/** Digits that make an exact integer in a double (10^15 < 2^53): Clinger's exact case. */
const CANONICAL_DIGITS_MAX = 15;
const POW10 = new Float64Array(CANONICAL_DIGITS_MAX + 1).map((_, i) => 10 ** i);
/** The canonical keys as little-endian 32-bit words, compared four bytes at a time. */
const littleEndianWord = (bytes: Uint8Array, at: number) => ((bytes[at] as number) | ((bytes[at + 1] as number) << 8) | ((bytes[at + 2] as number) << 16) | ((bytes[at + 3] as number) << 24)) >>> 0;

const TIMESTAMP_WORD_0 = littleEndianWord(CANONICAL_TIMESTAMP, 0);
const TIMESTAMP_WORD_1 = littleEndianWord(CANONICAL_TIMESTAMP, 4);
const TIMESTAMP_WORD_2 = littleEndianWord(CANONICAL_TIMESTAMP, 8);
const VALUE_WORD_0 = littleEndianWord(CANONICAL_VALUE, 0);
const VALUE_WORD_1 = littleEndianWord(CANONICAL_VALUE, 4);

const KEY_ITEMS = bytesOf('items');
const KEY_ID = bytesOf('id');
const KEY_EXTERNAL_ID = bytesOf('externalId');
const KEY_DATAPOINTS = bytesOf('datapoints');
const KEY_TIMESTAMP = bytesOf('timestamp');
const KEY_VALUE = bytesOf('value');
const LITERAL_TRUE = bytesOf('true');
const LITERAL_FALSE = bytesOf('false');
const LITERAL_NULL = bytesOf('null');

function bytesOf(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

function skipWhitespace(b: Uint8Array, start: number, n: number): number {
  let p = start;
  while (p < n) {
    const c = b[p]!;
    if (c > 0x20 || (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09)) break;
    p++;
  }
  return p;
}

/** True when b holds "key" (with its quotes) at p. */
function isQuotedKeyAt(b: Uint8Array, p: number, key: Uint8Array): boolean {
  if (b[p] !== 0x22 || b[p + key.length + 1] !== 0x22) return false;
  for (let i = 0; i < key.length; i++) if (b[p + 1 + i] !== key[i]) return false;
  return true;
}

function matchesBytes(b: Uint8Array, start: number, length: number, expected: Uint8Array): boolean {
  if (length !== expected.length) return false;
  for (let i = 0; i < length; i++) if (b[start + i] !== expected[i]) return false;
  return true;
}

class BytesScanner {
  readonly b: Uint8Array;
  /** The body again, for reading four bytes at once (keys, groups of timestamp digits). */
  readonly words: DataView;
  readonly n: number;
  readonly items: ScannedItem[] = [];
  pointCount = 0;
  readonly timestampMs: Float64Array;
  readonly valueKind: Uint8Array;
  readonly numberValue: Float64Array;
  readonly valueOffset: Uint32Array;
  readonly valueBytes: Uint32Array;
  /** Bytes of the last string scanned OR-ed together; 0x80 set for non-ASCII or an escape. */
  stringFlags = 0;
  /** [keyStart, keyStart + keyLength) is the last key scanned. */
  keyStart = 0;
  keyLength = 0;

  constructor(body: Uint8Array, arena: ColumnArena) {
    this.b = body;
    this.words = new DataView(body.buffer, body.byteOffset, body.byteLength);
    this.n = body.length;
    // Every point spends at least POINT_BYTES_MIN bytes, so the columns never grow. Same
    // order as scanScratchBytes: the 8-byte columns first.
    const capacity = pointCapacity(this.n);
    this.timestampMs = arena.float64(capacity);
    this.numberValue = arena.float64(capacity);
    this.valueOffset = arena.uint32(capacity);
    this.valueBytes = arena.uint32(capacity);
    this.valueKind = arena.uint8(capacity);
  }

  result(): ScannedBody {
    const count = this.pointCount;
    return {
      items: this.items,
      pointCount: count,
      timestampMs: this.timestampMs.subarray(0, count),
      valueKind: this.valueKind.subarray(0, count),
      numberValue: this.numberValue.subarray(0, count),
      valueOffset: this.valueOffset.subarray(0, count),
      valueBytes: this.valueBytes.subarray(0, count),
      errors: [],
      scanner: 'bytes',
    };
  }

  scanBody(): void {
    const { b, n } = this;
    let p = b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0; // a UTF-8 BOM, as TextDecoder drops it
    p = skipWhitespace(b, p, n);
    if (b[p] !== 0x7b) throw BAIL;
    p = skipWhitespace(b, p + 1, n);
    let seenItems = false;
    for (;;) {
      p = this.scanKey(p);
      if (matchesBytes(b, this.keyStart, this.keyLength, KEY_ITEMS)) {
        if (seenItems) throw BAIL;
        seenItems = true;
        p = this.scanItems(p);
      } else {
        p = this.skipValue(p, 1);
      }
      p = skipWhitespace(b, p, n);
      if (b[p] === 0x2c) p = skipWhitespace(b, p + 1, n);
      else if (b[p] === 0x7d) break;
      else throw BAIL;
    }
    if (skipWhitespace(b, p + 1, n) !== n || !seenItems) throw BAIL;
  }

  /** At the opening quote of a key: records it, returns the index of its value. */
  scanKey(start: number): number {
    const { b, n } = this;
    if (b[start] !== 0x22) throw BAIL;
    let q = start + 1;
    for (;;) {
      if (q >= n) throw BAIL;
      const c = b[q]!;
      if (c === 0x22) break;
      if (c === 0x5c || c < 0x20) throw BAIL;
      q++;
    }
    this.keyStart = start + 1;
    this.keyLength = q - start - 1;
    const p = skipWhitespace(b, q + 1, n);
    if (b[p] !== 0x3a) throw BAIL;
    return skipWhitespace(b, p + 1, n);
  }

  /** At the opening quote of a string: validates it, returns the index of its closing quote. */
  scanStringEnd(start: number): number {
    const close = jsonStringEnd(this.b, start, this.n);
    if (close < 0) throw BAIL;
    this.stringFlags = jsonStringFlags;
    return close;
  }

  scanItems(start: number): number {
    const { b, n } = this;
    if (b[start] !== 0x5b) throw BAIL;
    let p = skipWhitespace(b, start + 1, n);
    for (;;) {
      if (this.items.length === ITEMS_PER_REQUEST_MAX) throw BAIL;
      p = skipWhitespace(b, this.scanItem(p), n);
      if (b[p] === 0x2c) p = skipWhitespace(b, p + 1, n);
      else if (b[p] === 0x5d) return p + 1;
      else throw BAIL;
    }
  }

  scanItem(start: number): number {
    const { b, n } = this;
    if (b[start] !== 0x7b) throw BAIL;
    let p = skipWhitespace(b, start + 1, n);
    let id: number | undefined;
    let externalId: string | undefined;
    let seenPoints = false;
    const pointStart = this.pointCount;
    for (;;) {
      p = this.scanKey(p);
      const { keyStart, keyLength } = this;
      if (matchesBytes(b, keyStart, keyLength, KEY_DATAPOINTS)) {
        if (seenPoints) throw BAIL;
        seenPoints = true;
        p = this.scanPoints(p);
      } else if (matchesBytes(b, keyStart, keyLength, KEY_ID)) {
        const end = scanJsonNumber(b, p, n);
        if (end < 0 || !isSeriesId(jsonNumberValue)) throw BAIL;
        id = jsonNumberValue;
        p = end;
      } else if (matchesBytes(b, keyStart, keyLength, KEY_EXTERNAL_ID)) {
        if (b[p] !== 0x22) throw BAIL;
        const close = this.scanStringEnd(p);
        if (close === p + 1) throw BAIL;
        externalId = decodeJsonString(b, p + 1, close - p - 1, this.stringFlags & 0x80 ? VALUE_KIND_STRING_ENCODED : VALUE_KIND_STRING);
        p = close + 1;
      } else {
        p = this.skipValue(p, 2);
      }
      p = skipWhitespace(b, p, n);
      if (b[p] === 0x2c) p = skipWhitespace(b, p + 1, n);
      else if (b[p] === 0x7d) break;
      else throw BAIL;
    }
    if (!seenPoints || (id === undefined && externalId === undefined)) throw BAIL;
    this.items.push(makeScannedItem(id, externalId, pointStart, this.pointCount - pointStart));
    return p + 1;
  }

  scanPoints(start: number): number {
    const { b, n } = this;
    if (b[start] !== 0x5b) throw BAIL;
    let p = skipWhitespace(b, start + 1, n);
    if (b[p] === 0x5d) return p + 1;
    for (;;) {
      p = skipWhitespace(b, this.scanPoint(p), n);
      if (b[p] === 0x2c) p = skipWhitespace(b, p + 1, n);
      else if (b[p] === 0x5d) return p + 1;
      else throw BAIL;
    }
  }

  /** The hot loop: one { "timestamp": ..., "value": ... } straight into the columns. */
  scanPoint(start: number): number {
    const canonicalEnd = this.scanPointCanonical(start);
    if (canonicalEnd >= 0) return canonicalEnd;
    const { b, n } = this;
    if (b[start] !== 0x7b) throw BAIL;
    let p = skipWhitespace(b, start + 1, n);
    let timestamp = NaN;
    let kind = 0;
    let value = NaN;
    let offset = 0;
    let length = 0;
    for (;;) {
      // The two keys every point has are matched in place; any other goes through scanKey.
      let key = 0;
      if (isQuotedKeyAt(b, p, KEY_TIMESTAMP)) {
        key = 1;
        p += KEY_TIMESTAMP.length + 2;
      } else if (isQuotedKeyAt(b, p, KEY_VALUE)) {
        key = 2;
        p += KEY_VALUE.length + 2;
      }
      if (key === 0) {
        p = this.scanKey(p);
        if (matchesBytes(b, this.keyStart, this.keyLength, KEY_TIMESTAMP)) key = 1;
        else if (matchesBytes(b, this.keyStart, this.keyLength, KEY_VALUE)) key = 2;
      } else {
        if (b[p] !== 0x3a) p = skipWhitespace(b, p, n);
        if (b[p] !== 0x3a) throw BAIL;
        p = skipWhitespace(b, p + 1, n);
      }
      const c = b[p];
      if (key === 1) {
        if (c === 0x22) {
          const close = this.scanStringEnd(p);
          timestamp = timestampFromText(b, p + 1, close);
          p = close + 1;
        } else {
          p = scanJsonNumber(b, p, n);
          if (p < 0) throw BAIL;
          timestamp = jsonNumberValue;
        }
      } else if (key === 2) {
        if (c === 0x22) {
          const close = this.scanStringEnd(p);
          offset = p + 1;
          length = close - offset;
          if (this.stringFlags & 0x80) {
            kind = VALUE_KIND_STRING_ENCODED;
            value = NaN;
          } else {
            kind = VALUE_KIND_STRING;
            value = parseNumericText(b, offset, close);
          }
          p = close + 1;
        } else {
          const end = scanJsonNumber(b, p, n);
          if (end < 0) throw BAIL;
          kind = VALUE_KIND_NUMBER;
          value = jsonNumberValue;
          offset = p;
          length = end - p;
          p = end;
        }
      } else {
        p = this.skipValue(p, 3);
      }
      p = skipWhitespace(b, p, n);
      if (b[p] === 0x2c) p = skipWhitespace(b, p + 1, n);
      else if (b[p] === 0x7d) break;
      else throw BAIL;
    }
    if (kind === 0 || !isTimestampMs(timestamp)) throw BAIL;
    const i = this.pointCount++;
    this.timestampMs[i] = timestamp + 0; // +0 turns -0 into 0
    this.valueKind[i] = kind;
    this.numberValue[i] = value;
    this.valueOffset[i] = offset;
    this.valueBytes[i] = length;
    return p + 1;
  }

  /**
   * The shape almost every client sends, `{"timestamp":<ms>,"value":"<decimal>"}` or with a
   * JSON number value, without whitespace: matched byte by byte and parsed in one pass (about
   * half the CPU of the general loop). Returns the index after the point, or -1 without side
   * effects for anything else (signs other than a leading '-', exponents, more than 15
   * digits, whitespace, other keys), which scanPoint then takes the general way. Values are
   * the same doubles parseNumericText and scanJsonNumber give (Clinger's exact case).
   */
  scanPointCanonical(start: number): number {
    const { b, n, words } = this;
    // Both keys are compared a word at a time, and the timestamp read four digits at a time:
    // SWAR on 32-bit words, with the same rules as byte by byte (issue 3: scanning is the
    // longest step of an ingest request).
    if (start + POINT_BYTES_MIN > n) return -1;
    if (words.getUint32(start, true) !== TIMESTAMP_WORD_0 || words.getUint32(start + 4, true) !== TIMESTAMP_WORD_1
      || words.getUint32(start + 8, true) !== TIMESTAMP_WORD_2 || b[start + 12] !== 0x3a) return -1;
    let p = start + CANONICAL_TIMESTAMP.length;
    let c = b[p]!;
    if (c < 0x31 || c > 0x39) return -1;
    let timestamp = 0;
    const timestampStart = p;
    while (p + 4 <= n) {
      const word = words.getUint32(p, true);
      // Four ASCII digits: every high nibble 3, and still 3 after adding 6 to every byte.
      if ((word & 0xf0f0f0f0) !== 0x30303030 || ((word + 0x06060606) & 0xf0f0f0f0) !== 0x30303030) break;
      const digits = word - 0x30303030;
      const pairs = digits * 10 + (digits >>> 8); // bytes 0 and 2: the first and second pair of digits
      timestamp = timestamp * 10000 + (pairs & 0xff) * 100 + ((pairs >>> 16) & 0xff);
      p += 4;
    }
    while (p < n && (c = b[p]!) >= 0x30 && c <= 0x39) {
      timestamp = timestamp * 10 + (c - 0x30);
      p++;
    }
    if (p - timestampStart > CANONICAL_DIGITS_MAX || timestamp < CANONICAL_TIMESTAMP_MIN || timestamp > CANONICAL_TIMESTAMP_MAX) return -1;
    if (p + CANONICAL_VALUE.length > n || words.getUint32(p, true) !== VALUE_WORD_0 || words.getUint32(p + 4, true) !== VALUE_WORD_1 || b[p + 8] !== 0x3a) return -1;
    p += CANONICAL_VALUE.length;
    const quoted = b[p] === 0x22;
    if (quoted) p++;
    const offset = p;
    const negative = b[p] === 0x2d;
    if (negative) p++;
    const digitsStart = p;
    let mantissa = 0;
    while (p < n && (c = b[p]!) >= 0x30 && c <= 0x39) {
      mantissa = mantissa * 10 + (c - 0x30);
      p++;
    }
    const integerDigits = p - digitsStart;
    // A JSON number has no leading zero; a numeric string may.
    if (integerDigits === 0 || (!quoted && integerDigits > 1 && b[digitsStart] === 0x30)) return -1;
    let fractionDigits = 0;
    if (b[p] === 0x2e) {
      p++;
      while (p < n && (c = b[p]!) >= 0x30 && c <= 0x39) {
        mantissa = mantissa * 10 + (c - 0x30);
        fractionDigits++;
        p++;
      }
      if (fractionDigits === 0) return -1;
    }
    if (integerDigits + fractionDigits > CANONICAL_DIGITS_MAX) return -1;
    const length = p - offset;
    if (quoted) {
      if (b[p] !== 0x22) return -1;
      p++;
    }
    if (b[p] !== 0x7d) return -1;
    const magnitude = fractionDigits === 0 ? mantissa : mantissa / POW10[fractionDigits]!;
    const i = this.pointCount++;
    this.timestampMs[i] = timestamp;
    this.valueKind[i] = quoted ? KIND_STRING : KIND_NUMBER;
    this.numberValue[i] = negative ? -magnitude : magnitude;
    this.valueOffset[i] = offset;
    this.valueBytes[i] = length;
    return p + 1;
  }

  /** Any JSON value (unknown keys), validated as strictly as JSON.parse would. */
  skipValue(start: number, depth: number): number {
    const { b, n } = this;
    const c = b[start];
    if (c === 0x22) return this.scanStringEnd(start) + 1;
    if (c === 0x2d || (c !== undefined && c >= 0x30 && c <= 0x39)) {
      const end = scanJsonNumber(b, start, n);
      if (end < 0) throw BAIL;
      return end;
    }
    if (c === 0x74) return this.skipLiteral(start, LITERAL_TRUE);
    if (c === 0x66) return this.skipLiteral(start, LITERAL_FALSE);
    if (c === 0x6e) return this.skipLiteral(start, LITERAL_NULL);
    if (depth > SKIP_DEPTH_MAX) throw BAIL;
    if (c === 0x7b) return this.skipObject(start, depth);
    if (c === 0x5b) return this.skipArray(start, depth);
    throw BAIL;
  }

  skipLiteral(start: number, literal: Uint8Array): number {
    if (!matchesBytes(this.b, start, literal.length, literal)) throw BAIL;
    return start + literal.length;
  }

  skipObject(start: number, depth: number): number {
    const { b, n } = this;
    let p = skipWhitespace(b, start + 1, n);
    if (b[p] === 0x7d) return p + 1;
    for (;;) {
      // Keys of unknown objects are never compared, so escapes in them are fine.
      if (b[p] !== 0x22) throw BAIL;
      p = skipWhitespace(b, this.scanStringEnd(p) + 1, n);
      if (b[p] !== 0x3a) throw BAIL;
      p = skipWhitespace(b, this.skipValue(skipWhitespace(b, p + 1, n), depth + 1), n);
      if (b[p] === 0x2c) p = skipWhitespace(b, p + 1, n);
      else if (b[p] === 0x7d) return p + 1;
      else throw BAIL;
    }
  }

  skipArray(start: number, depth: number): number {
    const { b, n } = this;
    let p = skipWhitespace(b, start + 1, n);
    if (b[p] === 0x5d) return p + 1;
    for (;;) {
      p = skipWhitespace(b, this.skipValue(p, depth + 1), n);
      if (b[p] === 0x2c) p = skipWhitespace(b, p + 1, n);
      else if (b[p] === 0x5d) return p + 1;
      else throw BAIL;
    }
  }
}
