// The chart's visible time range and how zoom and pan move it. Pure.

export interface TimeRange { startMs: number; endMs: number }

/** Zooming stops at one second: below that raw points are already as far apart as they get. */
export const RANGE_MS_MIN = 1000;
/** And at 100 years, past the API's 1900-2099 timestamp window. */
export const RANGE_MS_MAX = 100 * 365 * 24 * 3_600_000;
export const DEFAULT_RANGE_MS = 24 * 3_600_000;
export const ZOOM_STEP = 2;
export const PAN_FRACTION = 0.25;

export function defaultRange(nowMs: number): TimeRange {
  return { startMs: nowMs - DEFAULT_RANGE_MS, endMs: nowMs };
}

/** A range from `start`/`end` query parameters (epoch ms), else the default. */
export function rangeFromParams(params: URLSearchParams, nowMs: number): TimeRange {
  const start = Number(params.get('start'));
  const end = Number(params.get('end'));
  if (params.has('start') && params.has('end') && Number.isFinite(start) && Number.isFinite(end) && end > start) {
    return { startMs: start, endMs: end };
  }
  if (!params.has('start') && params.has('end') && Number.isFinite(end)) return { startMs: end - DEFAULT_RANGE_MS, endMs: end };
  return defaultRange(nowMs);
}

/**
 * Scales the range by factor (below 1 zooms in) around anchor, the fraction of the width
 * that stays put (0 the start, 1 the end).
 */
export function zoomRange(range: TimeRange, factor: number, anchor = 0.5): TimeRange {
  const widthMs = range.endMs - range.startMs;
  const nextWidthMs = Math.min(RANGE_MS_MAX, Math.max(RANGE_MS_MIN, widthMs * factor));
  const anchorMs = range.startMs + widthMs * anchor;
  const startMs = Math.round(anchorMs - nextWidthMs * anchor);
  return { startMs, endMs: startMs + Math.round(nextWidthMs) };
}

/** Moves the range by a fraction of its width (negative: back in time). */
export function panRange(range: TimeRange, fraction: number): TimeRange {
  const shiftMs = Math.round((range.endMs - range.startMs) * fraction);
  return { startMs: range.startMs + shiftMs, endMs: range.endMs + shiftMs };
}

/** The same width ending now: what Live shows. */
export function followNow(range: TimeRange, nowMs: number): TimeRange {
  return { startMs: nowMs - (range.endMs - range.startMs), endMs: nowMs };
}
