// Raw data point pages: one statement for a page of one series, the tombstones of
// its context bound; the engine can write the page's JSON itself (readRawJson). Exact for every
// acknowledged write and delete, whatever the fold has caught up with.
import { Table } from 'apache-arrow';
import { DATAPOINTS_LIMIT_MAX, TIMESTAMP_MS_MAX, TIMESTAMP_MS_MIN } from '../../limits.ts';
import type { ColumnarStore } from '../../stores/columnar.ts';
import { decodeCursor, encodeCursor } from './datapoint-cursor.ts';
import { assertLimit, bindTombstones, contextsOf, type BoundTombstones } from './datapoint-read-context.ts';
import { newestFromSql, rawJsonSql, rawReadSql } from './datapoint-read.sql.ts';
import { FAMILY_SHAPES, familyOf, type FamilyShape } from '../tables/families.ts';
import { pageKey, type ReadContextCache } from './read-context-cache.ts';
import { bindQueued, hasQueued } from './queued-rows.ts';
import type { RawReadOptions, RawReadResult, SeriesPoints, SeriesRef } from '../types.ts';

const END_MAX = TIMESTAMP_MS_MAX + 1;

function column<T>(table: Table, name: string, empty: T): T {
  return (table.getChild(name)?.toArray() as T | undefined) ?? empty;
}

/** Arrow columns of a raw page as SeriesPoints (ascending after `reverse`). */
function pointsOf(series: SeriesRef, table: Table, count: number, reverse: boolean): SeriesPoints {
  const family = familyOf(series.valueType);
  const take = <A extends { slice(a: number, b: number): A; reverse(): A }>(values: A): A => {
    const page = values.slice(0, count);
    return reverse ? page.reverse() : page;
  };
  const points: SeriesPoints = { seriesId: series.seriesId, valueType: series.valueType, timestampMs: take(column(table, 'ts_ms', new Float64Array(0))) };
  if (family === 'float' || family === 'mixed') points.float = take(column(table, 'value', new Float64Array(0)));
  if (family === 'int') points.bigint = take(column(table, 'value', new BigInt64Array(0)));
  if (family === 'numeric' || family === 'decimal32') points.scaled = take(column(table, 'value', new BigInt64Array(0)));
  if (family === 'text') points.text = take([...column<string[]>(table, 'value', [])]);
  if (family === 'mixed') {
    points.text = take([...column<string[]>(table, 'text', [])]);
    points.isText = take(column(table, 'is_text', new Uint8Array(0)));
  }
  return points;
}

/** The time window and direction of a raw page after its cursor. */
export function rawWindow(options: RawReadOptions): { start: number; end: number; descending: boolean } {
  assertLimit(options.limit, DATAPOINTS_LIMIT_MAX);
  // SPEC: start omitted means the most recent `limit` points; later pages walk back in time.
  const descending = options.start === undefined;
  let start = options.start ?? TIMESTAMP_MS_MIN;
  let end = options.end ?? END_MAX;
  if (options.cursor !== undefined) {
    if (descending) end = Math.min(end, decodeCursor(options.cursor, 'd'));
    else start = Math.max(start, decodeCursor(options.cursor, 'a'));
  }
  return { start, end, descending };
}

/**
 * Where a descending page of `fetch` points can start its window instead of `start`
 * (newestFromSql), or undefined: the window holds fewer stored rows, or its tombstones are
 * bound as a join, which no ordered read stops early through. The narrowed window holds the
 * page unless timestamps in it are stored in several versions (not merged yet); a page that
 * comes out short of `fetch` is then read again from `start` (readNewest).
 */
export async function newestFrom(
  store: ColumnarStore, tenant: string, shape: FamilyShape, seriesId: number, window: { start: number; end: number }, fetch: number, tombstones: BoundTombstones,
): Promise<number | undefined> {
  if (tombstones.form === 'join') return undefined;
  const [row] = await store.query<{ from_ms: string }>(newestFromSql(shape, tombstones.form), {
    tenant, series_id: seriesId, start: window.start, end: window.end, newest_skip: fetch - 1, ...tombstones.params,
  });
  return row === undefined ? undefined : Number(row.from_ms);
}

/**
 * A raw page read by `read(start)`: ascending from `window.start`; descending from where its
 * newest points begin (newestFrom), again from `window.start` when that page is short
 * (`complete` false: versions counted twice) and so might have left a point out.
 */
export async function readNewest<T>(
  descending: boolean, locate: () => Promise<number | undefined>, window: { start: number }, read: (start: number) => Promise<T>, complete: (page: T) => boolean,
): Promise<T> {
  const from = descending ? await locate() : undefined;
  if (from === undefined) return read(window.start);
  const page = await read(from);
  return complete(page) ? page : read(window.start);
}

export async function readRaw(store: ColumnarStore, tenant: string, series: SeriesRef, options: RawReadOptions, cache?: ReadContextCache): Promise<RawReadResult> {
  const { start, end, descending } = rawWindow(options);
  if (start >= end) return { points: pointsOf(series, new Table(), 0, false) };
  const shape = FAMILY_SHAPES[familyOf(series.valueType)];
  const tombstones = bindTombstones((await contextsOf(store, tenant, [series.seriesId], cache)).values(), start, end);
  const queued = bindQueued(tenant, shape.family, [series]);
  const fetch = options.limit + 1;
  const table = await readNewest(descending, () => newestFrom(store, tenant, shape, series.seriesId, { start, end }, fetch, tombstones), { start },
    (from) => store.queryArrow(rawReadSql(shape, descending ? 'DESC' : 'ASC', tombstones.form, queued.queued), {
      tenant, series_id: series.seriesId, start: from, end, limit: fetch, ...tombstones.params, ...queued.params,
    }), (page) => page.numRows === fetch);
  const count = Math.min(table.numRows, options.limit);
  const points = pointsOf(series, table, count, descending);
  if (table.numRows <= options.limit) return { points };
  const edge = descending ? (points.timestampMs[0] as number) : (points.timestampMs[count - 1] as number) + 1;
  return { points, nextCursor: encodeCursor(descending ? 'd' : 'a', edge) };
}

/** A raw page as JSON text: `datapoints` holds the array's elements, comma-separated, no brackets. */
export interface RawJsonResult {
  datapoints: Uint8Array;
  nextCursor?: string;
}

const NEWLINE = 0x0a;

/**
 * readRaw with the engine writing the JSON of each point (rawJsonSql): a 100 000-point page
 * costs about 20 ms in the engine instead of ~15 ms plus 30-60 ms of JS string building
 * (bench Q3). Same window, order, cursors and liveness rules as readRaw.
 */
export async function readRawJson(store: ColumnarStore, tenant: string, series: SeriesRef, options: RawReadOptions, cache?: ReadContextCache): Promise<RawJsonResult> {
  const { start, end, descending } = rawWindow(options);
  if (start >= end) return { datapoints: new Uint8Array(0) };
  // A page holding points from the ingest log's memory is not kept: the store will hold them.
  if (hasQueued(series)) return readRawJsonPage(store, tenant, series, options, cache);
  const key = pageKey(tenant, series.seriesId, series.valueType, start, end, options.limit, descending, options.form ?? 'spec');
  const cached = cache?.getPage<RawJsonResult>(key);
  if (cached) return cached;
  const mark = cache?.begin();
  const page = await readRawJsonPage(store, tenant, series, options, cache);
  cache?.setPage(mark, key, page, page.datapoints.byteLength);
  return page;
}

async function readRawJsonPage(store: ColumnarStore, tenant: string, series: SeriesRef, options: RawReadOptions, cache?: ReadContextCache): Promise<RawJsonResult> {
  const { start, end, descending } = rawWindow(options);
  const shape = FAMILY_SHAPES[familyOf(series.valueType)];
  const tombstones = bindTombstones((await contextsOf(store, tenant, [series.seriesId], cache)).values(), start, end);
  const queued = bindQueued(tenant, shape.family, [series]);
  const fetch = options.limit + 1;
  // Points never contain a raw newline (JSON escapes it): a newline starts the marker row, the point past a full page.
  const bytes = await readNewest(descending, () => newestFrom(store, tenant, shape, series.seriesId, { start, end }, fetch, tombstones), { start }, async (from) => {
    const raw = await store.queryBytes(rawJsonSql(shape, descending ? 'DESC' : 'ASC', tombstones.form, options.form, queued.queued), {
      tenant, series_id: series.seriesId, start: from, end, limit: options.limit, fetch, ...tombstones.params, ...queued.params,
    });
    return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  }, (page) => page.includes(NEWLINE));
  const marker = bytes.indexOf(NEWLINE);
  if (marker < 0) return { datapoints: bytes.subarray(1) };
  if (marker !== bytes.lastIndexOf(NEWLINE)) throw new Error('raw JSON page: more than one row past the page');
  if (descending) {
    // The marker leads: `\n<ts>,{...}`; the next page ends after the marker's point.
    if (marker !== 0) throw new Error('raw JSON page: the row past a descending page is not first');
    const comma = bytes.indexOf(0x2c);
    const edge = Number(bytes.toString('latin1', 1, comma < 0 ? bytes.length : comma));
    return { datapoints: comma < 0 ? new Uint8Array(0) : bytes.subarray(comma + 1), nextCursor: encodeCursor('d', edge + 1) };
  }
  const edge = Number(bytes.toString('latin1', marker + 1));
  return { datapoints: bytes.subarray(1, marker), nextCursor: encodeCursor('a', edge) };
}
