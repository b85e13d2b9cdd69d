// Goal: CDF's ten aggregates (average, max, min, count, sum, interpolation, stepInterpolation,
// totalVariation, continuousVariance, discreteVariance) at 15m / 2h / 1d / 1w / 1mo / 1q in UTC,
// Europe/Oslo and +05:30 equal CDF's definitions over the live points, whatever order of inserts
// (overwrites, late points), deletes and folds came before, stepwise and continuous, paged by
// cursor. Method: fast-check draws command sequences against the real embedded store; a plain
// map of each series' live points is the model, and this file computes every bucket from it as
// CDF's aggregation page defines them: bucket edges found from wall-clock readings of Intl (local
// midnights searched for directly), integrals of the linear or stepwise interpolant segment by
// segment, neighbours used within an hour (continuous) or at any distance (stepwise). Points lie
// in two windows around Oslo's 2024 spring and autumn changes (23- and 25-hour days) and one
// dense window of several points a minute.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import t from 'tap';
import { openDatapointStore, type DatapointStore } from '../datapoint-store.ts';
import type { SeriesPoints, SeriesRef } from '../types.ts';
import type { CdfAggregateBucket, CdfAggregateName } from './cdf-aggregates.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'cdf-aggregates-property-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const store: DatapointStore = await openDatapointStore({ dataDir: dir }, { maintenanceIntervalMs: 0 });
t.teardown(() => store.close());

const MINUTE = 60_000;
const HOUR = 3_600_000;
/**
 * Three windows of 500 slots: 7 min 13.007 s apart for 60 hours across each daylight-saving
 * change, and 7.013 s apart for 58 minutes across an hour (several points a minute, so minute
 * rows hold runs of points and hours join them).
 */
const WINDOWS: readonly { start: number; slotMs: number }[] = [
  { start: Date.UTC(2024, 2, 29, 22), slotMs: 433_007 },
  { start: Date.UTC(2024, 9, 25, 22), slotMs: 433_007 },
  { start: Date.UTC(2024, 11, 3, 10, 31, 17), slotMs: 7_013 },
];
const SLOTS_PER_WINDOW = 500;
const SLOTS = WINDOWS.length * SLOTS_PER_WINDOW;
const windowOf = (slot: number) => WINDOWS[Math.floor(slot / SLOTS_PER_WINDOW)] as { start: number; slotMs: number };
const at = (slot: number) => windowOf(slot).start + (slot % SLOTS_PER_WINDOW) * windowOf(slot).slotMs;
const REFS: readonly SeriesRef[] = [{ seriesId: 1, valueType: 'FLOAT' }, { seriesId: 2, valueType: 'BIGINT' }];
const NAMES: CdfAggregateName[] = ['average', 'max', 'min', 'count', 'sum', 'interpolation', 'stepInterpolation', 'totalVariation', 'continuousVariance', 'discreteVariance'];
const GRANULARITIES = ['15m', '2h', '1d', '1w', '1mo', '1q'] as const;
const ZONES = ['UTC', 'Europe/Oslo', '+05:30'] as const;

// ---- Bucket edges from wall-clock readings -------------------------------------------------

const IANA: Record<string, string> = { UTC: 'UTC', 'Europe/Oslo': 'Europe/Oslo', '+05:30': 'Asia/Kolkata' };
const formats = new Map<string, Intl.DateTimeFormat>();
/** [year, month 1-12, day, hour, minute, second] of an instant on the zone's wall clock. */
function wall(zone: string, ms: number): number[] {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: IANA[zone], hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formats.set(zone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  return ['year', 'month', 'day', 'hour', 'minute', 'second'].map((k) => Number(parts[k]));
}

const midnights = new Map<string, number>();
/** The first instant whose wall clock reads y-m-d 00:00:00 (searched over every quarter hour within 14 h). */
function localMidnight(zone: string, y: number, m: number, d: number): number {
  const key = `${zone}:${y}-${m}-${d}`;
  const known = midnights.get(key);
  if (known !== undefined) return known;
  const date = new Date(Date.UTC(y, m - 1, d));
  const [yy, mm, dd] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
  let found: number | undefined;
  for (let k = -56; k <= 56 && found === undefined; k++) {
    const u = date.getTime() + k * 15 * MINUTE;
    const [a, b, c, h, mi, s] = wall(zone, u);
    if (a === yy && b === mm && c === dd && h === 0 && mi === 0 && s === 0) found = u;
  }
  if (found === undefined) throw new Error(`no midnight ${key}`);
  midnights.set(key, found);
  return found;
}

/** Edges from the first bucket through the first edge at or after end. */
function edgesOf(granularity: string, zone: string, start: number, end: number): number[] {
  const edges: number[] = [];
  const push = (next: (k: number) => number) => {
    for (let k = 0; ; k++) {
      edges.push(next(k));
      if ((edges[edges.length - 1] as number) >= end) return edges;
    }
  };
  if (granularity === '15m') {
    const first = Math.floor(start / MINUTE) * MINUTE;
    return push((k) => first + k * 15 * MINUTE);
  }
  if (granularity === '2h') {
    let first = Math.floor(start / MINUTE) * MINUTE;
    while ((wall(zone, first)[4] as number) !== 0) first -= MINUTE;
    return push((k) => first + k * 2 * HOUR);
  }
  const [y, m, d] = wall(zone, start) as [number, number, number];
  if (granularity === '1d') return push((k) => localMidnight(zone, y, m, d + k));
  if (granularity === '1w') return push((k) => localMidnight(zone, y, m, d + 7 * k));
  const months = granularity === '1mo' ? 1 : 3;
  return push((k) => localMidnight(zone, y, m + months * k, 1));
}

// ---- CDF's definitions over the live points ------------------------------------------------

type Point = [ts: number, v: number];

function expectedBuckets(all: Point[], edges: number[], isStep: boolean): CdfAggregateBucket[] {
  const out: CdfAggregateBucket[] = [];
  for (let i = 0; i + 1 < edges.length; i++) {
    const [a, b] = [edges[i] as number, edges[i + 1] as number];
    const inside = all.filter(([ts]) => ts >= a && ts < b);
    if (inside.length === 0) continue;
    const before = all.filter(([ts]) => ts < a);
    const prev = before[before.length - 1];
    const next = all.find(([ts]) => ts >= b);
    const values = inside.map(([, v]) => v);
    const n = values.length;
    const mean = values.reduce((s, v) => s + v, 0) / n;
    // f: the last value at or before x (stepwise), or the line through the points around x.
    const stepAt = (x: number) => all.filter(([ts]) => ts <= x).pop()?.[1];
    const lineAt = (x: number) => {
      const exact = all.find(([ts]) => ts === x);
      if (exact) return exact[1];
      const l = all.filter(([ts]) => ts < x).pop() as Point;
      const r = all.find(([ts]) => ts > x) as Point;
      return l[1] + ((r[1] - l[1]) * (x - l[0])) / (r[0] - l[0]);
    };
    const first = inside[0] as Point;
    const last = inside[n - 1] as Point;
    const prevNear = prev !== undefined && (isStep || a - prev[0] <= HOUR);
    const lo = first[0] === a || prevNear ? a : first[0];
    const hi = isStep || (next !== undefined && next[0] - b <= HOUR) ? b : last[0];
    const f = (x: number) => (isStep ? stepAt(x) : lineAt(x)) as number;
    const xs = [...new Set([lo, ...inside.map(([ts]) => ts), hi])].sort((p, q) => p - q);
    let integral = 0;
    for (let k = 0; k + 1 < xs.length; k++) {
      const [x0, x1] = [xs[k] as number, xs[k + 1] as number];
      integral += isStep ? f(x0) * (x1 - x0) : ((f(x0) + f(x1)) / 2) * (x1 - x0);
    }
    const average = hi > lo ? integral / (hi - lo) : first[1];
    let deviation = 0;
    for (let k = 0; k + 1 < xs.length; k++) {
      const [x0, x1] = [xs[k] as number, xs[k + 1] as number];
      const [p, q] = isStep ? [f(x0) - average, f(x0) - average] : [f(x0) - average, f(x1) - average];
      deviation += ((p * p + p * q + q * q) / 3) * (x1 - x0);
    }
    let variation = 0;
    for (let k = 1; k < n; k++) variation += Math.abs((inside[k] as Point)[1] - (inside[k - 1] as Point)[1]);
    if (lo === a && first[0] > a) variation += Math.abs(first[1] - f(a));
    if (!isStep && hi === b) variation += Math.abs(f(b) - last[1]);
    const bucket: CdfAggregateBucket = {
      timestamp: a, average, max: Math.max(...values), min: Math.min(...values), count: n, sum: values.reduce((s, v) => s + v, 0),
      totalVariation: variation, continuousVariance: hi > lo ? deviation / (hi - lo) : 0,
      discreteVariance: values.reduce((s, v) => s + (v - mean) ** 2, 0) / n,
    };
    const step = stepAt(a);
    if (step !== undefined) bucket.stepInterpolation = step;
    const interpolation = isStep ? step : first[0] === a ? first[1] : prevNear ? lineAt(a) : undefined;
    if (interpolation !== undefined) bucket.interpolation = interpolation;
    out.push(bucket);
  }
  return out;
}

function assertClose(actual: CdfAggregateBucket[], expected: CdfAggregateBucket[], label: string): void {
  const keys = (b: CdfAggregateBucket) => Object.keys(b).sort().join(',');
  assert.deepStrictEqual(actual.map((b) => [b.timestamp, keys(b)]), expected.map((b) => [b.timestamp, keys(b)]), `${label}: buckets and fields`);
  actual.forEach((bucket, i) => {
    const want = expected[i] as CdfAggregateBucket;
    for (const name of NAMES) {
      const [x, y] = [bucket[name] as number, want[name] as number];
      if (Math.abs(x - y) > 1e-9 * Math.max(1, Math.abs(x), Math.abs(y)) + 1e-6) assert.fail(`${label}: ${name} at ${bucket.timestamp}: ${x} != ${y}`);
    }
  });
}

// ---- Commands ------------------------------------------------------------------------------

interface Insert { kind: 'insert'; series: number; points: [slot: number, value: number][] }
interface Delete { kind: 'delete'; series: number; from: number; slots: number }
interface Read { kind: 'read'; series: number; from: number; to: number; limit: number; isStep: boolean }
interface Fold { kind: 'fold' }
type Command = Insert | Delete | Read | Fold;

const seriesArb = fc.integer({ min: 0, max: REFS.length - 1 });
const slotArb = fc.integer({ min: 0, max: SLOTS - 1 });
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('insert' as const), series: seriesArb, points: fc.array(fc.tuple(slotArb, fc.integer({ min: -1000, max: 1000 })), { minLength: 1, maxLength: 25 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), series: seriesArb, from: slotArb, slots: fc.integer({ min: 1, max: 80 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('read' as const), series: seriesArb, from: slotArb, to: slotArb, limit: fc.integer({ min: 1, max: 40 }), isStep: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'fold' as const }) },
);

type Model = Map<number, Map<number, number>>;

async function write(tenant: string, model: Model, command: Insert | Delete): Promise<void> {
  const ref = REFS[command.series] as SeriesRef;
  const points = model.get(command.series) ?? new Map<number, number>();
  model.set(command.series, points);
  if (command.kind === 'delete') {
    const [from, to] = [at(command.from), at(command.from) + command.slots * windowOf(command.from).slotMs];
    await store.deleteRange(tenant, ref.seriesId, from, to);
    for (const ts of [...points.keys()]) if (ts >= from && ts < to) points.delete(ts);
    return;
  }
  const byTs = new Map<number, number>();
  for (const [slot, value] of command.points) byTs.set(at(slot), value);
  const ts = [...byTs.keys()].sort((a, b) => a - b);
  const batch: SeriesPoints = { ...ref, timestampMs: Float64Array.from(ts) };
  if (ref.valueType === 'BIGINT') batch.bigint = BigInt64Array.from(ts, (x) => BigInt(byTs.get(x) as number));
  else batch.float = Float64Array.from(ts, (x) => byTs.get(x) as number);
  await store.insert({ tenant, series: [batch], writeVersion: store.writeVersions.next() });
  for (const [x, v] of byTs) points.set(x, v);
}

/** Every granularity and zone of one read: the store's pages (followed by cursor) against the model. */
async function check(tenant: string, model: Model, read: Read, label: string): Promise<void> {
  const ref = REFS[read.series] as SeriesRef;
  const all = [...(model.get(read.series) ?? new Map<number, number>())].sort((a, b) => a[0] - b[0]);
  const [start, end] = [at(Math.min(read.from, read.to)), at(Math.max(read.from, read.to)) + 1];
  for (const granularity of GRANULARITIES) {
    for (const timeZone of ZONES) {
      const got: CdfAggregateBucket[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.cdfAggregate(tenant, ref, { start, end, granularity, timeZone, aggregates: NAMES, isStep: read.isStep, limit: read.limit, cursor });
        got.push(...page.buckets);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      assertClose(got, expectedBuckets(all, edgesOf(granularity, timeZone, start, end), read.isStep), `${label} ${granularity} ${timeZone} step=${read.isStep}`);
    }
  }
}

let run = 0;
const seed = Number(process.env.PROPERTY_SEED ?? 20261127);

t.test('CDF aggregates equal their definitions under random writes, deletes and folds', async (t) => {
  await fc.assert(fc.asyncProperty(fc.array(commandArb, { minLength: 1, maxLength: 10 }), fc.boolean(), async (commands, isStep) => {
    const tenant = `cdf-agg-${++run}`;
    const model: Model = new Map();
    for (const command of commands) {
      if (command.kind === 'insert' || command.kind === 'delete') await write(tenant, model, command);
      else if (command.kind === 'fold') await store.runMaintenance({ includeHot: true });
      else await check(tenant, model, command, 'read');
    }
    for (const fold of [false, true]) {
      if (fold) await store.runMaintenance({ includeHot: true });
      for (let series = 0; series < REFS.length; series++) {
        await check(tenant, model, { kind: 'read', series, from: 0, to: SLOTS - 1, limit: 500, isStep }, `final (fold ${fold})`);
      }
    }
  }), { numRuns: Number(process.env.PROPERTY_RUNS ?? 3), seed, endOnFailure: true });
  t.pass(`property held (seed ${seed})`);
});
