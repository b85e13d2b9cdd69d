// Appends live points to a series' columns while keeping memory bounded: points that slid out
// of the visible window are dropped, and at most a fixed count is kept. Pure (mutates only the
// columns it is given).
import type { SeriesColumns } from './columns.ts';

/** Points kept per series while live: the raw page size, so live never holds more than a read. */
export const LIVE_POINTS_MAX = 10_000;

export interface LivePoint { timeMs: number; value: number | null }

/**
 * Appends points (any order) after the last kept time, then drops points before windowStartMs
 * and the oldest past pointsMax. A point at or before the last kept time replaces the kept
 * value at that exact time or is ignored, since reads already drew that past.
 */
export function appendLivePoints(columns: SeriesColumns, points: LivePoint[], windowStartMs: number, pointsMax = LIVE_POINTS_MAX): void {
  const sorted = [...points].sort((a, b) => a.timeMs - b.timeMs);
  for (const point of sorted) {
    const lastTime = columns.timesMs[columns.timesMs.length - 1];
    if (lastTime !== undefined && point.timeMs <= lastTime) {
      if (point.timeMs === lastTime) setLast(columns, point.value);
      continue;
    }
    columns.timesMs.push(point.timeMs);
    columns.values.push(point.value);
    columns.mins?.push(point.value);
    columns.maxs?.push(point.value);
  }
  let drop = 0;
  while (drop < columns.timesMs.length && columns.timesMs[drop]! < windowStartMs) drop++;
  drop = Math.max(drop, columns.timesMs.length - pointsMax);
  if (drop > 0) dropOldest(columns, drop);
}

function setLast(columns: SeriesColumns, value: number | null): void {
  const last = columns.timesMs.length - 1;
  columns.values[last] = value;
  if (columns.mins) columns.mins[last] = value;
  if (columns.maxs) columns.maxs[last] = value;
}

function dropOldest(columns: SeriesColumns, count: number): void {
  columns.timesMs.splice(0, count);
  columns.values.splice(0, count);
  columns.mins?.splice(0, count);
  columns.maxs?.splice(0, count);
}
