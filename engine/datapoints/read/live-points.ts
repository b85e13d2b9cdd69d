// The live points of FLOAT series a chart is reading while they are written, held in memory
// (a memtable), so an aggregate read counts their dirty minutes without a statement. A live
// chart (bench V1 (c)) read the raw table under FINAL for the minutes the fold had not reached
// yet: 14-178 ms a statement during a 250,000 points/s ingest, whatever the minutes (the cost
// follows the raw parts an ingest leaves and the CPU), against ~3 ms for the rest of the read.
//
// Each held series has a floor: memory holds every live point of the series at or after it,
// deduplicated per timestamp by write version as the store does. That holds from the moment a
// series is taken in: its points at or after the floor are read once from the store (a
// statement with their versions), and every write that ends from just before that statement
// on is added (ReadContextFollower.write calls written() once a write's rows are in; a write
// that ended before the statement began is in its answer, one that ends later is added; one
// in both is the same version). Points still in the ingest log's memory come with each read
// (SeriesRef.queued) and are merged there. Raising a floor keeps the rule true, so memory is
// bounded by raising floors and by dropping series; a read of minutes below a series' floor
// takes the statement for them as before.
//
// Deletes are not applied here: a series with a tombstone is not taken in, and a delete of a
// held series drops it (deleteStarted()). A failed write drops everything (clear()): its rows may be
// in the store partly. Only for the embedded engine, where every write passes this process
// (read-context-cache.ts).
import type { QueuedRun } from '../types.ts';
import type { Range } from './series-context.ts';
import { MINUTE_BUCKET_MS, familyOf, floorTo } from '../tables/families.ts';
import { PACKED_FLOAT, PACKED_TS, type PackedBatch } from '../write/packed-batch.ts';
import { HeldPoints, lowerBound } from './held-points.ts';

/** Points held for all series together (24 bytes each: time, value, version). */
export const LIVE_POINTS_MAX = 2_000_000;
/** Points one series may hold; past it its floor rises to drop the older half. */
export const LIVE_SERIES_POINTS_MAX = 500_000;
/** Series held at once; past it the one read longest ago is dropped. */
export const LIVE_SERIES_MAX = 1_000;
/** A series no read has asked for in this long is dropped (its writes cost a copy each). */
export const LIVE_IDLE_MS = 120_000;
/** A held series is read from the store again (a lower floor) at most this often. */
const RETAKE_MS = 10_000;
/** A series with more points from the floor on than it may hold is not tried again for this long. */
export const TOO_LARGE_BACKOFF_MS = 60_000;

/** count, sum, min, max of a cell, as datapoint-aggregate.ts folds them. */
export interface LivePartial { n: number; s: number; lo: number; hi: number }

/** A series' state: the points reads take (`held`), and a retake from the store under way. */
interface LiveSeries {
  held?: HeldPoints;
  taking?: HeldPoints;
  /** Date.now() of the last read and of the last take from the store. */
  readMs: number;
  takenMs: number;
}

/** What a read of one series' raw ranges takes from memory, and what it still reads from the store. */
export interface LiveCover {
  /** Parts of the ranges memory answers (at or after the held floor). */
  inMemory: Range[];
  /** The rest, for the store's statement. */
  fromStore: Range[];
  /** A floor to take the series in at (or take it again lower), when the caller should. */
  take?: number;
}

/** The rows of the statement taking a series in: its live points at or after the floor. */
export interface TakenRows { ts: ArrayLike<number>; values: ArrayLike<number>; versions: ArrayLike<bigint> }

export class LivePoints {
  private readonly byTenant = new Map<string, Map<number, LiveSeries>>();
  private seriesCount = 0;
  /**
   * At least the points held (raised by every add, counted exactly only when it passes
   * LIVE_POINTS_MAX): the bound is checked at every insert, and counting walks every series.
   */
  private pointsCeiling = 0;
  private deletesRunning = 0;
  private readonly counters = { taken: 0, dropped: 0, cellsFromMemory: 0, pointsFromMemory: 0 };

  /** Series held, points held, and how often reads were answered from memory. */
  stats(): { series: number; points: number; taken: number; dropped: number; cellsFromMemory: number; pointsFromMemory: number } {
    return { series: this.seriesCount, points: this.pointsHeld(), ...this.counters };
  }

  private pointsHeld(): number {
    let points = 0;
    for (const bySeries of this.byTenant.values()) for (const s of bySeries.values()) points += (s.held?.length ?? 0) + (s.taking?.length ?? 0);
    return points;
  }

  /**
   * Splits a read's raw ranges (ascending, disjoint) of a FLOAT series without tombstones into
   * what memory answers and what the store must; asks for a take (at `floor`, at most the
   * ranges' start: other windows of the chart reach further) when the series is not held, or
   * held above the ranges and not taken lately.
   */
  cover(tenant: string, seriesId: number, ranges: readonly Range[], floor = Infinity, nowMs = Date.now()): LiveCover {
    const first = ranges[0];
    if (!first) return { inMemory: [], fromStore: [] };
    const series = this.byTenant.get(tenant)?.get(seriesId);
    if (series) series.readMs = nowMs;
    const held = series?.held;
    const wanted = floorTo(Math.min(floor, first[0]), MINUTE_BUCKET_MS);
    // Not held yet, or held above these ranges; a take that failed or was refused is not tried again at once.
    const take = !series || (!series.taking && (!held || wanted < held.floor) && nowMs - series.takenMs >= RETAKE_MS) ? wanted : undefined;
    if (!held) return { inMemory: [], fromStore: [...ranges], ...(take !== undefined ? { take } : {}) };
    const inMemory: Range[] = [];
    const fromStore: Range[] = [];
    for (const [b, e] of ranges) {
      if (e <= held.floor) fromStore.push([b, e]);
      else if (b >= held.floor) inMemory.push([b, e]);
      else {
        fromStore.push([b, held.floor]);
        inMemory.push([held.floor, e]);
      }
    }
    return { inMemory, fromStore, ...(take !== undefined ? { take } : {}) };
  }

  /**
   * Starts taking a series in at `floor`: writes ending from now on are kept for it. Call just
   * before the statement reading its live points at or after `floor`, then taken() with them
   * (or abandon()). Returns false when the series cannot be taken now.
   */
  beginTake(tenant: string, seriesId: number, floor: number, nowMs = Date.now()): boolean {
    let bySeries = this.byTenant.get(tenant);
    let series = bySeries?.get(seriesId);
    if (series?.taking || this.deletesRunning > 0) return false;
    if (!series) {
      if (this.seriesCount >= LIVE_SERIES_MAX) this.dropLeastRead();
      if (!bySeries) this.byTenant.set(tenant, (bySeries = new Map()));
      bySeries.set(seriesId, (series = { readMs: nowMs, takenMs: nowMs }));
      this.seriesCount++;
    }
    series.takenMs = nowMs;
    series.taking = new HeldPoints(floor);
    return true;
  }

  /** The statement's rows for a take begun with beginTake: the series is held from its floor on. */
  taken(tenant: string, seriesId: number, floor: number, rows: TakenRows): void {
    const series = this.byTenant.get(tenant)?.get(seriesId);
    const taking = series?.taking;
    // Forgotten meanwhile (a delete, a failed write), or another take replaced it.
    if (!series || !taking || taking.floor !== floor) return;
    for (let i = 0; i < rows.ts.length; i++) taking.add(rows.ts[i] as number, rows.values[i] as number, rows.versions[i] as bigint);
    this.pointsCeiling += rows.ts.length;
    taking.sort();
    series.taking = undefined;
    series.held = taking;
    this.counters.taken++;
    this.bound(series);
    this.boundAll();
  }

  /**
   * A take that failed or was refused: the series stays as it was (not held: reads take the
   * store). The next take waits RETAKE_MS, plus `backoffMs` (a series too large to hold).
   */
  abandon(tenant: string, seriesId: number, backoffMs = 0, nowMs = Date.now()): void {
    const series = this.byTenant.get(tenant)?.get(seriesId);
    if (!series) return;
    series.taking = undefined;
    series.takenMs = nowMs + backoffMs;
  }

  /** A write's rows are in the store: their points of held series (and of series being taken) are kept. */
  written(batches: readonly PackedBatch[], nowMs = Date.now()): void {
    if (this.seriesCount === 0) return;
    for (const batch of batches) {
      const bySeries = this.byTenant.get(batch.tenant);
      if (!bySeries) continue;
      for (let s = 0; s < batch.seriesCount; s++) {
        const seriesId = batch.seriesId(s);
        const series = bySeries.get(seriesId);
        if (!series) continue;
        if (nowMs - series.readMs > LIVE_IDLE_MS || familyOf(batch.valueType(s)) !== 'float') {
          this.drop(batch.tenant, seriesId);
          continue;
        }
        const n = batch.length(s);
        const ts = batch.f64(s, PACKED_TS);
        const values = batch.f64(s, PACKED_FLOAT);
        const tsAt = batch.start(s, PACKED_TS);
        const valueAt = batch.start(s, PACKED_FLOAT);
        for (const held of [series.held, series.taking]) {
          if (!held) continue;
          for (let i = 0; i < n; i++) held.add(ts[tsAt + i] as number, values[valueAt + i] as number, batch.writeVersion);
          this.pointsCeiling += n;
        }
        this.bound(series);
      }
    }
    this.boundAll();
  }

  /**
   * A delete (tombstones) of these series starts: memory no longer knows their live points,
   * and no series is taken in until it ends (its tombstones may not be readable yet).
   */
  deleteStarted(series: Iterable<readonly [tenant: string, seriesId: number]>): void {
    this.deletesRunning++;
    for (const [tenant, seriesId] of series) this.drop(tenant, seriesId);
  }

  deleteEnded(): void {
    this.deletesRunning--;
  }

  /** Drops every series (a write failed: what the store holds is not known here). */
  clear(): void {
    this.byTenant.clear();
    this.seriesCount = 0;
    this.pointsCeiling = 0;
  }

  /**
   * Raises a held series' floor to `floor` (minute-aligned) where that is higher, but never
   * above the minute of its newest point (the next point of a time-major writer falls in it or
   * later): for a floor at the first range the fold has not recomputed yet.
   */
  settle(tenant: string, seriesId: number, floor: number): void {
    const held = this.byTenant.get(tenant)?.get(seriesId)?.held;
    if (!held || held.length === 0) return;
    held.sort();
    held.raise(Math.min(floorTo(floor, MINUTE_BUCKET_MS), floorTo(held.ts[held.length - 1] as number, MINUTE_BUCKET_MS)));
  }

  /**
   * The series' live points in `ranges` (all at or after its floor: cover()'s inMemory), with
   * the points of `queued` (still in the ingest log's memory) merged in by version, as held
   * points; undefined when the series is no longer held (the caller reads the store).
   */
  private view(tenant: string, seriesId: number, ranges: readonly Range[], queued: readonly QueuedRun[] | undefined): HeldPoints | undefined {
    const held = this.byTenant.get(tenant)?.get(seriesId)?.held;
    const first = ranges[0];
    if (!held || !first || first[0] < held.floor) return undefined;
    held.sort();
    if (!queued || queued.length === 0) return held;
    // Held and queued points of the ranges' span, merged by version.
    const [from, to] = [first[0], (ranges[ranges.length - 1] as Range)[1]];
    const merged = new HeldPoints(from);
    for (let i = lowerBound(held.ts, held.length, from); i < held.length && (held.ts[i] as number) < to; i++) {
      merged.add(held.ts[i] as number, held.values[i] as number, held.versions[i] as bigint);
    }
    for (const { writeVersion, points: run } of queued) {
      const values = run.float;
      if (!values) continue;
      for (let i = 0; i < run.timestampMs.length; i++) {
        const ts = run.timestampMs[i] as number;
        if (ts >= from && ts < to) merged.add(ts, values[i] as number, writeVersion);
      }
    }
    merged.sort();
    return merged;
  }

  /**
   * count, sum, min, max per grid cell (`cellMs` wide from `origin`) of the series' live points
   * in `ranges` (view()), or undefined when the series is no longer held.
   */
  partials(tenant: string, seriesId: number, ranges: readonly Range[], queued: readonly QueuedRun[] | undefined, cellMs: number, origin: number): Map<number, LivePartial> | undefined {
    const points = this.view(tenant, seriesId, ranges, queued);
    if (!points) return undefined;
    const out = new Map<number, LivePartial>();
    const { ts, values } = points;
    for (const [b, e] of ranges) {
      for (let i = lowerBound(ts, points.length, b); i < points.length && (ts[i] as number) < e; i++) {
        const t = ts[i] as number;
        const v = values[i] as number;
        const cell = t - ((((t - origin) % cellMs) + cellMs) % cellMs);
        const into = out.get(cell);
        if (!into) out.set(cell, { n: 1, s: v, lo: v, hi: v });
        else {
          into.n++;
          into.s += v;
          if (v < into.lo) into.lo = v;
          if (v > into.hi) into.hi = v;
        }
      }
    }
    this.counters.cellsFromMemory += out.size;
    return out;
  }

  /** The series' live points in `ranges` (view()), ascending, or undefined when it is no longer held. */
  points(tenant: string, seriesId: number, ranges: readonly Range[], queued: readonly QueuedRun[] | undefined): { ts: number; v: number }[] | undefined {
    const points = this.view(tenant, seriesId, ranges, queued);
    if (!points) return undefined;
    const out: { ts: number; v: number }[] = [];
    for (const [b, e] of ranges) {
      for (let i = lowerBound(points.ts, points.length, b); i < points.length && (points.ts[i] as number) < e; i++) out.push({ ts: points.ts[i] as number, v: points.values[i] as number });
    }
    this.counters.pointsFromMemory += out.length;
    return out;
  }

  /** Keeps one series within LIVE_SERIES_POINTS_MAX: the older half goes (its floor rises). */
  private bound(series: LiveSeries): void {
    const held = series.held;
    if (held && held.length > LIVE_SERIES_POINTS_MAX) {
      held.sort();
      held.raise(floorTo(held.ts[held.length >> 1] as number, MINUTE_BUCKET_MS));
    }
    if (series.taking && series.taking.length > LIVE_SERIES_POINTS_MAX) series.taking = undefined;
  }

  /** Keeps all series within LIVE_POINTS_MAX, dropping those read longest ago. */
  private boundAll(): void {
    if (this.pointsCeiling <= LIVE_POINTS_MAX) return;
    this.pointsCeiling = this.pointsHeld();
    while (this.seriesCount > 0 && this.pointsCeiling > LIVE_POINTS_MAX) {
      this.dropLeastRead();
      this.pointsCeiling = this.pointsHeld();
    }
  }

  private dropLeastRead(): void {
    let oldest: [string, number, number] | undefined;
    for (const [tenant, bySeries] of this.byTenant) {
      for (const [seriesId, s] of bySeries) if (!oldest || s.readMs < oldest[2]) oldest = [tenant, seriesId, s.readMs];
    }
    if (oldest) this.drop(oldest[0], oldest[1]);
  }

  private drop(tenant: string, seriesId: number): void {
    const bySeries = this.byTenant.get(tenant);
    if (!bySeries?.delete(seriesId)) return;
    this.seriesCount--;
    this.counters.dropped++;
    if (bySeries.size === 0) this.byTenant.delete(tenant);
  }
}
