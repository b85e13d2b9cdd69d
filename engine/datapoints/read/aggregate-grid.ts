// Granularities of aggregate reads and the bucket grid they lay over a time range: the one
// place a granularity string is parsed. A granularity is a count of a unit, short or long
// (`30s`, `15m`, `2h`, `1d`, `1w`, `1mo`, `1q`, `1y`, `second(s)`, `minute(s)`, `hour(s)`,
// `day(s)`, `week(s)`, `month(s)`, `quarter(s)`, `year(s)`; a missing count is 1), within CDF's
// limits: 1-120 seconds or minutes, 1-100 000 hours, days or months (weeks, quarters and years
// count as the 7 days, 3 months and 12 months CDF's clients send for them).
//
// Alignment follows CDF: the first bucket starts at the request's start rounded down to the
// unit (a 1h read from 03:43 starts at 03:00; 15m from 03:43:25 at 03:43; 3mo from mid-February
// at February 1st); later edges are multiples of the granularity from there, and the last bucket
// is the one containing the end. Hours, days, weeks and months follow the time zone: a day is
// local midnight to local midnight (23 or 25 hours across a daylight-saving change), a month the
// 1st to the 1st; hours are always 60 minutes (only their start rounds in the zone); seconds and
// minutes ignore the zone.
import { BadRequestError } from '../../errors.ts';
import { TIMESTAMP_MS_MAX, TIMESTAMP_MS_MIN } from '../../limits.ts';
import { instantOf, parseTimeZone, wallOf, type TimeZone } from './time-zone.ts';

export type GranularityUnit = 'second' | 'minute' | 'hour' | 'day' | 'month';

export interface ParsedGranularity {
  count: number;
  unit: GranularityUnit;
}

const SECOND_MS = 1000;
const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** Each accepted unit word: the unit and how many of it one stands for. */
const UNITS: Record<string, [GranularityUnit, number]> = {
  s: ['second', 1], sec: ['second', 1], second: ['second', 1], seconds: ['second', 1],
  m: ['minute', 1], t: ['minute', 1], min: ['minute', 1], minute: ['minute', 1], minutes: ['minute', 1],
  h: ['hour', 1], hour: ['hour', 1], hours: ['hour', 1],
  d: ['day', 1], day: ['day', 1], days: ['day', 1],
  w: ['day', 7], week: ['day', 7], weeks: ['day', 7],
  mo: ['month', 1], month: ['month', 1], months: ['month', 1],
  q: ['month', 3], quarter: ['month', 3], quarters: ['month', 3],
  y: ['month', 12], year: ['month', 12], years: ['month', 12],
};

const COUNT_MAX: Record<GranularityUnit, number> = { second: 120, minute: 120, hour: 100_000, day: 100_000, month: 100_000 };
const UNIT_MS: Record<Exclude<GranularityUnit, 'month'>, number> = { second: SECOND_MS, minute: MINUTE_MS, hour: HOUR_MS, day: DAY_MS };

function badGranularity(text: string, why: string): BadRequestError {
  return new BadRequestError(`granularity ${JSON.stringify(text)}: ${why}`, [{ field: 'granularity', message: why, value: text }]);
}

/** `15m` -> { count: 15, unit: 'minute' }; 400 for anything CDF would not accept. */
export function parseGranularity(text: string): ParsedGranularity {
  const match = /^(\d{0,7})([a-z]+)$/i.exec(text.trim());
  const unit = match ? UNITS[(match[2] as string).toLowerCase()] : undefined;
  if (!match || !unit) throw badGranularity(text, 'a count and a unit: s, m, h, d, w, mo, q, y or second, minute, hour, day, week, month, quarter, year');
  const given = match[1] === '' ? 1 : Number(match[1]);
  const count = given * unit[1];
  const max = COUNT_MAX[unit[0]];
  if (given < 1 || count > max) throw badGranularity(text, `the count of ${unit[0]}s is 1 to ${max}`);
  return { count, unit: unit[0] };
}

/**
 * The buckets of a read: [start, end) cut at `edges` (calendar buckets) or every `stepMs` from
 * `start` (fixed ones). `cellMs` is the width rollup rows or raw points may be grouped by
 * before they are folded into buckets: every edge falls on a multiple of it from `origin`
 * (the granularity itself for a fixed grid; an hour, a minute or a second for calendar ones).
 */
export interface BucketGrid {
  start: number;
  end: number;
  stepMs?: number;
  edges?: number[];
  cellMs: number;
  origin: number;
}

/** The bucket holding ms (ms within [grid.start, grid.end)). */
export function bucketStartOf(grid: BucketGrid, ms: number): number {
  if (grid.stepMs !== undefined) return grid.start + Math.floor((ms - grid.start) / grid.stepMs) * grid.stepMs;
  const edges = grid.edges as number[];
  let lo = 0;
  let hi = edges.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if ((edges[mid] as number) <= ms) lo = mid;
    else hi = mid;
  }
  return edges[lo] as number;
}

/** The end of the bucket starting at bucketStart. */
export function bucketEndOf(grid: BucketGrid, bucketStart: number): number {
  if (grid.stepMs !== undefined) return bucketStart + grid.stepMs;
  const edges = grid.edges as number[];
  let lo = 0;
  let hi = edges.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((edges[mid] as number) <= bucketStart) lo = mid + 1;
    else hi = mid;
  }
  return edges[lo] as number;
}

/** The largest of second, minute, hour that every value is a multiple of (from the epoch). */
function commonCell(values: readonly number[]): number {
  for (const cell of [HOUR_MS, MINUTE_MS, SECOND_MS]) if (values.every((v) => v % cell === 0)) return cell;
  return 1;
}

/** Local day or month starts from the wall time `from`, `count` apart, until one reaches end (inclusive). */
function calendarEdges(zone: TimeZone, firstWall: number, unit: 'day' | 'month', count: number, end: number): number[] {
  const edges: number[] = [];
  const first = new Date(firstWall);
  for (let k = 0; ; k++) {
    const wall = unit === 'day'
      ? firstWall + k * count * DAY_MS
      : Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + k * count, 1);
    const edge = instantOf(zone, wall);
    if (edges.length > 0 && edge <= (edges[edges.length - 1] as number)) continue;
    edges.push(edge);
    if (edge >= end) return edges;
  }
}

/**
 * The grid of a read over [start, end) (end exclusive; buckets from the aligned start through
 * the one containing end - 1), or undefined when it holds no bucket. `from` (a cursor's bucket)
 * drops the buckets before it.
 */
export function bucketGrid(granularity: ParsedGranularity, zone: TimeZone, start: number, end: number, from?: number): BucketGrid | undefined {
  const { count, unit } = granularity;
  const clampedEnd = Math.min(end, TIMESTAMP_MS_MAX + 1);
  let grid: BucketGrid;
  if (unit === 'second' || unit === 'minute' || unit === 'hour' || (unit === 'day' && zone.fixedOffsetMs !== undefined)) {
    const unitMs = UNIT_MS[unit];
    const stepMs = count * unitMs;
    // Seconds and minutes ignore the zone; hours and fixed-offset days round in it.
    const offset = unit === 'second' || unit === 'minute' ? 0 : zone.offsetAt(start);
    const first = Math.floor((start + offset) / unitMs) * unitMs - offset;
    const last = first + Math.ceil((clampedEnd - first) / stepMs) * stepMs;
    grid = { start: first, end: Math.max(first, last), stepMs, cellMs: stepMs, origin: first };
    if (from !== undefined && from > grid.start) grid.start = first + Math.ceil((from - first) / stepMs) * stepMs;
  } else {
    const wall = wallOf(zone, Math.max(start, TIMESTAMP_MS_MIN - 2 * DAY_MS));
    const date = new Date(wall);
    const firstWall = unit === 'day' ? Math.floor(wall / DAY_MS) * DAY_MS : Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
    let edges = calendarEdges(zone, firstWall, unit, count, clampedEnd);
    if (from !== undefined) edges = edges.filter((e) => e >= from);
    grid = { start: edges[0] ?? clampedEnd, end: edges[edges.length - 1] ?? clampedEnd, edges, cellMs: commonCell(edges), origin: 0 };
  }
  return grid.start >= grid.end ? undefined : grid;
}

/** The grid of a request's granularity and time zone strings (400 for either invalid). */
export function requestGrid(granularity: string, timeZone: string | undefined, start: number, end: number, from?: number): BucketGrid | undefined {
  return bucketGrid(parseGranularity(granularity), parseTimeZone(timeZone), start, end, from);
}

/**
 * The time a read's buckets may cover, at most: the first starts up to one unit before
 * `start` (rounded down to the unit, not the multiple) and the last, holding `end - 1`, runs
 * up to `count` units past `end`; hours and longer are laid in a time zone, a day more either
 * way. A point outside it cannot change the answer (read barriers: list-datapoints.ts).
 */
export function bucketReach(granularity: ParsedGranularity, start: number, end: number): { start: number; end: number } {
  const unitMs = granularity.unit === 'month' ? 31 * DAY_MS : UNIT_MS[granularity.unit];
  const zoneMs = granularity.unit === 'second' || granularity.unit === 'minute' ? 0 : DAY_MS;
  return { start: start - unitMs - zoneMs, end: end + granularity.count * unitMs + zoneMs };
}
