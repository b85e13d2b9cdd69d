// Phase 1 of POST /timeseries/data for an Arrow IPC stream body
// (`Content-Type: application/vnd.apache.arrow.stream`): the rows of its record batches
// grouped by series into the same ScannedBody columns the JSON scanners produce, so the encode
// phase, the log and the insert are the ones JSON uses. apache-arrow reads the stream's
// metadata and lays its columns as views over the body's own bytes (an 8-byte-aligned body is
// never copied); nothing here makes an object per row: numbers are read from typed arrays,
// int64 words are copied as two 32-bit halves (no BigInt), and a string value stays where it is
// in the body (valueOffset and valueBytes point at its UTF-8 bytes, as they point at a JSON
// string's contents).
//
// Columns (extra columns are ignored, such as a pandas index):
// - `externalId`: utf8, large_utf8 or dictionary<int, utf8>; or `id`: any integer type, 1 to
//   2^53-1. One of the two.
// - `timestamp`: timestamp (s, ms, us or ns; a finer unit must hold whole milliseconds), date64,
//   int64 or int32 of epoch milliseconds.
// - `value`: float64, float32, any integer type but uint64 (exact for BIGINT series beyond
//   2^53), utf8, large_utf8 or dictionary<int, utf8> (TEXT and MIXED series, and numeric
//   strings as JSON allows them).
// No nulls in these columns. Rows of one series keep their order, so a later row replaces an
// earlier one at the same timestamp, as a later point of a JSON item does.

import { RecordBatchReader, Type, type Data, type DataType, type RecordBatch, type Schema, type Vector } from 'apache-arrow';
import {
  checkLength, entryBounds, findColumns, int64Millis, int64Number, isNullBit, isPrintableAscii, nullBits, param, sameBytes, SHAPE, StreamError, textBounds,
  textChunk, textChunks, words, type TextChunk, type TextChunks,
} from './arrow-columns.ts';
import { checkStreamMetadata } from './arrow-metadata.ts';
import { ColumnArena } from '../engine/memory/column-arena.ts';
import { DATAPOINT_ERRORS_MAX, ID_MAX, ITEMS_PER_REQUEST_MAX, TIMESTAMP_MS_MAX, TIMESTAMP_MS_MIN } from '../engine/limits.ts';
import {
  emptyScannedBody, isSeriesId, isTimestampMs, makeScannedItem, type ScanError, type ScannedBody, type ScannedItem,
  VALUE_KIND_FLOAT64, VALUE_KIND_INT64, VALUE_KIND_STRING, VALUE_KIND_STRING_UTF8,
} from './datapoint-body.ts';
import { parseNumericText } from './number-text.ts';
import { isStorableText } from './storable-text.ts';

/** The smallest row an Arrow body can hold: a one-byte dictionary index, an 8-byte timestamp, an 8-byte value. */
export const ARROW_ROW_BYTES_MIN = 17;

function rowCapacity(bodyBytes: number): number {
  return Math.floor(bodyBytes / ARROW_ROW_BYTES_MIN) + 1;
}

/** Bytes of scratch that hold the columns of any Arrow body of this size. */
export function scanArrowScratchBytes(bodyBytes: number): number {
  const capacity = rowCapacity(bodyBytes);
  return ColumnArena.bytesFor([capacity * 8, capacity * 8, capacity * 4, capacity * 4, capacity, capacity * 4]);
}

/**
 * Scans an Arrow IPC stream body into items (one per distinct series, in order of first
 * appearance) and point columns grouped by item. Never throws on bad input: problems come back
 * in `errors`, worded with the row (counted from 0 over the whole stream) and the column.
 */
export function scanArrowBody(body: Uint8Array, scratch?: SharedArrayBuffer): ScannedBody {
  try {
    return new ArrowScanner(body, scratch).scan();
  } catch (error) {
    if (error instanceof StreamError) return emptyScannedBody([{ field: error.field, message: error.message }], 'arrow');
    const detail = error instanceof Error ? error.message : String(error);
    return emptyScannedBody([{ field: 'body', message: `The body is not a readable Arrow IPC stream (${detail}); ${SHAPE}.` }], 'arrow');
  }
}

class ArrowScanner {
  private readonly errors: ScanError[] = [];
  /** Body offset of the aligned copy's first byte: views into it are placed relative to this. */
  private readonly base: Uint8Array;
  private readonly items: ScannedItem[] = [];
  private readonly itemByExternalId = new Map<string, number>();
  private readonly itemById = new Map<number, number>();

  constructor(private readonly body: Uint8Array, private readonly scratch?: SharedArrayBuffer) {
    // apache-arrow views an 8-byte-aligned body in place; otherwise it copies each buffer, and
    // string offsets into those copies would not be offsets into the body. One aligned copy of
    // the whole body keeps every offset the body's.
    this.base = body.byteOffset % 8 === 0 ? body : new Uint8Array(body);
  }

  scan(): ScannedBody {
    if (this.body.byteLength === 0) throw new StreamError('body', `The body is empty; ${SHAPE}.`);
    checkStreamMetadata(this.base);
    const reader = RecordBatchReader.from(this.base).open();
    // Read before the batches: a reader that reaches the end lets its schema go.
    const schema = reader.schema as Schema | undefined;
    if (!schema) throw new StreamError('body', `The body holds no Arrow schema; ${SHAPE}.`);
    const columns = findColumns(schema);
    const batches: RecordBatch[] = [];
    let rowCount = 0;
    for (const batch of reader) {
      batches.push(batch);
      rowCount += batch.numRows;
    }
    if (rowCount === 0) throw new StreamError('body', `The stream holds no rows; send at least one data point.`);
    // Pass 1: each row's item, counted per item.
    const itemOfRow = new Int32Array(rowCount);
    let row = 0;
    for (const batch of batches) {
      this.assignItems(batch.getChild(columns.idField.name) as Vector, itemOfRow, row);
      row += batch.numRows;
    }
    if (this.items.length > ITEMS_PER_REQUEST_MAX) {
      throw new StreamError('externalId', `The stream names ${this.items.length} series; send 1 to ${ITEMS_PER_REQUEST_MAX} per request (split the batch).`);
    }
    if (this.errors.length > 0) return emptyScannedBody(this.errors, 'arrow');
    const counts = new Uint32Array(this.items.length);
    for (let r = 0; r < rowCount; r++) counts[itemOfRow[r] as number]! += 1;
    const next = new Uint32Array(this.items.length);
    let start = 0;
    for (let k = 0; k < this.items.length; k++) {
      const item = this.items[k] as ScannedItem;
      item.pointStart = next[k] = start;
      item.pointCount = counts[k] as number;
      start += item.pointCount;
    }
    // Pass 2: every row's timestamp and value, at its place in its item's run.
    const arena = new ColumnArena(this.scratch, { zero: false });
    const out: ScannedBody = {
      items: this.items, pointCount: rowCount,
      timestampMs: arena.float64(rowCount), valueKind: arena.uint8(rowCount), numberValue: arena.float64(rowCount),
      valueOffset: arena.uint32(rowCount), valueBytes: arena.uint32(rowCount), rowIndex: arena.uint32(rowCount),
      errors: this.errors, scanner: 'arrow',
    };
    // Items are numbered by first appearance, so rows that come grouped by series (as a
    // client's table usually does) have non-decreasing items and each row keeps its place.
    let grouped = true;
    for (let r = 1; r < rowCount && grouped; r++) grouped = (itemOfRow[r] as number) >= (itemOfRow[r - 1] as number);
    const rowIndex = out.rowIndex as Uint32Array;
    let place: Uint32Array | undefined;
    if (grouped) {
      for (let r = 0; r < rowCount; r++) rowIndex[r] = r;
    } else {
      place = new Uint32Array(rowCount);
      for (let r = 0; r < rowCount; r++) {
        const k = itemOfRow[r] as number;
        const at = (next[k] as number);
        next[k] = at + 1;
        place[r] = at;
        rowIndex[at] = r;
      }
    }
    row = 0;
    for (const batch of batches) {
      this.readTimestamps(batch.getChild(columns.timestampField.name) as Vector, place, row, out.timestampMs);
      this.readValues(batch.getChild(columns.valueField.name) as Vector, place, row, out);
      row += batch.numRows;
    }
    if (this.errors.length > 0) return emptyScannedBody(this.errors, 'arrow');
    return out;
  }

  private fail(row: number, column: string, message: string): void {
    if (this.errors.length < DATAPOINT_ERRORS_MAX) this.errors.push({ field: `rows[${row}].${column}`, message: `rows[${row}].${column} ${message}` });
  }

  private newItem(id: number | undefined, externalId: string | undefined): number {
    this.items.push(makeScannedItem(id, externalId, 0, 0));
    return this.items.length - 1;
  }

  private itemOfExternalId(text: string, row: number): number {
    let k = this.itemByExternalId.get(text);
    if (k === undefined) {
      if (text.length === 0) {
        this.fail(row, 'externalId', 'is empty; a series\' externalId is a non-empty string.');
        return 0;
      }
      if (!isStorableText(text)) {
        this.fail(row, 'externalId', 'holds a NUL character (U+0000) or invalid text; no time series can have that externalId.');
        return 0;
      }
      this.itemByExternalId.set(text, (k = this.newItem(undefined, text)));
    }
    return k;
  }

  private assignItems(vector: Vector, itemOfRow: Int32Array, firstRow: number): void {
    let row = firstRow;
    for (const data of vector.data) {
      if (data.type.typeId === Type.Int) this.assignIds(data, itemOfRow, row);
      else if (data.type.typeId === Type.Dictionary) this.assignDictionaryIds(data, itemOfRow, row);
      else this.assignTextIds(data, itemOfRow, row);
      row += data.length;
    }
  }

  /** Each non-null row of an integer column (or a dictionary's indices) as a number; a null row fails. */
  private eachInteger(data: Data, firstRow: number, column: string, bitWidth: number, unsigned: boolean, each: (row: number, value: number) => void): void {
    const halves = bitWidth === 64 ? words(data) : undefined;
    const values = data.values as ArrayLike<number>;
    checkLength(halves ? halves.length / 2 : values.length, data, column);
    const nulls = nullBits(data);
    for (let i = 0; i < data.length; i++) {
      const row = firstRow + i;
      if (isNullBit(nulls, data, i)) {
        this.fail(row, column, 'is null; name every row\'s series.');
        continue;
      }
      const at = data.offset + i;
      each(row, halves ? int64Number(halves, at, unsigned) : (values[at] as number));
    }
  }

  private assignIds(data: Data, itemOfRow: Int32Array, firstRow: number): void {
    this.eachInteger(data, firstRow, 'id', param(data.type, 'bitWidth'), !param(data.type, 'isSigned'), (row, id) => {
      if (!isSeriesId(id)) {
        this.fail(row, 'id', `must be an integer from 1 to ${ID_MAX}.`);
        return;
      }
      let k = this.itemById.get(id);
      if (k === undefined) this.itemById.set(id, (k = this.newItem(id, undefined)));
      itemOfRow[row] = k;
    });
  }

  private assignDictionaryIds(data: Data, itemOfRow: Int32Array, firstRow: number): void {
    const dictionary = data.dictionary as Vector;
    // Each dictionary entry's item, found once per entry rather than once per row.
    const entryItem = new Int32Array(dictionary.length).fill(-1);
    const texts = textChunks(this.base, dictionary, 'externalId');
    const indices = (data.type as unknown as { indices: DataType }).indices;
    const entryOf = (row: number, entry: number) => {
      if (!(entry >= 0 && entry < dictionary.length)) throw new StreamError(`rows[${row}].externalId`, `rows[${row}].externalId is dictionary index ${entry}, outside its dictionary of ${dictionary.length} entries.`);
      let k = entryItem[entry] as number;
      if (k < 0) entryItem[entry] = k = this.itemOfExternalId(this.entryText(texts, entry, row), row);
      itemOfRow[row] = k;
    };
    if (param(indices, 'bitWidth') === 64 || nullBits(data)) {
      this.eachInteger(data, firstRow, 'externalId', param(indices, 'bitWidth'), false, entryOf);
      return;
    }
    // The usual indices (int8 to int32, no nulls): a row whose index is the row before's is its item.
    const values = data.values as Int8Array | Int16Array | Int32Array | Uint8Array | Uint16Array | Uint32Array;
    checkLength(values.length, data, 'externalId');
    let last = -1;
    for (let i = 0, at = data.offset; i < data.length; i++, at++) {
      const entry = values[at] as number;
      if (entry === last) itemOfRow[firstRow + i] = itemOfRow[firstRow + i - 1] as number;
      else {
        entryOf(firstRow + i, entry);
        last = entry;
      }
    }
  }

  private assignTextIds(data: Data, itemOfRow: Int32Array, firstRow: number): void {
    const chunk = textChunk(this.base, data, 'externalId');
    let lastStart = -1;
    let lastEnd = -1;
    let lastItem = -1;
    const nulls = nullBits(data);
    for (let i = 0; i < data.length; i++) {
      const row = firstRow + i;
      if (isNullBit(nulls, data, i)) {
        this.fail(row, 'externalId', 'is null; name every row\'s series.');
        continue;
      }
      const [start, end] = textBounds(chunk, data.offset + i, row, 'externalId');
      // Rows of one series usually come together: the same bytes as the row before are the
      // same series, without decoding them again.
      if (lastItem >= 0 && end - start === lastEnd - lastStart && sameBytes(this.body, start, lastStart, end - start)) {
        itemOfRow[row] = lastItem;
        continue;
      }
      lastItem = itemOfRow[row] = this.itemOfExternalId(utf8.decode(this.body.subarray(start, end)), row);
      lastStart = start;
      lastEnd = end;
    }
  }

  private readTimestamps(vector: Vector, place: Uint32Array | undefined, firstRow: number, out: Float64Array): void {
    let row = firstRow;
    for (const data of vector.data) {
      const type = data.type;
      // Milliseconds per unit, or units per millisecond as a negative divisor.
      let scale = 1;
      if (type.typeId === Type.Timestamp) scale = [1000, 1, -1000, -1_000_000][param(type, 'unit')] as number;
      const wide = !(type.typeId === Type.Int && param(type, 'bitWidth') === 32);
      const halves = wide ? words(data) : undefined;
      const values = data.values as ArrayLike<number>;
      checkLength(wide ? (halves as Int32Array).length / 2 : values.length, data, 'timestamp');
      const nulls = nullBits(data);
      for (let i = 0; i < data.length; i++, row++) {
        if (isNullBit(nulls, data, i)) {
          this.fail(row, 'timestamp', 'is null; every data point has a timestamp.');
          continue;
        }
        const at = data.offset + i;
        const ms = halves ? int64Millis(halves, at, scale) : (values[at] as number);
        if (!isTimestampMs(ms)) {
          this.fail(row, 'timestamp', `must be a whole number of epoch milliseconds from ${TIMESTAMP_MS_MIN} to ${TIMESTAMP_MS_MAX}${scale < 0 ? ' (a finer unit must hold whole milliseconds)' : ''}.`);
          continue;
        }
        out[place ? (place[row] as number) : row] = ms;
      }
    }
  }

  private readValues(vector: Vector, place: Uint32Array | undefined, firstRow: number, out: ScannedBody): void {
    let row = firstRow;
    const valueWords = new Int32Array(out.numberValue.buffer, out.numberValue.byteOffset, out.numberValue.length * 2);
    for (const data of vector.data) {
      const typeId = data.type.typeId;
      if (typeId === Type.Float) this.readFloats(data, place, row, out);
      else if (typeId === Type.Int) this.readIntegers(data, place, row, out, valueWords);
      else this.readTexts(data, place, row, out);
      row += data.length;
    }
  }

  /** Each non-null row of a value chunk: its place in the scanned columns, its index in the chunk, its row; a null row fails. */
  private eachValue(data: Data, place: Uint32Array | undefined, firstRow: number, each: (at: number, from: number, row: number) => void): void {
    const nulls = nullBits(data);
    for (let i = 0; i < data.length; i++) {
      const row = firstRow + i;
      if (isNullBit(nulls, data, i)) this.fail(row, 'value', 'is null; every data point has a value.');
      else each(place ? (place[row] as number) : row, data.offset + i, row);
    }
  }

  private readFloats(data: Data, place: Uint32Array | undefined, firstRow: number, out: ScannedBody): void {
    const values = data.values as Float64Array | Float32Array | Uint16Array;
    checkLength(values.length, data, 'value');
    if (param(data.type, 'precision') === 0) throw new StreamError('value', 'value is float16; send float32 or float64.');
    if (!place && !nullBits(data)) {
      // Rows in place and none null: the chunk's doubles (or floats, widened) are the column.
      const end = firstRow + data.length;
      out.numberValue.set(values.subarray(data.offset, data.offset + data.length), firstRow);
      out.valueKind.fill(VALUE_KIND_FLOAT64, firstRow, end);
      out.valueOffset.fill(0, firstRow, end);
      out.valueBytes.fill(0, firstRow, end);
      return;
    }
    this.eachValue(data, place, firstRow, (at, from) => {
      out.valueKind[at] = VALUE_KIND_FLOAT64;
      out.numberValue[at] = values[from] as number;
      out.valueOffset[at] = 0;
      out.valueBytes[at] = 0;
    });
  }

  private readIntegers(data: Data, place: Uint32Array | undefined, firstRow: number, out: ScannedBody, valueWords: Int32Array): void {
    const halves = param(data.type, 'bitWidth') === 64 ? words(data) : undefined;
    const values = data.values as ArrayLike<number>;
    checkLength(halves ? halves.length / 2 : values.length, data, 'value');
    this.eachValue(data, place, firstRow, (at, from) => {
      out.valueKind[at] = VALUE_KIND_INT64;
      out.valueOffset[at] = 0;
      out.valueBytes[at] = 0;
      // The value's 64 bits in numberValue's place, as two words (datapoint-body.ts says how it is read).
      if (halves) {
        valueWords[at * 2] = halves[from * 2] as number;
        valueWords[at * 2 + 1] = halves[from * 2 + 1] as number;
      } else {
        const v = values[from] as number;
        valueWords[at * 2] = v | 0;
        valueWords[at * 2 + 1] = v < 0 ? -1 : 0;
      }
    });
  }

  private readTexts(data: Data, place: Uint32Array | undefined, firstRow: number, out: ScannedBody): void {
    const dictionary = data.type.typeId === Type.Dictionary ? (data.dictionary as Vector) : undefined;
    const chunk = dictionary ? undefined : textChunk(this.base, data, 'value');
    const texts = dictionary ? textChunks(this.base, dictionary, 'value') : undefined;
    const indexes = data.values as ArrayLike<number>;
    if (dictionary) checkLength(indexes.length, data, 'value');
    this.eachValue(data, place, firstRow, (at, from, row) => {
      let start: number;
      let end: number;
      if (texts && dictionary) {
        const entry = indexes[from] as number;
        if (!(entry >= 0 && entry < dictionary.length)) throw new StreamError(`rows[${row}].value`, `rows[${row}].value is dictionary index ${entry}, outside its dictionary of ${dictionary.length} entries.`);
        [start, end] = entryBounds(texts, entry, row, 'value');
      } else {
        [start, end] = textBounds(chunk as TextChunk, from, row, 'value');
      }
      out.valueOffset[at] = start;
      out.valueBytes[at] = end - start;
      if (isPrintableAscii(this.body, start, end)) {
        out.valueKind[at] = VALUE_KIND_STRING;
        out.numberValue[at] = parseNumericText(this.body, start, end);
      } else {
        out.valueKind[at] = VALUE_KIND_STRING_UTF8;
        out.numberValue[at] = Number.NaN;
      }
    });
  }

  private entryText(texts: TextChunks, entry: number, row: number): string {
    const [start, end] = entryBounds(texts, entry, row, 'externalId');
    return utf8.decode(this.body.subarray(start, end));
  }
}

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
