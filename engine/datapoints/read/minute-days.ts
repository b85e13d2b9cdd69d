// Minute rollup rows of FLOAT series held in memory by whole UTC days (minute-day-rows.ts
// MinuteDay, kept by read-context-cache.ts): fetched in one statement for the days a 1m read
// misses, fetched after a fold for the days it recomputed (warmMinuteDays), and folded into the
// partials of a grid made of whole minutes (minuteDayPartials), so a panned chart's next window
// runs no statement.
import { ColumnarParams } from '../../stores/columnar-params.ts';
import type { ColumnarStore } from '../../stores/columnar.ts';
import type { FoldedMark } from '../rollups/rollup-fold.ts';
import { MINUTE_BUCKET_MS, floorTo } from '../tables/families.ts';
import { bucketStartOf, type BucketGrid } from './aggregate-grid.ts';
import { MINUTE_DAYS_SQL } from './datapoint-read.sql.ts';
import { WHOLE_MINUTE_DAY_BYTES, minuteDayBytes, minuteRows, packMinuteDay, type MinuteDay } from './minute-day-rows.ts';
import { MINUTE_DAYS_BYTES_MAX, type ReadContextCache } from './read-context-cache.ts';
import type { Range } from './series-context.ts';

/** A read's window and grid, as far as the minute days go. */
export interface MinuteRange { start: number; end: number; grid: BucketGrid }

/** Count, sum and extremes of a grid cell's minutes. */
export interface MinutePartial { n: number; s: number; lo: number; hi: number }

const DAY_MS = 86_400_000;
/** Series-days a 1m read may take from minute days held in memory; wider reads run the rollup statement. */
export const MINUTE_DAYS_PER_READ_MAX = 64;

/** Whether a sorted, merged range list covers ms. */
function covers(ranges: readonly Range[] | undefined, ms: number): boolean {
  if (!ranges) return false;
  for (const [b, e] of ranges) {
    if (ms < b) return false;
    if (ms < e) return true;
  }
  return false;
}

/**
 * Fetches whole UTC days of FLOAT minute rows, one statement for all of them, and keeps each
 * day (read-context-cache.ts) unless a fold reported one of its minutes since `mark`
 * (cache.beginMinuteDays() taken before the statement). Resolves with the days by `${id}:${day}`.
 */
export async function loadMinuteDays(
  store: ColumnarStore, tenant: string, wanted: readonly (readonly [id: number, day: number])[], cache: ReadContextCache, mark: number,
): Promise<Map<string, MinuteDay>> {
  const loaded = new Map<string, MinuteDay>();
  if (wanted.length === 0) return loaded;
  const params = new ColumnarParams();
  const list = wanted.map(([id, day]) => `(series_id = ${params.bind(id, 'UInt64')} AND bucket >= ${params.bind(day, 'Int64')} AND bucket < ${params.bind(day + DAY_MS, 'Int64')})`).join(' OR ');
  const all = minuteRows(await store.queryArrow(MINUTE_DAYS_SQL(list), { ...params.values, tenant }));
  const series = all.series;
  // Rows ordered by series and bucket: each wanted (series, day) is one contiguous slice.
  let at = 0;
  for (const [id, day] of [...wanted].sort((a, b) => a[0] - b[0] || a[1] - b[1])) {
    while (at < series.length && (series[at] as number) < id) at++;
    while (at < series.length && series[at] === id && (all.bucket[at] as number) < day) at++;
    const from = at;
    while (at < series.length && series[at] === id && (all.bucket[at] as number) < day + DAY_MS) at++;
    const slice = packMinuteDay(all, from, at, day);
    cache.setMinuteDay(mark, tenant, id, day, slice);
    loaded.set(`${id}:${day}`, slice);
  }
  return loaded;
}

/**
 * After a fold, the days of FLOAT series it recomputed are fetched into memory (the first 1m
 * read after a load then runs no statement). While points come, a round whose days would take
 * more than half of the minute days' memory is left out: a gateway's steady stream refolds the
 * same days round after round, and fetching them would only evict what readers hold. Once
 * ingest is quiet (`quiet`: a load has ended) the round's days are fetched newest first (what
 * dashboards read) until the next statement's days might not fit the whole memory, counting
 * what each fetch brought (a day of a load's edge holds few rows), so the days of a load
 * larger than the memory's half are held too and a round never evicts the days it fetched.
 * Call once the fold's series are reported changed to the cache.
 */
export async function warmMinuteDays(
  store: ColumnarStore, cache: ReadContextCache, folded: readonly FoldedMark[], { quiet = false, bytesMax = MINUTE_DAYS_BYTES_MAX }: { quiet?: boolean; bytesMax?: number } = {},
): Promise<void> {
  const seen = new Set<string>();
  const days: { tenant: string; id: number; day: number }[] = [];
  for (const mark of folded) {
    if (mark.family !== 'float') continue;
    for (let day = floorTo(mark.beginMs, DAY_MS); day < mark.endMs; day += DAY_MS) {
      const key = `${mark.tenant}\u0000${mark.seriesId}:${day}`;
      if (!seen.has(key)) days.push({ tenant: mark.tenant, id: mark.seriesId, day });
      seen.add(key);
    }
  }
  if (days.length === 0 || (!quiet && days.length * WHOLE_MINUTE_DAY_BYTES > bytesMax / 2)) return;
  days.sort((a, b) => b.day - a.day || (a.tenant < b.tenant ? -1 : a.tenant > b.tenant ? 1 : 0));
  let bytes = 0;
  let wanted: [number, number][] = [];
  let tenant = '';
  // One statement per tenant's run of days, as many as fit what is left counted as whole days.
  const fetch = async (): Promise<void> => {
    for (const day of (await loadMinuteDays(store, tenant, wanted, cache, cache.beginMinuteDays())).values()) bytes += minuteDayBytes(day);
    wanted = [];
  };
  /** Whole days that still fit, counting the fetched ones as they came. */
  const room = (): number => Math.floor((bytesMax - bytes) / WHOLE_MINUTE_DAY_BYTES);
  for (const day of days) {
    if (wanted.length > 0 && (day.tenant !== tenant || wanted.length >= Math.min(MINUTE_DAYS_PER_READ_MAX, room()))) await fetch();
    if (room() === 0) return;
    tenant = day.tenant;
    wanted.push([day.id, day.day]);
  }
  if (wanted.length > 0) await fetch();
}

/** The UTC days a range touches. */
export function dayStartsOf(range: MinuteRange): number[] {
  const days: number[] = [];
  for (let day = floorTo(range.start, DAY_MS); day < range.end; day += DAY_MS) days.push(day);
  return days;
}

/** Whether the cache holds every day of minute rows these series' reads of the range take. */
export function holdsMinuteDays(cache: ReadContextCache, tenant: string, ids: readonly number[], range: MinuteRange): boolean {
  const days = dayStartsOf(range);
  return ids.every((id) => days.every((day) => cache.getMinuteDay(tenant, id, day) !== undefined));
}

/**
 * Partials of FLOAT series per bucket of a grid made of whole minutes, from whole days of
 * minute rows held in memory (each new window of a panned chart reads no statement once its
 * days are held), fetched in one statement where missing; minutes of dirty ranges left out
 * (the caller reads them raw).
 */
export async function minuteDayPartials(
  store: ColumnarStore, tenant: string, ids: readonly number[], range: MinuteRange, dirtyMinutes: ReadonlyMap<number, Range[]>, cache: ReadContextCache,
): Promise<Map<number, Map<number, MinutePartial>>> {
  const mark = cache.beginMinuteDays();
  const dayStarts = dayStartsOf(range);
  const days = new Map<number, MinuteDay[]>(ids.map((id) => [id, []]));
  const missing: [id: number, day: number][] = [];
  for (const id of ids) {
    for (const day of dayStarts) {
      const kept = cache.getMinuteDay(tenant, id, day);
      if (kept) days.get(id)?.push(kept);
      else missing.push([id, day]);
    }
  }
  for (const [key, day] of await loadMinuteDays(store, tenant, missing, cache, mark)) days.get(Number(key.split(':')[0]))?.push(day);
  const out = new Map<number, Map<number, MinutePartial>>();
  const oneMinute = range.grid.stepMs === MINUTE_BUCKET_MS;
  for (const [id, held] of days) {
    const buckets = new Map<number, MinutePartial>();
    const dirty = dirtyMinutes.get(id);
    for (const day of held) {
      for (let i = 0; i < day.minute.length; i++) {
        const bucket = day.dayMs + (day.minute[i] as number) * MINUTE_BUCKET_MS;
        if (bucket < range.start || bucket >= range.end || covers(dirty, bucket)) continue;
        const cell = oneMinute ? bucket : bucketStartOf(range.grid, bucket);
        const n = day.n[i] as number;
        const sum = day.s[i] as number;
        const lo = day.lo[i] as number;
        const hi = day.hi[i] as number;
        const into = oneMinute ? undefined : buckets.get(cell);
        if (!into) buckets.set(cell, { n, s: sum, lo, hi });
        else {
          into.n += n;
          into.s += sum;
          if (lo < into.lo) into.lo = lo;
          if (hi > into.hi) into.hi = hi;
        }
      }
    }
    out.set(id, buckets);
  }
  return out;
}
