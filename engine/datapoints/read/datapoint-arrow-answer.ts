// The Arrow answer of POST /timeseries/data/list (docs/api.md "Arrow answers"): one IPC stream,
// one schema, one record batch per item in request order, cursors in each batch's custom
// metadata and, for the whole answer, in the schema's. Columns are typed arrays handed to
// apache-arrow: raw pages as the engine wrote them (datapoint-arrow.ts), aggregate buckets
// (the fold shared with the JSON answer) written into typed arrays, no per-point string.
import { endianness } from 'node:os';
import {
  AsyncByteQueue, Dictionary, Field, Float64, Int32, Int64, RecordBatch, RecordBatchStreamWriter, Schema, Struct, TimestampMillisecond, Utf8,
  makeData, vectorFromArray, type Data, type DataType, type Vector,
} from 'apache-arrow';
import { BadRequestError } from '../../errors.ts';
import type { SeriesTarget } from '../../meta/series-targets.ts';
import { DECIMAL_FORMAT, type AggregateBucket, type AggregateName, type AggregateResult, type ValueType } from '../types.ts';
import type { RawArrowPage } from './datapoint-arrow.ts';

// Aggregate timestamps and counts are written into int64 columns as two int32 halves (no
// BigInt per bucket), which assumes the machine's byte order is Arrow's.
if (endianness() !== 'LE') throw new Error('the Arrow answer writes little-endian int64 columns; this machine is big-endian');

/** The type of the `value` column of raw items. */
export type ArrowValueKind = 'float64' | 'int64' | 'utf8';

const VALUE_KIND: Readonly<Record<ValueType, ArrowValueKind>> = {
  FLOAT: 'float64', FLOAT32: 'float64', NUMERIC: 'float64', DECIMAL32: 'float64', MIXED: 'float64', BIGINT: 'int64', TEXT: 'utf8',
};

/** Aggregate columns in this order, named as the JSON answer's fields. */
const AGGREGATE_COLUMNS: readonly (readonly [AggregateName, keyof AggregateBucket])[] = [
  ['AVG', 'average'], ['MIN', 'min'], ['MAX', 'max'], ['COUNT', 'count'], ['SUM', 'sum'],
];

/** One item of the answer: a raw page, or an aggregate page with the aggregates it asked for. */
export type ArrowItem =
  | { target: SeriesTarget; raw: RawArrowPage }
  | { target: SeriesTarget; aggregates: readonly AggregateName[]; result: AggregateResult };

/** What an item asks for, all the answer's schema needs to know before any read. */
export interface ArrowItemAsk {
  /** The item's index in the request (for a 400 naming it). */
  index: number;
  target: SeriesTarget;
  /** Undefined for a raw item. */
  aggregates?: readonly AggregateName[];
}

/** The columns of one answer after id, externalId and timestamp. */
export interface ArrowLayout {
  /** Type of `value`; absent when no item is raw. */
  value?: ArrowValueKind;
  /** A `text` column (a raw MIXED item). */
  text: boolean;
  /** The aggregate columns, in AGGREGATE_COLUMNS' order. */
  aggregates: readonly AggregateName[];
}

/**
 * The answer's columns for these items. A stream has one schema: raw items whose values take
 * different Arrow types (float64, int64, utf8) cannot share it, a 400 naming both items.
 * Raw and aggregate items can: each leaves the other's columns null.
 */
export function arrowLayout(asks: readonly ArrowItemAsk[]): ArrowLayout {
  let value: { kind: ArrowValueKind; ask: ArrowItemAsk } | undefined;
  let text = false;
  const asked = new Set<AggregateName>();
  for (const ask of asks) {
    if (ask.aggregates) {
      for (const name of ask.aggregates) asked.add(name);
      continue;
    }
    const kind = VALUE_KIND[ask.target.valueType];
    if (ask.target.valueType === 'MIXED') text = true;
    if (!value) value = { kind, ask };
    else if (value.kind !== kind) throw mixedValueKinds(value.ask, value.kind, ask, kind);
  }
  return { value: value?.kind, text, aggregates: AGGREGATE_COLUMNS.map(([name]) => name).filter((name) => asked.has(name)) };
}

function mixedValueKinds(first: ArrowItemAsk, firstKind: ArrowValueKind, other: ArrowItemAsk, otherKind: ArrowValueKind): BadRequestError {
  const message = `items[${other.index}] reads a ${other.target.valueType} series (Arrow ${otherKind} values) and items[${first.index}] a ${first.target.valueType} series (${firstKind}): `
    + 'an Arrow stream has one schema, so raw items must read series whose values share an Arrow type; ask for them in separate requests, or as JSON';
  return new BadRequestError(message, [
    { field: `items.${other.index}`, index: other.index, message: `${other.target.valueType} values are Arrow ${otherKind}, items[${first.index}]'s ${firstKind}` },
  ]);
}

const INT64 = new Int64();
const FLOAT64 = new Float64();
const UTF8 = new Utf8();
const TIMESTAMP = new TimestampMillisecond('UTC');
/** externalId: one dictionary of the answer's externalIds, so a batch's column is one index repeated. */
const EXTERNAL_ID = new Dictionary(UTF8, new Int32(), 0);

function valueType(kind: ArrowValueKind): DataType {
  return kind === 'int64' ? INT64 : kind === 'utf8' ? UTF8 : FLOAT64;
}

function schemaOf(layout: ArrowLayout, metadata: Map<string, string>): Schema {
  const fields: Field[] = [new Field('id', INT64, false), new Field('externalId', EXTERNAL_ID, true), new Field('timestamp', TIMESTAMP, false)];
  if (layout.value) fields.push(new Field('value', valueType(layout.value), true));
  if (layout.text) fields.push(new Field('text', UTF8, true));
  for (const [name, field] of AGGREGATE_COLUMNS) {
    if (layout.aggregates.includes(name)) fields.push(new Field(field, name === 'COUNT' ? INT64 : FLOAT64, true));
  }
  return new Schema(fields, metadata);
}

/** An item's cursor and series, as the metadata carries them. */
interface ItemMetadata { id: number; externalId: string | null; valueType: ValueType; nextCursor?: string }

function itemMetadata(item: ArrowItem): ItemMetadata {
  const nextCursor = 'raw' in item ? item.raw.nextCursor : item.result.nextCursor;
  return { id: item.target.seriesId, externalId: item.target.externalId ?? null, valueType: item.target.valueType, ...(nextCursor !== undefined ? { nextCursor } : {}) };
}

function batchMetadata(item: ItemMetadata): Map<string, string> {
  const metadata = new Map([['id', String(item.id)], ['valueType', item.valueType]]);
  if (item.externalId !== null) metadata.set('externalId', item.externalId);
  if (item.nextCursor !== undefined) metadata.set('nextCursor', item.nextCursor);
  return metadata;
}

/** Pieces of the stream below this many bytes are joined; larger ones are column buffers, passed on as they are. */
const JOINED_PIECE_BYTES_MAX = 64 * 1024;

/**
 * The writer's output as chunks, in order. Column buffers stay the views they are (of the
 * engine's columns, held in the page cache): a 100,000-point FLOAT page's 2.8 MB stream was
 * copied into one array by toUint8Array, 1.1 ms a page and as much garbage. The small pieces
 * between them (continuation markers, lengths, message headers, padding) are joined.
 */
class AnswerChunks extends AsyncByteQueue {
  private readonly chunks: Uint8Array[] = [];
  private pieces: Uint8Array[] = [];
  private piecesBytes = 0;

  override write(value: Parameters<AsyncByteQueue['write']>[0]): void {
    // RecordBatchWriter hands its sink Uint8Arrays only (its _write).
    if (!(value instanceof Uint8Array)) throw new Error('the Arrow answer\'s writer wrote something other than bytes');
    if (value.byteLength === 0) return;
    if (value.byteLength >= JOINED_PIECE_BYTES_MAX) {
      this.joinPieces();
      this.chunks.push(value);
      return;
    }
    this.pieces.push(value);
    this.piecesBytes += value.byteLength;
  }

  take(): Uint8Array[] {
    this.joinPieces();
    return this.chunks;
  }

  private joinPieces(): void {
    if (this.pieces.length === 0) return;
    this.chunks.push(this.pieces.length === 1 ? this.pieces[0] as Uint8Array : Buffer.concat(this.pieces, this.piecesBytes));
    this.pieces = [];
    this.piecesBytes = 0;
  }
}

/**
 * The whole answer as the chunks of one IPC stream, to be sent one after the other: the schema
 * (its metadata `items`: a JSON list of `{id, externalId, valueType, nextCursor?}` per batch),
 * then one record batch per item with the same fields as its custom metadata (externalId and
 * nextCursor left out when the series has none), then the end-of-stream marker. A raw page's
 * column buffers are chunks of their own, not copied: they must not change while the answer
 * is sent.
 */
export function arrowAnswer(layout: ArrowLayout, items: readonly ArrowItem[]): Uint8Array[] {
  const only = items.length === 1 ? items[0] as ArrowItem : undefined;
  if (!only || !('raw' in only)) return writeAnswer(layout, items);
  const key = JSON.stringify([layout, itemMetadata(only)]);
  const kept = ONE_ITEM_ANSWERS.get(only.raw);
  if (kept?.key === key) return [...kept.chunks];
  const chunks = writeAnswer(layout, items);
  ONE_ITEM_ANSWERS.set(only.raw, { key, chunks });
  return [...chunks];
}

/**
 * Answers of one raw item by its page. A page kept in the read context cache is mostly asked
 * again as the same item (a client paging through a series anew), and apache-arrow's writer
 * took about 1 ms of the 1.5 ms the engine spent on such a 100,000-point page (its JSON page:
 * 0.2 ms); a 10-point page answered in 4.0 ms against JSON's 2.0 (curl, medians). An answer
 * holds little beyond its page: the joined header pieces (1.3 KB) and the repeated columns,
 * which the pages of one series share. It goes when its page does.
 */
const ONE_ITEM_ANSWERS = new WeakMap<RawArrowPage, { key: string; chunks: readonly Uint8Array[] }>();

function writeAnswer(layout: ArrowLayout, items: readonly ArrowItem[]): Uint8Array[] {
  const metadata = items.map(itemMetadata);
  const schema = schemaOf(layout, new Map([['items', JSON.stringify(metadata)]]));
  const externalIds = [...new Set(metadata.flatMap((m) => (m.externalId === null ? [] : [m.externalId])))];
  const dictionary = vectorFromArray(externalIds, UTF8) as Vector<Utf8>;
  const dictionaryIndex = new Map(externalIds.map((externalId, k) => [externalId, k]));
  const sink = new AnswerChunks();
  const writer = new RecordBatchStreamWriter();
  writer.reset(sink, schema);
  items.forEach((item, k) => {
    const meta = metadata[k] as ItemMetadata;
    const columns = 'raw' in item ? rawColumns(layout, item.raw) : aggregateColumns(layout, item);
    const length = columns.timestamp.length;
    const children: Data[] = [
      repeatedInt64(item.target.seriesId, length),
      externalIdColumn(meta.externalId === null ? undefined : dictionaryIndex.get(meta.externalId), length, dictionary),
      columns.timestamp,
    ];
    if (layout.value) children.push(columns.value ?? nullColumn(valueType(layout.value), length));
    if (layout.text) children.push(columns.text ?? nullColumn(UTF8, length));
    for (const name of layout.aggregates) children.push(columns.aggregates?.get(name) ?? nullColumn(name === 'COUNT' ? INT64 : FLOAT64, length));
    const data = makeData({ type: new Struct(schema.fields), length, nullCount: 0, children });
    writer.write(new RecordBatch(schema, data, batchMetadata(meta)));
  });
  writer.finish();
  return sink.take();
}

interface ItemColumns {
  timestamp: Data;
  value?: Data;
  text?: Data;
  aggregates?: Map<AggregateName, Data>;
}

function rawColumns(layout: ArrowLayout, page: RawArrowPage): ItemColumns {
  const ts = page.timestamps;
  const timestamp = makeData({ type: TIMESTAMP, length: page.length, data: (ts.values as BigInt64Array).subarray(0, page.length) });
  return { timestamp, value: page.values, ...(layout.text ? { text: page.texts } : {}) };
}

/** Decimals' exact aggregates are scaled integers: as doubles, divided by 10^scale. */
function aggregateScale(valueType: ValueType): number {
  return valueType === 'NUMERIC' || valueType === 'DECIMAL32' ? 10 ** DECIMAL_FORMAT[valueType].scale : 1;
}

function aggregateColumns(layout: ArrowLayout, item: Extract<ArrowItem, { result: AggregateResult }>): ItemColumns {
  const buckets = item.result.buckets;
  const length = buckets.length;
  const timestamps = new BigInt64Array(length);
  const halves = new Int32Array(timestamps.buffer);
  for (let i = 0; i < length; i++) setInt64(halves, i, (buckets[i] as AggregateBucket).timestampMs);
  const aggregates = new Map<AggregateName, Data>();
  const scale = aggregateScale(item.target.valueType);
  for (const [name, field] of AGGREGATE_COLUMNS) {
    if (!layout.aggregates.includes(name) || !item.aggregates.includes(name)) continue;
    if (name === 'COUNT') {
      const counts = new BigInt64Array(length);
      const countHalves = new Int32Array(counts.buffer);
      for (let i = 0; i < length; i++) setInt64(countHalves, i, (buckets[i] as AggregateBucket).count ?? 0);
      aggregates.set(name, makeData({ type: INT64, length, data: counts }));
      continue;
    }
    const values = new Float64Array(length);
    for (let i = 0; i < length; i++) {
      const v = (buckets[i] as AggregateBucket)[field] as number | bigint;
      // AVG of a decimal series is a scaled integer too; of BIGINT already a double.
      values[i] = typeof v === 'bigint' ? Number(v) / scale : v;
    }
    aggregates.set(name, makeData({ type: FLOAT64, length, data: values }));
  }
  return { timestamp: makeData({ type: TIMESTAMP, length, data: timestamps }), aggregates };
}

/** An integral double (|v| < 2^53) into element i of an int64 column seen as int32 halves (little-endian). */
function setInt64(halves: Int32Array, i: number, v: number): void {
  const high = Math.floor(v / 4_294_967_296);
  halves[2 * i] = v - high * 4_294_967_296;
  halves[2 * i + 1] = high;
}

/** Bytes of repeated columns kept for the next answers (a 100,000-point page's id column is 800 KB). */
const REPEATED_COLUMNS_BYTES_MAX = 8 * 1024 * 1024;

/**
 * Columns of one value repeated (a batch's id, its externalId's dictionary index), kept and
 * shared by answers, which only read them: allocated per answer, a 100,000-point page's 1.2 MB
 * of them (zeroed, then filled) took 2-3 ms and made most of the answer's garbage, its median
 * 5 ms against 0.3 ms at best. Least recently used first out.
 */
class RepeatedColumns {
  private readonly kept = new Map<string, BigInt64Array | Int32Array>();
  private bytes = 0;

  int64(value: number, length: number): BigInt64Array {
    return this.get(`l${value}`, length, (n) => new BigInt64Array(n).fill(BigInt(value))) as BigInt64Array;
  }

  int32(value: number, length: number): Int32Array {
    return this.get(`i${value}`, length, (n) => new Int32Array(n).fill(value)) as Int32Array;
  }

  private get(key: string, length: number, make: (length: number) => BigInt64Array | Int32Array): BigInt64Array | Int32Array {
    let column = this.kept.get(key);
    if (column) {
      this.kept.delete(key);
      this.bytes -= column.byteLength;
    }
    if (!column || column.length < length) column = make(length);
    if (column.byteLength <= REPEATED_COLUMNS_BYTES_MAX / 4) {
      while (this.bytes + column.byteLength > REPEATED_COLUMNS_BYTES_MAX) {
        const [oldest, dropped] = this.kept.entries().next().value as [string, BigInt64Array | Int32Array];
        this.kept.delete(oldest);
        this.bytes -= dropped.byteLength;
      }
      this.kept.set(key, column);
      this.bytes += column.byteLength;
    }
    return column.subarray(0, length);
  }
}

const REPEATED = new RepeatedColumns();

function repeatedInt64(value: number, length: number): Data<Int64> {
  return makeData({ type: INT64, length, data: REPEATED.int64(value, length) });
}

function externalIdColumn(index: number | undefined, length: number, dictionary: Vector<Utf8>): Data {
  if (index === undefined) return makeData({ type: EXTERNAL_ID, length, nullCount: length, nullBitmap: new Uint8Array(Math.ceil(length / 8)), data: REPEATED.int32(0, length), dictionary });
  return makeData({ type: EXTERNAL_ID, length, nullCount: 0, data: REPEATED.int32(index, length), dictionary });
}

/** A column of `length` nulls (an item that does not fill it); zeroed buffers of the full size, as readers check sizes. */
function nullColumn(type: DataType, length: number): Data {
  const nullBitmap = new Uint8Array(Math.ceil(length / 8));
  if (type === UTF8) return makeData({ type: UTF8, length, nullCount: length, nullBitmap, valueOffsets: new Int32Array(length + 1), data: new Uint8Array(0) });
  if (type === INT64) return makeData({ type: INT64, length, nullCount: length, nullBitmap, data: new BigInt64Array(length) });
  return makeData({ type: FLOAT64, length, nullCount: length, nullBitmap, data: new Float64Array(length) });
}
