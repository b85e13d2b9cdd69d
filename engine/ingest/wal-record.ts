// A batch as one record of the ingest write-ahead log (ingest-wal.ts). Written on the event
// loop for every acknowledged request, so it costs a copy at most: the typed columns go out as
// their own bytes (batch-codec.ts's varint timestamps took 23 ms per 100,000 points here, the
// raw bytes well under one), after a small JSON header that names them and carries any text.
//
// Layout: u32 LE header length, header JSON, then per series in header order its columns'
// little-endian bytes: timestampMs f64[n], then float f64[n], bigint i64[n], scaled i64[n],
// isText u8[n] when present.
import assert from 'node:assert/strict';
import { endianness } from 'node:os';
import { SERIES_VALUE_COLUMNS, VALUE_TYPES, seriesValueColumn, type IngestBatch, type SeriesPoints, type ValueType } from '../datapoints/types.ts';

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

interface RecordHeader {
  tenant: string;
  version: string;
  series: SeriesHeader[];
}

/** The column lists a header names, one per combination present (built once, not per series). */
const COLUMN_LISTS = Array.from({ length: 1 << RECORD_COLUMNS.length }, (_, mask) => RECORD_COLUMNS.filter((_, k) => (mask & (1 << k)) !== 0));
const COLUMN_LISTS_JSON = COLUMN_LISTS.map((list) => JSON.stringify(list));
const VALUE_TYPE_JSON = new Map<string, string>(VALUE_TYPES.map((type) => [type, JSON.stringify(type)]));

/** Bit k set when the series has the value column at place k of RECORD_COLUMNS (read by seriesValueColumn). */
function columnMask(series: SeriesPoints): number {
  let mask = 0;
  for (let k = 0; k < RECORD_COLUMNS.length; k++) if (seriesValueColumn(series, k) !== undefined) mask |= 1 << k;
  return mask;
}

/**
 * The header's JSON, written out: the same text JSON.stringify makes of a RecordHeader (keys
 * in its order), without building ~100 objects per request to walk (encodeWalRecord runs on
 * the event loop for every acknowledged request).
 */
function headerJson(batch: IngestBatch): string {
  let series = '';
  for (const s of batch.series) {
    const text = s.text ? `,"text":${JSON.stringify(s.text)}` : '';
    series += `${series === '' ? '' : ','}{"id":${s.seriesId},"type":${VALUE_TYPE_JSON.get(s.valueType) ?? JSON.stringify(s.valueType)},"n":${s.timestampMs.length},"columns":${COLUMN_LISTS_JSON[columnMask(s)]}${text}}`;
  }
  return `{"tenant":${JSON.stringify(batch.tenant)},"version":"${batch.writeVersion.toString()}","series":[${series}]}`;
}

function bytesOf(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
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
  const json = Buffer.from(headerJson(batch));
  const length = Buffer.allocUnsafe(4);
  length.writeUInt32LE(json.length, 0);
  return columnBytes ? [length, json, columnBytes] : [length, json, ...columnParts];
}

/** The batch of a record (its columns copied out, aligned). Throws on a record that does not parse. */
export function decodeWalRecord(record: Buffer): IngestBatch {
  const headerLength = record.readUInt32LE(0);
  const header = JSON.parse(record.toString('utf8', 4, 4 + headerLength)) as RecordHeader;
  let at = 4 + headerLength;
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
  return { tenant: header.tenant, writeVersion: BigInt(header.version), series };
}
