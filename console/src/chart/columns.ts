// Data point answers into uPlot's columnar arrays: one shared time column and, per series, an
// average (or raw value) column with optional min and max columns for the band. Pure.

/** One series' points, ascending by time. Raw series have min and max null. */
export interface SeriesColumns {
  timesMs: number[];
  values: (number | null)[];
  mins: (number | null)[] | null;
  maxs: (number | null)[] | null;
}

export interface RawPoint { timestamp: number | string; value: string | number | null }
export interface AggregatePoint { timestamp: number | string; average?: string | number; min?: string | number; max?: string | number; count?: number }

export function emptyColumns(withBand: boolean): SeriesColumns {
  return { timesMs: [], values: [], mins: withBand ? [] : null, maxs: withBand ? [] : null };
}

/** A point value as a number; values are decimal strings on read (docs/api.md "Data points"). */
export function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string' || value.trim() === '') return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
}

export function toEpochMs(timestamp: number | string): number {
  return typeof timestamp === 'number' ? timestamp : Date.parse(timestamp);
}

export function rawColumns(points: RawPoint[]): SeriesColumns {
  const columns = emptyColumns(false);
  for (const point of points) {
    columns.timesMs.push(toEpochMs(point.timestamp));
    columns.values.push(toNumber(point.value));
  }
  return columns;
}

export function aggregateColumns(points: AggregatePoint[]): SeriesColumns {
  const columns = emptyColumns(true);
  for (const point of points) {
    columns.timesMs.push(toEpochMs(point.timestamp));
    columns.values.push(toNumber(point.average));
    columns.mins!.push(toNumber(point.min));
    columns.maxs!.push(toNumber(point.max));
  }
  return columns;
}

/** uPlot's AlignedData: the time column first, then the value columns. */
export type AlignedColumns = [number[], ...(number | null)[][]];

/** Where each series' columns sit in the aligned data (indices into AlignedColumns). */
export interface SeriesColumnIndex { value: number; min: number | null; max: number | null }

/**
 * Merges several series onto one ascending time column, null where a series has no point at
 * a time. Columns per series: value, then min and max when it has a band.
 */
export function alignColumns(series: SeriesColumns[]): { data: AlignedColumns; index: SeriesColumnIndex[] } {
  const times = new Set<number>();
  for (const one of series) for (const time of one.timesMs) times.add(time);
  const timeColumn = [...times].sort((a, b) => a - b);
  const rowOf = new Map<number, number>();
  timeColumn.forEach((time, row) => rowOf.set(time, row));
  const data: AlignedColumns = [timeColumn];
  const index: SeriesColumnIndex[] = [];
  const scatter = (times: number[], values: (number | null)[]): number => {
    const column: (number | null)[] = new Array(timeColumn.length).fill(null);
    times.forEach((time, i) => { column[rowOf.get(time)!] = values[i] ?? null; });
    data.push(column);
    return data.length - 1;
  };
  for (const one of series) {
    const value = scatter(one.timesMs, one.values);
    const min = one.mins ? scatter(one.timesMs, one.mins) : null;
    const max = one.maxs ? scatter(one.timesMs, one.maxs) : null;
    index.push({ value, min, max });
  }
  return { data, index };
}

/** Number of points or buckets drawn: the series' point counts summed. */
export function pointCount(series: SeriesColumns[]): number {
  return series.reduce((sum, one) => sum + one.timesMs.length, 0);
}
