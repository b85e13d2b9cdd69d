// Goal: once folded, the CDF rollup columns of a minute or an hour are the piece its live points
// make (first and last point, the integrals and squared deviations of both interpolants, the
// total variation, the values' spread), for every numeric family that keeps them; dirty ranges
// come as their raw points instead, and an upgraded data directory's rows (columns at their
// defaults) are marked dirty at open, never read. Method: the real embedded store; points with
// uneven spacing, three to five a minute; each piece compared with one computed here from the
// points with two-pass formulas.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { openDatapointStore, type DatapointStore } from '../datapoint-store.ts';
import type { SeriesPoints, SeriesRef } from '../types.ts';
import type { Piece } from './cdf-pieces.ts';
import type { CdfAggregateBucket } from './cdf-aggregates.ts';
import { listCdfSeries, rollupPieces } from './cdf-piece-source.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'cdf-piece-source-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
let store: DatapointStore = await openDatapointStore({ dataDir: dir }, { maintenanceIntervalMs: 0 });
t.teardown(() => store.close());

const MINUTE = 60_000;
const HOUR = 3_600_000;
const T0 = Date.UTC(2024, 4, 1, 10);

type Point = [ts: number, v: number];

/** Two hours of points 11-23 s apart (uneven), values a slow wave with decimals and noise. */
function points(): Point[] {
  const out: Point[] = [];
  for (let ts = T0 + 3_000, k = 0; ts < T0 + 2 * HOUR; k++) {
    out.push([ts, Math.round((1000 + 5 * Math.sin(k / 7) + ((k * 7919) % 13) / 10) * 1000) / 1000]);
    ts += 11_000 + ((k * 104_729) % 12) * 1000;
  }
  return out;
}

/** The piece of a run of points, computed directly: integrals segment by segment, deviations around the run's means. */
function expectedPiece(run: Point[]): Piece {
  const [first, last] = [run[0] as Point, run[run.length - 1] as Point];
  const span = last[0] - first[0];
  let [linInt, stepInt, tv] = [0, 0, 0];
  for (let i = 0; i + 1 < run.length; i++) {
    const [[t0, v0], [t1, v1]] = [run[i] as Point, run[i + 1] as Point];
    linInt += ((v0 + v1) / 2) * (t1 - t0);
    stepInt += v0 * (t1 - t0);
    tv += Math.abs(v1 - v0);
  }
  const [linMean, stepMean] = span > 0 ? [linInt / span, stepInt / span] : [0, 0];
  let [linM2, stepM2] = [0, 0];
  for (let i = 0; i + 1 < run.length; i++) {
    const [[t0, v0], [t1, v1]] = [run[i] as Point, run[i + 1] as Point];
    const [p, q] = [v0 - linMean, v1 - linMean];
    linM2 += ((p * p + p * q + q * q) / 3) * (t1 - t0);
    stepM2 += (v0 - stepMean) ** 2 * (t1 - t0);
  }
  const sum = run.reduce((s, [, v]) => s + v, 0);
  const m2 = run.reduce((s, [, v]) => s + (v - sum / run.length) ** 2, 0);
  return { firstTs: first[0], lastTs: last[0], firstV: first[1], lastV: last[1], n: run.length, sum, m2, linInt, linM2, stepInt, stepM2, tv };
}

function runsOf(all: Point[], bucketMs: number): Piece[] {
  const runs = new Map<number, Point[]>();
  for (const p of all) {
    const bucket = Math.floor(p[0] / bucketMs) * bucketMs;
    runs.set(bucket, [...(runs.get(bucket) ?? []), p]);
  }
  return [...runs.values()].map(expectedPiece);
}

function assertPieces(t: Test, got: Piece[], want: Piece[], label: string): void {
  t.equal(got.length, want.length, `${label}: one piece per bucket`);
  const far: string[] = [];
  got.forEach((piece, i) => {
    const expected = want[i] as Piece;
    for (const key of Object.keys(expected) as (keyof Piece)[]) {
      const [x, y] = [piece[key], expected[key]];
      if (Math.abs(x - y) > 1e-9 * Math.max(1, Math.abs(y)) + 1e-6) far.push(`${i}.${key}: ${x} != ${y}`);
    }
  });
  t.strictSame(far, [], `${label}: every column equals the points' piece`);
}

/** Where two answers differ: bucket times, or average / continuousVariance beyond rounding. */
function differences(got: CdfAggregateBucket[], want: CdfAggregateBucket[]): string[] {
  const out: string[] = [];
  if (got.map((b) => b.timestamp).join() !== want.map((b) => b.timestamp).join()) out.push('bucket times');
  got.forEach((bucket, i) => {
    for (const name of ['average', 'continuousVariance'] as const) {
      const [x, y] = [bucket[name] as number, want[i]?.[name] as number];
      if (!(Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(y)))) out.push(`${bucket.timestamp} ${name}: ${x} != ${y}`);
    }
  });
  return out;
}

async function write(tenant: string, series: SeriesRef, all: Point[]): Promise<void> {
  const batch: SeriesPoints = { ...series, timestampMs: Float64Array.from(all, (p) => p[0]) };
  if (series.valueType === 'BIGINT') batch.bigint = BigInt64Array.from(all, (p) => BigInt(Math.round(p[1])));
  else if (series.valueType === 'NUMERIC') batch.scaled = BigInt64Array.from(all, (p) => BigInt(Math.round(p[1] * 1e6)));
  else batch.float = Float64Array.from(all, (p) => p[1]);
  await store.insert({ tenant, series: [batch], writeVersion: store.writeVersions.next() });
}

for (const valueType of ['FLOAT', 'BIGINT', 'NUMERIC'] as const) {
  t.test(`${valueType}: minute and hour rows are the pieces of their points`, async (t) => {
    const tenant = `pieces-${valueType}`;
    const series: SeriesRef = { seriesId: 7, valueType };
    const all = points().map(([ts, v]): Point => [ts, valueType === 'BIGINT' ? Math.round(v) : v]);
    await write(tenant, series, all);
    await listCdfSeries(store.columnar, tenant, series);
    await store.runMaintenance({ includeHot: true });
    const minutes = await rollupPieces(store.columnar, tenant, series, MINUTE, T0, T0 + 2 * HOUR);
    assertPieces(t, minutes.pieces, runsOf(all, MINUTE), 'minute rows');
    const hours = await rollupPieces(store.columnar, tenant, series, HOUR, T0, T0 + 2 * HOUR);
    assertPieces(t, hours.pieces, runsOf(all, HOUR), 'hour rows (from minute rows)');
    t.strictSame([minutes.before, minutes.after], [undefined, undefined], 'no neighbours outside the points');
  });
}

t.test('dirty ranges come as their raw points, clean buckets beside them as rows; the neighbours just outside', async (t) => {
  const tenant = 'pieces-dirty';
  const series: SeriesRef = { seriesId: 8, valueType: 'FLOAT' };
  const all = points();
  await write(tenant, series, all);
  await listCdfSeries(store.columnar, tenant, series);
  await store.runMaintenance({ includeHot: true });
  // An overwrite and a late point, not folded: their hour (writes mark whole hours) is dirty.
  const minute = T0 + 30 * MINUTE;
  const late: Point[] = [[(all.find(([ts]) => ts >= minute) as Point)[0], -50], [minute + 59_999, 75.5]];
  await write(tenant, series, late);
  const live = [...new Map([...all, ...late]).entries()].sort((a, b) => a[0] - b[0]);
  const dirtyHour = (ts: number) => ts >= T0 && ts < T0 + HOUR;
  const expected = (bucketMs: number) => [
    ...live.filter(([ts]) => dirtyHour(ts)).map((p) => expectedPiece([p])),
    ...runsOf(live.filter(([ts]) => !dirtyHour(ts)), bucketMs),
  ].sort((a, b) => a.firstTs - b.firstTs);
  assertPieces(t, (await rollupPieces(store.columnar, tenant, series, MINUTE, T0, T0 + 2 * HOUR)).pieces, expected(MINUTE), 'minute base');
  assertPieces(t, (await rollupPieces(store.columnar, tenant, series, HOUR, T0, T0 + 2 * HOUR)).pieces, expected(HOUR), 'hour base');
  const inner = await rollupPieces(store.columnar, tenant, series, MINUTE, T0 + 20 * MINUTE, T0 + 70 * MINUTE);
  const before = live.filter(([ts]) => ts < T0 + 20 * MINUTE).pop() as Point;
  const after = live.find(([ts]) => ts >= T0 + 70 * MINUTE) as Point;
  t.strictSame([inner.before, inner.after], [{ ts: before[0], v: before[1] }, { ts: after[0], v: after[1] }], 'the neighbours just outside the window');
  await store.runMaintenance({ includeHot: true });
  assertPieces(t, (await rollupPieces(store.columnar, tenant, series, MINUTE, T0, T0 + 2 * HOUR)).pieces, runsOf(live, MINUTE), 'folded: rows again');
});

t.test('a CDF read before the first fold lists the series: the fold then keeps its columns', async (t) => {
  const tenant = 'listing-early';
  const series: SeriesRef = { seriesId: 10, valueType: 'FLOAT' };
  const all = points();
  await write(tenant, series, all);
  await store.cdfAggregate(tenant, series, { start: T0, end: T0 + 2 * HOUR, granularity: '15m', aggregates: ['average'], isStep: false, limit: 100 });
  await store.runMaintenance({ includeHot: true });
  const run = await rollupPieces(store.columnar, tenant, series, MINUTE, T0, T0 + 2 * HOUR);
  t.equal(run.complete, true, 'rows folded after the listing have the columns');
  assertPieces(t, run.pieces, runsOf(all, MINUTE), 'minute rows');
});

t.test('a series is listed by its first CDF interpolating read: raw until its rows are refolded with the columns', async (t) => {
  const tenant = 'listing';
  const series: SeriesRef = { seriesId: 9, valueType: 'FLOAT' };
  const all = points();
  await write(tenant, series, all);
  await store.runMaintenance({ includeHot: true });
  const unlisted = await rollupPieces(store.columnar, tenant, series, MINUTE, T0, T0 + 2 * HOUR);
  t.equal(unlisted.complete, false, 'rows of a series no CDF read asked for keep no CDF columns');
  const options = { start: T0, end: T0 + 2 * HOUR, granularity: '15m', aggregates: ['average', 'continuousVariance'] as const, isStep: false, limit: 100 };
  const first = await store.cdfAggregate(tenant, series, { ...options, aggregates: [...options.aggregates] });
  t.equal(first.buckets.length, 8, 'answered from raw points');
  await store.runMaintenance({ includeHot: true });
  const listed = await rollupPieces(store.columnar, tenant, series, MINUTE, T0, T0 + 2 * HOUR);
  t.equal(listed.complete, true, 'the read listed the series; the fold recomputed its rows');
  assertPieces(t, listed.pieces, runsOf(all, MINUTE), 'refolded minute rows');
  const again = await store.cdfAggregate(tenant, series, { ...options, aggregates: [...options.aggregates] });
  t.strictSame(differences(again.buckets, first.buckets), [], 'the same buckets and values from rollups');
  // Rows as an older release left them: the columns at their defaults (cdf_complete 0).
  for (const table of ['datapoints_float_1m', 'datapoints_float_1h']) {
    await store.columnar.command(`ALTER TABLE ${table} UPDATE cdf_complete = 0, lin_integral = 0 WHERE tenant = 'listing' SETTINGS mutations_sync = 2`);
  }
  t.equal((await rollupPieces(store.columnar, tenant, series, MINUTE, T0, T0 + 2 * HOUR)).complete, false, 'rows without the columns are never read as pieces');
  const old = await store.cdfAggregate(tenant, series, { ...options, aggregates: [...options.aggregates] });
  t.strictSame(differences(old.buckets, again.buckets), [], 'a read over them answers from raw points, the same');
});
