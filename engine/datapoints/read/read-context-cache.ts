// What reads of the embedded engine keep in memory between them: the read
// context of every series (read-context-index.ts: dirty ranges and tombstones, so a read runs
// no context statement), the rollup rows of clean ranges (a repeated dashboard aggregate runs
// no statement: bench Q1, Q2, Q4) and raw JSON pages (Q3). Only for the embedded engine: chdb
// locks its data directory to one process, so every write to the data point tables passes
// through this process's DatapointStore, which reports each write here with the series it
// touches. With a ClickHouse server other processes write (Kafka ingesters, other api
// replicas), and none of this exists.
//
// Invalidation is per series (a gateway writing series X every few ms must not
// evict the dashboard's series Y). A kept result names the series it depends on and the write
// sequence when its fetch started (begin()); it is valid while none of them has had a write
// end since, nor has one running. The fold reports the series it recomputed once it returns:
// until then the index still holds their folded ranges dirty, so no kept result covers them.
//
// The series of a result come from its key, which the read modules (datapoint-read.ts,
// datapoint-aggregate.ts, datapoint-latest.ts) build with rollupKey/latestKey/pageKey below,
// beside the three formats that parse them back (KEY_FORMATS). A key of any other form
// depends on every series: kept only while nothing at all is written.
import { ReadContextIndex } from './read-context-index.ts';
import { LivePoints } from './live-points.ts';
import { minuteDayBytes, type MinuteDay } from './minute-day-rows.ts';

/** Rollup results kept (clean ranges only), and the rows one may hold. */
export const ROLLUP_RESULTS_MAX = 1_000;
export const ROLLUP_RESULT_ROWS_MAX = 10_000;
/**
 * Bytes of raw JSON pages kept: a dashboard repeating a 100 000-point read (bench Q3) gets
 * the page the engine wrote last time, until a write to its series. A quarter of it per page at most.
 */
export const RAW_PAGES_BYTES_MAX = 64 * 1024 * 1024;
/**
 * Bytes of minute rollup days kept (an analyst panning a chart asks a new 6 h window
 * of 1m aggregates each time; the rows of the series' day are the same): 30 bytes a minute
 * row, 43 KB for a whole day, so ~2.2 million rows, the minutes of ~1,550 whole series-days
 * (the 1,000 series of 100M points at 1 s take 1.67 million). A day that is not held costs
 * a statement of 5-8 ms (most of it the engine's fixed cost of reading a part).
 */
export const MINUTE_DAYS_BYTES_MAX = 64 * 1024 * 1024;

const DAY_MS = 86_400_000;

/** Series whose last write is remembered; past it every kept result is dropped and the list restarts. */
export const WRITTEN_SERIES_MAX = 200_000;

/** The series a kept result depends on; 'all' when its key has no known form. */
type Dependencies = { tenant: string; ids: readonly number[] } | 'all';

interface Kept<T> { value: T; dependsOn: Dependencies; mark: number }

const IDS = '(\\d+(?:,\\d+)*)';
/** The key formats of the read modules, whole: tenant, then the series ids. */
const KEY_FORMATS: readonly RegExp[] = [
  new RegExp(`^([^\\u0000]+)\\u0000[a-z0-9]+:-?\\d+:-?\\d+:\\d+:-?\\d+:${IDS}$`),
  new RegExp(`^latest\\u0000([^\\u0000]+)\\u0000[a-z0-9]+\\u0000${IDS}$`),
  /^raw\u0000([^\u0000]+)\u0000(\d+)\u0000[A-Z0-9]+\u0000-?\d+\u0000-?\d+\u0000\d+\u0000(?:true|false)\u0000[a-z]+$/,
];

/** Rows grouped to `granularityMs` cells counted from `origin` (aggregate-grid.ts BucketGrid). */
export function rollupKey(tenant: string, family: string, start: number, end: number, granularityMs: number, origin: number, ids: readonly number[]): string {
  return `${tenant}\u0000${family}:${start}:${end}:${granularityMs}:${origin}:${ids.join(',')}`;
}

export function latestKey(tenant: string, family: string, ids: readonly number[]): string {
  return `latest\u0000${tenant}\u0000${family}\u0000${ids.join(',')}`;
}

export function pageKey(tenant: string, seriesId: number, valueType: string, start: number, end: number, limit: number, descending: boolean, form: string): string {
  return `raw\u0000${tenant}\u0000${seriesId}\u0000${valueType}\u0000${start}\u0000${end}\u0000${limit}\u0000${descending}\u0000${form}`;
}

/** The series a key names, or 'all' when it has none of the known forms. */
export function dependenciesOf(key: string): Dependencies {
  for (const format of KEY_FORMATS) {
    const match = format.exec(key);
    if (match) return { tenant: match[1] as string, ids: (match[2] as string).split(',').map(Number) };
  }
  return 'all';
}

/** Kept results within a byte budget, least recently used first (raw pages, minute days). */
class KeptBytes<V> {
  private readonly entries = new Map<string, Kept<V> & { bytes: number }>();
  private bytes = 0;

  constructor(private readonly bytesMax: number) {}

  /** The value, if kept and still `valid` (an invalid one is dropped); marks it recently used. */
  get(key: string, valid: (kept: Kept<V>) => boolean): V | undefined {
    const kept = this.entries.get(key);
    if (!kept) return undefined;
    this.entries.delete(key);
    if (!valid(kept)) {
      this.bytes -= kept.bytes;
      return undefined;
    }
    this.entries.set(key, kept);
    return kept.value;
  }

  set(key: string, kept: Kept<V>, bytes: number): void {
    const previous = this.entries.get(key);
    if (previous) {
      this.entries.delete(key);
      this.bytes -= previous.bytes;
    }
    while (this.bytes + bytes > this.bytesMax && this.entries.size > 0) {
      const [oldest, entry] = this.entries.entries().next().value as [string, { bytes: number }];
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
    this.entries.set(key, { ...kept, bytes });
    this.bytes += bytes;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}

export class ReadContextCache {
  /** The authoritative read contexts (read-context-index.ts). */
  readonly index: ReadContextIndex;
  private writeSeq = 0;
  /** Results fetched before this are never valid (the written-series list restarted). */
  private floorSeq = 0;
  private writesRunning = 0;
  private readonly lastWrite = new Map<string, Map<number, number>>();
  private lastWriteCount = 0;
  private readonly running = new Map<string, Map<number, number>>();
  private readonly rollups = new Map<string, Kept<readonly unknown[]>>();
  /** Raw pages by read key. */
  private readonly pages = new KeptBytes<unknown>(RAW_PAGES_BYTES_MAX);
  /** Minute rollup days by series and day, and the fold's reports that invalidate them. */
  private readonly minuteDays = new KeptBytes<MinuteDay>(MINUTE_DAYS_BYTES_MAX);
  private minuteSeq = 0;
  private minuteFloorSeq = 0;
  /** The last fold report (minuteSeq) that named a minute of each series-day. */
  private readonly minuteFolds = new Map<string, number>();
  /** Live points of FLOAT series being charted while written (live-points.ts). */
  readonly live = new LivePoints();

  constructor(index = new ReadContextIndex()) {
    this.index = index;
  }

  /** A mark to pass to setRollup()/setPage() after fetching. */
  begin(): number | undefined {
    return this.writeSeq;
  }

  /** A write to these series starts (insert, delete, purge). */
  writeStarted(series: Iterable<readonly [tenant: string, seriesId: number]>): void {
    this.writesRunning++;
    for (const [tenant, id] of series) {
      let ids = this.running.get(tenant);
      if (!ids) this.running.set(tenant, (ids = new Map()));
      ids.set(id, (ids.get(id) ?? 0) + 1);
    }
  }

  /** The write of writeStarted() ended, resolved or failed. */
  writeEnded(series: Iterable<readonly [tenant: string, seriesId: number]>): void {
    this.writesRunning--;
    const seq = ++this.writeSeq;
    for (const [tenant, id] of series) {
      const ids = this.running.get(tenant);
      const count = (ids?.get(id) ?? 1) - 1;
      if (count > 0) ids?.set(id, count);
      else {
        ids?.delete(id);
        if (ids?.size === 0) this.running.delete(tenant);
      }
      this.noteWrite(tenant, id, seq);
    }
  }

  /** Rows of these series changed at once (the fold, the purge): results fetched before are stale. */
  changed(series: Iterable<readonly [tenant: string, seriesId: number]>): void {
    const seq = ++this.writeSeq;
    for (const [tenant, id] of series) this.noteWrite(tenant, id, seq);
  }

  /** Drops every kept result (after the index was replaced from the tables). */
  clearResults(): void {
    this.writeSeq++;
    this.floorSeq = this.writeSeq;
    this.rollups.clear();
    this.pages.clear();
    this.minuteDays.clear();
    this.minuteFolds.clear();
    this.minuteFloorSeq = ++this.minuteSeq;
  }

  getRollup<Row>(key: string): readonly Row[] | undefined {
    const kept = this.rollups.get(key);
    if (!kept) return undefined;
    if (this.valid(kept.dependsOn, kept.mark)) return kept.value as readonly Row[];
    this.rollups.delete(key);
    return undefined;
  }

  /** Keeps a rollup statement's rows fetched since begin() returned mark, if none of its series was written meanwhile. */
  setRollup(mark: number | undefined, key: string, rows: readonly unknown[]): void {
    if (mark === undefined || rows.length > ROLLUP_RESULT_ROWS_MAX) return;
    const dependsOn = dependenciesOf(key);
    if (!this.valid(dependsOn, mark)) return;
    this.rollups.delete(key);
    if (this.rollups.size >= ROLLUP_RESULTS_MAX) this.rollups.delete(this.rollups.keys().next().value as string);
    this.rollups.set(key, { value: rows, dependsOn, mark });
  }

  getPage<Page>(key: string): Page | undefined {
    return this.pages.get(key, (kept) => this.valid(kept.dependsOn, kept.mark)) as Page | undefined;
  }

  /** Keeps a raw page of `bytes` fetched since begin() returned mark, like setRollup(); evicts the least recently used. */
  setPage(mark: number | undefined, key: string, value: unknown, bytes: number): void {
    if (mark === undefined || bytes > RAW_PAGES_BYTES_MAX / 4) return;
    const dependsOn = dependenciesOf(key);
    if (this.valid(dependsOn, mark)) this.pages.set(key, { value, dependsOn, mark }, bytes);
  }

  /**
   * A series' minute rows of the day starting at dayMs, as fetched with every minute of it.
   * Only the fold changes minute rows, and only in the ranges it recomputes, which are dirty
   * in the index until it reports them (foldedMinutes): a reader answers dirty minutes from
   * raw points. So a day stays valid across inserts to its series (a gateway writing the
   * series does not evict the dashboard's days) until a fold reports one of its minutes.
   */
  getMinuteDay(tenant: string, seriesId: number, dayMs: number): MinuteDay | undefined {
    const key = `${tenant}\u0000${seriesId}\u0000${dayMs}`;
    return this.minuteDays.get(key, (kept) => this.minuteDayValid(key, kept.mark));
  }

  /** A mark to pass to setMinuteDay() after fetching. */
  beginMinuteDays(): number {
    return this.minuteSeq;
  }

  /** Keeps a minute day fetched since beginMinuteDays() returned mark, unless a fold reported one of its minutes meanwhile. */
  setMinuteDay(mark: number, tenant: string, seriesId: number, dayMs: number, day: MinuteDay): void {
    const key = `${tenant}\u0000${seriesId}\u0000${dayMs}`;
    if (this.minuteDayValid(key, mark)) this.minuteDays.set(key, { value: day, dependsOn: 'all', mark }, minuteDayBytes(day));
  }

  /** The fold recomputed these minutes of a series (call with its report, before its ranges are clean in the index). */
  foldedMinutes(tenant: string, seriesId: number, beginMs: number, endMs: number): void {
    if (this.minuteFolds.size >= WRITTEN_SERIES_MAX) {
      // Forgetting which days were folded is safe only if every day held is forgotten too.
      this.minuteFolds.clear();
      this.minuteDays.clear();
      this.minuteFloorSeq = this.minuteSeq + 1;
    }
    const seq = ++this.minuteSeq;
    for (let day = beginMs - (((beginMs % DAY_MS) + DAY_MS) % DAY_MS); day < endMs; day += DAY_MS) {
      this.minuteFolds.set(`${tenant}\u0000${seriesId}\u0000${day}`, seq);
    }
  }

  private minuteDayValid(key: string, mark: number): boolean {
    return mark >= this.minuteFloorSeq && (this.minuteFolds.get(key) ?? 0) <= mark;
  }

  /** Whether a result fetched from `mark` on is still what a fresh fetch would return. */
  private valid(dependsOn: Dependencies, mark: number): boolean {
    if (mark < this.floorSeq) return false;
    if (dependsOn === 'all') return this.writesRunning === 0 && mark === this.writeSeq;
    const running = this.running.get(dependsOn.tenant);
    const written = this.lastWrite.get(dependsOn.tenant);
    for (const id of dependsOn.ids) {
      if (running?.has(id)) return false;
      if ((written?.get(id) ?? -1) > mark) return false;
    }
    return true;
  }

  private noteWrite(tenant: string, seriesId: number, seq: number): void {
    if (this.lastWriteCount >= WRITTEN_SERIES_MAX) {
      // Forgetting who was written is safe only if everything fetched before is forgotten too.
      this.lastWrite.clear();
      this.lastWriteCount = 0;
      this.clearResults();
    }
    let ids = this.lastWrite.get(tenant);
    if (!ids) this.lastWrite.set(tenant, (ids = new Map()));
    if (!ids.has(seriesId)) this.lastWriteCount++;
    ids.set(seriesId, seq);
  }
}
