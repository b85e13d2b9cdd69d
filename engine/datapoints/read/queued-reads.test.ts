// Goal: a read that takes acknowledged points from the ingest log's memory instead of waiting
// for their insert (GroupCommitLog.queuedForRead, SeriesRef.queued) answers exactly what the
// same read answers once those points are in the store: raw pages as JSON (walked by cursor,
// both directions) and as Arrow, SPEC's aggregates on minute, hour and sub-minute grids over
// rollups folded before the queue, CDF's aggregates, for every family; with queued points
// that overwrite stored ones, fall between them, repeat a timestamp across appends, and are
// deleted after they were acknowledged. Method: a real data point store (chdb in a temp dir)
// behind a group-commit log with its write-ahead log whose inserts are held (HoldingSink);
// fast-check (fixed seed, printed) draws the stored points, a fold, the queued appends and the
// deletes; every read runs with the queued points, then again once they are inserted.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import t from 'tap';
import { openDatapointStore } from '../datapoint-store.ts';
import type { QueuedRun, SeriesPoints, SeriesRef, ValueType } from '../types.ts';
import { logger } from '../../log.ts';
import { SlabPool } from '../../memory/slab-pool.ts';
import { GroupCommitLog } from '../../ingest/group-commit.ts';
import { IngestWal } from '../../ingest/ingest-wal.ts';
import { HoldingSink } from '../../testing/holding-sink.ts';
import { bucketReach, parseGranularity } from './aggregate-grid.ts';
import type { AggregateName } from '../types.ts';
import type { CdfAggregateName } from './cdf-aggregates.ts';

const quietLog = logger.child({ module: 'queued-reads-test' }, { level: 'silent' });
const dir = mkdtempSync(path.join(tmpdir(), 'queued-reads-test-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const store = await openDatapointStore({ dataDir: dir }, { maintenanceIntervalMs: 0 });
t.teardown(() => store.close());

/** An hour boundary; points fall on a 7 s grid over about two hours from it. */
const T0 = 1_700_002_800_000;
const STEP_MS = 7_000;
const SLOTS = 1_100;
const SERIES: readonly SeriesRef[] = (['FLOAT', 'BIGINT', 'NUMERIC', 'DECIMAL32', 'TEXT', 'MIXED'] as ValueType[]).map((valueType, i) => ({ seriesId: 7_000 + i, valueType }));

/** A point: its slot on the grid and a small integer value (text: its digits; MIXED: text when odd). */
type Drawn = [slot: number, value: number];

function pointsOf(series: SeriesRef, drawn: readonly Drawn[]): SeriesPoints {
  // One append holds a timestamp once, ascending (as the parsers hand them over).
  const bySlot = new Map<number, number>();
  for (const [slot, value] of drawn) bySlot.set(slot, value);
  const slots = [...bySlot.keys()].sort((a, b) => a - b);
  const values = slots.map((slot) => bySlot.get(slot) as number);
  const points: SeriesPoints = { seriesId: series.seriesId, valueType: series.valueType, timestampMs: Float64Array.from(slots, (s) => T0 + s * STEP_MS) };
  switch (series.valueType) {
    case 'FLOAT': points.float = Float64Array.from(values, (v) => v / 4); break;
    case 'BIGINT': points.bigint = BigInt64Array.from(values, (v) => BigInt(v) * 1_000_000_000_000n); break;
    case 'NUMERIC': case 'DECIMAL32': points.scaled = BigInt64Array.from(values, (v) => BigInt(v) * 1_250n); break;
    case 'TEXT': points.text = values.map((v) => `v${v}`); break;
    case 'MIXED':
      points.float = Float64Array.from(values, (v) => (v % 2 === 0 ? v / 2 : 0));
      points.isText = Uint8Array.from(values, (v) => v % 2);
      points.text = values.map((v) => (v % 2 === 1 ? `t${v}` : ''));
      break;
    default: break;
  }
  return points;
}

const drawnPoints = fc.array(fc.tuple(fc.nat({ max: SLOTS - 1 }), fc.integer({ min: -50, max: 50 })), { minLength: 1, maxLength: 40 });
/** Per series, points; some of the queued ones land on stored slots (overwrites). */
const scenario = fc.record({
  stored: fc.array(drawnPoints, { minLength: SERIES.length, maxLength: SERIES.length }),
  fold: fc.boolean(),
  queued: fc.array(fc.record({ series: fc.subarray([...SERIES.keys()], { minLength: 1 }), points: drawnPoints }), { minLength: 1, maxLength: 4 }),
  /** A delete after the queued appends, on one series' [from, to) slots. */
  deleted: fc.option(fc.record({ series: fc.nat({ max: SERIES.length - 1 }), from: fc.nat({ max: SLOTS - 1 }), length: fc.integer({ min: 1, max: 400 }) }), { nil: undefined }),
  /** An append after the delete (newer than its tombstone). */
  late: fc.option(fc.record({ series: fc.nat({ max: SERIES.length - 1 }), points: drawnPoints }), { nil: undefined }),
});
const SEED = 20_261_128;

interface Window { start: number; end: number }

/** The reads of one series, in a form that compares with t.same. */
async function answers(tenant: string, series: SeriesRef, queued: (window: Window) => SeriesRef): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const whole = { start: T0 - 3_600_000, end: T0 + (SLOTS + 600) * STEP_MS };
  const part = { start: T0 + 200 * STEP_MS + 3_000, end: T0 + 700 * STEP_MS };
  for (const [name, window] of [['whole', whole], ['part', part]] as const) {
    // Raw pages by cursor, ascending and (no start) descending.
    for (const descending of [false, true]) {
      const pages: string[] = [];
      let cursor: string | undefined;
      const ref = queued(descending ? { start: -Infinity, end: window.end } : window);
      do {
        const page = await store.readRawJson(tenant, ref, { start: descending ? undefined : window.start, end: window.end, limit: 17, cursor });
        pages.push(Buffer.from(page.datapoints).toString());
        cursor = page.nextCursor;
      } while (cursor !== undefined && pages.length < 200);
      out[`raw ${name} ${descending ? 'desc' : 'asc'}`] = pages;
    }
    const arrow = await store.readRawArrow(tenant, queued(window), { start: window.start, end: window.end, limit: 1_000 });
    out[`arrow ${name}`] = { length: arrow.length, ts: [...(arrow.timestamps?.values ?? [])].map(String), values: [...(arrow.values?.values ?? [])].map(String), next: arrow.nextCursor };
    if (series.valueType === 'TEXT') continue;
    const aggregates: AggregateName[] = ['COUNT', 'SUM', 'MIN', 'MAX', 'AVG'];
    for (const granularity of ['1m', '1h', '30s', '2m']) {
      const reach = bucketReach(parseGranularity(granularity), window.start, window.end);
      const [result] = await store.aggregateMany(tenant, [{ series: queued(reach), options: { start: window.start, end: window.end, granularity: granularity as never, aggregates, limit: 1_000 } }]);
      out[`aggregates ${name} ${granularity}`] = JSON.parse(JSON.stringify(result, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
    }
    const cdf: CdfAggregateName[] = ['average', 'interpolation', 'stepInterpolation', 'totalVariation', 'count', 'max'];
    for (const granularity of ['1m', '1h', '10m']) {
      const [result] = await store.cdfAggregateMany(tenant, [{ series: queued({ start: -Infinity, end: Infinity }), options: { start: window.start, end: window.end, granularity, aggregates: cdf, isStep: false, limit: 1_000 } }]);
      out[`cdf ${name} ${granularity}`] = result;
    }
  }
  return out;
}

t.test('reads with queued points answer what they answer once those points are inserted', async (t) => {
  t.comment(`fast-check seed ${SEED}`);
  let withQueued = 0;
  await fc.assert(fc.asyncProperty(scenario, async (s) => {
    const tenant = `t-${randomUUID()}`;
    const { wal } = await IngestWal.open({ dir: mkdtempSync(path.join(dir, 'wal-')), logger: quietLog });
    const sink = new HoldingSink(store);
    const log = new GroupCommitLog({ store: sink, nextWriteVersion: () => store.writeVersions.next(), commitIntervalMinMs: 0, wal, slabs: new SlabPool(), logger: quietLog });
    try {
      await log.append({ tenant, series: SERIES.map((series, i) => pointsOf(series, s.stored[i] as Drawn[])) });
      await sink.entered(1);
      await sink.releaseAll();
      if (s.fold) await store.runMaintenance({ includeHot: true });
      const held = sink.calls.length;
      for (const append of s.queued) await log.append({ tenant, series: append.series.map((i) => pointsOf(SERIES[i] as SeriesRef, append.points)) });
      if (s.deleted) await store.deleteRanges(tenant, [{ seriesId: (SERIES[s.deleted.series] as SeriesRef).seriesId, inclusiveBeginMs: T0 + s.deleted.from * STEP_MS, exclusiveEndMs: T0 + (s.deleted.from + s.deleted.length) * STEP_MS }]);
      if (s.late) await log.append({ tenant, series: [pointsOf(SERIES[s.late.series] as SeriesRef, s.late.points)] });
      const before = new Map<number, Record<string, unknown>>();
      for (const series of SERIES) {
        const queued = (window: Window): SeriesRef => {
          const [runs] = log.queuedForRead(tenant, [series.seriesId], [window]) as [QueuedRun[] | undefined];
          if (runs) withQueued++;
          return runs ? { ...series, queued: runs } : series;
        };
        before.set(series.seriesId, await answers(tenant, series, queued));
      }
      t.ok(sink.calls.length > held || sink.held().length > 0 || log.stats().queuedPoints > 0, 'the queued appends were not inserted while read');
      await sink.entered(held + 1);
      await sink.releaseAll();
      // Inserts taken while the first ones were held.
      while (log.stats().queuedPoints > 0) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        await sink.releaseAll();
      }
      for (const series of SERIES) {
        const [runs] = log.queuedForRead(tenant, [series.seriesId], [{ start: -Infinity, end: Infinity }]);
        if (runs) throw new Error('points still queued after every insert is done');
        const after = await answers(tenant, series, () => series);
        const expected = before.get(series.seriesId) as Record<string, unknown>;
        for (const key of Object.keys(after)) {
          if (JSON.stringify(expected[key]) !== JSON.stringify(after[key])) {
            throw new Error(`${series.valueType} ${key}: with queued points ${JSON.stringify(expected[key])}, once inserted ${JSON.stringify(after[key])}`);
          }
        }
      }
    } finally {
      await sink.releaseAll();
      await log.close();
      await wal.close();
    }
  }), { seed: SEED, numRuns: 8 });
  t.ok(withQueued > 100, `reads carried queued points (${withQueued})`);
});
