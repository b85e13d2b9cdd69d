// What crosses between the event loop and a parse worker for one POST /timeseries/data body,
// in a form that is cheap to post. A message is copied by the structured clone on one side and
// rebuilt on the other, and each object and typed array in it costs about half a microsecond
// each way: a gateway request of 100 series came back as ~100 item objects and ~100 series
// with ~200 typed arrays, ~170 us of cloning per request, and its series hints went out as
// three arrays of 100, ~24 us more (bench/probe.ts gateway, 2026-11-25). The columns already
// lie in shared memory both sides hold (the scratch and output slabs the event loop lends), so
// what crosses is where they lie: a few small number arrays, one string of externalIds, and
// the hints as a shared buffer written once per change of a tenant's hints, decoded once per
// worker. A column outside the lent memory (a slab too small) goes the plain way, by transfer.
import type { ValueType } from '../engine/datapoints/types.ts';
import { SERIES_VALUE_COLUMNS, VALUE_TYPES, VALUE_TYPE_INDEX, seriesValueColumn, type SeriesPoints } from '../engine/datapoints/types.ts';
import type { ScannedBody, ScannedItem } from './datapoint-body.ts';
import type { EncodedBody } from './datapoint-encode.ts';
import { PACKED_COLUMN_COUNT, PACKED_IS_TEXT, PACKED_ROW, type PackedRows } from '../engine/datapoints/write/packed-batch.ts';

/** A scanned body: its columns as places in the scratch slab, its items as numbers. */
export type ScannedWire =
  | {
    kind: 'slab';
    /** Per item: pointStart, pointCount, id (NaN when absent), externalId length (-1 when absent). */
    items: Float64Array;
    /** The items' externalIds, one after another. */
    externalIds: string;
    pointCount: number;
    /** byteOffset and length of timestampMs, valueKind, numberValue, valueOffset, valueBytes (and an Arrow body's rowIndex) in the scratch slab. */
    columns: Float64Array;
    errors: ScannedBody['errors'];
    scanner: ScannedBody['scanner'];
  }
  | { kind: 'plain'; scanned: ScannedBody };

/** An encoded body: each series' columns as places in the output slab. */
export type EncodedWire =
  | {
    kind: 'slab';
    /** Per item ENCODED_ROW numbers: present (0/1), seriesId, valueType index, n, then byteOffset of timestampMs, float, bigint, scaled, isText (-1 absent). */
    rows: Float64Array;
    /** [item, text] of the series that have text. */
    texts: [number, string[]][];
    errors: EncodedBody['errors'];
  }
  | { kind: 'plain'; encoded: EncodedBody };

const ENCODED_ROW = 9;

function inSlab(view: ArrayBufferView | undefined, slab: SharedArrayBuffer | undefined): boolean {
  return view === undefined || (slab !== undefined && view.buffer === slab);
}

/** Every column of a series in the slab (read through seriesValueColumn, not s[name]). */
function allInSlab(s: SeriesPoints, slab: SharedArrayBuffer): boolean {
  if (!inSlab(s.timestampMs, slab)) return false;
  for (let k = 0; k < SERIES_VALUE_COLUMNS.length; k++) if (!inSlab(seriesValueColumn(s, k), slab)) return false;
  return true;
}


export function scannedToWire(scanned: ScannedBody, scratch: SharedArrayBuffer | undefined): ScannedWire {
  const columns: ArrayBufferView[] = [scanned.timestampMs, scanned.valueKind, scanned.numberValue, scanned.valueOffset, scanned.valueBytes];
  if (scanned.rowIndex) columns.push(scanned.rowIndex);
  if (!columns.every((column) => inSlab(column, scratch))) return { kind: 'plain', scanned };
  const items = new Float64Array(scanned.items.length * 4);
  let externalIds = '';
  scanned.items.forEach((item, i) => {
    items[i * 4] = item.pointStart;
    items[i * 4 + 1] = item.pointCount;
    items[i * 4 + 2] = item.id ?? Number.NaN;
    items[i * 4 + 3] = item.externalId === undefined ? -1 : item.externalId.length;
    if (item.externalId !== undefined) externalIds += item.externalId;
  });
  const places = new Float64Array(columns.flatMap((column) => [column.byteOffset, column.byteLength / (column as Uint8Array).BYTES_PER_ELEMENT]));
  return { kind: 'slab', items, externalIds, pointCount: scanned.pointCount, columns: places, errors: scanned.errors, scanner: scanned.scanner };
}

/**
 * The items of a scanned body in the slab form, made on first read: an insert that trusts the
 * tenant's hints resolves by the encoded series ids and never reads them (~100 objects and
 * externalId strings of a gateway request, the largest share of what outlived the young
 * generation in the heap samples of bench/probe.ts gateway).
 */
class WireScannedBody implements ScannedBody {
  private madeItems: ScannedItem[] | undefined;
  readonly pointCount: number;
  readonly timestampMs: Float64Array;
  readonly valueKind: Uint8Array;
  readonly numberValue: Float64Array;
  readonly valueOffset: Uint32Array;
  readonly valueBytes: Uint32Array;
  readonly rowIndex?: Uint32Array;
  readonly errors: ScannedBody['errors'];
  readonly scanner: ScannedBody['scanner'];

  constructor(private readonly wire: Extract<ScannedWire, { kind: 'slab' }>, scratch: SharedArrayBuffer) {
    const place = (k: number) => [wire.columns[k * 2] as number, wire.columns[k * 2 + 1] as number] as const;
    this.pointCount = wire.pointCount;
    this.timestampMs = new Float64Array(scratch, ...place(0));
    this.valueKind = new Uint8Array(scratch, ...place(1));
    this.numberValue = new Float64Array(scratch, ...place(2));
    this.valueOffset = new Uint32Array(scratch, ...place(3));
    this.valueBytes = new Uint32Array(scratch, ...place(4));
    if (wire.columns.length > 10) this.rowIndex = new Uint32Array(scratch, ...place(5));
    this.errors = wire.errors;
    this.scanner = wire.scanner;
  }

  get items(): ScannedItem[] {
    return (this.madeItems ??= itemsFromWire(this.wire));
  }
}

function itemsFromWire(wire: Extract<ScannedWire, { kind: 'slab' }>): ScannedItem[] {
  const items: ScannedItem[] = new Array(wire.items.length / 4);
  let at = 0;
  for (let i = 0; i < items.length; i++) {
    const id = wire.items[i * 4 + 2] as number;
    const length = wire.items[i * 4 + 3] as number;
    const externalId = length >= 0 ? wire.externalIds.slice(at, at + length) : undefined;
    if (length >= 0) at += length;
    // Every field in the literal, absent ones undefined: one object of one shape per item.
    // Added one by one, the fields past the literal's took a second allocation (the property
    // store) per item of every request (heap sampling, bench/probe.ts gateway).
    items[i] = { id: Number.isNaN(id) ? undefined : id, externalId, pointStart: wire.items[i * 4] as number, pointCount: wire.items[i * 4 + 1] as number };
  }
  return items;
}

export function scannedFromWire(wire: ScannedWire, scratch: SharedArrayBuffer | undefined): ScannedBody {
  if (wire.kind === 'plain') return wire.scanned;
  if (!scratch) throw new Error('a scanned body in the scratch slab came back without the slab');
  return new WireScannedBody(wire, scratch);
}

/** Whether every item of a scanned body names its series by one identifier only (an id or an externalId, not both). */
export function namedByOneIdentifier(wire: ScannedWire): boolean {
  if (wire.kind === 'plain') return wire.scanned.items.every((item) => item.id === undefined || item.externalId === undefined);
  for (let i = 0; i < wire.items.length; i += 4) {
    if (!Number.isNaN(wire.items[i + 2] as number) && (wire.items[i + 3] as number) >= 0) return false;
  }
  return true;
}

export function encodedToWire(encoded: EncodedBody, output: SharedArrayBuffer | undefined): EncodedWire {
  const inOutput = output !== undefined && encoded.series.every((s) => s === null || allInSlab(s, output));
  if (!inOutput) return { kind: 'plain', encoded };
  const rows = new Float64Array(encoded.series.length * ENCODED_ROW).fill(-1);
  const texts: [number, string[]][] = [];
  encoded.series.forEach((s, i) => {
    const row = i * ENCODED_ROW;
    if (s === null) {
      rows[row] = 0;
      return;
    }
    rows[row] = 1;
    rows[row + 1] = s.seriesId;
    rows[row + 2] = VALUE_TYPE_INDEX.get(s.valueType) as number;
    rows[row + 3] = s.timestampMs.length;
    rows[row + 4] = s.timestampMs.byteOffset;
    for (let k = 0; k < SERIES_VALUE_COLUMNS.length; k++) {
      const column = seriesValueColumn(s, k);
      if (column) rows[row + 5 + k] = column.byteOffset;
    }
    if (s.text) texts.push([i, s.text]);
  });
  return { kind: 'slab', rows, texts, errors: encoded.errors };
}

export function encodedFromWire(wire: EncodedWire, output: SharedArrayBuffer | undefined): EncodedBody {
  if (wire.kind === 'plain') return wire.encoded;
  if (!output) throw new Error('an encoded body in the output slab came back without the slab');
  return new WireEncodedBody(wire, output);
}

/**
 * An encoded body in the slab form: its series with points as packed rows at once (what the
 * ingest log takes, packed-batch.ts), as SeriesPoints only when something reads `series`.
 */
class WireEncodedBody implements EncodedBody {
  private madeSeries: (SeriesPoints | null)[] | undefined;
  readonly errors: EncodedBody['errors'];
  readonly packed: PackedRows;

  constructor(private readonly wire: Extract<EncodedWire, { kind: 'slab' }>, private readonly output: SharedArrayBuffer) {
    this.errors = wire.errors;
    this.packed = packedFromWire(wire, output);
  }

  get series(): (SeriesPoints | null)[] {
    return (this.madeSeries ??= seriesFromWire(this.wire, this.output));
  }
}

/** The present series with points, in item order, as PackedBatch rows over the output slab (its memory 0). */
function packedFromWire(wire: Extract<EncodedWire, { kind: 'slab' }>, output: SharedArrayBuffer): PackedRows {
  const source = wire.rows;
  const items = source.length / ENCODED_ROW;
  let seriesCount = 0;
  for (let i = 0; i < items; i++) if (source[i * ENCODED_ROW] !== 0 && (source[i * ENCODED_ROW + 3] as number) > 0) seriesCount++;
  const rows = new Float64Array(seriesCount * PACKED_ROW);
  const textByItem = wire.texts.length > 0 ? new Map(wire.texts) : undefined;
  let texts: (string[] | undefined)[] | undefined;
  let pointCount = 0;
  let textPointCount = 0;
  let columnByteCount = 0;
  let at = 0;
  for (let i = 0; i < items; i++) {
    const from = i * ENCODED_ROW;
    const n = source[from + 3] as number;
    if (source[from] === 0 || n <= 0) continue;
    const to = at * PACKED_ROW;
    const typeIndex = source[from + 2] as number;
    rows[to] = source[from + 1] as number;
    rows[to + 1] = typeIndex;
    rows[to + 2] = n;
    for (let c = 0; c < PACKED_COLUMN_COUNT; c++) {
      const byteOffset = source[from + 4 + c] as number;
      rows[to + 3 + 2 * c] = byteOffset >= 0 ? 0 : -1;
      rows[to + 4 + 2 * c] = byteOffset >= 0 ? byteOffset : -1;
      if (byteOffset >= 0) columnByteCount += c === PACKED_IS_TEXT ? n : 8 * n;
    }
    const text = textByItem?.get(i);
    if (text) (texts ??= new Array(seriesCount))[at] = text;
    const valueType = VALUE_TYPES[typeIndex];
    if (valueType === 'TEXT' || valueType === 'MIXED') textPointCount += n;
    pointCount += n;
    at++;
  }
  return { seriesCount, pointCount, textPointCount, columnByteCount, rows, memory: [output], texts };
}

function seriesFromWire(wire: Extract<EncodedWire, { kind: 'slab' }>, output: SharedArrayBuffer): (SeriesPoints | null)[] {
  const series: (SeriesPoints | null)[] = new Array(wire.rows.length / ENCODED_ROW);
  const texts = new Map(wire.texts);
  for (let i = 0; i < series.length; i++) {
    const row = i * ENCODED_ROW;
    if (wire.rows[row] === 0) {
      series[i] = null;
      continue;
    }
    // No closure here: one made per series (with tsx's keepNames, a __name call each) cost
    // more than the rest of the loop.
    const rows = wire.rows;
    const n = rows[row + 3] as number;
    const s: SeriesPoints = {
      seriesId: rows[row + 1] as number, valueType: VALUE_TYPES[rows[row + 2] as number] as ValueType,
      timestampMs: new Float64Array(output, rows[row + 4] as number, n),
    };
    if ((rows[row + 5] as number) >= 0) s.float = new Float64Array(output, rows[row + 5] as number, n);
    if ((rows[row + 6] as number) >= 0) s.bigint = new BigInt64Array(output, rows[row + 6] as number, n);
    if ((rows[row + 7] as number) >= 0) s.scaled = new BigInt64Array(output, rows[row + 7] as number, n);
    if ((rows[row + 8] as number) >= 0) s.isText = new Uint8Array(output, rows[row + 8] as number, n);
    const text = texts.get(i);
    if (text) s.text = text;
    series[i] = s;
  }
  return series;
}

/** The number arrays of a wire message in the slab form (fresh memory, handed over by transfer). */
export function wireNumberArrays(wire: ScannedWire | EncodedWire | undefined): Float64Array[] {
  if (wire?.kind !== 'slab') return [];
  return 'items' in wire ? [wire.items, wire.columns] : [wire.rows];
}

/** Where the parts of a hints buffer of `count` keys start (the seriesIds 8-aligned). */
function hintsLayout(count: number): { endsAt: number; idsAt: number; typesAt: number; keysAt: number } {
  const endsAt = 24;
  const idsAt = endsAt + Math.ceil((count * 4) / 8) * 8;
  const typesAt = idsAt + count * 8;
  return { endsAt, idsAt, typesAt, keysAt: typesAt + count };
}

/**
 * A tenant's series hints in shared memory: generation, count and key bytes (f64 x 3), the key
 * ends (u32 per key), seriesIds (f64 per key), valueType indexes (u8 per key), the keys as UTF-8.
 */
export function hintsToBuffer(generation: number, hints: { keys: readonly string[]; seriesIds: readonly number[]; valueTypes: readonly ValueType[] }): SharedArrayBuffer {
  const count = hints.keys.length;
  const keyBytes = Buffer.from(hints.keys.join(''), 'utf8');
  const { endsAt, idsAt, typesAt, keysAt } = hintsLayout(count);
  const buffer = new SharedArrayBuffer(keysAt + keyBytes.length);
  new Float64Array(buffer, 0, 3).set([generation, count, keyBytes.length]);
  const ends = new Uint32Array(buffer, endsAt, count);
  let end = 0;
  hints.keys.forEach((key, i) => (ends[i] = end += Buffer.byteLength(key, 'utf8')));
  new Float64Array(buffer, idsAt, count).set(hints.seriesIds);
  new Uint8Array(buffer, typesAt, count).set(hints.valueTypes.map((v) => VALUE_TYPES.indexOf(v)));
  new Uint8Array(buffer, keysAt).set(keyBytes);
  return buffer;
}

/**
 * A tenant's hints as a worker looks items up in them: by id and by externalId apart, so an
 * item is looked up by the identifier it has, with no key string made per item (hintKey's
 * `i:<id>` or `x:<externalId>`, which the hints buffer carries).
 */
export interface DecodedHints {
  byId: Map<number, number>;
  byExternalId: Map<string, number>;
  seriesIds: Float64Array;
  valueTypes: ValueType[];
}

/** The hint an item resolves by (its id when given, else its externalId), or undefined. */
export function hintPick(hints: DecodedHints, item: { id?: number; externalId?: string }): number | undefined {
  return item.id !== undefined ? hints.byId.get(item.id) : hints.byExternalId.get(item.externalId ?? '');
}

export function hintsFromBuffer(buffer: SharedArrayBuffer): DecodedHints {
  const [, count = 0, keyByteCount = 0] = new Float64Array(buffer, 0, 3);
  const { endsAt, idsAt, typesAt, keysAt } = hintsLayout(count);
  const ends = new Uint32Array(buffer, endsAt, count);
  const keyBytes = Buffer.from(buffer, keysAt, keyByteCount);
  const byId = new Map<number, number>();
  const byExternalId = new Map<string, number>();
  let start = 0;
  for (let i = 0; i < count; i++) {
    const key = keyBytes.toString('utf8', start, ends[i]);
    if (key.startsWith('i:')) byId.set(Number(key.slice(2)), i);
    else if (key.startsWith('x:')) byExternalId.set(key.slice(2), i);
    start = ends[i] as number;
  }
  return { byId, byExternalId, seriesIds: new Float64Array(buffer, idsAt, count).slice(), valueTypes: Array.from(new Uint8Array(buffer, typesAt, count), (k) => VALUE_TYPES[k] as ValueType) };
}

export function hintsGeneration(buffer: SharedArrayBuffer): number {
  return new Float64Array(buffer, 0, 1)[0] as number;
}
