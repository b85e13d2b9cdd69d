// A batch of data points as a few numbers per series and the memory its columns lie in,
// instead of a SeriesPoints object and two or more typed-array views per series: the shape
// the group commit holds acknowledged batches in until they are inserted, and the one the
// insert reads. A gateway keeps ~450 requests of 100 series waiting or being inserted at any
// moment; as SeriesPoints they were ~14 MB of small objects that every scavenge had to copy
// (1.7 MB a scavenge, 2.5 ms average and 13 ms at worst, 7% of the event loop; heap sampling
// and --trace-gc-nvp, bench/probe.ts gateway, 2026-11-25). Packed, a request is one object,
// one Float64Array of numbers outside the heap and references to memory it already had.
import { VALUE_TYPES, VALUE_TYPE_INDEX, seriesColumnAt, type PackedRows, type SeriesPoints, type ValueType } from '../types.ts';
import type { IngestBatch } from '../../ingest/ingest-log.ts';

/** A series' columns by place: the timestamps, then SERIES_VALUE_COLUMNS' order. */
export const PACKED_TS = 0;
export const PACKED_FLOAT = 1;
export const PACKED_BIGINT = 2;
export const PACKED_SCALED = 3;
export const PACKED_IS_TEXT = 4;
export const PACKED_COLUMN_COUNT = 5;
const COLUMN_COUNT = PACKED_COLUMN_COUNT;
/** Per series: seriesId, valueType index, n, then per column its memory's index and byteOffset (-1: absent). */
export const PACKED_ROW = 3 + 2 * COLUMN_COUNT;
const ROW = PACKED_ROW;

export type { PackedRows } from '../types.ts';

export class PackedBatch {
  readonly tenant: string;
  readonly writeVersion: bigint;
  readonly seriesCount: number;
  readonly pointCount: number;
  private readonly rows: Float64Array;
  private readonly memory: ArrayBufferLike[];
  /** By series index, where the series has text (TEXT, MIXED). */
  private readonly texts: (string[] | undefined)[] | undefined;
  // Views over each memory, made when first read.
  private f64s: (Float64Array | undefined)[] | undefined;
  private i64s: (BigInt64Array | undefined)[] | undefined;
  private u8s: (Uint8Array | undefined)[] | undefined;

  /**
   * A batch that passed assertIngestBatch (datapoint-write.ts): its columns are referenced, not
   * copied. Or series already packed (check it with assertPackedBatch), with their batch's
   * tenant and write version.
   */
  constructor(batch: IngestBatch | { tenant: string; writeVersion: bigint; packed: PackedRows }) {
    this.tenant = batch.tenant;
    this.writeVersion = batch.writeVersion;
    if ('packed' in batch) {
      // The same fields in the same order as below: one shape for every batch the insert reads.
      const { packed } = batch;
      this.seriesCount = packed.seriesCount;
      this.rows = packed.rows;
      this.memory = packed.memory;
      this.pointCount = packed.pointCount;
      this.texts = packed.texts;
      return;
    }
    const series = batch.series;
    this.seriesCount = series.length;
    this.rows = new Float64Array(series.length * ROW);
    this.memory = [];
    let points = 0;
    let texts: (string[] | undefined)[] | undefined;
    for (let i = 0; i < series.length; i++) {
      const s = series[i] as SeriesPoints;
      const row = i * ROW;
      const n = s.timestampMs.length;
      points += n;
      this.rows[row] = s.seriesId;
      this.rows[row + 1] = VALUE_TYPE_INDEX.get(s.valueType) as number;
      this.rows[row + 2] = n;
      for (let c = 0; c < COLUMN_COUNT; c++) {
        const column = seriesColumnAt(s, c);
        if (column === undefined) {
          this.rows[row + 3 + 2 * c] = -1;
          this.rows[row + 4 + 2 * c] = -1;
          continue;
        }
        this.rows[row + 3 + 2 * c] = this.memoryIndex(column.buffer);
        this.rows[row + 4 + 2 * c] = column.byteOffset;
      }
      if (s.text) (texts ??= new Array(series.length))[i] = s.text;
    }
    this.pointCount = points;
    this.texts = texts;
  }

  private memoryIndex(buffer: ArrayBufferLike): number {
    // Usually one (the slab the parse workers wrote the request's columns into).
    for (let m = 0; m < this.memory.length; m++) if (this.memory[m] === buffer) return m;
    return this.memory.push(buffer) - 1;
  }

  seriesId(i: number): number {
    return this.rows[i * ROW] as number;
  }

  /** Series i's valueType as its place in VALUE_TYPES. */
  valueTypeIndex(i: number): number {
    return (this.rows[i * ROW + 1] as number) | 0;
  }

  valueType(i: number): ValueType {
    return VALUE_TYPES[(this.rows[i * ROW + 1] as number) | 0] as ValueType;
  }

  /** Points of series i. */
  length(i: number): number {
    return (this.rows[i * ROW + 2] as number) | 0;
  }

  has(i: number, column: number): boolean {
    return (this.rows[i * ROW + 3 + 2 * column] as number) >= 0;
  }

  /** Where series i's `column` starts in the view that f64/i64/u8 return, in entries. */
  start(i: number, column: number): number {
    const byteOffset = this.rows[i * ROW + 4 + 2 * column] as number;
    // Small integers (| 0): an index read from a Float64Array is a double, and a double used as
    // an element index is slower than an integer until the caller is optimized.
    return column === PACKED_IS_TEXT ? byteOffset | 0 : (byteOffset / 8) | 0;
  }

  /** The memory series i's timestamps or float column lies in, as float64 entries. */
  f64(i: number, column: number): Float64Array {
    const m = (this.rows[i * ROW + 3 + 2 * column] as number) | 0;
    const views = (this.f64s ??= []);
    return views[m] ?? (views[m] = new Float64Array(this.memory[m] as ArrayBufferLike, 0, Math.floor((this.memory[m] as ArrayBufferLike).byteLength / 8)));
  }

  /** The memory series i's bigint or scaled column lies in, as int64 entries. */
  i64(i: number, column: number): BigInt64Array {
    const m = (this.rows[i * ROW + 3 + 2 * column] as number) | 0;
    const views = (this.i64s ??= []);
    return views[m] ?? (views[m] = new BigInt64Array(this.memory[m] as ArrayBufferLike, 0, Math.floor((this.memory[m] as ArrayBufferLike).byteLength / 8)));
  }

  /** The memory series i's isText column lies in, as bytes. */
  u8(i: number, column: number): Uint8Array {
    const m = (this.rows[i * ROW + 3 + 2 * column] as number) | 0;
    const views = (this.u8s ??= []);
    return views[m] ?? (views[m] = new Uint8Array(this.memory[m] as ArrayBufferLike));
  }

  /** Series i's first timestamp (it has at least one point). */
  firstTimestamp(i: number): number {
    return this.f64(i, PACKED_TS)[this.start(i, PACKED_TS)] as number;
  }

  text(i: number): string[] | undefined {
    return this.texts?.[i];
  }

  /**
   * The bytes the columns span when they lie back to back in one memory in the ingest log
   * record's order (series by series: timestamps, then the value columns in PACKED order), as
   * the parse workers write them: the record takes them as one part (owned-batch.ts).
   */
  columnRun(): Uint8Array | undefined {
    if (this.seriesCount === 0 || this.memory.length !== 1) return undefined;
    const start = this.rows[4] as number;
    let end = start;
    for (let i = 0; i < this.seriesCount; i++) {
      const row = i * ROW;
      const n = this.rows[row + 2] as number;
      for (let c = 0; c < COLUMN_COUNT; c++) {
        if ((this.rows[row + 3 + 2 * c] as number) < 0) continue;
        if (this.rows[row + 4 + 2 * c] !== end) return undefined;
        end += c === PACKED_IS_TEXT ? n : 8 * n;
      }
    }
    return new Uint8Array(this.memory[0] as ArrayBufferLike, start, end - start);
  }

  /** Series i as SeriesPoints: fresh views on the same memory (for what is not on the hot path). */
  series(i: number): SeriesPoints {
    const n = this.length(i);
    const points: SeriesPoints = { seriesId: this.seriesId(i), valueType: this.valueType(i), timestampMs: this.f64(i, PACKED_TS).subarray(this.start(i, PACKED_TS), this.start(i, PACKED_TS) + n) };
    if (this.has(i, PACKED_FLOAT)) points.float = this.f64(i, PACKED_FLOAT).subarray(this.start(i, PACKED_FLOAT), this.start(i, PACKED_FLOAT) + n);
    if (this.has(i, PACKED_BIGINT)) points.bigint = this.i64(i, PACKED_BIGINT).subarray(this.start(i, PACKED_BIGINT), this.start(i, PACKED_BIGINT) + n);
    if (this.has(i, PACKED_SCALED)) points.scaled = this.i64(i, PACKED_SCALED).subarray(this.start(i, PACKED_SCALED), this.start(i, PACKED_SCALED) + n);
    if (this.has(i, PACKED_IS_TEXT)) points.isText = this.u8(i, PACKED_IS_TEXT).subarray(this.start(i, PACKED_IS_TEXT), this.start(i, PACKED_IS_TEXT) + n);
    const text = this.text(i);
    if (text) points.text = text;
    return points;
  }

  /** The whole batch as an IngestBatch again. */
  unpack(): IngestBatch {
    return { tenant: this.tenant, writeVersion: this.writeVersion, series: Array.from({ length: this.seriesCount }, (_, i) => this.series(i)) };
  }
}

/** A batch as the insert reads it: packed as it is, or packed now (its columns referenced, not copied). */
export function packed(batch: IngestBatch | PackedBatch): PackedBatch {
  return batch instanceof PackedBatch ? batch : new PackedBatch(batch);
}
