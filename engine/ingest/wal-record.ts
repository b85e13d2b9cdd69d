// A batch as one record of the ingest write-ahead log (ingest-wal.ts). Written on the event
// loop for every acknowledged request, so it costs a copy at most: the typed columns go out as
// their own bytes (batch-codec.ts's varint timestamps took 23 ms per 100,000 points here, the
// raw bytes well under one), after a small binary header that names them.
//
// Format version 3 (written): u32 LE 0x8000_0003, the format word: its high bit set and the
// version in the low bits; then u32 LE the header's length; the header: u32 series count, u64
// write version, u16 tenant length and the tenant as UTF-8, per series (14 bytes) f64 id, u8
// valueType index (VALUE_TYPES), u8 column bits (bit k: RECORD_COLUMNS[k]; bit 4: text), u32 n;
// then u32 length and the JSON array of the text columns, in series order. Then per series in
// header order its columns' little-endian bytes: timestampMs f64[n], then float f64[n], bigint
// i64[n], scaled i64[n], isText u8[n] when present.
//
// Records of older versions still decode, so a log left by an older build replays:
// - version 2: the same header without the format word; its first u32 is the header's length
//   with the high bit set. A version-2 header is at least MIN_V2_HEADER bytes long, so a first
//   u32 of 0x8000_0000 plus less than that is a format word, never a version-2 length.
// - version 1: a JSON header, its first u32 the JSON's length with the high bit clear:
//   `{"tenant", "version", "series": [{"id", "type", "n", "columns", "text"?}]}`. Building it
//   took ~100 template strings per gateway request, an eighth of all the event loop allocated
//   (heap sampling, bench/probe.ts gateway), hence the binary header of versions 2 and 3.
// A format word naming any other version is refused with an error that names it.
import assert from 'node:assert/strict';
import { endianness } from 'node:os';
import { SERIES_VALUE_COLUMNS, VALUE_TYPES, VALUE_TYPE_INDEX, seriesValueColumn, type SeriesPoints, type ValueType } from '../datapoints/types.ts';
import type { IngestBatch } from './ingest-log.ts';
import { PACKED_IS_TEXT, type PackedBatch } from '../datapoints/write/packed-batch.ts';

assert.equal(endianness(), 'LE', 'wal-record writes typed arrays as little-endian bytes');

type Column = 'float' | 'bigint' | 'scaled' | 'isText';
/** The value columns in record order, each after its series' timestamps (read with seriesValueColumn). */
export const RECORD_COLUMNS: readonly Column[] = SERIES_VALUE_COLUMNS;

interface SeriesHeader {
  id: number;
  type: ValueType;
  n: number;
  columns: Column[];
  text?: string[];
}

/** The JSON header of a version-1 record. */
interface JsonRecordHeader {
  tenant: string;
  version: string;
  series: SeriesHeader[];
}

/** The high bit of the record's first u32: a binary header (version 2) or a format word (version 3 on). */
const BINARY_HEADER = 0x8000_0000;
/** The format version encodeWalRecord writes. */
export const WAL_RECORD_VERSION = 3;
/** The shortest version-2 header (series count, write version, tenant length, text length); format words stay below it. */
const MIN_V2_HEADER = 4 + 8 + 2 + 4;
const SERIES_HEADER_BYTES = 14;
const TEXT_BIT = 1 << RECORD_COLUMNS.length;

/** Bit k set when the series has the value column at place k of RECORD_COLUMNS (read by seriesValueColumn). */
function columnMask(series: SeriesPoints): number {
  let mask = 0;
  for (let k = 0; k < RECORD_COLUMNS.length; k++) if (seriesValueColumn(series, k) !== undefined) mask |= 1 << k;
  return mask;
}

/** The format word, the header's length and the binary header of a batch (see the layout above). */
function encodeHeader(batch: IngestBatch): Buffer {
  let texts: string[][] | undefined;
  for (const s of batch.series) if (s.text) (texts ??= []).push(s.text);
  return encodeHeaderWith(batch.tenant, batch.writeVersion, batch.series.length, texts, (record, seriesAt) => {
    let at = seriesAt;
    for (const s of batch.series) {
      writeSeriesHeader(record, at, s.seriesId, VALUE_TYPE_INDEX.get(s.valueType) as number, columnMask(s) | (s.text ? TEXT_BIT : 0), s.timestampMs.length);
      at += SERIES_HEADER_BYTES;
    }
  });
}

/** The same header for a packed batch: byte for byte what encodeHeader writes for its series. */
function encodePackedHeader(batch: PackedBatch): Buffer {
  let texts: string[][] | undefined;
  for (let i = 0; i < batch.seriesCount; i++) {
    const text = batch.text(i);
    if (text) (texts ??= []).push(text);
  }
  return encodeHeaderWith(batch.tenant, batch.writeVersion, batch.seriesCount, texts, (record, seriesAt) => {
    let at = seriesAt;
    for (let i = 0; i < batch.seriesCount; i++) {
      let mask = batch.text(i) ? TEXT_BIT : 0;
      for (let k = 0; k < RECORD_COLUMNS.length; k++) if (batch.has(i, k + 1)) mask |= 1 << k;
      writeSeriesHeader(record, at, batch.seriesId(i), batch.valueTypeIndex(i), mask, batch.length(i));
      at += SERIES_HEADER_BYTES;
    }
  });
}

function writeSeriesHeader(record: Buffer, at: number, seriesId: number, typeIndex: number, bits: number, n: number): void {
  record.writeDoubleLE(seriesId, at);
  record.writeUInt8(typeIndex, at + 8);
  record.writeUInt8(bits, at + 9);
  record.writeUInt32LE(n, at + 10);
}

function encodeHeaderWith(tenantName: string, writeVersion: bigint, seriesCount: number, texts: string[][] | undefined, writeSeries: (record: Buffer, seriesAt: number) => void): Buffer {
  const tenant = Buffer.from(tenantName, 'utf8');
  assert.ok(tenant.length <= 0xffff, 'wal record: a tenant name of over 65,535 bytes');
  const textJson = texts ? Buffer.from(JSON.stringify(texts), 'utf8') : undefined;
  const seriesAt = 8 + 4 + 8 + 2 + tenant.length;
  const textAt = seriesAt + seriesCount * SERIES_HEADER_BYTES;
  const headerLength = textAt + 4 + (textJson?.length ?? 0) - 8;
  const record = Buffer.allocUnsafe(8 + headerLength);
  record.writeUInt32LE((BINARY_HEADER | WAL_RECORD_VERSION) >>> 0, 0);
  record.writeUInt32LE(headerLength, 4);
  record.writeUInt32LE(seriesCount, 8);
  record.writeBigUInt64LE(writeVersion, 12);
  record.writeUInt16LE(tenant.length, 20);
  tenant.copy(record, 22);
  writeSeries(record, seriesAt);
  record.writeUInt32LE(textJson?.length ?? 0, textAt);
  textJson?.copy(record, textAt + 4);
  return record;
}

/**
 * A packed batch's record, its columns given as the one run they lie in (PackedBatch.columnRun):
 * the same bytes encodeWalRecord writes for the batch unpacked.
 */
export function encodePackedWalRecord(batch: PackedBatch, columnBytes: Uint8Array): Uint8Array[] {
  let columnByteCount = 0;
  for (let i = 0; i < batch.seriesCount; i++) {
    const n = batch.length(i);
    columnByteCount += 8 * n;
    for (let k = 0; k < RECORD_COLUMNS.length; k++) if (batch.has(i, k + 1)) columnByteCount += k + 1 === PACKED_IS_TEXT ? n : 8 * n;
  }
  assert.ok(columnBytes.byteLength === columnByteCount, `wal record: ${columnBytes.byteLength} column bytes given for columns of ${columnByteCount}`);
  return [encodePackedHeader(batch), columnBytes];
}

/**
 * The record as parts to write one after another (views on the batch's columns, not copies).
 * `columnBytes`, when the caller holds every column back to back in record order
 * (owned-batch.ts), is written as one part instead of one per column.
 */
export function encodeWalRecord(batch: IngestBatch, columnBytes?: Uint8Array): Uint8Array[] {
  const columnParts: Uint8Array[] = [];
  let columnByteCount = 0;
  for (const series of batch.series) {
    const mask = columnMask(series);
    columnByteCount += series.timestampMs.byteLength;
    for (let k = 0; k < RECORD_COLUMNS.length; k++) if ((mask & (1 << k)) !== 0) columnByteCount += (seriesValueColumn(series, k) as ArrayBufferView).byteLength;
    if (columnBytes) continue;
    columnParts.push(bytesOf(series.timestampMs));
    for (let k = 0; k < RECORD_COLUMNS.length; k++) if ((mask & (1 << k)) !== 0) columnParts.push(bytesOf(seriesValueColumn(series, k) as ArrayBufferView));
  }
  assert.ok(!columnBytes || columnBytes.byteLength === columnByteCount, `wal record: ${columnBytes?.byteLength} column bytes given for columns of ${columnByteCount}`);
  const header = encodeHeader(batch);
  return columnBytes ? [header, columnBytes] : [header, ...columnParts];
}

function bytesOf(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

/** The header of a record of any known version, and where its columns start. */
function decodeHeader(record: Buffer): { tenant: string; version: bigint; series: SeriesHeader[]; columnsAt: number } {
  if (record.length < 4) throw new Error('ingest log record: cut short before its first word');
  const first = record.readUInt32LE(0);
  if ((first & BINARY_HEADER) === 0) {
    const header = JSON.parse(record.toString('utf8', 4, 4 + first)) as JsonRecordHeader;
    return { tenant: header.tenant, version: BigInt(header.version), series: header.series, columnsAt: 4 + first };
  }
  const low = first & ~BINARY_HEADER;
  if (low >= MIN_V2_HEADER) return decodeBinaryHeader(record, 0, low);
  if (low !== WAL_RECORD_VERSION) {
    throw new Error(`ingest log record: format version ${low} is not known to this build (it reads versions 1 to ${WAL_RECORD_VERSION})`);
  }
  if (record.length < 8) throw new Error('ingest log record: header cut short');
  return decodeBinaryHeader(record, 4, record.readUInt32LE(4));
}

/** A binary header (versions 2 and 3): `lengthAt` is where its u32 length sits, `length` what it says. */
function decodeBinaryHeader(record: Buffer, lengthAt: number, length: number): { tenant: string; version: bigint; series: SeriesHeader[]; columnsAt: number } {
  const base = lengthAt + 4;
  const columnsAt = base + length;
  if (columnsAt > record.length || length < MIN_V2_HEADER) throw new Error('ingest log record: header cut short');
  const count = record.readUInt32LE(base);
  const version = record.readBigUInt64LE(base + 4);
  const tenantLength = record.readUInt16LE(base + 12);
  const tenant = record.toString('utf8', base + 14, base + 14 + tenantLength);
  let at = base + 14 + tenantLength;
  const textAt = at + count * SERIES_HEADER_BYTES;
  const textLength = record.readUInt32LE(textAt);
  if (textAt + 4 + textLength !== columnsAt) throw new Error('ingest log record: header length does not match its series');
  const texts = textLength > 0 ? JSON.parse(record.toString('utf8', textAt + 4, columnsAt)) as string[][] : [];
  let nextText = 0;
  const series: SeriesHeader[] = [];
  for (let i = 0; i < count; i++, at += SERIES_HEADER_BYTES) {
    const bits = record.readUInt8(at + 9);
    const type = VALUE_TYPES[record.readUInt8(at + 8)];
    if (type === undefined) throw new Error(`ingest log record: unknown valueType index ${record.readUInt8(at + 8)}`);
    const header: SeriesHeader = { id: record.readDoubleLE(at), type, n: record.readUInt32LE(at + 10), columns: RECORD_COLUMNS.filter((_, k) => (bits & (1 << k)) !== 0) };
    if ((bits & TEXT_BIT) !== 0) {
      const text = texts[nextText++];
      if (!Array.isArray(text)) throw new Error('ingest log record: a text column is missing');
      header.text = text;
    }
    series.push(header);
  }
  if (nextText !== texts.length) throw new Error('ingest log record: text columns left over');
  return { tenant, version, series, columnsAt };
}

/** The batch of a record (its columns copied out, aligned). Throws on a record that does not parse. */
export function decodeWalRecord(record: Buffer): IngestBatch {
  const header = decodeHeader(record);
  let at = header.columnsAt;
  const take = (bytes: number): ArrayBuffer => {
    if (at + bytes > record.length) throw new Error('ingest log record: columns cut short');
    const copy = new Uint8Array(bytes);
    copy.set(record.subarray(at, at + bytes));
    at += bytes;
    return copy.buffer;
  };
  const series = header.series.map((s): SeriesPoints => {
    if (!(VALUE_TYPES as readonly string[]).includes(s.type)) throw new Error(`ingest log record: unknown valueType ${s.type}`);
    const points: SeriesPoints = { seriesId: s.id, valueType: s.type, timestampMs: new Float64Array(take(s.n * 8)) };
    for (const column of s.columns) {
      if (column === 'float') points.float = new Float64Array(take(s.n * 8));
      else if (column === 'bigint') points.bigint = new BigInt64Array(take(s.n * 8));
      else if (column === 'scaled') points.scaled = new BigInt64Array(take(s.n * 8));
      else points.isText = new Uint8Array(take(s.n));
    }
    if (s.text) points.text = s.text;
    return points;
  });
  if (at !== record.length) throw new Error('ingest log record: bytes left over');
  return { tenant: header.tenant, writeVersion: header.version, series };
}
