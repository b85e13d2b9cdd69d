// Where the pieces of CDF's interpolating aggregates (cdf-pieces.ts) come from: the rollup
// rows of a window where they are current (a minute or an hour of points in one row), the live
// raw points of its dirty minutes, and the neighbours just outside it; or every raw point, for
// grids finer than a minute and families without the CDF rollup columns. Either way the pieces
// are the series' live points as of the read, exact under overwrites, late points and deletes.
import { DATAPOINTS_LIMIT_MAX, TIMESTAMP_MS_MAX } from '../../limits.ts';
import { ColumnarParams } from '../../stores/columnar-params.ts';
import type { ColumnarStore } from '../../stores/columnar.ts';
import { cdfPiecesSql } from './cdf-aggregates.sql.ts';
import { pointPiece, type Piece, type Point } from './cdf-pieces.ts';
import { contextsOf } from './datapoint-read-context.ts';
import { readRaw } from './datapoint-read.ts';
import { formatDatapointValue } from './datapoint-format.ts';
import { bucketRangeList, widenRanges } from './rollup-ranges.ts';
import type { ReadContextCache } from './read-context-cache.ts';
import { FAMILY_SHAPES, MINUTE_BUCKET_MS, ROLLUP_BUCKET_MS, familyOf } from '../tables/families.ts';
import type { SeriesPoints, SeriesRef } from '../types.ts';

/** A window's pieces in time order and the live points just outside it. */
export interface PieceRun {
  pieces: Piece[];
  before?: Point;
  after?: Point;
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

/** The last live numeric point before `from` and the first at or after `to`. */
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

/** Whether the series' family keeps the CDF rollup columns. */
export function hasCdfRollups(series: SeriesRef): boolean {
  return FAMILY_SHAPES[familyOf(series.valueType)].cdfRollups;
}

/** The columns of cdfPiecesSql, in Piece order. */
const PIECE_COLUMNS = ['first_ts', 'last_ts', 'first_v', 'last_v', 'n', 's', 'value_m2', 'lin_integral', 'lin_m2', 'step_integral', 'step_m2', 'total_variation'] as const;

/**
 * The pieces of [from, to) (both multiples of `base`, a minute or an hour): rows `base` wide
 * where no dirty range touches them, minute rows of the clean minutes of touched hours, and
 * every live point of dirty minutes, as the SPEC aggregates read rollups (datapoint-aggregate.ts).
 */
export async function rollupPieces(
  store: ColumnarStore, tenant: string, series: SeriesRef, base: number, from: number, to: number, cache?: ReadContextCache,
): Promise<PieceRun> {
  const shape = FAMILY_SHAPES[familyOf(series.valueType)];
  const id = series.seriesId;
  const dirty = (await contextsOf(store, tenant, [id], cache)).get(id)?.dirty ?? [];
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
  const [table, raw, edges] = await Promise.all([
    store.queryArrow(sql, { ...params.values, tenant, series_id: id, start: from, end: to }),
    Promise.all(dirtyMinutes.map(([b, e]) => rawPoints(store, tenant, series, b, e, cache))),
    neighbours(store, tenant, series, from, to, cache),
  ]);
  const columns = PIECE_COLUMNS.map((name) => table.getChild(name)?.toArray() as Float64Array | undefined);
  const pieces: Piece[] = [];
  for (let i = 0; i < table.numRows; i++) {
    const [firstTs, lastTs, firstV, lastV, n, sum, m2, linInt, linM2, stepInt, stepM2, tv] = columns.map((c) => (c?.[i] ?? 0)) as number[] as [
      number, number, number, number, number, number, number, number, number, number, number, number];
    pieces.push({ firstTs, lastTs, firstV, lastV, n, sum, m2, linInt, linM2, stepInt, stepM2, tv });
  }
  for (const points of raw) for (const p of points) pieces.push(pointPiece(p.ts, p.v));
  pieces.sort((x, y) => x.firstTs - y.firstTs);
  return { pieces, ...edges };
}
