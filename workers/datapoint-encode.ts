// Phase 2 of POST /timeseries/data: once the main thread has resolved
// each item's series, parse every point's value against the series' valueType and build the
// SeriesPoints columns (engine/datapoints/types.ts): sorted, one point per timestamp (last
// wins), exactly the columns of the valueType. Scanning the body is datapoint-scan.ts.
//
// Value rules (written down for GET /openapi.json):
// - Every value is at most DATAPOINT_VALUE_CHARS_MAX characters (Unicode code points) of text:
//   the string's contents, or the JSON number's token.
// - FLOAT, FLOAT32: a JSON number or a numeric string [+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?
//   (no whitespace, NaN, Infinity or hex); finite; FLOAT32 rounded with Math.fround and
//   within its range.
// - BIGINT: [+-]?\d+ as a string or a JSON number token, exact, -2^63..2^63-1.
// - NUMERIC / DECIMAL32: the numeric grammar, exact; digits past the scale are rounded half to
//   even; more than `precision` digits after rounding is out of range (DECIMAL_FORMAT).
// - TEXT: a JSON string, any text. A JSON number is a type mismatch.
// - MIXED: a JSON number is numeric; a string that parses (numeric grammar) to a finite number
//   is numeric too, stored as that double; every other string is text.

import type { PackedRows } from '../engine/datapoints/write/packed-batch.ts';
import { ColumnArena } from '../engine/memory/column-arena.ts';
import assert from 'node:assert/strict';
import { DECIMAL_FORMAT, type SeriesPoints, type ValueType } from '../engine/datapoints/types.ts';
import {
  DATAPOINT_ERRORS_MAX,
  DATAPOINT_VALUE_CHARS_MAX,
  NUMERIC_POINTS_PER_COLLECTION_MAX,
  TEXT_POINTS_PER_COLLECTION_MAX,
} from '../engine/limits.ts';
import {
  decodeJsonString, type ScannedBody, type ScannedItem, VALUE_KIND_FLOAT64, VALUE_KIND_INT64, VALUE_KIND_NUMBER, VALUE_KIND_STRING, VALUE_KIND_STRING_ENCODED,
  VALUE_KIND_STRING_UTF8,
} from './datapoint-body.ts';
import { asciiBytes, asciiText, numericStringValue, type NumberTextFailure, parseBigintText, parseDecimalText } from './number-text.ts';
import { orderSeriesPoints } from './point-order.ts';
import { codePointCount } from './storable-text.ts';

export type PointValueErrorReason = NumberTextFailure | 'value-too-long' | 'points-cap';

/** A point (or an item, for points-cap) refused against its series' valueType (SPEC: 422). */
export interface PointValueError {
  itemIndex: number;
  /** The point's index in the item; for points-cap, the first point past the cap. */
  pointIndex: number;
  /** JSON path: `items[i].datapoints[j].value`, or `items[i].datapoints` for points-cap. */
  field: string;
  /** The value as sent (a string's raw contents, a number's token), cut to 64 characters and '…'; '' for points-cap. */
  value: string;
  valueType: ValueType;
  reason: PointValueErrorReason;
  /** The limit that was passed: characters for value-too-long, points for points-cap. */
  limit?: number;
  message: string;
}

export interface EncodedBody {
  /** Per item in request order; null where the valueType is null (series missing) or the item has errors. */
  series: (SeriesPoints | null)[];
  /** At most DATAPOINT_ERRORS_MAX, in item and point order. */
  errors: PointValueError[];
  /**
   * The series with points, packed (packed-batch.ts), when the body came back from a worker
   * with its columns in the output slab: what the ingest log takes without `series`.
   */
  readonly packed?: PackedRows;
}

/** SPEC Limits, "Batch caps": points per collection, by valueType. */
export function pointsPerCollectionMax(valueType: ValueType): number {
  return valueType === 'TEXT' || valueType === 'MIXED' ? TEXT_POINTS_PER_COLLECTION_MAX : NUMERIC_POINTS_PER_COLLECTION_MAX;
}

/**
 * Encodes every item whose valueType is known. valueTypes and seriesIds run parallel to
 * scanned.items (null for a missing series). Never throws on bad values: they come back in
 * `errors`.
 */
/** Bytes of output that hold every encoded column of a body (TEXT values are strings, outside). */
export function encodeOutputBytes(pointCount: number, itemCount: number): number {
  // Per point: a timestamp, a value (8 bytes) and MIXED's is-text flag; per item: alignment.
  return pointCount * 17 + itemCount * 24;
}

/** `output`, when given, holds the encoded columns (see encodeOutputBytes); else they are allocated. */
export function encodeScannedBody(
  body: Uint8Array,
  scanned: ScannedBody,
  valueTypes: readonly (ValueType | null)[],
  seriesIds: readonly (number | null)[],
  output?: SharedArrayBuffer,
): EncodedBody {
  assert.equal(scanned.errors.length, 0, 'encodeScannedBody: the body scanned with errors; refuse it instead');
  assert.equal(valueTypes.length, scanned.items.length, 'encodeScannedBody: one valueType per item');
  assert.equal(seriesIds.length, scanned.items.length, 'encodeScannedBody: one seriesId per item');
  const encoder = new PointEncoder(body, scanned, new ColumnArena(output));
  const series = scanned.items.map((item, itemIndex) => {
    const valueType = valueTypes[itemIndex] ?? null;
    if (valueType === null) return null;
    const seriesId = seriesIds[itemIndex];
    assert.ok(typeof seriesId === 'number', `encodeScannedBody: item ${itemIndex} has a valueType but no seriesId`);
    return encoder.encodeItem(item, itemIndex, valueType, seriesId);
  });
  return { series, errors: encoder.errors };
}

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

// Imported constants read in floatColumn's per-point loop, as module constants: in the
// worker threads tsx compiles this module to CommonJS, where each imported binding read is
// a getter call (datapoint-scan.ts says more).
const KIND_NUMBER = VALUE_KIND_NUMBER;
const KIND_STRING = VALUE_KIND_STRING;
const KIND_FLOAT64 = VALUE_KIND_FLOAT64;
const KIND_INT64 = VALUE_KIND_INT64;
const VALUE_CHARS_MAX = DATAPOINT_VALUE_CHARS_MAX;

const EXPECTED: Record<ValueType, string> = {
  BIGINT: 'a whole number from -9223372036854775808 to 9223372036854775807 (a string of digits or a JSON number)',
  FLOAT: 'a finite number (a decimal string such as "1.5" or "-2e-3", or a JSON number)',
  FLOAT32: 'a number within ±3.4028234663852886e38 (a decimal string or a JSON number)',
  NUMERIC: 'a decimal of at most 18 digits, 6 of them after the point (more fractional digits are rounded half to even)',
  DECIMAL32: 'a decimal of at most 9 digits, 3 of them after the point (more fractional digits are rounded half to even)',
  TEXT: 'a JSON string',
  MIXED: 'a string, or a finite JSON number',
};

const REASON_WORDS: Record<PointValueErrorReason, string> = {
  'value-type-mismatch': 'does not parse as',
  'value-out-of-range': 'is out of range for',
  'value-too-long': `is longer than ${DATAPOINT_VALUE_CHARS_MAX} characters for`,
  'points-cap': 'has too many points for',
};

/** Kinds whose bytes in the body are not the text as it is: decode them first. */
function needsDecode(kind: number | undefined): boolean {
  return kind === VALUE_KIND_STRING_ENCODED || kind === VALUE_KIND_STRING_UTF8;
}

class PointEncoder {
  readonly errors: PointValueError[] = [];
  /** Set when the item being encoded had an error (the list itself may be full). */
  itemFailed = false;
  /** numberValue's bytes as int32 words: where VALUE_KIND_INT64 points keep their 64 bits. */
  readonly valueWords: Int32Array;

  constructor(
    readonly body: Uint8Array,
    readonly scanned: ScannedBody,
    readonly arena: ColumnArena,
  ) {
    const numbers = scanned.numberValue;
    this.valueWords = new Int32Array(numbers.buffer, numbers.byteOffset, numbers.length * 2);
  }

  /** A VALUE_KIND_INT64 point as the nearest double (one rounding, as a JSON number's digits get). */
  int64Double(i: number): number {
    return (this.valueWords[i * 2 + 1] as number) * 4_294_967_296 + ((this.valueWords[i * 2] as number) >>> 0);
  }

  encodeItem(item: ScannedItem, itemIndex: number, valueType: ValueType, seriesId: number): SeriesPoints | null {
    const { pointStart: start, pointCount: count } = item;
    const cap = pointsPerCollectionMax(valueType);
    if (count > cap) {
      this.fail(itemIndex, cap, -1, valueType, 'points-cap', cap);
      return null;
    }
    this.itemFailed = false;
    const timestampMs = this.arena.float64(count);
    timestampMs.set(this.scanned.timestampMs.subarray(start, start + count));
    const series: SeriesPoints = { seriesId, valueType, timestampMs };
    const at = { start, count, itemIndex, valueType };
    switch (valueType) {
      case 'FLOAT':
      case 'FLOAT32':
        series.float = this.floatColumn(at, valueType === 'FLOAT32');
        break;
      case 'BIGINT':
        series.bigint = this.exactColumn(at, parseBigintText, true);
        break;
      case 'NUMERIC':
      case 'DECIMAL32': {
        const { precision, scale } = DECIMAL_FORMAT[valueType];
        series.scaled = this.exactColumn(at, (bytes, start, end) => parseDecimalText(bytes, start, end, precision, scale));
        break;
      }
      case 'TEXT':
        series.text = this.textColumn(at);
        break;
      case 'MIXED':
        this.mixedColumns(at, series);
        break;
    }
    if (this.itemFailed) return null;
    return orderSeriesPoints(series);
  }

  fail(itemIndex: number, pointIndex: number, point: number, valueType: ValueType, reason: PointValueErrorReason, limit?: number): void {
    this.itemFailed = true;
    if (this.errors.length >= DATAPOINT_ERRORS_MAX) return;
    const capError = reason === 'points-cap';
    // An Arrow body names the stream's row, and for a cap the series its rows are of.
    const rows = this.scanned.rowIndex;
    const item = this.scanned.items[itemIndex]!;
    const field = rows
      ? (capError ? 'rows' : `rows[${rows[point]}].value`)
      : (capError ? `items[${itemIndex}].datapoints` : `items[${itemIndex}].datapoints[${pointIndex}].value`);
    const value = capError ? '' : this.errorValueText(point);
    const shown = capError
      ? `${item.pointCount} points${rows ? ` of ${item.externalId !== undefined ? `externalId ${JSON.stringify(item.externalId)}` : `id ${item.id}`}` : ''} (at most ${limit})`
      : JSON.stringify(value);
    const error: PointValueError = {
      itemIndex,
      pointIndex,
      field,
      value,
      valueType,
      reason,
      message: `${field} ${REASON_WORDS[reason]} a ${valueType} series: ${shown}. A ${valueType} value is ${EXPECTED[valueType]}${capError ? '; split the batch' : ''}.`,
    };
    if (limit !== undefined) error.limit = limit;
    this.errors.push(error);
  }

  /** The raw text of point i for an error message, at most 64 characters. */
  errorValueText(i: number): string {
    const kind = this.scanned.valueKind[i];
    if (kind === VALUE_KIND_FLOAT64 || kind === VALUE_KIND_INT64) return this.valueText(i);
    const offset = this.scanned.valueOffset[i]!;
    const bytes = Math.min(this.scanned.valueBytes[i]!, DATAPOINT_VALUE_CHARS_MAX * 4);
    const text = utf8.decode(this.body.subarray(offset, offset + bytes));
    const chars = Array.from(text);
    return chars.length > DATAPOINT_VALUE_CHARS_MAX ? `${chars.slice(0, DATAPOINT_VALUE_CHARS_MAX).join('')}…` : text;
  }

  /** The value of point i as text: a string's decoded contents or a number's token. */
  valueText(i: number): string {
    const offset = this.scanned.valueOffset[i]!;
    const end = offset + this.scanned.valueBytes[i]!;
    const kind = this.scanned.valueKind[i]!;
    if (kind === VALUE_KIND_FLOAT64) return String(this.scanned.numberValue[i]);
    if (kind === VALUE_KIND_INT64) return ((BigInt(this.valueWords[i * 2 + 1] as number) << 32n) + BigInt((this.valueWords[i * 2] as number) >>> 0)).toString();
    if (!needsDecode(kind)) return asciiText(this.body, offset, end);
    return decodeJsonString(this.body, offset, end - offset, kind);
  }

  isTooLong(i: number): boolean {
    const bytes = this.scanned.valueBytes[i]!;
    if (bytes <= DATAPOINT_VALUE_CHARS_MAX) return false; // a character takes at least one byte
    if (!needsDecode(this.scanned.valueKind[i])) return true;
    return codePointCount(this.valueText(i)) > DATAPOINT_VALUE_CHARS_MAX;
  }

  /** Checks length and kind; the bytes of point i's text for a number grammar, or null after an error. */
  numberTextBytes(at: PointsAt, j: number): { bytes: Uint8Array; start: number; end: number } | null {
    const i = at.start + j;
    if (this.isTooLong(i)) {
      this.fail(at.itemIndex, j, i, at.valueType, 'value-too-long', DATAPOINT_VALUE_CHARS_MAX);
      return null;
    }
    const kind = this.scanned.valueKind[i];
    if (kind === VALUE_KIND_NUMBER || kind === VALUE_KIND_STRING) {
      const start = this.scanned.valueOffset[i]!;
      return { bytes: this.body, start, end: start + this.scanned.valueBytes[i]! };
    }
    const bytes = kind !== undefined && kind !== 0 ? asciiBytes(this.valueText(i)) : null;
    if (bytes === null) {
      this.fail(at.itemIndex, j, i, at.valueType, 'value-type-mismatch');
      return null;
    }
    return { bytes, start: 0, end: bytes.length };
  }

  floatColumn(at: PointsAt, float32: boolean): Float64Array {
    const { valueKind, numberValue, valueBytes } = this.scanned;
    const out = this.arena.float64(at.count);
    for (let j = 0; j < at.count; j++) {
      const i = at.start + j;
      const kind = valueKind[i]!;
      const v = float32 ? Math.fround(numberValue[i]!) : numberValue[i]!;
      // v - v is 0 exactly when v is finite.
      if ((kind === KIND_NUMBER || kind === KIND_STRING || kind === KIND_FLOAT64) && valueBytes[i]! <= VALUE_CHARS_MAX && v - v === 0) {
        out[j] = v;
      } else {
        out[j] = this.floatSlow(at, j, float32);
      }
    }
    return out;
  }

  floatSlow(at: PointsAt, j: number, float32: boolean): number {
    const i = at.start + j;
    if (this.isTooLong(i)) {
      this.fail(at.itemIndex, j, i, at.valueType, 'value-too-long', DATAPOINT_VALUE_CHARS_MAX);
      return 0;
    }
    const kind = this.scanned.valueKind[i];
    const parsed = needsDecode(kind) ? numericStringValue(this.valueText(i)) : kind === 0 ? NaN : kind === KIND_INT64 ? this.int64Double(i) : this.scanned.numberValue[i]!;
    const v = float32 ? Math.fround(parsed) : parsed;
    if (v - v === 0) return v;
    this.fail(at.itemIndex, j, i, at.valueType, Number.isNaN(parsed) ? 'value-type-mismatch' : 'value-out-of-range');
    return 0;
  }

  /**
   * BIGINT or a scaled decimal per point, through `parse` (an exact grammar of number-text.ts).
   * `int64AsIs`: an Arrow integer's 64 bits are the value (BIGINT), copied without a BigInt.
   */
  exactColumn(at: PointsAt, parse: (bytes: Uint8Array, start: number, end: number) => bigint | NumberTextFailure, int64AsIs = false): BigInt64Array {
    const { valueKind, valueOffset, valueBytes } = this.scanned;
    const out = this.arena.bigint64(at.count);
    const outWords = new Int32Array(out.buffer, out.byteOffset, at.count * 2);
    const words = this.valueWords;
    for (let j = 0; j < at.count; j++) {
      const i = at.start + j;
      const kind = valueKind[i];
      const length = valueBytes[i]!;
      let v: bigint | NumberTextFailure;
      if (kind === KIND_INT64 && int64AsIs) {
        outWords[j * 2] = words[i * 2]!;
        outWords[j * 2 + 1] = words[i * 2 + 1]!;
        continue;
      }
      if ((kind === VALUE_KIND_NUMBER || kind === VALUE_KIND_STRING) && length <= DATAPOINT_VALUE_CHARS_MAX) {
        const offset = valueOffset[i]!;
        v = parse(this.body, offset, offset + length);
      } else {
        const text = this.numberTextBytes(at, j);
        if (text === null) continue;
        v = parse(text.bytes, text.start, text.end);
      }
      if (typeof v === 'bigint') out[j] = v;
      else this.fail(at.itemIndex, j, i, at.valueType, v);
    }
    return out;
  }

  textColumn(at: PointsAt): string[] {
    const out = new Array<string>(at.count);
    for (let j = 0; j < at.count; j++) {
      const i = at.start + j;
      out[j] = '';
      const kind = this.scanned.valueKind[i];
      if (kind !== VALUE_KIND_STRING && !needsDecode(kind)) {
        this.fail(at.itemIndex, j, i, at.valueType, 'value-type-mismatch');
      } else if (this.isTooLong(i)) {
        this.fail(at.itemIndex, j, i, at.valueType, 'value-too-long', DATAPOINT_VALUE_CHARS_MAX);
      } else {
        out[j] = this.valueText(i);
      }
    }
    return out;
  }

  mixedColumns(at: PointsAt, series: SeriesPoints): void {
    const float = this.arena.float64(at.count);
    const text = new Array<string>(at.count).fill('');
    const isText = this.arena.uint8(at.count);
    const { valueKind, numberValue } = this.scanned;
    for (let j = 0; j < at.count; j++) {
      const i = at.start + j;
      const kind = valueKind[i];
      if (this.isTooLong(i)) {
        this.fail(at.itemIndex, j, i, at.valueType, 'value-too-long', DATAPOINT_VALUE_CHARS_MAX);
        continue;
      }
      const decode = needsDecode(kind);
      const content = decode ? this.valueText(i) : '';
      const v = decode ? numericStringValue(content) : kind === 0 ? NaN : kind === KIND_INT64 ? this.int64Double(i) : numberValue[i]!;
      if (v - v === 0) {
        float[j] = v;
      } else if (kind === VALUE_KIND_NUMBER || kind === 0 || kind === KIND_FLOAT64) {
        this.fail(at.itemIndex, j, i, at.valueType, kind === 0 || Number.isNaN(v) ? 'value-type-mismatch' : 'value-out-of-range');
      } else {
        isText[j] = 1;
        text[j] = kind === VALUE_KIND_STRING ? this.valueText(i) : content;
      }
    }
    series.float = float;
    series.text = text;
    series.isText = isText;
  }
}

interface PointsAt {
  start: number;
  count: number;
  itemIndex: number;
  valueType: ValueType;
}
