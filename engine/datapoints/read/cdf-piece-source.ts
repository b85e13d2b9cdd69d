// Where the pieces of CDF's interpolating aggregates (cdf-pieces.ts) come from: the rollup
// rows of a window where they are current (a minute or an hour of points in one row), the live
// raw points of its dirty minutes, and the neighbours just outside it; or every raw point, for
// grids finer than a minute and families without the CDF rollup columns. Either way the pieces
// are the series' live points as of the read, exact under overwrites, late points and deletes.
import { DATAPOINTS_LIMIT_MAX, TIMESTAMP_MS_MAX } from '../../limits.ts';
import { ColumnarParams } from '../../stores/columnar-params.ts';
import type { Table } from 'apache-arrow';
import type { ColumnarStore } from '../../stores/columnar.ts';
import { CDF_SERIES_LISTED_SQL, LIST_CDF_SERIES_SQL, cdfBackfillMarksSql, cdfNeighbourRowsSql, cdfPiecesSql } from './cdf-aggregates.sql.ts';
import { writeDirtyRanges } from '../write/dirty-ranges.ts';
import { pointPiece, type Piece, type Point } from './cdf-pieces.ts';
import { contextsOf } from './datapoint-read-context.ts';
import { withQueuedSpans } from './queued-rows.ts';
import { readRaw } from './datapoint-read.ts';
import { liveCover } from './live-points-take.ts';
import { formatDatapointValue } from './datapoint-format.ts';
import { bucketRangeList, widenRanges } from './rollup-ranges.ts';
import { rollupKey, type ReadContextCache } from './read-context-cache.ts';
import { FAMILY_SHAPES, MINUTE_BUCKET_MS, ROLLUP_BUCKET_MS, ceilTo, familyOf, floorTo } from '../tables/families.ts';
import type { SeriesPoints, SeriesRef } from '../types.ts';

/** A window's pieces in time order and the live points just outside it. */
export interface PieceRun {
  pieces: Piece[];
  before?: Point;
  after?: Point;
  /** False when a rollup row had no CDF columns: the pieces are not the window's points. */
  complete?: boolean;
}

/** A numeric value as a double (decimals and BIGINT through their text, as CDF's JSON has them). */
export function numberOf(series: SeriesRef, value: number | bigint): number {
  return typeof value === 'number' ? value : Number(formatDatapointValue(series.valueType, value));
}

/** The numeric points of a page (MIXED: its text points left out). */
function pointsOf(series: SeriesRef, page: SeriesPoints): Point[] {
  const out: Point[] = [];
  for (let i = 0; i < page.timestampMs.length; i++) {
    if (page.isText?.[i]) continue;
    const value = page.float?.[i] ?? page.bigint?.[i] ?? page.scaled?.[i];
    if (value !== undefined) out.push({ ts: page.timestampMs[i] as number, v: numberOf(series, value) });
  }
  return out;
}

/** Every live numeric point of [from, to), ascending. */
async function rawPoints(store: ColumnarStore, tenant: string, series: SeriesRef, from: number, to: number, cache?: ReadContextCache): Promise<Point[]> {
  const out: Point[] = [];
  let cursor: string | undefined;
  do {
    const page = await readRaw(store, tenant, series, { start: from, end: to, limit: DATAPOINTS_LIMIT_MAX, cursor }, cache);
    out.push(...pointsOf(series, page.points));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return out;
}

/** The last live numeric point before `from` and the first at or after `to`, from raw points. */
async function neighbours(store: ColumnarStore, tenant: string, series: SeriesRef, from: number, to: number, cache?: ReadContextCache): Promise<Pick<PieceRun, 'before' | 'after'>> {
  const [before, after] = await Promise.all([
    readRaw(store, tenant, series, { end: from, limit: 1 }, cache).then((page) => pointsOf(series, page.points)[0]),
    to <= TIMESTAMP_MS_MAX ? readRaw(store, tenant, series, { start: to, limit: 1 }, cache).then((page) => pointsOf(series, page.points)[0]) : undefined,
  ]);
  return { before, after };
}

/** Every live point of [from, to) as a piece of its own. */
export async function pointPieces(store: ColumnarStore, tenant: string, series: SeriesRef, from: number, to: number, cache?: ReadContextCache): Promise<PieceRun> {
  const [points, edges] = await Promise.all([rawPoints(store, tenant, series, from, to, cache), neighbours(store, tenant, series, from, to, cache)]);
  return { pieces: points.map((p) => pointPiece(p.ts, p.v)), ...edges };
}

/** Per store: the series this process knows to be listed, with when it last marked an incomplete window of each (0: never). */
const listed = new WeakMap<ColumnarStore, Map<string, number>>();
/** An incomplete window of a listed series is marked for the fold at most this often. */
const REMARK_MS = 10_000;

function listedBy(store: ColumnarStore): Map<string, number> {
  let series = listed.get(store);
  if (!series) listed.set(store, (series = new Map()));
  return series;
}

/**
 * Makes the fold keep the series' CDF columns from now on (families.ts CDF_SERIES_TABLE). Once
 * per process and series it asks whether the series is listed; if not, it lists it and marks
 * the span of its hour rows dirty, so the fold recomputes them with the columns (reads take raw
 * points meanwhile). A series listed before (by an earlier run) is not marked again.
 */
export async function listCdfSeries(store: ColumnarStore, tenant: string, series: SeriesRef): Promise<void> {
  const known = listedBy(store);
  const key = `${tenant}\u0000${series.seriesId}`;
  if (known.has(key)) return;
  const params = { tenant, series_id: series.seriesId };
  const [row] = await store.query<{ listed: string }>(CDF_SERIES_LISTED_SQL, params);
  if (Number(row?.listed ?? 0) === 0) {
    await store.command(LIST_CDF_SERIES_SQL, params);
    await store.command(cdfBackfillMarksSql(FAMILY_SHAPES[familyOf(series.valueType)]), params);
  }
  known.set(key, 0);
}

/**
 * Marks a window of a listed series whose rows still lack the CDF columns (a fold that had
 * started before the listing wrote them without), at most every REMARK_MS per series.
 */
export async function remarkIncomplete(store: ColumnarStore, tenant: string, series: SeriesRef, from: number, to: number): Promise<void> {
  const known = listedBy(store);
  const key = `${tenant}\u0000${series.seriesId}`;
  const now = Date.now();
  if (now - (known.get(key) ?? 0) < REMARK_MS) return;
  known.set(key, now);
  const family = FAMILY_SHAPES[familyOf(series.valueType)].family;
  await writeDirtyRanges(store, [{ tenant, seriesId: series.seriesId, family, beginMs: floorTo(from, ROLLUP_BUCKET_MS), endMs: ceilTo(to, ROLLUP_BUCKET_MS) }]);
}

/** Whether the series' family keeps the CDF rollup columns. */
export function hasCdfRollups(series: SeriesRef): boolean {
  return FAMILY_SHAPES[familyOf(series.valueType)].cdfRollups;
}

/** The piece columns of cdf-aggregates.sql.ts, in Piece order. */
const PIECE_COLUMNS = ['first_ts', 'last_ts', 'first_v', 'last_v', 'n', 's', 'value_m2', 'lin_integral', 'lin_m2', 'step_integral', 'step_m2', 'total_variation'] as const;

/**
 * Rows of the piece statements: pieces (side 0) and the rows just outside the window (1 before,
 * 2 after); `complete` false when a piece's row has no CDF columns (cdf_complete 0).
 */
interface PieceRows {
  pieces: Piece[];
  complete: boolean;
  below?: { bucket: number; piece: Piece };
  above?: { bucket: number; piece: Piece; complete: boolean };
}

function pieceRows(table: Table): PieceRows {
  const columns = PIECE_COLUMNS.map((name) => table.getChild(name)?.toArray() as Float64Array | undefined);
  const [side, bucket] = [table.getChild('side')?.toArray(), table.getChild('bucket')?.toArray() as Float64Array | undefined];
  const complete = table.getChild('complete')?.toArray() as Float64Array | undefined;
  const out: PieceRows = { pieces: [], complete: true };
  for (let i = 0; i < table.numRows; i++) {
    const [firstTs, lastTs, firstV, lastV, n, sum, m2, linInt, linM2, stepInt, stepM2, tv] = columns.map((c) => (c?.[i] ?? 0)) as number[] as [
      number, number, number, number, number, number, number, number, number, number, number, number];
    const piece: Piece = { firstTs, lastTs, firstV, lastV, n, sum, m2, linInt, linM2, stepInt, stepM2, tv };
    const at = bucket?.[i] as number;
    const which = Number(side?.[i] ?? 0);
    const whole = complete?.[i] === 1;
    // The newest row before the window (its last point is a SPEC column, kept for every series), the oldest after it.
    if (which === 0) {
      out.pieces.push(piece);
      out.complete &&= whole;
    } else if (which === 1 && (!out.below || at > out.below.bucket)) {
      out.below = { bucket: at, piece };
    } else if (which === 2 && (!out.above || at < out.above.bucket)) {
      out.above = { bucket: at, piece, complete: whole };
    }
  }
  return out;
}

/** Runs of at most this many pieces are kept in the read cache (a 6 h 1m window: 360). */
const KEPT_PIECES_MAX = 1_500;

/** Rows this far outside the window come with its pieces, as neighbour candidates. */
const NEAR_MS = 3_600_000;

/**
 * The pieces of [from, to) (both multiples of `base`, a minute or an hour): rows `base` wide
 * where no dirty range touches them, minute rows of the clean minutes of touched hours, and
 * every live point of dirty minutes, as the SPEC aggregates read rollups (datapoint-aggregate.ts).
 * The neighbours come from the minute rows just outside the window, in the same statement when
 * within an hour of it (a raw read with FINAL reaching back or ahead cost 10-20 ms even for one
 * point here): the newest row before `from` holds the last point before it when no dirty range
 * lies between them, the oldest from `to` on the first point after when none lies between.
 * Further away they are looked for in all minute rows, and where dirty ranges lie between, in
 * raw points.
 */
export async function rollupPieces(
  store: ColumnarStore, tenant: string, series: SeriesRef, base: number, from: number, to: number, cache?: ReadContextCache,
): Promise<PieceRun> {
  const shape = FAMILY_SHAPES[familyOf(series.valueType)];
  const id = series.seriesId;
  // Kept only if nothing was written to the series from here (the contexts) to the fetch.
  const mark = cache?.begin();
  // Points still in the ingest log's memory are in no rollup row: their minutes are read raw.
  const context = (await contextsOf(store, tenant, [id], cache)).get(id);
  const dirty = withQueuedSpans(new Map([[id, context?.dirty ?? []]]), [series]).get(id) ?? [];
  // A series without dirty ranges reads rows only: its run is kept until its next write or fold.
  const key = dirty.length === 0 ? rollupKey(tenant, `cdf${shape.family}`, from, to, base, 0, [id]) : undefined;
  const kept = key !== undefined ? cache?.getRollup<PieceRun>(key)?.[0] : undefined;
  if (kept) return kept;
  const dirtyMinutes = widenRanges(dirty, MINUTE_BUCKET_MS, from, to);
  const params = new ColumnarParams();
  const notDirtyMinutes = dirtyMinutes.length > 0 ? `NOT (${bucketRangeList(params, new Map([[id, dirtyMinutes]]), MINUTE_BUCKET_MS)})` : '';
  let sql: string;
  if (base === MINUTE_BUCKET_MS) {
    sql = cdfPiecesSql(shape, shape.minuteTable, notDirtyMinutes);
  } else {
    const dirtyHours = widenRanges(dirty, ROLLUP_BUCKET_MS, from, to);
    if (dirtyHours.length === 0) {
      sql = cdfPiecesSql(shape, shape.rollupTable, '');
    } else {
      const hours = new Map([[id, dirtyHours]]);
      sql = `${cdfPiecesSql(shape, shape.rollupTable, `NOT (${bucketRangeList(params, hours, ROLLUP_BUCKET_MS)})`)}
UNION ALL
${cdfPiecesSql(shape, shape.minuteTable, `(${bucketRangeList(params, hours, MINUTE_BUCKET_MS)}) AND ${notDirtyMinutes}`)}`;
    }
  }
  const bounds = { tenant, series_id: id, start: from, end: Math.min(to, TIMESTAMP_MS_MAX + 1) };
  // Dirty minutes of a FLOAT series held in memory while written are read there (live-points.ts).
  const cover = cache && dirtyMinutes.length > 0 ? await liveCover(store, cache, tenant, series, context, dirty, dirtyMinutes, true) : undefined;
  const held = cover && cover.inMemory.length > 0 ? cache?.live.points(tenant, id, cover.inMemory, series.queued) : undefined;
  const fromStore = held && cover ? cover.fromStore : dirtyMinutes;
  const [rows, raw] = await Promise.all([
    store.queryArrow(sql, { ...params.values, ...bounds, reach_ms: NEAR_MS }).then(pieceRows),
    Promise.all(fromStore.map(([b, e]) => rawPoints(store, tenant, series, b, e, cache))),
  ]);
  if (!rows.complete) return { pieces: [], complete: false };
  const pieces = rows.pieces;
  for (const points of [...raw, held ?? []]) for (const p of points) pieces.push(pointPiece(p.ts, p.v));
  pieces.sort((x, y) => x.firstTs - y.firstTs);
  let { below, above } = rows;
  if (!below || (!above && to <= TIMESTAMP_MS_MAX)) {
    const far = pieceRows(await store.queryArrow(cdfNeighbourRowsSql(shape), bounds));
    below ??= far.below;
    above ??= far.above;
  }
  const clean = (begin: number, end: number) => !dirty.some(([b, e]) => b < end && e > begin);
  const beforeKnown = clean(below?.bucket ?? -Infinity, from);
  // A row's end: an hour at most (hour or minute rows).
  const afterKnown = to > TIMESTAMP_MS_MAX || (clean(to, above !== undefined ? above.bucket + ROLLUP_BUCKET_MS : Infinity) && above?.complete !== false);
  const edges = beforeKnown && afterKnown ? {} : await neighbours(store, tenant, series, from, to, cache);
  const before = beforeKnown ? (below ? { ts: below.piece.lastTs, v: below.piece.lastV } : undefined) : edges.before;
  const after = to > TIMESTAMP_MS_MAX ? undefined : afterKnown ? (above ? { ts: above.piece.firstTs, v: above.piece.firstV } : undefined) : edges.after;
  const run: PieceRun = { pieces, before, after, complete: true };
  if (key !== undefined && pieces.length <= KEPT_PIECES_MAX) cache?.setRollup(mark, key, [run]);
  return run;
}
