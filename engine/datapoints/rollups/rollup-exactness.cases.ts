// The rollup exactness cases, shared by rollup-exactness.test.ts (the engine in process) and
// rollup-exactness.server.test.ts (a ClickHouse server through @clickhouse/client).
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import t from 'tap';
import { openDatapointStore, type DatapointStore } from '../datapoint-store.ts';
import { rollupBacklog } from '../store-gauges.ts';
import type { AggregateBucket, Granularity, SeriesPoints, SeriesRef } from '../types.ts';
import { columnarConfig, type ColumnarKind } from '../../testing/columnar-kinds.ts';

/**
 * The cases against one columnar kind; `numRuns` command sequences of the property (each
 * kind's test file says how many it affords).
 */
export async function rollupExactnessCases(kind: ColumnarKind, numRuns: number): Promise<void> {
  const config = await columnarConfig(t, 'rollup-exactness-test', kind);
  let store: DatapointStore = await openDatapointStore(config, { maintenanceIntervalMs: 0 });
  t.teardown(() => store.close());

  const T0 = Date.UTC(2024, 2, 3, 10);
  const SPAN_MS = 3 * 3_600_000;
  const INT64_MAX = 2n ** 63n - 1n;

  type Value = number | bigint | string;
  interface Write { value: Value; version: bigint }
  interface Model { points: Map<number, Write>; tombstones: { begin: number; end: number; version: bigint }[] }

  const SERIES: SeriesRef[] = [
    { seriesId: 1, valueType: 'BIGINT' },
    { seriesId: 2, valueType: 'FLOAT' },
    { seriesId: 3, valueType: 'MIXED' },
  ];

  /** A value of the series' type from a drawn integer (BIGINT: near ±2^63 half the time). */
  function valueOf(ref: SeriesRef, draw: number): Value {
    if (ref.valueType === 'BIGINT') return draw % 2 === 0 ? INT64_MAX - BigInt(draw) : -INT64_MAX + BigInt(draw) * 7n;
    if (ref.valueType === 'MIXED' && draw % 5 === 0) return `text-${draw}`;
    return ((draw % 200_001) - 100_000) / 100;
  }

  function pointsOf(ref: SeriesRef, entries: [number, Value][]): SeriesPoints {
    const timestampMs = Float64Array.from(entries, ([ts]) => ts);
    const values = entries.map(([, v]) => v);
    if (ref.valueType === 'BIGINT') return { ...ref, timestampMs, bigint: BigInt64Array.from(values as bigint[]) };
    if (ref.valueType === 'FLOAT') return { ...ref, timestampMs, float: Float64Array.from(values as number[]) };
    return {
      ...ref, timestampMs,
      float: Float64Array.from(values, (v) => (typeof v === 'number' ? v : 0)),
      text: values.map((v) => (typeof v === 'string' ? v : '')),
      isText: Uint8Array.from(values, (v) => (typeof v === 'string' ? 1 : 0)),
    };
  }

  function live(model: Model): [number, Value][] {
    return [...model.points].filter(([ts, w]) => !model.tombstones.some((d) => ts >= d.begin && ts < d.end && w.version <= d.version))
      .map(([ts, w]) => [ts, w.value] as [number, Value]).sort((a, b) => a[0] - b[0]);
  }

  const GRANULARITY_MS: Record<Granularity, number> = { '1m': 60_000, '1h': 3_600_000, '1d': 86_400_000 };
  const floorTo = (ms: number, size: number) => ms - (((ms % size) + size) % size);

  interface Expected { timestampMs: number; count: number; sum: number | bigint; min: number | bigint; max: number | bigint }

  /** Buckets of the numeric points (MIXED: text points do not aggregate). */
  function expectedBuckets(points: [number, Value][], size: number): Expected[] {
    const groups = new Map<number, (number | bigint)[]>();
    for (const [ts, value] of points) {
      if (typeof value === 'string') continue;
      const bucket = floorTo(ts, size);
      groups.set(bucket, [...(groups.get(bucket) ?? []), value]);
    }
    return [...groups].sort((a, b) => a[0] - b[0]).map(([timestampMs, values]) => {
      if (typeof values[0] === 'bigint') {
        const big = values as bigint[];
        return { timestampMs, count: big.length, sum: big.reduce((a, b) => a + b, 0n), min: big.reduce((a, b) => (b < a ? b : a)), max: big.reduce((a, b) => (b > a ? b : a)) };
      }
      const numbers = values as number[];
      return { timestampMs, count: numbers.length, sum: numbers.reduce((a, b) => a + b, 0), min: Math.min(...numbers), max: Math.max(...numbers) };
    });
  }

  function close(actual: unknown, expected: unknown): boolean {
    if (typeof actual === 'number' && typeof expected === 'number') return Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected));
    return actual === expected;
  }

  const show = (value: unknown) => JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? `${v}n` : v));

  function sameBuckets(label: string, actual: readonly Expected[], expected: readonly Expected[]): void {
    if (actual.length !== expected.length) throw new Error(`${label}: ${actual.length} buckets, expected ${expected.length}: ${show(actual.slice(0, 3))} vs ${show(expected.slice(0, 3))}`);
    expected.forEach((e, i) => {
      const a = actual[i] as Expected;
      const keys = ['timestampMs', 'count', 'sum', 'min', 'max'] as const;
      if (!keys.every((k) => close(a[k], e[k]))) throw new Error(`${label}: bucket ${i}: ${show(a)}, expected ${show(e)}`);
    });
  }

  interface Run { tenant: string; models: Map<number, Model>; replayVersion: bigint }

  async function checkReads(run: Run, phase: string): Promise<void> {
    for (const ref of SERIES) {
      const points = live(run.models.get(ref.seriesId) as Model);
      const { points: raw } = await store.readRaw(run.tenant, ref, { start: T0 - 1, end: T0 + SPAN_MS + 1, limit: 100_000 });
      if (show([...raw.timestampMs]) !== show(points.map(([ts]) => ts))) throw new Error(`${phase} ${ref.valueType}: raw timestamps differ`);
      for (const granularity of ['1m', '1h', '1d'] as const) {
        const page = await store.aggregate(run.tenant, ref, { start: T0, end: T0 + SPAN_MS, granularity, aggregates: ['COUNT', 'SUM', 'MIN', 'MAX'], limit: 10_000 });
        const actual = page.buckets.map((b: AggregateBucket) => ({ timestampMs: b.timestampMs, count: b.count as number, sum: b.sum as number | bigint, min: b.min as number | bigint, max: b.max as number | bigint }));
        sameBuckets(`${phase} ${ref.valueType} ${granularity}`, actual, expectedBuckets(points, GRANULARITY_MS[granularity]));
      }
      const last = points[points.length - 1];
      const latest = await store.latest(run.tenant, [ref]);
      const expected = last ? [{ seriesId: ref.seriesId, timestampMs: last[0], value: last[1] }] : [];
      if (show(latest) !== show(expected)) throw new Error(`${phase} ${ref.valueType}: latest ${show(latest)}, expected ${show(expected)}`);
    }
  }

  interface RollupRow { bucket: string; n: string; s: string; lo: string; hi: string }

  /** The rollup rows themselves (after a complete fold): every level against the model. */
  async function checkRollupRows(run: Run, phase: string): Promise<void> {
    for (const ref of SERIES) {
      const family = ref.valueType === 'BIGINT' ? 'int' : ref.valueType === 'FLOAT' ? 'float' : 'mixed';
      const points = live(run.models.get(ref.seriesId) as Model);
      for (const [level, size] of [['1m', 60_000], ['1h', 3_600_000]] as const) {
        const rows = await store.columnar.query<RollupRow>(`SELECT toString(bucket) AS bucket, toString(value_count) AS n, toString(value_sum) AS s,
    toString(value_min) AS lo, toString(value_max) AS hi
  FROM datapoints_${family}_${level} FINAL
  WHERE tenant = {tenant:String} AND series_id = {series:UInt64} AND value_count > 0 ORDER BY bucket`, { tenant: run.tenant, series: ref.seriesId });
        const read = (text: string) => (ref.valueType === 'BIGINT' ? BigInt(text) : Number(text));
        const actual = rows.map((r) => ({ timestampMs: Number(r.bucket), count: Number(r.n), sum: read(r.s), min: read(r.lo), max: read(r.hi) }));
        sameBuckets(`${phase} ${ref.valueType} ${level} rows`, actual, expectedBuckets(points, size));
      }
    }
  }

  type Command =
    | { kind: 'write'; series: number; overwrite: boolean; replay: boolean; offsets: number[]; draws: number[] }
    | { kind: 'delete'; series: number; at: number; lengthMs: number }
    | { kind: 'deleteMany'; series: number; ranges: { at: number; lengthMs: number }[] }
    | { kind: 'fold' }
    | { kind: 'check' };

  const command: fc.Arbitrary<Command> = fc.oneof(
    { weight: 5, arbitrary: fc.record({
      kind: fc.constant('write' as const), series: fc.nat(2), overwrite: fc.boolean(), replay: fc.boolean(),
      // Timestamps: seconds plus a few ms, so minutes hold several points and overwrites collide.
      offsets: fc.array(fc.nat(SPAN_MS / 1000 - 1), { minLength: 1, maxLength: 40 }), draws: fc.array(fc.nat(1_000_000), { minLength: 40, maxLength: 40 }),
    }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), series: fc.nat(2), at: fc.nat(SPAN_MS), lengthMs: fc.nat(90 * 60_000) }) },
    // More overlapping ranges than datapoint-read-context.ts TOMBSTONE_LIST_MAX: reads take the join form.
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteMany' as const), series: fc.nat(2),
      ranges: fc.array(fc.record({ at: fc.nat(SPAN_MS), lengthMs: fc.integer({ min: 1, max: 5 * 60_000 }) }), { minLength: 40, maxLength: 80 }) }) },
    { weight: 2, arbitrary: fc.constant({ kind: 'fold' as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'check' as const }) },
  );

  async function apply(run: Run, cmd: Command, step: number): Promise<void> {
    if (cmd.kind === 'fold') { await store.runMaintenance({ includeHot: true }); return; }
    if (cmd.kind === 'check') { await checkReads(run, `step ${step}`); return; }
    const ref = SERIES[cmd.series] as SeriesRef;
    const model = run.models.get(ref.seriesId) as Model;
    if (cmd.kind === 'delete') {
      const begin = T0 + cmd.at;
      const version = store.writeVersions.next();
      await store.deleteRange(run.tenant, ref.seriesId, begin, begin + cmd.lengthMs);
      // deleteRanges takes the next version after `version`.
      model.tombstones.push({ begin, end: begin + cmd.lengthMs, version: version + 1n });
      return;
    }
    if (cmd.kind === 'deleteMany') {
      const version = store.writeVersions.next();
      await store.deleteRanges(run.tenant, cmd.ranges.map((r) => ({ seriesId: ref.seriesId, inclusiveBeginMs: T0 + r.at, exclusiveEndMs: T0 + r.at + r.lengthMs })));
      for (const r of cmd.ranges) model.tombstones.push({ begin: T0 + r.at, end: T0 + r.at + r.lengthMs, version: version + 1n });
      return;
    }
    // A replay carries the run's first version: it loses to every point there, so it goes only
    // where a newer point is (two writes of one version at one timestamp would be a tie).
    const existing = [...model.points].filter(([, w]) => !cmd.replay || w.version > run.replayVersion).map(([ts]) => ts);
    if (cmd.replay && existing.length === 0) return;
    const entries = new Map<number, Value>();
    cmd.offsets.forEach((offset, i) => {
      const ts = (cmd.overwrite || cmd.replay) && existing.length > 0 ? (existing[offset % existing.length] as number) : T0 + offset * 1000 + (offset % 3);
      entries.set(ts, valueOf(ref, cmd.draws[i] as number));
    });
    const version = cmd.replay ? run.replayVersion : store.writeVersions.next();
    const sorted = [...entries].sort((a, b) => a[0] - b[0]);
    await store.insert({ tenant: run.tenant, writeVersion: version, series: [pointsOf(ref, sorted)] });
    for (const [ts, value] of sorted) {
      const before = model.points.get(ts);
      if (!before || before.version < version) model.points.set(ts, { value, version });
    }
  }

  function newRun(): Run {
    return {
      tenant: `t-${randomUUID()}`, models: new Map(SERIES.map((ref) => [ref.seriesId, { points: new Map(), tombstones: [] }])), replayVersion: store.writeVersions.next(),
    };
  }

  t.test('rollups and reads match the model under overwrites, replays, late points, deletes and folds at any moment', async (t) => {
    await fc.assert(fc.asyncProperty(fc.array(command, { minLength: 4, maxLength: 14 }), async (commands) => {
      const run = newRun();
      let step = 0;
      for (const cmd of commands) await apply(run, cmd, step++);
      await checkReads(run, 'end, before the last fold');
      await store.runMaintenance({ includeHot: true });
      await checkRollupRows(run, 'after the last fold');
      await checkReads(run, 'after the last fold');
    }), { numRuns, seed: 1103, endOnFailure: true });
    t.pass('every run matched the model');
  });

  t.test('reads binding many overlapping tombstones of several versions (the join form) match the model before and after the fold', async (t) => {
    const run = newRun();
    const offsets = Array.from({ length: 40 }, (_, k) => k * 251);
    const draws = Array.from({ length: 40 }, (_, k) => k * 7919);
    for (const series of [0, 1, 2]) {
      await apply(run, { kind: 'write', series, overwrite: false, replay: false, offsets, draws }, 0);
      // 50 one-minute ranges every 200 s, then points written again into some, then 45 longer ranges of a newer version across both.
      await apply(run, { kind: 'deleteMany', series, ranges: Array.from({ length: 50 }, (_, k) => ({ at: k * 200_000 + 17, lengthMs: 60_000 })) }, 1);
      await apply(run, { kind: 'write', series, overwrite: true, replay: false, offsets: offsets.slice(0, 20), draws: draws.slice(20) }, 2);
      await apply(run, { kind: 'deleteMany', series, ranges: Array.from({ length: 45 }, (_, k) => ({ at: k * 230_000 + 90_000, lengthMs: 100_000 })) }, 3);
      await apply(run, { kind: 'write', series, overwrite: true, replay: false, offsets: offsets.slice(10, 30), draws: draws.slice(5, 25) }, 4);
    }
    await checkReads(run, 'many tombstones, before the fold');
    await store.runMaintenance({ includeHot: true });
    await checkRollupRows(run, 'many tombstones, after the fold');
    await checkReads(run, 'many tombstones, after the fold');
    t.pass('matched the model');
  });

  t.test('a data directory from before minute rollups is backfilled once at open', async (t) => {
    const run = newRun();
    for (const [i, series] of [0, 1, 2].entries()) {
      await apply(run, { kind: 'write', series, overwrite: false, replay: false, offsets: Array.from({ length: 40 }, (_, k) => k * 251 + i), draws: Array.from({ length: 40 }, (_, k) => k * 7919 + i) }, 0);
    }
    await store.runMaintenance({ includeHot: true });
    // What an older version leaves: hour rows and latest rows, no minute rows, no state row.
    for (const family of ['int', 'float', 'mixed']) await store.columnar.command(`TRUNCATE TABLE datapoints_${family}_1m`);
    await store.columnar.command("ALTER TABLE datapoint_state DELETE WHERE name = 'minute_rollups' SETTINGS mutations_sync = 2");
    await store.close();
    store = await openDatapointStore(config, { maintenanceIntervalMs: 0 });
    t.ok(await rollupBacklog(store.columnar) >= 3, 'every series with hour rows is marked dirty');
    await checkReads(run, 'reopened, before the fold');
    // A late point into a backfilled hour before the fold: its hour must still count every minute.
    await apply(run, { kind: 'write', series: 1, overwrite: false, replay: false, offsets: [7], draws: [12345] }, 1);
    await store.runMaintenance({ includeHot: true });
    t.equal(await rollupBacklog(store.columnar), 0, 'the fold resolved the backfill marks');
    await checkRollupRows(run, 'backfilled');
    await checkReads(run, 'backfilled');
    await store.close();
    store = await openDatapointStore(config, { maintenanceIntervalMs: 0 });
    t.equal(await rollupBacklog(store.columnar), 0, 'a later open marks nothing');
  });
}
