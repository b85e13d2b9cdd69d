// The wire form of an IngestBatch on the Kafka ingest log: a compact columnar
// binary, one column after another per series. Framing, keys and partitions are
// kafka-message.ts's concern; what the store does with a batch is the store's.
//
// Layout (little endian), format version 1:
//   magic "PDB" + version byte
//   writeVersion u64
//   tenant: varint byte length + UTF-8
//   seriesCount varint, then per series:
//     seriesId f64 (a safe integer, STYLE "64-bit ids")
//     valueType u8 (index in VALUE_TYPES)
//     pointCount varint
//     timestampMs: zigzag varint deltas (the first from 0); strictly ascending
//     columns of the valueType, in this order when present:
//       isText u8[n] | float f64[n] | bigint or scaled i64[n] | text (varint byte length + UTF-8)[n]
// BIGINT and scaled decimals travel as raw 64-bit integers and floats as raw IEEE bytes, so
// every value (NaN payloads and -0 included) comes back bit for bit. Text is UTF-8: a lone
// surrogate becomes U+FFFD, as it would in the store.
import assert from 'node:assert/strict';
import { endianness } from 'node:os';
import { VALUE_TYPES, type SeriesPoints, type ValueType } from '../datapoints/types.ts';
import type { IngestBatch } from './ingest-log.ts';

// Typed-array columns are copied as raw bytes, which is only little endian here.
assert.equal(endianness(), 'LE', 'batch-codec copies typed arrays as little-endian bytes');

const MAGIC = [0x50, 0x44, 0x42] as const; // "PDB"
/** Format version written by encodeIngestBatch; decode refuses any other. */
export const BATCH_CODEC_VERSION = 1;
const U64_MAX = (1n << 64n) - 1n;

/** The bytes are not a batch of this codec (truncated, corrupt, or not ours). */
export class BatchCodecError extends Error {
  override name = 'BatchCodecError';
}

/** The batch was written by a newer codec; an ingester of that version can read it. */
export class BatchCodecVersionError extends BatchCodecError {
  override name = 'BatchCodecVersionError';
  constructor(readonly version: number) {
    super(`ingest batch format version ${version} is not known to this build (knows ${BATCH_CODEC_VERSION}); upgrade the ingester`);
  }
}

/** Which columns a valueType carries (types.ts SeriesPoints). */
function columnsOf(valueType: ValueType): { isText: boolean; float: boolean; int64: 'bigint' | 'scaled' | null; text: boolean } {
  switch (valueType) {
    case 'FLOAT':
    case 'FLOAT32':
      return { isText: false, float: true, int64: null, text: false };
    case 'BIGINT':
      return { isText: false, float: false, int64: 'bigint', text: false };
    case 'NUMERIC':
    case 'DECIMAL32':
      return { isText: false, float: false, int64: 'scaled', text: false };
    case 'TEXT':
      return { isText: false, float: false, int64: null, text: true };
    case 'MIXED':
      return { isText: true, float: true, int64: null, text: true };
  }
}

/** A growable output buffer; encode sizes are not known before the text is measured. */
class ByteWriter {
  buf: Buffer;
  pos = 0;
  constructor(bytesHint: number) {
    this.buf = Buffer.allocUnsafe(Math.max(64, bytesHint));
  }
  ensure(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + bytes));
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }
  u8(value: number): void {
    this.ensure(1);
    this.buf[this.pos++] = value;
  }
  /** Unsigned integer up to 2^53 - 1, 7 bits per byte. */
  varint(value: number): void {
    this.ensure(8);
    let rest = value;
    while (rest >= 0x80) {
      this.buf[this.pos++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    this.buf[this.pos++] = rest;
  }
  f64(value: number): void {
    this.ensure(8);
    this.pos = this.buf.writeDoubleLE(value, this.pos);
  }
  u64(value: bigint): void {
    this.ensure(8);
    this.pos = this.buf.writeBigUInt64LE(value, this.pos);
  }
  bytesOf(column: ArrayBufferView): void {
    this.ensure(column.byteLength);
    this.buf.set(new Uint8Array(column.buffer, column.byteOffset, column.byteLength), this.pos);
    this.pos += column.byteLength;
  }
  utf8(text: string): void {
    const bytes = Buffer.byteLength(text, 'utf8');
    this.varint(bytes);
    this.ensure(bytes);
    this.pos += this.buf.write(text, this.pos, bytes, 'utf8');
  }
}

/** Bounds-checked reads; every overrun is a BatchCodecError, never a RangeError. */
class ByteReader {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  need(bytes: number): void {
    if (bytes < 0 || this.pos + bytes > this.buf.length) {
      throw new BatchCodecError(`ingest batch truncated: need ${bytes} bytes at offset ${this.pos} of ${this.buf.length}`);
    }
  }
  u8(): number {
    this.need(1);
    return this.buf[this.pos++] as number;
  }
  varint(): number {
    let value = 0;
    let scale = 1;
    for (let shift = 0; shift < 56; shift += 7) {
      const byte = this.u8();
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
    }
    throw new BatchCodecError(`ingest batch has a varint longer than 8 bytes at offset ${this.pos}`);
  }
  f64(): number {
    this.need(8);
    const value = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return value;
  }
  u64(): bigint {
    this.need(8);
    const value = this.buf.readBigUInt64LE(this.pos);
    this.pos += 8;
    return value;
  }
  /** Copies count elements into a fresh typed array (no view keeps the fetch buffer alive). */
  column<T extends Float64Array | BigInt64Array | Uint8Array>(make: new (n: number) => T, count: number): T {
    const out = new make(count);
    this.need(out.byteLength);
    new Uint8Array(out.buffer).set(this.buf.subarray(this.pos, this.pos + out.byteLength));
    this.pos += out.byteLength;
    return out;
  }
  utf8(): string {
    const bytes = this.varint();
    this.need(bytes);
    const text = this.buf.toString('utf8', this.pos, this.pos + bytes);
    this.pos += bytes;
    return text;
  }
}

function zigzag(value: number): number {
  return value >= 0 ? value * 2 : -value * 2 - 1;
}

function unzigzag(value: number): number {
  return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
}

function assertColumn(series: SeriesPoints, name: string, column: { length: number } | undefined, count: number): void {
  assert.ok(column !== undefined, `series ${series.seriesId} (${series.valueType}) has no ${name} column`);
  assert.equal(column.length, count, `series ${series.seriesId}: ${name} has ${column.length} entries for ${count} timestamps`);
}

function encodeTimestamps(out: ByteWriter, series: SeriesPoints): void {
  let previous = 0;
  const ts = series.timestampMs;
  for (let i = 0; i < ts.length; i++) {
    const current = ts[i] as number;
    assert.ok(Number.isSafeInteger(current), `series ${series.seriesId}: timestamp ${current} is not an integer of milliseconds`);
    assert.ok(i === 0 || current > previous, `series ${series.seriesId}: timestamps not strictly ascending at point ${i}`);
    out.varint(zigzag(current - previous));
    previous = current;
  }
}

function encodeSeries(out: ByteWriter, series: SeriesPoints): void {
  assert.ok(Number.isSafeInteger(series.seriesId) && series.seriesId >= 0, `seriesId ${series.seriesId} is not a safe non-negative integer`);
  const typeIndex = VALUE_TYPES.indexOf(series.valueType);
  assert.ok(typeIndex >= 0, `series ${series.seriesId}: unknown valueType ${series.valueType}`);
  const count = series.timestampMs.length;
  const columns = columnsOf(series.valueType);
  out.f64(series.seriesId);
  out.u8(typeIndex);
  out.varint(count);
  encodeTimestamps(out, series);
  if (columns.isText) {
    assertColumn(series, 'isText', series.isText, count);
    out.bytesOf(series.isText as Uint8Array);
  }
  if (columns.float) {
    assertColumn(series, 'float', series.float, count);
    out.bytesOf(series.float as Float64Array);
  }
  if (columns.int64 !== null) {
    const column = series[columns.int64];
    assertColumn(series, columns.int64, column, count);
    out.bytesOf(column as BigInt64Array);
  }
  if (columns.text) {
    assertColumn(series, 'text', series.text, count);
    for (const text of series.text as string[]) out.utf8(text);
  }
}

/** Encodes a batch; asserts the SeriesPoints invariants it relies on (types.ts). */
export function encodeIngestBatch(batch: IngestBatch): Buffer {
  assert.ok(batch.tenant.length > 0, 'ingest batch without tenant');
  assert.ok(batch.writeVersion >= 0n && batch.writeVersion <= U64_MAX, `writeVersion ${batch.writeVersion} is outside 0..2^64-1`);
  let pointCount = 0;
  for (const series of batch.series) pointCount += series.timestampMs.length;
  const out = new ByteWriter(64 + batch.tenant.length * 3 + batch.series.length * 16 + pointCount * 12);
  for (const byte of MAGIC) out.u8(byte);
  out.u8(BATCH_CODEC_VERSION);
  out.u64(batch.writeVersion);
  out.utf8(batch.tenant);
  out.varint(batch.series.length);
  for (const series of batch.series) encodeSeries(out, series);
  return out.buf.subarray(0, out.pos);
}

function decodeTimestamps(input: ByteReader, count: number): Float64Array {
  const ts = new Float64Array(count);
  let previous = 0;
  for (let i = 0; i < count; i++) {
    const current = previous + unzigzag(input.varint());
    if (!Number.isSafeInteger(current) || (i > 0 && current <= previous)) throw new BatchCodecError(`ingest batch timestamps not ascending at point ${i}`);
    ts[i] = current;
    previous = current;
  }
  return ts;
}

function decodeSeries(input: ByteReader): SeriesPoints {
  const seriesId = input.f64();
  if (!Number.isSafeInteger(seriesId) || seriesId < 0) throw new BatchCodecError(`ingest batch has seriesId ${seriesId}`);
  const valueType = VALUE_TYPES[input.u8()];
  if (valueType === undefined) throw new BatchCodecError(`ingest batch series ${seriesId} has an unknown valueType`);
  const count = input.varint();
  // Each point takes at least one byte, so a count past the bytes left is corrupt.
  input.need(count);
  const columns = columnsOf(valueType);
  const series: SeriesPoints = { seriesId, valueType, timestampMs: decodeTimestamps(input, count) };
  if (columns.isText) series.isText = input.column(Uint8Array, count);
  if (columns.float) series.float = input.column(Float64Array, count);
  if (columns.int64 !== null) series[columns.int64] = input.column(BigInt64Array, count);
  if (columns.text) {
    const text = new Array<string>(count);
    for (let i = 0; i < count; i++) text[i] = input.utf8();
    series.text = text;
  }
  return series;
}

/** Decodes what encodeIngestBatch wrote; throws BatchCodecError (or its Version subclass). */
export function decodeIngestBatch(bytes: Buffer): IngestBatch {
  const input = new ByteReader(bytes);
  for (const byte of MAGIC) {
    if (input.u8() !== byte) throw new BatchCodecError('not an ingest batch (bad magic)');
  }
  const version = input.u8();
  if (version !== BATCH_CODEC_VERSION) throw new BatchCodecVersionError(version);
  const writeVersion = input.u64();
  const tenant = input.utf8();
  if (tenant.length === 0) throw new BatchCodecError('ingest batch without tenant');
  const seriesCount = input.varint();
  input.need(seriesCount);
  const series: SeriesPoints[] = [];
  for (let i = 0; i < seriesCount; i++) series.push(decodeSeries(input));
  if (input.pos !== bytes.length) {
    throw new BatchCodecError(`ingest batch has ${bytes.length - input.pos} trailing bytes`);
  }
  return { tenant, series, writeVersion };
}
