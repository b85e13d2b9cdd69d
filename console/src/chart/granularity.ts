// Which resolution a chart reads for its visible range. Pure; the loader (load.ts) asks it and
// falls back one step coarser when a raw page comes back full.

export type Granularity = 'raw' | '1m' | '1h' | '1d';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Ranges up to this are read raw: at 1 point/s that is 7,200 points, under RAW_POINTS_MAX. */
export const RAW_RANGE_MS_MAX = 2 * HOUR_MS;
/** Up to 3 days of 1m buckets is 4,320, under the API's 10,000 aggregate buckets per item. */
export const MINUTE_RANGE_MS_MAX = 3 * DAY_MS;
/** Up to 90 days of 1h buckets is 2,160; 1d covers anything longer (27 years in 10,000). */
export const HOUR_RANGE_MS_MAX = 90 * DAY_MS;

/** Raw points asked per series; a full page means the range is too dense for raw drawing. */
export const RAW_POINTS_MAX = 10_000;
/** docs/api.md "Data points": aggregates max 10,000 buckets per item. */
export const AGGREGATE_BUCKETS_MAX = 10_000;

export function granularityForRange(rangeMs: number): Granularity {
  if (rangeMs <= RAW_RANGE_MS_MAX) return 'raw';
  if (rangeMs <= MINUTE_RANGE_MS_MAX) return '1m';
  if (rangeMs <= HOUR_RANGE_MS_MAX) return '1h';
  return '1d';
}

/** One step coarser: what a full raw page falls back to. */
export function coarserGranularity(granularity: Granularity): Granularity {
  switch (granularity) {
    case 'raw': return '1m';
    case '1m': return '1h';
    default: return '1d';
  }
}
