// The JSON.parse scanner for POST /timeseries/data: the reference the byte-level fast path
// (datapoint-scan.ts) must match, and the one that words every shape error. JSON.parse turns
// numbers into doubles and forgets where values were, yet BIGINT and decimals need their exact
// text: so each value token of the body (a number, or a string that is not a key) is first
// checked against the JSON grammar and replaced by its index k, a bare number. JSON.parse then
// checks the structure, and every number in its tree is a token index whose byte range,
// kind and double value were recorded on the way. Legitimate numbers and value strings no
// longer exist in the tree, so nothing can be mistaken for a token. A key named twice in one
// object, at any depth, is refused (JSON.parse would keep the last): when the tree
// holds fewer keys than the text, the duplicates are the errors, alone (the shape under
// last-wins would not be what the client meant).

import { DATAPOINT_ERRORS_MAX, ITEMS_PER_REQUEST_MAX } from '../engine/limits.ts';
import {
  emptyScannedBody,
  isSeriesId,
  isTimestampMs,
  makeScannedItem,
  type ScanError,
  type ScannedBody,
  type ScannedItem,
  scanMessages,
  timestampFromText,
  decodeJsonString,
  jsonStringEnd,
  jsonStringFlags,
  VALUE_KIND_NUMBER,
  VALUE_KIND_STRING,
  VALUE_KIND_STRING_ENCODED,
} from './datapoint-body.ts';
import { countObjectKeys, duplicateKeysOf, fieldOfPath } from './json-duplicate-keys.ts';
import { jsonNumberValue, parseNumericText, scanJsonNumber } from './number-text.ts';
import { isStorableText } from './storable-text.ts';

/** Value tokens of a body in source order: byte range (a string's without quotes), VALUE_KIND_* and a number's value. */
interface BodyTokens {
  offset: number[];
  bytes: number[];
  kind: number[];
  number: number[];
  /** Keys in the text (object members). */
  keyCount: number;
}

const utf8 = new TextDecoder('utf-8');

/** Scans a body with JSON.parse; never throws on bad input. */
export function scanDatapointBodyWithJsonParse(body: Uint8Array): ScannedBody {
  const tokens: BodyTokens = { offset: [], bytes: [], kind: [], number: [], keyCount: 0 };
  const rewritten = rewriteValueTokens(body, tokens);
  let tree: unknown;
  try {
    if (rewritten === null) throw new SyntaxError('invalid token');
    tree = JSON.parse(utf8.decode(rewritten));
  } catch {
    return emptyScannedBody([{ field: 'body', message: scanMessages.notJson(jsonParseDetail(body)) }], 'json');
  }
  if (isObject(tree) && countObjectKeys(tree) !== tokens.keyCount) {
    const errors = duplicateKeyErrors(body);
    if (errors.length > 0) return emptyScannedBody(errors, 'json');
  }
  const walk = new TreeWalk(body, tokens);
  walk.walkBody(tree);
  if (walk.errors.length > 0) return emptyScannedBody(walk.errors, 'json');
  return walk.result();
}

/** Each key named twice in one object, as a ScanError on its path (with itemIndex and pointIndex inside items). */
function duplicateKeyErrors(body: Uint8Array): ScanError[] {
  return duplicateKeysOf(body, DATAPOINT_ERRORS_MAX).map(({ key, path }) => {
    const field = fieldOfPath(path);
    const error: ScanError = { field, message: scanMessages.duplicateKey(field, key) };
    if (path[0] === 'items' && typeof path[1] === 'number' && path.length > 2) {
      error.itemIndex = path[1];
      if (path[2] === 'datapoints' && typeof path[3] === 'number' && path.length > 4) error.pointIndex = path[3];
    }
    return error;
  });
}

/** JSON.parse's own message on the original text, with positions that mean something to the client. */
function jsonParseDetail(body: Uint8Array): string {
  try {
    JSON.parse(utf8.decode(body));
  } catch (error) {
    return (error as Error).message;
  }
  return 'invalid token';
}

function isWhitespace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function isNumberByte(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;
}

/**
 * The body with every value token replaced by its index in `tokens`; null when a token is not
 * valid JSON (JSON.parse judges everything else). Validity as JSON is unchanged.
 */
function rewriteValueTokens(b: Uint8Array, tokens: BodyTokens): Uint8Array | null {
  const n = b.length;
  const out = new ByteSink(n + 64);
  let p = 0;
  while (p < n) {
    const c = b[p]!;
    if (c === 0x22) {
      const q = jsonStringEnd(b, p, n);
      if (q < 0) return null;
      let r = q + 1;
      while (isWhitespace(b[r])) r++;
      if (b[r] === 0x3a) {
        out.copy(b, p, q + 1); // a key
        tokens.keyCount++;
      } else {
        out.index(tokens.kind.length);
        tokens.offset.push(p + 1);
        tokens.bytes.push(q - p - 1);
        tokens.kind.push(jsonStringFlags & 0x80 ? VALUE_KIND_STRING_ENCODED : VALUE_KIND_STRING);
        tokens.number.push(NaN);
      }
      p = q + 1;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let q = p + 1;
      while (q < n && isNumberByte(b[q]!)) q++;
      if (scanJsonNumber(b, p, q) !== q) return null;
      out.index(tokens.kind.length);
      tokens.offset.push(p);
      tokens.bytes.push(q - p);
      tokens.kind.push(VALUE_KIND_NUMBER);
      tokens.number.push(jsonNumberValue);
      p = q;
    } else {
      out.copy(b, p, p + 1);
      p++;
    }
  }
  return out.bytes();
}

/** A growable byte buffer, copied into byte by byte (the ranges are short). */
class ByteSink {
  private buffer: Uint8Array;
  private length = 0;
  constructor(capacity: number) {
    this.buffer = new Uint8Array(capacity);
  }
  private reserve(extra: number): void {
    if (this.length + extra <= this.buffer.length) return;
    const next = new Uint8Array(Math.max(this.buffer.length * 2, this.length + extra));
    next.set(this.buffer.subarray(0, this.length));
    this.buffer = next;
  }
  copy(source: Uint8Array, start: number, end: number): void {
    this.reserve(end - start);
    const buffer = this.buffer;
    let length = this.length;
    for (let i = start; i < end; i++) buffer[length++] = source[i]!;
    this.length = length;
  }
  /**
   * A token index as decimal digits between spaces, so two tokens the body runs together
   * (`0"a"`) stay two tokens and stay invalid, instead of merging into one number.
   */
  index(k: number): void {
    this.reserve(24);
    this.buffer[this.length++] = 0x20;
    let divisor = 1;
    while (divisor * 10 <= k) divisor *= 10;
    for (; divisor >= 1; divisor /= 10) this.buffer[this.length++] = 0x30 + (Math.floor(k / divisor) % 10);
    this.buffer[this.length++] = 0x20;
  }
  bytes(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }
}

/** The token index a tree value stands for, or -1 when it is not a token (an object, array, literal). */
function tokenIndex(v: unknown): number {
  return typeof v === 'number' ? v : -1;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Walks the parsed tree in a fixed order (items, then each item's fields, then its points). */
class TreeWalk {
  readonly errors: ScanError[] = [];
  readonly items: ScannedItem[] = [];
  pointCount = 0;
  timestampMs = new Float64Array(0);
  valueKind = new Uint8Array(0);
  numberValue = new Float64Array(0);
  valueOffset = new Uint32Array(0);
  valueBytes = new Uint32Array(0);

  constructor(
    readonly body: Uint8Array,
    readonly tokens: BodyTokens,
  ) {}

  fail(field: string, message: string, itemIndex?: number, pointIndex?: number): void {
    if (this.errors.length >= DATAPOINT_ERRORS_MAX) return;
    const error: ScanError = { field, message };
    if (itemIndex !== undefined) error.itemIndex = itemIndex;
    if (pointIndex !== undefined) error.pointIndex = pointIndex;
    this.errors.push(error);
  }

  result(): ScannedBody {
    return {
      items: this.items,
      pointCount: this.pointCount,
      timestampMs: this.timestampMs,
      valueKind: this.valueKind,
      numberValue: this.numberValue,
      valueOffset: this.valueOffset,
      valueBytes: this.valueBytes,
      errors: [],
      scanner: 'json',
    };
  }

  walkBody(tree: unknown): void {
    if (!isObject(tree)) return this.fail('body', scanMessages.notObject());
    const items = tree['items'];
    if (items === undefined) return this.fail('items', scanMessages.itemsMissing());
    if (!Array.isArray(items) || tokenIndex(items) >= 0) return this.fail('items', scanMessages.itemsNotArray());
    if (items.length === 0 || items.length > ITEMS_PER_REQUEST_MAX) {
      this.fail('items', scanMessages.itemsCount(items.length));
      this.errors[0]!.limit = ITEMS_PER_REQUEST_MAX;
      return;
    }
    let capacity = 0;
    for (const item of items) {
      const points = isObject(item) ? item['datapoints'] : undefined;
      if (Array.isArray(points)) capacity += points.length;
    }
    this.timestampMs = new Float64Array(capacity);
    this.valueKind = new Uint8Array(capacity);
    this.numberValue = new Float64Array(capacity);
    this.valueOffset = new Uint32Array(capacity);
    this.valueBytes = new Uint32Array(capacity);
    for (let i = 0; i < items.length && this.errors.length < DATAPOINT_ERRORS_MAX; i++) this.walkItem(items[i], i);
    if (this.pointCount < capacity) {
      this.timestampMs = this.timestampMs.subarray(0, this.pointCount);
      this.valueKind = this.valueKind.subarray(0, this.pointCount);
      this.numberValue = this.numberValue.subarray(0, this.pointCount);
      this.valueOffset = this.valueOffset.subarray(0, this.pointCount);
      this.valueBytes = this.valueBytes.subarray(0, this.pointCount);
    }
  }

  walkItem(item: unknown, itemIndex: number): void {
    const field = `items[${itemIndex}]`;
    if (!isObject(item)) return this.fail(field, scanMessages.itemNotObject(field), itemIndex);
    const { kind, number, offset, bytes } = this.tokens;
    let id: number | undefined;
    let externalId: string | undefined;
    if (item['id'] !== undefined) {
      const k = tokenIndex(item['id']);
      if (k >= 0 && kind[k] === VALUE_KIND_NUMBER && isSeriesId(number[k]!)) id = number[k];
      else this.fail(`${field}.id`, scanMessages.id(`${field}.id`), itemIndex);
    }
    if (item['externalId'] !== undefined) {
      const k = tokenIndex(item['externalId']);
      if (k >= 0 && kind[k] !== VALUE_KIND_NUMBER && bytes[k]! > 0) externalId = decodeJsonString(this.body, offset[k]!, bytes[k]!, kind[k]!);
      else this.fail(`${field}.externalId`, scanMessages.externalId(`${field}.externalId`), itemIndex);
      // PostgreSQL text, where externalIds live, holds neither U+0000 nor a lone surrogate.
      if (externalId !== undefined && !isStorableText(externalId)) {
        this.fail(`${field}.externalId`, scanMessages.externalIdText(`${field}.externalId`), itemIndex);
        externalId = undefined;
      }
    }
    if (item['id'] === undefined && item['externalId'] === undefined) {
      this.fail(field, scanMessages.identifierMissing(field), itemIndex);
    }
    const points = item['datapoints'];
    if (points === undefined) return this.fail(`${field}.datapoints`, scanMessages.datapointsMissing(field), itemIndex);
    if (!Array.isArray(points) || tokenIndex(points) >= 0) {
      return this.fail(`${field}.datapoints`, scanMessages.datapointsNotArray(`${field}.datapoints`), itemIndex);
    }
    const pointStart = this.pointCount;
    for (let j = 0; j < points.length && this.errors.length < DATAPOINT_ERRORS_MAX; j++) {
      this.walkPoint(points[j], itemIndex, j);
    }
    this.items.push(makeScannedItem(id, externalId, pointStart, this.pointCount - pointStart));
  }

  /** A point's problem; the field path is only built when there is one. */
  failPoint(itemIndex: number, pointIndex: number, key: '' | '.timestamp' | '.value', message: (field: string) => string): void {
    const field = `items[${itemIndex}].datapoints[${pointIndex}]${key}`;
    this.fail(field, message(field), itemIndex, pointIndex);
  }

  walkPoint(point: unknown, itemIndex: number, pointIndex: number): void {
    if (!isObject(point)) return this.failPoint(itemIndex, pointIndex, '', scanMessages.pointNotObject);
    const { offset, bytes, kind, number } = this.tokens;
    let timestamp = NaN;
    const ts = point['timestamp'];
    const tsIndex = tokenIndex(ts);
    if (ts === undefined) {
      this.failPoint(itemIndex, pointIndex, '.timestamp', scanMessages.timestampMissing);
    } else {
      if (tsIndex >= 0 && kind[tsIndex] === VALUE_KIND_NUMBER) timestamp = number[tsIndex]!;
      else if (tsIndex >= 0) timestamp = timestampFromText(this.body, offset[tsIndex]!, offset[tsIndex]! + bytes[tsIndex]!);
      if (!isTimestampMs(timestamp)) this.failPoint(itemIndex, pointIndex, '.timestamp', scanMessages.timestamp);
    }
    const value = point['value'];
    const k = tokenIndex(value);
    if (value === undefined) return this.failPoint(itemIndex, pointIndex, '.value', scanMessages.valueMissing);
    if (k < 0) return this.failPoint(itemIndex, pointIndex, '.value', scanMessages.valueKind);
    if (this.errors.length > 0) return;
    const i = this.pointCount++;
    const valueKind = kind[k]!;
    this.timestampMs[i] = timestamp + 0;
    this.valueKind[i] = valueKind;
    this.valueOffset[i] = offset[k]!;
    this.valueBytes[i] = bytes[k]!;
    this.numberValue[i] =
      valueKind === VALUE_KIND_NUMBER
        ? number[k]!
        : valueKind === VALUE_KIND_STRING
          ? parseNumericText(this.body, offset[k]!, offset[k]! + bytes[k]!)
          : NaN;
  }
}
