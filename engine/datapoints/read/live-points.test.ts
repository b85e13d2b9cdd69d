// Goal: aggregates of FLOAT series whose dirty minutes are counted from the live points held in
// memory (live-points.ts), SPEC's and CDF's interpolating ones, answer exactly what the store's
// statements answer at the same moment:
// through takes, later writes that overwrite, repeat a timestamp, arrive out of order or fall
// below the held floor, folds that clean minutes (the floor then rises), deletes (the series
// is dropped and taken again once its tombstones are gone from the read: never, here, so the
// store answers), and points still in the ingest log's memory. Method: a real data point store
// (chdb in a temp dir) behind a group-commit log with its write-ahead log whose inserts the test
// holds or lets through (HoldingSink); fast-check (fixed seed, printed) draws the steps; every
// read runs twice, through the store's read state (memory) and with none (context and raw
// statements), and the answers must be identical. The run must have answered cells from memory.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import t from 'tap';
import { openDatapointStore } from '../datapoint-store.ts';
import { aggregateMany } from './datapoint-aggregate.ts';
import { cdfAggregateMany, type CdfAggregateName } from './cdf-aggregates.ts';
import { bucketReach, parseGranularity } from './aggregate-grid.ts';
import { logger } from '../../log.ts';
import { SlabPool } from '../../memory/slab-pool.ts';
import { GroupCommitLog } from '../../ingest/group-commit.ts';
import { IngestWal } from '../../ingest/ingest-wal.ts';
import { HoldingSink } from '../../testing/holding-sink.ts';
import { LivePoints } from './live-points.ts';
import { PackedBatch } from '../write/packed-batch.ts';
import type { AggregateName, QueuedRun, SeriesPoints, SeriesRef } from '../types.ts';

const quietLog = logger.child({ module: 'live-points-test' }, { level: 'silent' });
const dir = mkdtempSync(path.join(tmpdir(), 'live-points-test-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const store = await openDatapointStore({ dataDir: dir }, { maintenanceIntervalMs: 0 });
t.teardown(() => store.close());

/** An hour boundary; points fall on a 7 s grid over about three hours from it. */
const T0 = 1_700_002_800_000;
const STEP_MS = 7_000;
const SLOTS = 1_500;
const SERIES: readonly SeriesRef[] = [{ seriesId: 9_100, valueType: 'FLOAT' }, { seriesId: 9_101, valueType: 'FLOAT' }];

/** Points of one append: a run of slots from `from` (time-major writers) or scattered ones, small values. */
const drawnPoints = fc.oneof(
  fc.record({ from: fc.nat({ max: SLOTS - 1 }), count: fc.integer({ min: 1, max: 120 }), value: fc.integer({ min: -40, max: 40 }) })
    .map(({ from, count, value }) => Array.from({ length: Math.min(count, SLOTS - from) }, (_, k): [number, number] => [from + k, value + (k % 7)])),
  fc.array(fc.tuple(fc.nat({ max: SLOTS - 1 }), fc.integer({ min: -40, max: 40 })), { minLength: 1, maxLength: 30 }),
);

type Step =
  | { kind: 'write'; series: number; points: [number, number][]; held: boolean }
  | { kind: 'fold' }
  | { kind: 'release' }
  | { kind: 'delete'; series: number; from: number; length: number }
  | { kind: 'read' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('write' as const), series: fc.nat({ max: SERIES.length - 1 }), points: drawnPoints, held: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'fold' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'release' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), series: fc.nat({ max: SERIES.length - 1 }), from: fc.nat({ max: SLOTS - 1 }), length: fc.integer({ min: 1, max: 300 }) }) },
  { weight: 4, arbitrary: fc.constant({ kind: 'read' as const }) },
);
const SEED = 20_261_202;

function pointsOf(series: SeriesRef, drawn: readonly [number, number][]): SeriesPoints {
  // One append holds a timestamp once, ascending (as the parsers hand them over).
  const bySlot = new Map<number, number>();
  for (const [slot, value] of drawn) bySlot.set(slot, value);
  const slots = [...bySlot.keys()].sort((a, b) => a - b);
  return {
    seriesId: series.seriesId, valueType: series.valueType,
    timestampMs: Float64Array.from(slots, (s) => T0 + s * STEP_MS), float: Float64Array.from(slots, (s) => (bySlot.get(s) as number) / 4),
  };
}

const WINDOWS = [
  { start: T0 - 3_600_000, end: T0 + (SLOTS + 600) * STEP_MS },
  { start: T0 + 200 * STEP_MS + 3_000, end: T0 + 900 * STEP_MS },
  { start: T0 + 3_600_000, end: T0 + 7_200_000 },
];
const GRANULARITIES = ['1m', '2m', '30s', '1h'];
const AGGREGATES: AggregateName[] = ['COUNT', 'SUM', 'MIN', 'MAX', 'AVG'];
const CDF_AGGREGATES: CdfAggregateName[] = ['average', 'interpolation', 'stepInterpolation', 'totalVariation', 'continuousVariance', 'count'];

t.test('aggregates counted from live points in memory answer what the store answers', async (t) => {
  t.comment(`fast-check seed ${SEED}`);
  const live = (store.contexts as { live: LivePoints }).live;
  const before = live.stats();
  let reads = 0;
  await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 24 }), async (steps) => {
    const tenant = `t-${randomUUID()}`;
    const { wal } = await IngestWal.open({ dir: mkdtempSync(path.join(dir, 'wal-')), logger: quietLog });
    const sink = new HoldingSink(store);
    const log = new GroupCommitLog({ store: sink, nextWriteVersion: () => store.writeVersions.next(), commitIntervalMinMs: 0, wal, slabs: new SlabPool(), logger: quietLog });
    const releaseAll = async () => {
      await sink.releaseAll();
      while (log.stats().queuedPoints > 0) {
        await new Promise((resolve) => setTimeout(resolve, 2));
        await sink.releaseAll();
      }
    };
    try {
      for (const s of steps) {
        if (s.kind === 'write') {
          await log.append({ tenant, series: [pointsOf(SERIES[s.series] as SeriesRef, s.points)] });
          if (!s.held) await releaseAll();
        } else if (s.kind === 'release') {
          await releaseAll();
        } else if (s.kind === 'fold') {
          await releaseAll();
          await store.runMaintenance({ includeHot: true });
        } else if (s.kind === 'delete') {
          const series = SERIES[s.series] as SeriesRef;
          await store.deleteRanges(tenant, [{ seriesId: series.seriesId, inclusiveBeginMs: T0 + s.from * STEP_MS, exclusiveEndMs: T0 + (s.from + s.length) * STEP_MS }]);
        } else {
          for (const window of WINDOWS) {
            for (const granularity of GRANULARITIES) {
              const reach = bucketReach(parseGranularity(granularity), window.start, window.end);
              const requests = SERIES.map((series) => {
                const [runs] = log.queuedForRead(tenant, [series.seriesId], [reach]) as [QueuedRun[] | undefined];
                return { series: runs ? { ...series, queued: runs } : series, options: { start: window.start, end: window.end, granularity: granularity as never, aggregates: AGGREGATES, limit: 10_000 } };
              });
              const held = await store.aggregateMany(tenant, requests);
              const fromStore = await aggregateMany(store.columnar, tenant, requests);
              reads++;
              const text = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
              if (text(held) !== text(fromStore)) {
                throw new Error(`${granularity} over [${window.start}, ${window.end}): with the read state ${text(held)}, from the store ${text(fromStore)}`);
              }
            }
          }
          // CDF's interpolating aggregates take the dirty minutes' points themselves.
          for (const granularity of ['1m', '10m', '1h']) {
            const window = WINDOWS[0] as { start: number; end: number };
            const requests = SERIES.map((series) => {
              const [runs] = log.queuedForRead(tenant, [series.seriesId], [{ start: -Infinity, end: Infinity }]) as [QueuedRun[] | undefined];
              return { series: runs ? { ...series, queued: runs } : series, options: { start: window.start, end: window.end, granularity, aggregates: CDF_AGGREGATES, isStep: false, limit: 10_000 } };
            });
            const held = JSON.stringify(await store.cdfAggregateMany(tenant, requests));
            const fromStore = JSON.stringify(await cdfAggregateMany(store.columnar, tenant, requests));
            reads++;
            if (held !== fromStore) throw new Error(`CDF ${granularity}: with the read state ${held}, from the store ${fromStore}`);
          }
        }
      }
    } finally {
      await releaseAll();
      await log.close();
      await wal.close();
    }
  }), { seed: SEED, numRuns: 12 });
  const after = live.stats();
  t.ok(reads > 50, `reads compared (${reads})`);
  t.ok(after.taken > before.taken, `series were taken into memory (${after.taken - before.taken})`);
  t.ok(after.cellsFromMemory > before.cellsFromMemory, `cells were answered from memory (${after.cellsFromMemory - before.cellsFromMemory})`);
  t.ok(after.pointsFromMemory > before.pointsFromMemory, `CDF pieces were taken from memory (${after.pointsFromMemory - before.pointsFromMemory})`);
});

t.test('held points: a later version wins a timestamp, a raised floor drops older points, a delete drops the series', async (t) => {
  const live = new LivePoints();
  const M = 60_000;
  t.equal(live.cover('a', 1, [[10 * M, 12 * M]]).take, 10 * M, 'a series not held asks to be taken');
  t.ok(live.beginTake('a', 1, 10 * M));
  t.notOk(live.beginTake('a', 1, 10 * M), 'one take at a time');
  live.taken('a', 1, 10 * M, { ts: [10 * M, 10 * M + 1_000, 11 * M], values: [1, 2, 3], versions: [5n, 5n, 5n] });
  t.same(live.cover('a', 1, [[9 * M, 12 * M]], undefined, Date.now()), { inMemory: [[10 * M, 12 * M]], fromStore: [[9 * M, 10 * M]] }, 'below the floor from the store, not taken again at once');
  const queued: QueuedRun[] = [{ writeVersion: 4n, points: { seriesId: 1, valueType: 'FLOAT', timestampMs: Float64Array.of(10 * M, 11 * M + 5), float: Float64Array.of(100, 7) } }];
  t.same(Object.fromEntries(live.partials('a', 1, [[10 * M, 12 * M]], queued, M, 0) ?? []), {
    [10 * M]: { n: 2, s: 3, lo: 1, hi: 2 }, // the queued version 4 loses to the held version 5
    [11 * M]: { n: 2, s: 10, lo: 3, hi: 7 },
  });
  live.settle('a', 1, 11 * M);
  t.same(live.cover('a', 1, [[10 * M, 12 * M]], undefined, Date.now()).inMemory, [[11 * M, 12 * M]], 'the floor rose to the first minute the fold has not reached');
  live.deleteStarted([['a', 1]]);
  t.notOk(live.beginTake('b', 2, 0), 'nothing is taken in while a delete runs');
  live.deleteEnded();
  t.equal(live.partials('a', 1, [[11 * M, 12 * M]], undefined, M, 0), undefined, 'the deleted series is no longer held');
});

t.test('held points: late and repeated timestamps are sorted into the held ones, the highest version winning each', async (t) => {
  // Batches of one series in any version order, each a set of timestamps; a read (partials,
  // one cell per millisecond) after some of them. Oracle: per timestamp the highest version's value.
  const batches = fc.array(fc.uniqueArray(fc.tuple(fc.nat({ max: 60 }), fc.integer({ min: -9, max: 9 })), { selector: ([ts]) => ts, maxLength: 12 }), { minLength: 1, maxLength: 12 });
  fc.assert(fc.property(batches, fc.array(fc.nat({ max: 11 })), fc.array(fc.nat({ max: 1_000 }), { minLength: 12, maxLength: 12 }), (drawn, readsAfter, order) => {
    const live = new LivePoints();
    live.beginTake('a', 1, 0);
    live.taken('a', 1, 0, { ts: [], values: [], versions: [] });
    const oracle = new Map<number, { version: bigint; value: number }>();
    drawn.forEach((points, b) => {
      // Distinct versions in an order of their own (two inserts may land out of version order).
      const version = BigInt((order[b] as number) * 100 + b);
      const sorted = [...points].sort((x, y) => x[0] - y[0]);
      live.written([new PackedBatch({ tenant: 'a', writeVersion: version, series: [{ seriesId: 1, valueType: 'FLOAT', timestampMs: Float64Array.from(sorted, ([ts]) => ts), float: Float64Array.from(sorted, ([, v]) => v) }] })]);
      for (const [ts, value] of sorted) if ((oracle.get(ts)?.version ?? -1n) < version) oracle.set(ts, { version, value });
      if (readsAfter.includes(b) || b === drawn.length - 1) {
        const cells = live.partials('a', 1, [[0, 61]], undefined, 1, 0) ?? new Map();
        const expected = new Map([...oracle].map(([ts, { value }]) => [ts, { n: 1, s: value, lo: value, hi: value }]));
        if (JSON.stringify([...cells].sort((x, y) => x[0] - y[0])) !== JSON.stringify([...expected].sort((x, y) => x[0] - y[0]))) {
          throw new Error(`after batch ${b}: held ${JSON.stringify([...cells])}, expected ${JSON.stringify([...expected])}`);
        }
      }
    });
  }), { seed: SEED, numRuns: 300 });
  t.pass('held points matched the oracle');
});

t.test('held points: past LIVE_POINTS_MAX in all the series read longest ago is dropped', async (t) => {
  const live = new LivePoints();
  const perSeries = 499_999;
  const ts = Float64Array.from({ length: perSeries }, (_, i) => i);
  const values = new Float64Array(perSeries);
  const versions = new BigInt64Array(perSeries).fill(1n);
  for (let id = 1; id <= 5; id++) {
    live.cover('a', id, [[0, 60_000]], undefined, id);
    t.ok(live.beginTake('a', id, 0, id));
    live.taken('a', id, 0, { ts, values, versions });
  }
  t.equal(live.stats().series, 4, 'five series of 499,999 points pass 2,000,000: one went');
  t.equal(live.partials('a', 1, [[0, 60_000]], undefined, 60_000, 0), undefined, 'the one read longest ago');
  t.ok(live.partials('a', 5, [[0, 60_000]], undefined, 60_000, 0), 'the newest is held');
  t.ok(live.stats().points <= 2_000_000);
});
