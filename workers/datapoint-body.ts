// The scanned form of a POST /timeseries/data body and the rules both scanners share
// (identifiers, timestamps, error wording). Scanning is datapoint-scan.ts and
// datapoint-scan-json.ts; parsing values against a valueType is datapoint-encode.ts.

import { DATAPOINT_ERRORS_MAX, ID_MAX, ITEMS_PER_REQUEST_MAX, TIMESTAMP_MS_MAX, TIMESTAMP_MS_MIN } from '../engine/limits.ts';
import { scanJsonNumber, jsonNumberValue } from './number-text.ts';

/** ScannedBody.valueKind: how a point's value was written. */
export const VALUE_KIND_INVALID = 0;
/** A JSON number token; its text is ASCII. */
export const VALUE_KIND_NUMBER = 1;
/** A JSON string of printable ASCII without escapes: its bytes are its text. */
export const VALUE_KIND_STRING = 2;
/** A JSON string with escapes or non-ASCII bytes: decode before use. */
export const VALUE_KIND_STRING_ENCODED = 3;
/** An Arrow floating-point value: numberValue is the value; there is no text in the body. */
export const VALUE_KIND_FLOAT64 = 4;
/**
 * An Arrow integer value: numberValue's 8 bytes hold it as a little-endian int64 (read them
 * as two int32 words, low first: never as the double); there is no text in the body.
 */
export const VALUE_KIND_INT64 = 5;
/** An Arrow string that is not all printable ASCII: its bytes in the body are UTF-8, decoded as such. */
export const VALUE_KIND_STRING_UTF8 = 6;

/** One entry of `items`, in request order. */
export interface ScannedItem {
  /** Series id as sent: an integer from 1 to 2^53-1. */
  id?: number;
  /** Series externalId as sent (decoded), non-empty. */
  externalId?: string;
  /** Index of the item's first point in the flat columns. */
  pointStart: number;
  /** Points the item holds, before deduplication. */
  pointCount: number;
}

/** A body that does not have the shape of POST /timeseries/data (SPEC: 400). */
export interface ScanError {
  /** JSON path of the offending input, e.g. `items[3].datapoints[7].timestamp`. */
  field: string;
  message: string;
  itemIndex?: number;
  pointIndex?: number;
  /** The cap that was passed (ITEMS_PER_REQUEST_MAX for `items`). */
  limit?: number;
}

/**
 * A POST /timeseries/data body split into items and flat per-point columns, before the
 * series' valueTypes are known. Columns have pointCount entries; item k's points are
 * [pointStart, pointStart + pointCount) in request order. When `errors` is non-empty the
 * request must be refused and items and columns are empty.
 */
export interface ScannedBody {
  items: ScannedItem[];
  pointCount: number;
  /** Epoch milliseconds, integers within TIMESTAMP_MS_MIN..TIMESTAMP_MS_MAX. */
  timestampMs: Float64Array;
  /** VALUE_KIND_* per point. */
  valueKind: Uint8Array;
  /**
   * The value as a double: the JSON number, or the numeric string's value (see
   * parseNumericText; NaN when not numeric, ±Infinity on overflow). NaN for encoded strings.
   */
  numberValue: Float64Array;
  /** Byte offset of the value's text in the body: the number token, or a string's contents without quotes. */
  valueOffset: Uint32Array;
  /** Byte length of that text. */
  valueBytes: Uint32Array;
  /** Arrow bodies: each point's row in the stream (counted from 0), for errors that name it. */
  rowIndex?: Uint32Array;
  errors: ScanError[];
  /** Which scanner produced this: the JSON byte-level fast path, the JSON.parse fallback, or the Arrow stream's. */
  scanner: 'bytes' | 'json' | 'arrow';
}

export function makeScannedItem(id: number | undefined, externalId: string | undefined, pointStart: number, pointCount: number): ScannedItem {
  const item: ScannedItem = { pointStart, pointCount };
  if (id !== undefined) item.id = id;
  if (externalId !== undefined) item.externalId = externalId;
  return item;
}

export function emptyScannedBody(errors: ScanError[], scanner: ScannedBody['scanner']): ScannedBody {
  return {
    items: [],
    pointCount: 0,
    timestampMs: new Float64Array(0),
    valueKind: new Uint8Array(0),
    numberValue: new Float64Array(0),
    valueOffset: new Uint32Array(0),
    valueBytes: new Uint32Array(0),
    errors: errors.slice(0, DATAPOINT_ERRORS_MAX),
    scanner,
  };
}

/** Bytes of the last string jsonStringEnd accepted, OR-ed together; 0x80 set for non-ASCII or an escape. */
export let jsonStringFlags = 0;

/**
 * From the opening quote at `open`: the index of the closing quote of a valid JSON string
 * (no raw control characters; escapes \" \\ \/ \b \f \n \r \t \uXXXX), or -1. Bytes of 0x80
 * and up are not checked: invalid UTF-8 decodes to U+FFFD, as TextDecoder does for JSON.parse.
 */
export function jsonStringEnd(b: Uint8Array, open: number, n: number): number {
  let q = open + 1;
  let flags = 0;
  for (;;) {
    if (q >= n) return -1;
    const c = b[q]!;
    if (c === 0x22) break;
    if (c === 0x5c) {
      const e = b[q + 1];
      if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
        q += 2;
      } else if (e === 0x75 && isHex(b[q + 2]) && isHex(b[q + 3]) && isHex(b[q + 4]) && isHex(b[q + 5])) {
        q += 6;
      } else {
        return -1;
      }
      flags |= 0x80;
      continue;
    }
    if (c < 0x20) return -1;
    flags |= c;
    q++;
  }
  jsonStringFlags = flags;
  return q;
}

function isHex(c: number | undefined): boolean {
  return c !== undefined && ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66));
}

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * The text of a JSON string whose contents are [offset, offset + length) (quotes just outside),
 * already validated: VALUE_KIND_STRING bytes are the text, encoded ones go through JSON.parse.
 */
export function decodeJsonString(b: Uint8Array, offset: number, length: number, kind: number): string {
  // VALUE_KIND_STRING and VALUE_KIND_STRING_UTF8 bytes are the text itself.
  if (kind === VALUE_KIND_STRING_ENCODED) return JSON.parse(utf8.decode(b.subarray(offset - 1, offset + length + 1))) as string;
  return utf8.decode(b.subarray(offset, offset + length));
}

/** True when ms is an accepted write timestamp (integer epoch ms in the documented window). */
export function isTimestampMs(ms: number): boolean {
  return Number.isInteger(ms) && ms >= TIMESTAMP_MS_MIN && ms <= TIMESTAMP_MS_MAX;
}

/**
 * A timestamp written as a string: -?\d+ over the raw bytes [start, end), else NaN. Escaped
 * strings never match, so both scanners decide on the same bytes.
 */
export function timestampFromText(bytes: Uint8Array, start: number, end: number): number {
  const digitsStart = bytes[start] === 0x2d ? start + 1 : start;
  if (digitsStart >= end) return NaN;
  for (let i = digitsStart; i < end; i++) {
    const c = bytes[i]!;
    if (c < 0x30 || c > 0x39) return NaN;
  }
  // Digits only: as a JSON number token (leading zeros aside) it parses the same way.
  let p = digitsStart;
  while (p < end - 1 && bytes[p] === 0x30) p++;
  if (scanJsonNumber(bytes, p, end) !== end) return NaN;
  return digitsStart === start ? jsonNumberValue : -jsonNumberValue + 0;
}

/** True when v is an accepted series id. */
export function isSeriesId(v: number): boolean {
  return Number.isInteger(v) && v >= 1 && v <= ID_MAX;
}

export const scanMessages = {
  notJson: (detail: string) => `The body is not valid JSON (${detail}); send { "items": [ { "id" or "externalId", "datapoints": [ { "timestamp", "value" } ] } ] }.`,
  notObject: () => 'The body must be a JSON object { "items": [...] }.',
  itemsMissing: () => `items is required: an array of 1 to ${ITEMS_PER_REQUEST_MAX} { id or externalId, datapoints }.`,
  itemsNotArray: () => 'items must be an array of { id or externalId, datapoints }.',
  itemsCount: (count: number) =>
    `items holds ${count} entries; send 1 to ${ITEMS_PER_REQUEST_MAX} per request (split the batch).`,
  itemNotObject: (field: string) => `${field} must be an object { id or externalId, datapoints }.`,
  id: (field: string) => `${field} must be an integer from 1 to ${ID_MAX} (a JSON number).`,
  externalId: (field: string) => `${field} must be a non-empty string.`,
  externalIdText: (field: string) => `${field} holds a NUL character (U+0000) or a lone surrogate escape (\\uD800-\\uDFFF without its pair); no time series can have that externalId.`,
  identifierMissing: (field: string) => `${field} needs an id or an externalId naming the time series.`,
  datapointsMissing: (field: string) => `${field}.datapoints is required: an array of { timestamp, value }.`,
  datapointsNotArray: (field: string) => `${field} must be an array of { timestamp, value }.`,
  pointNotObject: (field: string) => `${field} must be an object { timestamp, value }.`,
  timestampMissing: (field: string) => `${field} is required: epoch milliseconds.`,
  timestamp: (field: string) =>
    `${field} must be an integer of epoch milliseconds from ${TIMESTAMP_MS_MIN} to ${TIMESTAMP_MS_MAX} (a JSON number or a string of digits).`,
  valueMissing: (field: string) => `${field} is required: a string (or a JSON number).`,
  duplicateKey: (field: string, key: string) =>
    `duplicate key ${JSON.stringify(key)} at ${field}: its object names it more than once; send each key once.`,
  valueKind: (field: string) => `${field} must be a string or a JSON number, not null, a boolean, an array or an object.`,
} as const;
