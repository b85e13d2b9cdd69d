// The rollup fold: recomputes the minute rollups of the minutes that dirty marks
// name from raw points, then the hourly rollups of the hours they touch from minute rows, then
// the latest points, in the background. Reads never wait for it: until a mark is gone they
// compute its minutes from raw points, so answers stay exact.
//
// Why a mark may be removed: a writer adds a mark only after its points are committed, with
// marked_at from the engine's clock. The fold takes the clock (computedAt) before it reads any
// raw point, so a mark with marked_at < computedAt names points the fold has seen. Marks made
// later stay. Several folds may run at once (any process): the newest computation wins.
//
// Why an hour may be built from minute rows: a minute row is current as of computedAt unless a
// mark older than computedAt still covers it. The fold recomputes its own marks' minutes
// first; then it lists the other marks older than computedAt on its series (not taken by this
// fold: a fold running alongside, a hot range, a mark past rangesPerFold), and hours that one
// touches are recomputed from raw points as before. A mark missing from that list was either
// removed by a fold that had written its minute rows first (so they are read here) or is
// written later with an older marked_at and stays, so its hours are folded again later.
import { ColumnarParams, type QueryParams } from '../../stores/columnar-params.ts';
import type { ColumnarStore } from '../../stores/columnar.ts';
import { FAMILIES, FAMILY_SHAPES, MINUTE_BUCKET_MS, ROLLUP_BUCKET_MS, ceilTo, floorTo, type Family, type FamilyShape } from '../tables/families.ts';
import { bindTenantTombstones, type BoundTombstones } from '../read/datapoint-read-context.ts';
import type { Tombstone } from '../read/series-context.ts';
import type { MarkOrderGate } from '../write/mark-order-gate.ts';
import { writeDirtyRanges } from '../write/dirty-ranges.ts';
import { chunks, mergeRanges, rangeConditions, seriesConditions, seriesParams, statementChunks, type FoldRange } from './fold-ranges.ts';
import {
  DIRTY_SNAPSHOT_SQL, FOLD_CLOCK_SQL, FOLD_DELETE_MARKS_SQL, FOLD_TOMBSTONES_SQL, OLD_MARKS_SQL, foldFromRawSql, foldHoursFromMinutesSql, foldLatestEmptySql, foldLatestSql,
  foldZeroRowsSql,
} from './rollup-fold.sql.ts';

export interface FoldOptions {
  /** Fold hours still being written too, and ranges not yet quiet (tests, benchmarks). @default false */
  includeHot?: boolean;
  /** An hour is hot until this long after it ends. @default 60000 */
  hotGraceMs?: number;
  /** A hot range marked longer ago than this is folded anyway, bounding raw work on reads. @default 600000 */
  hotMaxAgeMs?: number;
  /**
   * A range marked again within this many ms is still being written and waits until its
   * writes pause (or its first mark passes hotMaxAgeMs). Hours in the past are cold by the
   * clock, but a backfill or a gateway replaying history writes each of them over many
   * requests: a gateway sending 10 s per series per request re-marked every series-hour 360
   * times, and each fold recomputed the hour from raw points written so far, reading about
   * four raw rows for every one inserted (bench/probe.ts gateway: maintenance was half the
   * ingest's CPU). Quiet first, each hour is folded about once. The bound is measured from the
   * oldest copy of the mark the engine still holds, and a merge keeps only the newest
   * (ReplacingMergeTree(marked_at)): a range re-marked without pause for longer than
   * hotMaxAgeMs may wait until its writes pause. Reads are exact meanwhile. @default 2000
   */
  quietMs?: number;
  /** Dirty ranges taken per fold. @default 5000 */
  rangesPerFold?: number;
  /** Ranges per statement, at most (and SPANS_PER_STATEMENT distinct spans). @default 1000 */
  rangesPerStatement?: number;
}

/** A dirty mark as the fold saw it: [beginMs, endMs) of one series, family '' = every family. */
export interface FoldedMark {
  tenant: string;
  seriesId: number;
  family: Family | '';
  beginMs: number;
  endMs: number;
}

export interface FoldReport {
  /** The fold's start on the engine clock, µs. */
  computedAt: bigint;
  /** Dirty ranges folded (whole or their cold part). */
  rangesFolded: number;
  /** Dirty ranges left for later (hot). */
  rangesDeferred: number;
  /**
   * Every mark the fold removed (only its copies marked before computedAt: a mark of the same
   * identity written later stays). A mirror of the marks drops these and adds `remarked`.
   * Absent when no fold ran (a skipped maintenance round).
   */
  folded?: FoldedMark[];
  /** Hot remainders of folded marks, written back as new marks with their original time. */
  remarked?: FoldedMark[];
}

interface Mark {
  tenant: string;
  seriesId: number;
  family: Family | '';
  beginMs: number;
  endMs: number;
  oldestMicros: bigint;
  /** The newest copy's marked_at: when the range was last written. */
  newestMicros: bigint;
}

interface MarkRow { tenant: string; series: string; family: string; begin_ms: string; end_ms: string; oldest: string; newest: string }

function floorHour(ms: number): number {
  return floorTo(ms, ROLLUP_BUCKET_MS);
}

/** The fold's clock values its statements bind (a type, not an interface: it passes as QueryParams). */
type FoldTimes = { zero_at: bigint; computed_at: bigint };

/**
 * Zero rows of the buckets of `table` that had points in the ranges, then `recompute` of them
 * at computedAt; `bound`: the fold's clock values and, from raw points, the tombstones.
 */
async function foldBuckets(
  store: ColumnarStore, table: string, ranges: readonly FoldRange[], bound: FoldTimes & QueryParams, recompute: (params: ColumnarParams) => string,
): Promise<void> {
  if (ranges.length === 0) return;
  const zero = new ColumnarParams();
  await store.command(foldZeroRowsSql(table, rangeConditions(zero, ranges, 'bucket')), { ...zero.values, zero_at: bound.zero_at });
  const params = new ColumnarParams();
  await store.command(recompute(params), { ...params.values, ...bound, ...seriesParams(ranges) });
}

/** The tombstones of the ranges' series that overlap the span of the series' ranges, bound for foldFromRawSql. */
async function foldTombstones(store: ColumnarStore, ranges: readonly FoldRange[]): Promise<BoundTombstones> {
  const spans = new Map<string, [begin: number, end: number]>();
  for (const r of ranges) {
    const key = `${r.tenant}\u0000${r.seriesId}`;
    const span = spans.get(key);
    spans.set(key, span ? [Math.min(span[0], r.beginMs), Math.max(span[1], r.endMs)] : [r.beginMs, r.endMs]);
  }
  const rows = await store.query<{ tenant: string; series: string; begin_ms: string; end_ms: string; version: string }>(FOLD_TOMBSTONES_SQL, seriesParams(ranges));
  const byTenant = new Map<string, Tombstone[]>();
  for (const row of rows) {
    const tombstone = { seriesId: Number(row.series), begin: Number(row.begin_ms), end: Number(row.end_ms), version: BigInt(row.version) };
    const span = spans.get(`${row.tenant}\u0000${tombstone.seriesId}`);
    if (!span || tombstone.end <= span[0] || tombstone.begin >= span[1]) continue;
    let list = byTenant.get(row.tenant);
    if (!list) byTenant.set(row.tenant, (list = []));
    list.push(tombstone);
  }
  return bindTenantTombstones(byTenant);
}

/** Buckets of `table` (`bucketMs` wide) for a chunk of ranges, from live raw points. */
async function foldFromRaw(store: ColumnarStore, shape: FamilyShape, table: string, bucketMs: number, ranges: readonly FoldRange[], times: FoldTimes): Promise<void> {
  if (ranges.length === 0) return;
  const tombstones = await foldTombstones(store, ranges);
  await foldBuckets(store, table, ranges, { ...times, ...tombstones.params }, (p) => foldFromRawSql(shape, table, bucketMs, rangeConditions(p, ranges, 'ts'), tombstones.form));
}

/** Minute rows of one family for a chunk of (minute-aligned) ranges, from raw points. */
function foldMinuteChunk(store: ColumnarStore, family: Family, ranges: readonly FoldRange[], times: FoldTimes): Promise<void> {
  const shape = FAMILY_SHAPES[family];
  return foldFromRaw(store, shape, shape.minuteTable, MINUTE_BUCKET_MS, ranges, times);
}

/** Hour rows of one family for a chunk of hour ranges: from minute rows, or from raw points where minute rows may be stale. */
async function foldHourChunk(store: ColumnarStore, family: Family, ranges: readonly HourRange[], times: FoldTimes): Promise<void> {
  const shape = FAMILY_SHAPES[family];
  const fromMinutes = ranges.filter((r) => !r.fromRaw);
  const fromRaw = ranges.filter((r) => r.fromRaw);
  await foldBuckets(store, shape.rollupTable, fromMinutes, times, (p) => foldHoursFromMinutesSql(shape, rangeConditions(p, fromMinutes, 'bucket')));
  await foldFromRaw(store, shape, shape.rollupTable, ROLLUP_BUCKET_MS, fromRaw, times);
}

/** Latest rows of one family's series, from their (just folded) hour rows. */
async function foldLatestChunk(store: ColumnarStore, family: Family, ranges: readonly FoldRange[], times: FoldTimes): Promise<void> {
  const shape = FAMILY_SHAPES[family];
  const empty = new ColumnarParams();
  await store.command(foldLatestEmptySql(shape, seriesConditions(empty, ranges)), { ...empty.values, ...times });
  const latest = new ColumnarParams();
  await store.command(foldLatestSql(shape, seriesConditions(latest, ranges)), { ...latest.values, ...times });
}

/** An hour range to recompute; fromRaw when a mark this fold did not take may leave its minute rows stale. */
interface HourRange extends FoldRange { fromRaw: boolean }

function markKey(m: { tenant: string; seriesId: number; family: string; beginMs: number; endMs: number }): string {
  return `${m.tenant}\u0000${m.seriesId}\u0000${m.family}\u0000${m.beginMs}\u0000${m.endMs}`;
}

/**
 * The hours the folded minute ranges touch, each split where marks older than the clock that
 * this fold did not take (`others`) touch it: those hours come from raw points (module comment).
 */
export function hourRangesOf(family: Family, minuteRanges: readonly FoldRange[], others: readonly Mark[]): HourRange[] {
  const hours = mergeRanges(minuteRanges.map((r) => ({ ...r, beginMs: floorHour(r.beginMs), endMs: ceilTo(r.endMs, ROLLUP_BUCKET_MS) })));
  const othersBySeries = new Map<string, Mark[]>();
  for (const m of others) {
    if (m.family !== '' && m.family !== family) continue;
    const key = `${m.tenant}\u0000${m.seriesId}`;
    othersBySeries.set(key, [...(othersBySeries.get(key) ?? []), m]);
  }
  const out: HourRange[] = [];
  for (const range of hours) {
    const stale = (othersBySeries.get(`${range.tenant}\u0000${range.seriesId}`) ?? []).filter((m) => m.beginMs < range.endMs && m.endMs > range.beginMs);
    for (let hour = range.beginMs; hour < range.endMs;) {
      const fromRaw = stale.some((m) => m.beginMs < hour + ROLLUP_BUCKET_MS && m.endMs > hour);
      const last = out[out.length - 1];
      if (last && last.tenant === range.tenant && last.seriesId === range.seriesId && last.endMs === hour && last.fromRaw === fromRaw) last.endMs += ROLLUP_BUCKET_MS;
      else out.push({ tenant: range.tenant, seriesId: range.seriesId, beginMs: hour, endMs: hour + ROLLUP_BUCKET_MS, fromRaw });
      hour += ROLLUP_BUCKET_MS;
    }
  }
  return out;
}

/** Marks older than the clock on the fold's series that this fold did not take. */
async function otherOldMarks(store: ColumnarStore, ranges: readonly FoldRange[], taken: readonly Mark[], computedAt: bigint): Promise<Mark[]> {
  if (ranges.length === 0) return [];
  const rows = await store.query<Omit<MarkRow, 'oldest' | 'newest'>>(OLD_MARKS_SQL, { ...seriesParams(ranges), computed_at: computedAt });
  const mine = new Set(taken.map(markKey));
  return rows.map((row) => toMark({ ...row, oldest: '0', newest: '0' })).filter((m) => !mine.has(markKey(m)));
}

function toMark(row: MarkRow): Mark {
  return {
    tenant: row.tenant,
    seriesId: Number(row.series),
    family: row.family as Family | '',
    beginMs: Number(row.begin_ms),
    endMs: Number(row.end_ms),
    oldestMicros: BigInt(row.oldest),
    newestMicros: BigInt(row.newest),
  };
}

interface FoldPlan {
  /** Ranges to recompute per family. */
  byFamily: Map<Family, FoldRange[]>;
  /** Marks to remove once the recompute is durable. */
  folded: Mark[];
  /** Hot remainders of folded marks, re-marked with their original time. */
  remainders: Mark[];
  deferred: number;
}

function planFold(marks: readonly Mark[], nowMicros: bigint, options: Required<FoldOptions>): FoldPlan {
  const nowMs = Number(nowMicros / 1000n);
  const hotFrom = floorHour(nowMs - options.hotGraceMs);
  const maxAgeMicros = BigInt(options.hotMaxAgeMs) * 1000n;
  const quietMicros = BigInt(options.quietMs) * 1000n;
  const plan: FoldPlan = { byFamily: new Map(), folded: [], remainders: [], deferred: 0 };
  for (const mark of marks) {
    const tooOld = nowMicros - mark.oldestMicros > maxAgeMicros;
    if (!options.includeHot && !tooOld && nowMicros - mark.newestMicros < quietMicros) {
      plan.deferred++;
      continue;
    }
    const whole = options.includeHot || mark.endMs <= hotFrom || tooOld;
    if (!whole && mark.beginMs >= hotFrom) {
      plan.deferred++;
      continue;
    }
    const endMs = whole ? mark.endMs : hotFrom;
    if (!whole) plan.remainders.push({ ...mark, beginMs: hotFrom });
    plan.folded.push(mark);
    for (const family of mark.family === '' ? FAMILIES : [mark.family]) {
      let ranges = plan.byFamily.get(family);
      if (!ranges) plan.byFamily.set(family, (ranges = []));
      ranges.push({ tenant: mark.tenant, seriesId: mark.seriesId, beginMs: mark.beginMs, endMs });
    }
  }
  return plan;
}

/** Hot remainders of folded marks, marked again with their original time. */
function remark(store: ColumnarStore, marks: readonly Mark[]): Promise<void> {
  return writeDirtyRanges(store, marks.map((m) => ({ tenant: m.tenant, seriesId: m.seriesId, family: m.family, beginMs: m.beginMs, endMs: m.endMs, markedAtMicros: m.oldestMicros })));
}

/**
 * Marks per DELETE: each statement is a mutation over datapoint_dirty's parts, so as few as
 * fit; the embedded engine renders bound values into the statement's text, and 5,000 marks
 * passed its max_query_size (256 KiB) at ~70 bytes each.
 */
export const MARKS_PER_DELETE = 1_000;

/** Removes the folded marks older than computedAt, MARKS_PER_DELETE per statement. */
export async function deleteFoldedMarks(store: ColumnarStore, marks: readonly FoldedMark[], computedAt: bigint): Promise<void> {
  for (const chunk of chunks(marks, MARKS_PER_DELETE)) {
    await store.command(FOLD_DELETE_MARKS_SQL, {
      tenants: chunk.map((m) => m.tenant),
      series: chunk.map((m) => BigInt(m.seriesId)),
      families: chunk.map((m) => m.family),
      begins: chunk.map((m) => m.beginMs),
      ends: chunk.map((m) => m.endMs),
      computed_at: computedAt,
    });
  }
}

/**
 * One fold: takes up to rangesPerFold dirty ranges, recomputes them, removes their marks.
 * `gate`: inserts of this process write points and marks at once; the clock waits for them.
 */
export async function foldDirtyRanges(store: ColumnarStore, options: FoldOptions = {}, gate?: MarkOrderGate): Promise<FoldReport> {
  const resolved: Required<FoldOptions> = {
    includeHot: options.includeHot ?? false,
    hotGraceMs: options.hotGraceMs ?? 60_000,
    hotMaxAgeMs: options.hotMaxAgeMs ?? 600_000,
    quietMs: options.quietMs ?? 2_000,
    rangesPerFold: options.rangesPerFold ?? 5_000,
    rangesPerStatement: options.rangesPerStatement ?? 1000,
  };
  // The clock first: every raw read below starts after it (see the module comment).
  const readClock = () => store.query<{ now_us: string }>(FOLD_CLOCK_SQL);
  const [clock] = await (gate ? gate.clock(readClock) : readClock());
  const computedAt = BigInt((clock as { now_us: string }).now_us);
  const rows = await store.query<MarkRow>(DIRTY_SNAPSHOT_SQL, { limit: resolved.rangesPerFold });
  const plan = planFold(rows.map(toMark), computedAt, resolved);
  const times: FoldTimes = { zero_at: computedAt - 1n, computed_at: computedAt };
  const minuteRanges = new Map([...plan.byFamily].map(([family, ranges]) => [family, mergeRanges(ranges)]));
  // Every minute first (all families): hours below trust the minute rows of this fold's marks.
  for (const [family, ranges] of minuteRanges) {
    for (const chunk of statementChunks(ranges, resolved.rangesPerStatement)) await foldMinuteChunk(store, family, chunk, times);
  }
  const others = await otherOldMarks(store, [...minuteRanges.values()].flat(), plan.folded, computedAt);
  for (const [family, ranges] of minuteRanges) {
    for (const chunk of statementChunks(hourRangesOf(family, ranges, others), resolved.rangesPerStatement)) await foldHourChunk(store, family, chunk, times);
    for (const chunk of statementChunks(ranges, resolved.rangesPerStatement)) await foldLatestChunk(store, family, chunk, times);
  }
  await remark(store, plan.remainders);
  await deleteFoldedMarks(store, plan.folded, computedAt);
  const asFolded = (m: Mark): FoldedMark => ({ tenant: m.tenant, seriesId: m.seriesId, family: m.family, beginMs: m.beginMs, endMs: m.endMs });
  return {
    computedAt, rangesFolded: plan.folded.length, rangesDeferred: plan.deferred, folded: plan.folded.map(asFolded), remarked: plan.remainders.map(asFolded),
  };
}
