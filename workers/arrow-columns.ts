// Reading the columns of an Arrow IPC stream body for the ingest scan (datapoint-scan-arrow.ts):
// which columns the body must have and of what types, and access to a chunk's values, nulls,
// strings and 64-bit words straight from its typed arrays, without an object per row (int64s
// as two int32 words, strings as places in the body). A body that cannot be read throws
// StreamError with the one error to answer.
import { Type, type Data, type DataType, type Field, type Schema, type Vector } from 'apache-arrow';

/** A body that cannot be read: its one error. */
export class StreamError extends Error {
  constructor(readonly field: string, message: string) {
    super(message);
  }
}

export const SHAPE = 'send an Arrow IPC stream with columns externalId (utf8, or dictionary of utf8) or id (int64), timestamp (timestamp[ms] or int64 epoch milliseconds) and value (float64; int64 for BIGINT series; utf8 for TEXT)';

/** The columns a scan needs, by name. */
export interface Columns {
  idField: Field;
  timestampField: Field;
  valueField: Field;
}

export function describe(type: DataType): string {
  return String(type);
}

export function findColumns(schema: Schema): Columns {
  const byName = new Map(schema.fields.map((f) => [f.name, f]));
  const externalId = byName.get('externalId');
  const id = byName.get('id');
  if (externalId && id) throw new StreamError('id', 'The stream has both an id and an externalId column; name each row\'s series by one of them.');
  const idField = externalId ?? id;
  if (!idField) throw new StreamError('externalId', `The stream has no externalId or id column; ${SHAPE}.`);
  const timestampField = byName.get('timestamp');
  if (!timestampField) throw new StreamError('timestamp', `The stream has no timestamp column; ${SHAPE}.`);
  const valueField = byName.get('value');
  if (!valueField) throw new StreamError('value', `The stream has no value column; ${SHAPE}.`);
  if (idField.name === 'externalId' && !isText(idField.type)) throw new StreamError('externalId', `externalId is ${describe(idField.type)}; it must be utf8, large_utf8 or a dictionary of utf8.`);
  if (idField.name === 'id' && !isInteger(idField.type)) throw new StreamError('id', `id is ${describe(idField.type)}; it must be an integer type (int64).`);
  const t = timestampField.type;
  if (!(t.typeId === Type.Timestamp || (t.typeId === Type.Date && param(t, 'unit') === 1) || (t.typeId === Type.Int && param(t, 'bitWidth') >= 32 && param(t, 'isSigned')))) {
    throw new StreamError('timestamp', `timestamp is ${describe(t)}; it must be timestamp (s, ms, us or ns), date64, int64 or int32 of epoch milliseconds.`);
  }
  const v = valueField.type;
  const numeric = v.typeId === Type.Float ? param(v, 'precision') >= 1 : isInteger(v) && !(param(v, 'bitWidth') === 64 && !param(v, 'isSigned'));
  if (!numeric && !isText(v)) throw new StreamError('value', `value is ${describe(v)}; it must be float64, float32, an integer type (int64 for BIGINT; not uint64), utf8 or a dictionary of utf8.`);
  return { idField, timestampField, valueField };
}

/** A type's parameter (bitWidth, isSigned, precision, unit), which DataType's own typing does not show. */
export function param(type: DataType, key: 'bitWidth' | 'isSigned' | 'precision' | 'unit'): number {
  return Number((type as unknown as Record<string, number | boolean>)[key]);
}

export function isInteger(type: DataType): boolean {
  return type.typeId === Type.Int;
}

export function isText(type: DataType): boolean {
  if (type.typeId === Type.Utf8 || type.typeId === Type.LargeUtf8) return true;
  if (type.typeId !== Type.Dictionary) return false;
  const dictionary = (type as unknown as { dictionary: DataType }).dictionary;
  return dictionary.typeId === Type.Utf8 || dictionary.typeId === Type.LargeUtf8;
}

/** A column chunk's 64-bit words as int32 halves (little-endian: low word first). */
export function words(data: Data): Int32Array {
  const values = data.values as ArrayBufferView;
  return new Int32Array(values.buffer, values.byteOffset, values.byteLength >>> 2);
}

/** A chunk's validity bits, or undefined when none of its rows is null (looked up once per chunk, not per row). */
export function nullBits(data: Data): Uint8Array | undefined {
  return data.nullCount > 0 && data.nullBitmap && data.nullBitmap.length > 0 ? data.nullBitmap : undefined;
}

/** Whether row `i` of a chunk with validity bits `bits` (nullBits) is null. */
export function isNullBit(bits: Uint8Array | undefined, data: Data, i: number): boolean {
  if (!bits) return false;
  const bit = data.offset + i;
  return ((bits[bit >>> 3] as number) & (1 << (bit & 7))) === 0;
}

/** Where the strings of a utf8 chunk lie in the body: offsets, their data, how far they may reach. */
export interface TextChunk {
  /** Start of string k: offsets[k] (large_utf8: the low word of offsets64[2k]). */
  offsets: Int32Array;
  /** 2 for large_utf8 (64-bit offsets read by their low word), else 1. */
  stride: number;
  /** Byte offset of the chunk's data in the body. */
  dataAt: number;
  dataBytes: number;
}

export function checkLength(available: number, data: Data, column: string): void {
  if (available < data.offset + data.length) throw new StreamError(column, `${column} holds fewer values than its batch has rows; the stream is malformed.`);
}

/** String k of a chunk as [start, end) in the body, checked against the chunk's data. */
export function textBounds(chunk: TextChunk, k: number, row: number, column: string): [number, number] {
  const from = chunk.offsets[k * chunk.stride] as number;
  const to = chunk.offsets[(k + 1) * chunk.stride] as number;
  if (!(from >= 0 && to >= from && to <= chunk.dataBytes)) throw new StreamError(`rows[${row}].${column}`, `rows[${row}].${column} has string offsets outside its data; the stream is malformed.`);
  return [chunk.dataAt + from, chunk.dataAt + to];
}


/** Entry `at` of 64-bit words as a number (exact below 2^53; beyond, any value past the caps). */
export function int64Number(halves: Int32Array, at: number, unsigned: boolean): number {
  const lo = (halves[at * 2] as number) >>> 0;
  const hi = halves[at * 2 + 1] as number;
  return (unsigned ? hi >>> 0 : hi) * 4_294_967_296 + lo;
}

/**
 * Entry `at` of 64-bit words in milliseconds: times `scale` when positive, divided by -scale
 * when negative, exactly (NaN when it is not whole). The high word is divided first, so the
 * rest (below -scale x 2^32, under 2^53) and the quotient stay exact as doubles.
 */
export function int64Millis(halves: Int32Array, at: number, scale: number): number {
  const lo = (halves[at * 2] as number) >>> 0;
  const hi = halves[at * 2 + 1] as number;
  if (scale > 0) return (hi * 4_294_967_296 + lo) * scale;
  const divisor = -scale;
  const highQuotient = Math.floor(hi / divisor);
  const rest = (hi - highQuotient * divisor) * 4_294_967_296 + lo;
  if (rest % divisor !== 0) return Number.NaN;
  return highQuotient * 4_294_967_296 + rest / divisor;
}

export interface TextChunks { chunks: TextChunk[]; ends: number[] }

/** A utf8 chunk's strings as places in `base` (the body, 8-byte aligned). */
export function textChunk(base: Uint8Array, data: Data, column: string): TextChunk {
  const values = data.values as Uint8Array;
  const offsets = data.valueOffsets as unknown as ArrayBufferView | undefined;
  if (!offsets) throw new StreamError(column, `${column} has no string offsets; the stream is malformed.`);
  if (values.buffer !== base.buffer) throw new StreamError(column, `${column}'s strings are not in the body as sent (compressed buffers are not accepted); write the stream uncompressed.`);
  const stride = data.type.typeId === Type.LargeUtf8 ? 2 : 1;
  const chunk = { offsets: new Int32Array(offsets.buffer, offsets.byteOffset, offsets.byteLength >>> 2), stride, dataAt: values.byteOffset - base.byteOffset, dataBytes: values.byteLength };
  if (chunk.offsets.length < (data.offset + data.length + 1) * stride) throw new StreamError(column, `${column} has fewer string offsets than rows; the stream is malformed.`);
  return chunk;
}

/** A dictionary's strings, chunk by chunk, and where each chunk's entries end. */
export function textChunks(base: Uint8Array, dictionary: Vector, column: string): TextChunks {
  const chunks: TextChunk[] = [];
  const ends: number[] = [];
  let end = 0;
  for (const data of dictionary.data) {
    chunks.push(textChunk(base, data, column));
    ends.push((end += data.length));
  }
  return { chunks, ends };
}

/** Dictionary entry `entry`'s string as [start, end) in the body. */
export function entryBounds(texts: TextChunks, entry: number, row: number, column: string): [number, number] {
  let c = 0;
  while (entry >= (texts.ends[c] as number)) c++;
  const first = c === 0 ? 0 : (texts.ends[c - 1] as number);
  const chunk = texts.chunks[c] as TextChunk;
  return textBounds(chunk, entry - first, row, column);
}

/** Whether `length` bytes at a and at c are the same. */
export function sameBytes(b: Uint8Array, a: number, c: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (b[a + i] !== b[c + i]) return false;
  return true;
}

/** Whether bytes [start, end) are printable ASCII (a string the number parser may read). */
export function isPrintableAscii(b: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = b[i] as number;
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}
