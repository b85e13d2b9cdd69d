// The Arrow answer of POST /timeseries/data/list (docs/api.md "Arrow answers"): one IPC stream,
// one schema, one record batch per item in request order, cursors in each batch's custom
// metadata and, for the whole answer, in the schema's. Columns are typed arrays handed to
// apache-arrow: raw pages as the engine wrote them (datapoint-arrow.ts), aggregate buckets
// (the fold shared with the JSON answer) written into typed arrays, no per-point string.
import { endianness } from 'node:os';
import {
  Dictionary, Field, Float64, Int32, Int64, RecordBatch, RecordBatchStreamWriter, Schema, Struct, TimestampMillisecond, Utf8,
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

/**
 * The whole answer as the bytes of one IPC stream: the schema (its metadata `items`: a JSON
 * list of `{id, externalId, valueType, nextCursor?}` per batch), then one record batch per
 * item with the same fields as its custom metadata (externalId and nextCursor left out when
 * the series has none), then the end-of-stream marker.
 */
export function arrowAnswer(layout: ArrowLayout, items: readonly ArrowItem[]): Uint8Array {
  const metadata = items.map(itemMetadata);
  const schema = schemaOf(layout, new Map([['items', JSON.stringify(metadata)]]));
  const externalIds = [...new Set(metadata.flatMap((m) => (m.externalId === null ? [] : [m.externalId])))];
  const dictionary = vectorFromArray(externalIds, UTF8) as Vector<Utf8>;
  const dictionaryIndex = new Map(externalIds.map((externalId, k) => [externalId, k]));
  const writer = new RecordBatchStreamWriter();
  writer.reset(undefined, schema);
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
  return writer.toUint8Array(true);
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

function repeatedInt64(value: number, length: number): Data<Int64> {
  return makeData({ type: INT64, length, data: new BigInt64Array(length).fill(BigInt(value)) });
}

function externalIdColumn(index: number | undefined, length: number, dictionary: Vector<Utf8>): Data {
  const indices = new Int32Array(length);
  if (index === undefined) return makeData({ type: EXTERNAL_ID, length, nullCount: length, nullBitmap: new Uint8Array(Math.ceil(length / 8)), data: indices, dictionary });
  return makeData({ type: EXTERNAL_ID, length, nullCount: 0, data: indices.fill(index), dictionary });
}

/** A column of `length` nulls (an item that does not fill it); zeroed buffers of the full size, as readers check sizes. */
function nullColumn(type: DataType, length: number): Data {
  const nullBitmap = new Uint8Array(Math.ceil(length / 8));
  if (type === UTF8) return makeData({ type: UTF8, length, nullCount: length, nullBitmap, valueOffsets: new Int32Array(length + 1), data: new Uint8Array(0) });
  if (type === INT64) return makeData({ type: INT64, length, nullCount: length, nullBitmap, data: new BigInt64Array(length) });
  return makeData({ type: FLOAT64, length, nullCount: length, nullBitmap, data: new Float64Array(length) });
}
