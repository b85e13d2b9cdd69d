// Raw data point pages as Arrow columns (the Arrow answer of POST /timeseries/data/list,
// datapoint-arrow-answer.ts): the engine writes the columns (datapoint-arrow.sql.ts) and they
// are handed on as the buffers it wrote, one chunk per column, never as one object or string
// per point. Window, order, cursors and liveness are those of the JSON page (datapoint-read.ts
// readRawJson): a page's nextCursor is the same string, and like it a page is kept in the read
// context cache (form 'arrow') until a write to its series.
import { Float64, Int64, Utf8, makeData, type Data, type DataType } from 'apache-arrow';
import type { ColumnarStore } from '../../stores/columnar.ts';
import { encodeCursor } from './datapoint-cursor.ts';
import { bindTombstones, contextsOf } from './datapoint-read-context.ts';
import { rawArrowSql } from './datapoint-arrow.sql.ts';
import { FAMILY_SHAPES, familyOf, type Family } from '../tables/families.ts';
import { pageKey, type ReadContextCache } from './read-context-cache.ts';
import { bindQueued, hasQueued } from './queued-rows.ts';
import type { RawReadOptions, SeriesRef } from '../types.ts';
import { newestFrom, rawWindow, readNewest } from './datapoint-read.ts';

const INT64 = new Int64();
const FLOAT64 = new Float64();
const UTF8 = new Utf8();

/** One raw page of one series as Arrow columns, ascending by timestamp. */
export interface RawArrowPage {
  /** Points in the page. */
  length: number;
  /** Epoch ms, `length` rows. */
  timestamps: Data<Int64>;
  /** The values: float64 (FLOAT, FLOAT32, NUMERIC, DECIMAL32; MIXED, null at a text point), int64 (BIGINT) or utf8 (TEXT). */
  values: Data<Float64 | Int64 | Utf8>;
  /** MIXED only: the text points, null at a numeric point. */
  texts?: Data<Utf8>;
  nextCursor?: string;
}

/**
 * A raw page as Arrow columns: `limit` points from the cursor's position, and the nextCursor
 * the JSON page gives (ascending: the first point past the page; descending: one past the
 * newest point before it).
 */
export async function readRawArrow(store: ColumnarStore, tenant: string, series: SeriesRef, options: RawReadOptions, cache?: ReadContextCache): Promise<RawArrowPage> {
  const { start, end, descending } = rawWindow(options);
  if (start >= end) return { length: 0, ...emptyColumns(familyOf(series.valueType)) };
  // Kept as the JSON page is: a repeated 100,000-point FLOAT page took 20-30 ms in the engine
  // (FINAL over the series' parts, 2 shared cores) and 1.6 MB of columns kept.
  // A page holding points from the ingest log's memory is not kept: the store will hold them.
  if (hasQueued(series)) return readRawArrowPage(store, tenant, series, options, cache);
  const key = pageKey(tenant, series.seriesId, series.valueType, start, end, options.limit, descending, 'arrow');
  const cached = cache?.getPage<RawArrowPage>(key);
  if (cached) return cached;
  const mark = cache?.begin();
  const page = await readRawArrowPage(store, tenant, series, options, cache);
  cache?.setPage(mark, key, page, rawArrowPageBytes(page));
  return page;
}

/** The memory a page holds: every distinct buffer its columns view (a column may view the engine's whole answer). */
function rawArrowPageBytes(page: RawArrowPage): number {
  const buffers = new Set<ArrayBufferLike>();
  for (const data of [page.timestamps, page.values, page.texts]) {
    for (const view of [data?.values, data?.valueOffsets, data?.nullBitmap] as (ArrayBufferView | undefined)[]) if (view) buffers.add(view.buffer);
  }
  let bytes = 0;
  for (const buffer of buffers) bytes += buffer.byteLength;
  return bytes;
}

async function readRawArrowPage(store: ColumnarStore, tenant: string, series: SeriesRef, options: RawReadOptions, cache?: ReadContextCache): Promise<RawArrowPage> {
  const { start, end, descending } = rawWindow(options);
  const shape = FAMILY_SHAPES[familyOf(series.valueType)];
  const tombstones = bindTombstones((await contextsOf(store, tenant, [series.seriesId], cache)).values(), start, end);
  const queued = bindQueued(tenant, shape.family, [series]);
  const fetch = options.limit + 1;
  const table = await readNewest(descending, () => newestFrom(store, tenant, shape, series.seriesId, { start, end }, fetch, tombstones), { start },
    (from) => store.queryArrow(rawArrowSql(shape, descending ? 'DESC' : 'ASC', tombstones.form, queued.queued), {
      tenant, series_id: series.seriesId, start: from, end, fetch, ...tombstones.params, ...queued.params,
    }), (page) => page.numRows === fetch);
  const rows = table.numRows;
  const column = <T extends DataType>(name: string): Data<T> | undefined => {
    const chunks = table.getChild(name)?.data as Data<T>[] | undefined;
    return chunks && chunks.length > 0 ? joinChunks(chunks) : undefined;
  };
  const timestamps = column<Int64>('ts');
  const values = column<Float64 | Int64 | Utf8>('arrow_value');
  const texts = column<Utf8>('arrow_text');
  if (rows === 0 || !timestamps || !values) return { length: 0, ...emptyColumns(shape.family) };
  const past = rows > options.limit;
  // The point past the page is the last row ascending, the first descending (the rows come ascending).
  const from = past && descending ? 1 : 0;
  const length = past ? options.limit : rows;
  const page: RawArrowPage = {
    length,
    timestamps: timestamps.slice(from, length),
    values: values.slice(from, length),
    ...(texts ? { texts: texts.slice(from, length) } : {}),
  };
  if (!past) return page;
  // A Data's values start at its first row (a slice moves them; `offset` is for the validity bits only).
  const marker = Number(timestamps.values[descending ? 0 : rows - 1] as bigint);
  return { ...page, nextCursor: descending ? encodeCursor('d', marker + 1) : encodeCursor('a', marker) };
}

/** The columns of an empty page, typed as the family's are. */
function emptyColumns(family: Family): Pick<RawArrowPage, 'timestamps' | 'values' | 'texts'> {
  const timestamps = makeData({ type: INT64, length: 0, data: new BigInt64Array(0) });
  if (family === 'int') return { timestamps, values: makeData({ type: INT64, length: 0, data: new BigInt64Array(0) }) };
  if (family === 'text') return { timestamps, values: emptyUtf8() };
  const values = makeData({ type: FLOAT64, length: 0, data: new Float64Array(0) });
  return family === 'mixed' ? { timestamps, values, texts: emptyUtf8() } : { timestamps, values };
}

function emptyUtf8(): Data<Utf8> {
  return makeData({ type: UTF8, length: 0, valueOffsets: new Int32Array(1), data: new Uint8Array(0) });
}

/**
 * One chunk of a column the engine wrote in several record batches (a 100,000-point page came
 * as blocks of 65,409 and 34,592 rows): the answer has one record batch per page. Copies the
 * typed buffers; a point is never read as a value.
 */
export function joinChunks<T extends DataType>(chunks: readonly Data<T>[]): Data<T> {
  const first = chunks[0] as Data<T>;
  if (chunks.length === 1) return first;
  let length = 0;
  let nullCount = 0;
  for (const chunk of chunks) {
    length += chunk.length;
    nullCount += chunk.nullCount;
  }
  const nullBitmap = nullCount > 0 ? joinValidity(chunks, length) : undefined;
  if (first.valueOffsets) return joinVariableWidth(chunks, length, nullCount, nullBitmap);
  // The fixed-width columns here (int64, float64) hold one array element per row.
  const values = first.values as unknown as Float64Array;
  const joined = new (values.constructor as Float64ArrayConstructor)(length);
  let at = 0;
  for (const chunk of chunks) {
    joined.set((chunk.values as unknown as Float64Array).subarray(0, chunk.length), at);
    at += chunk.length;
  }
  return makeData({ type: first.type, length, nullCount, nullBitmap, data: joined } as never) as Data<T>;
}

/** Utf8 chunks: bytes back to back, offsets moved by the bytes before each chunk. */
function joinVariableWidth<T extends DataType>(chunks: readonly Data<T>[], length: number, nullCount: number, nullBitmap: Uint8Array | undefined): Data<T> {
  let bytes = 0;
  for (const chunk of chunks) {
    const offsets = chunk.valueOffsets as Int32Array;
    bytes += (offsets[chunk.length] as number) - (offsets[0] as number);
  }
  const data = new Uint8Array(bytes);
  const valueOffsets = new Int32Array(length + 1);
  let row = 0;
  let byte = 0;
  for (const chunk of chunks) {
    const offsets = chunk.valueOffsets as Int32Array;
    const begin = offsets[0] as number;
    const end = offsets[chunk.length] as number;
    data.set((chunk.values as unknown as Uint8Array).subarray(begin, end), byte);
    const shift = byte - begin;
    for (let i = 1; i <= chunk.length; i++) valueOffsets[row + i] = (offsets[i] as number) + shift;
    row += chunk.length;
    byte += end - begin;
  }
  return makeData({ type: chunks[0]?.type, length, nullCount, nullBitmap, valueOffsets, data } as never) as Data<T>;
}

/** The validity bits of the chunks, one after the other. */
function joinValidity(chunks: readonly Data[], length: number): Uint8Array {
  const bits = new Uint8Array(Math.ceil(length / 8));
  let row = 0;
  for (const chunk of chunks) {
    for (let i = 0; i < chunk.length; i++, row++) {
      if (chunk.getValid(i)) bits[row >> 3] = (bits[row >> 3] as number) | (1 << (row & 7));
    }
  }
  return bits;
}
