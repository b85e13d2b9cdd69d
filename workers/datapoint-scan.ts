// Phase 1 of POST /timeseries/data: a byte-level scanner for the body's
// one shape that writes the flat point columns directly. It takes only bodies it can prove
// valid and error-free; anything else (a syntax or shape error, escaped keys, a key named
// twice in one object, very deep unknown values) goes to the JSON.parse scanner, which is the
// reference and words the errors: both give identical ScannedBody values (property-tested).
// Duplicate keys: a known key sets its bit in its object's mask (one bit test per
// key); unknown keys, at any depth, go on ObjectKeys (json-bytes.ts). The canonical point
// cannot hold a duplicate, so it needs neither. Escaped spellings (`"\u0069d"` is `"id"`):
// scanKey leaves any key with a backslash to the fallback, so the keys compared here are raw
// bytes; inside skipped values ObjectKeys leaves any pair with an escape to the fallback too,
// which compares decoded keys.
// Here: the body's structure (items, points, keys) and the columns' scratch; the canonical
// point's word-at-a-time reader is datapoint-scan-canonical.ts, and whitespace, key comparison
// and skipping unknown values json-bytes.ts.

import { ColumnArena } from '../engine/memory/column-arena.ts';
import { ITEMS_PER_REQUEST_MAX } from '../engine/limits.ts';
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
import { POINT_BYTES_MIN, scanPointCanonical as canonicalPoint, type PointColumns } from './datapoint-scan-canonical.ts';
import { scanDatapointBodyWithJsonParse } from './datapoint-scan-json.ts';
import {
  BAIL, bytesOf, isQuotedKeyAt as jsonIsQuotedKeyAt, KEY_NON_ASCII as JSON_KEY_NON_ASCII, matchesBytes as jsonMatchesBytes, ObjectKeys,
  skipValue as jsonSkipValue, skipWhitespace as jsonSkipWhitespace,
} from './json-bytes.ts';
import { jsonNumberValue, parseNumericText, scanJsonNumber } from './number-text.ts';
import { isStorableText } from './storable-text.ts';

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

function pointCapacity(bodyBytes: number): number {
  return Math.floor(bodyBytes / POINT_BYTES_MIN) + 1;
}

/** Bytes of scratch that hold the fast path's columns for a body of this size. */
export function scanScratchBytes(bodyBytes: number): number {
  const capacity = pointCapacity(bodyBytes);
  return ColumnArena.bytesFor([capacity * 8, capacity * 8, capacity * 4, capacity * 4, capacity]);
}

// Imported functions called in the per-point loops, as module constants: in the worker threads
// tsx compiles these modules to CommonJS (piscina require()s the task), where each read of an
// imported binding is a getter call (about a third of the workers' CPU).
const scanPointCanonical = canonicalPoint;
const skipWhitespace = jsonSkipWhitespace;
const isQuotedKeyAt = jsonIsQuotedKeyAt;
const matchesBytes = jsonMatchesBytes;
const skipValue = jsonSkipValue;
const KEY_NON_ASCII = JSON_KEY_NON_ASCII;

const KEY_ITEMS = bytesOf('items');
const KEY_ID = bytesOf('id');
const KEY_EXTERNAL_ID = bytesOf('externalId');
const KEY_DATAPOINTS = bytesOf('datapoints');
const KEY_TIMESTAMP = bytesOf('timestamp');
const KEY_VALUE = bytesOf('value');

// Bits of the known keys in their object's mask; a point's are its key numbers (1, 2).
const BIT_ITEMS = 1;
const BIT_DATAPOINTS = 1;
const BIT_ID = 2;
const BIT_EXTERNAL_ID = 4;

class BytesScanner implements PointColumns {
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
  /** KEY_NON_ASCII when the last key scanned holds a byte of 0x80 and up (scanKey takes no escapes). */
  keyFlags = 0;
  /** Unknown keys of the open objects, for duplicates. */
  readonly keys = new ObjectKeys();

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
    let seen = 0;
    for (;;) {
      p = this.scanKey(p);
      if (matchesBytes(b, this.keyStart, this.keyLength, KEY_ITEMS)) {
        if (seen & BIT_ITEMS) throw BAIL;
        seen |= BIT_ITEMS;
        p = this.scanItems(p);
      } else {
        this.keys.add(b, 0, this.keyStart, this.keyLength, this.keyFlags);
        p = skipValue(b, p, n, 1, this.keys);
      }
      p = skipWhitespace(b, p, n);
      if (b[p] === 0x2c) p = skipWhitespace(b, p + 1, n);
      else if (b[p] === 0x7d) break;
      else throw BAIL;
    }
    if (skipWhitespace(b, p + 1, n) !== n || seen === 0) throw BAIL;
  }

  /** At the opening quote of a key: records it, returns the index of its value. */
  scanKey(start: number): number {
    const { b, n } = this;
    if (b[start] !== 0x22) throw BAIL;
    let q = start + 1;
    let bytes = 0;
    for (;;) {
      if (q >= n) throw BAIL;
      const c = b[q]!;
      if (c === 0x22) break;
      if (c === 0x5c || c < 0x20) throw BAIL;
      bytes |= c;
      q++;
    }
    this.keyStart = start + 1;
    this.keyLength = q - start - 1;
    this.keyFlags = bytes & 0x80 ? KEY_NON_ASCII : 0;
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
    let seen = 0;
    const keyBase = this.keys.top;
    const pointStart = this.pointCount;
    for (;;) {
      p = this.scanKey(p);
      const { keyStart, keyLength } = this;
      if (matchesBytes(b, keyStart, keyLength, KEY_DATAPOINTS)) {
        if (seen & BIT_DATAPOINTS) throw BAIL;
        seen |= BIT_DATAPOINTS;
        p = this.scanPoints(p);
      } else if (matchesBytes(b, keyStart, keyLength, KEY_ID)) {
        if (seen & BIT_ID) throw BAIL;
        seen |= BIT_ID;
        const end = scanJsonNumber(b, p, n);
        if (end < 0 || !isSeriesId(jsonNumberValue)) throw BAIL;
        id = jsonNumberValue;
        p = end;
      } else if (matchesBytes(b, keyStart, keyLength, KEY_EXTERNAL_ID)) {
        if (seen & BIT_EXTERNAL_ID) throw BAIL;
        seen |= BIT_EXTERNAL_ID;
        if (b[p] !== 0x22) throw BAIL;
        const close = this.scanStringEnd(p);
        if (close === p + 1) throw BAIL;
        const escaped = (this.stringFlags & 0x80) !== 0;
        externalId = decodeJsonString(b, p + 1, close - p - 1, escaped ? VALUE_KIND_STRING_ENCODED : VALUE_KIND_STRING);
        // Only an escape can write U+0000 or a lone surrogate; the JSON.parse walk names it (once per item).
        if (escaped && !isStorableText(externalId)) throw BAIL;
        p = close + 1;
      } else {
        this.keys.add(b, keyBase, keyStart, keyLength, this.keyFlags);
        p = skipValue(b, p, n, 2, this.keys);
      }
      p = skipWhitespace(b, p, n);
      if (b[p] === 0x2c) p = skipWhitespace(b, p + 1, n);
      else if (b[p] === 0x7d) break;
      else throw BAIL;
    }
    if ((seen & BIT_DATAPOINTS) === 0 || (id === undefined && externalId === undefined)) throw BAIL;
    this.keys.top = keyBase;
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
    const canonicalEnd = scanPointCanonical(this, start);
    if (canonicalEnd >= 0) return canonicalEnd;
    const { b, n } = this;
    if (b[start] !== 0x7b) throw BAIL;
    let p = skipWhitespace(b, start + 1, n);
    let timestamp = NaN;
    let kind = 0;
    let value = NaN;
    let offset = 0;
    let length = 0;
    let seen = 0;
    let keyBase = -1; // set at the point's first unknown key
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
        else {
          if (keyBase < 0) keyBase = this.keys.top;
          this.keys.add(b, keyBase, this.keyStart, this.keyLength, this.keyFlags);
        }
      } else {
        if (b[p] !== 0x3a) p = skipWhitespace(b, p, n);
        if (b[p] !== 0x3a) throw BAIL;
        p = skipWhitespace(b, p + 1, n);
      }
      if (seen & key) throw BAIL; // 0 for unknown keys
      seen |= key;
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
        p = skipValue(b, p, n, 3, this.keys);
      }
      p = skipWhitespace(b, p, n);
      if (b[p] === 0x2c) p = skipWhitespace(b, p + 1, n);
      else if (b[p] === 0x7d) break;
      else throw BAIL;
    }
    if (kind === 0 || !isTimestampMs(timestamp)) throw BAIL;
    if (keyBase >= 0) this.keys.top = keyBase;
    const i = this.pointCount++;
    this.timestampMs[i] = timestamp + 0; // +0 turns -0 into 0
    this.valueKind[i] = kind;
    this.numberValue[i] = value;
    this.valueOffset[i] = offset;
    this.valueBytes[i] = length;
    return p + 1;
  }
}
