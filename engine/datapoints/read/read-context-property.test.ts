// Goal: with read contexts held in memory, every read stays exact under any order
// of inserts (overwrites, late points), deletes, folds and reads, also while inserts, deletes
// and folds run beside the reads. Method: fast-check draws command sequences against the real
// embedded store; a plain JS map of each series' live points (the model) is the reference for
// raw pages (ascending with cursors, descending, engine JSON), 1m/1h/1d aggregates and latest.
// In a concurrent group each series is written at most once; a read of a series written in its
// group must equal the model before or after that write, any other read the model exactly.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import t from 'tap';
import { openDatapointStore, type DatapointStore } from '../datapoint-store.ts';
import type { AggregateName, Granularity, SeriesPoints, SeriesRef } from '../types.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'read-context-property-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const store: DatapointStore = await openDatapointStore({ dataDir: dir }, { maintenanceIntervalMs: 0 });
t.teardown(() => store.close());

const HOUR = 3_600_000;
const T0 = Math.floor(1_700_000_000_000 / HOUR) * HOUR;
/** Timestamps are slots of 45 s over 3 hours (ms offsets kept uneven against minute alignment). */
const SLOT_MS = 45_000;
const SLOTS = 240;
const at = (slot: number) => T0 + slot * SLOT_MS + 7;
const REFS: readonly SeriesRef[] = [{ seriesId: 1, valueType: 'FLOAT' }, { seriesId: 2, valueType: 'FLOAT' }, { seriesId: 3, valueType: 'BIGINT' }];
const AGGREGATES: AggregateName[] = ['COUNT', 'SUM', 'MIN', 'MAX'];

type Model = Map<string, Map<number, number>>;
const keyOf = (tenant: number, series: number) => `${tenant}:${series}`;

interface Insert { kind: 'insert'; tenant: number; series: number; points: [slot: number, value: number][] }
interface Delete { kind: 'delete'; tenant: number; series: number; from: number; slots: number }
interface Read { kind: 'read'; tenant: number; series: number; from: number; to: number; limit: number }
interface Fold { kind: 'fold' }
interface Group { kind: 'group'; writes: (Insert | Delete)[]; fold: boolean; reads: Read[] }
type Command = Insert | Delete | Read | Fold | Group;

const tenantArb = fc.integer({ min: 0, max: 1 });
const seriesArb = fc.integer({ min: 0, max: REFS.length - 1 });
const insertArb: fc.Arbitrary<Insert> = fc.record({
  kind: fc.constant('insert' as const), tenant: tenantArb, series: seriesArb,
  points: fc.array(fc.tuple(fc.integer({ min: 0, max: SLOTS - 1 }), fc.integer({ min: -1000, max: 1000 })), { minLength: 1, maxLength: 30 }),
});
const deleteArb: fc.Arbitrary<Delete> = fc.record({
  kind: fc.constant('delete' as const), tenant: tenantArb, series: seriesArb, from: fc.integer({ min: 0, max: SLOTS - 1 }), slots: fc.integer({ min: 1, max: 120 }),
});
const readArb: fc.Arbitrary<Read> = fc.record({
  kind: fc.constant('read' as const), tenant: tenantArb, series: seriesArb,
  from: fc.integer({ min: 0, max: SLOTS }), to: fc.integer({ min: 0, max: SLOTS }), limit: fc.integer({ min: 1, max: 60 }),
});
const groupArb: fc.Arbitrary<Group> = fc.record({
  kind: fc.constant('group' as const),
  writes: fc.uniqueArray(fc.oneof(insertArb, insertArb, deleteArb), { maxLength: 3, selector: (w) => keyOf(w.tenant, w.series) }),
  fold: fc.boolean(),
  reads: fc.array(readArb, { minLength: 1, maxLength: 3 }),
});
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { arbitrary: insertArb, weight: 4 }, { arbitrary: deleteArb, weight: 1 }, { arbitrary: readArb, weight: 3 },
  { arbitrary: fc.constant({ kind: 'fold' as const }), weight: 1 }, { arbitrary: groupArb, weight: 2 },
);

function applyToModel(model: Model, write: Insert | Delete): void {
  const key = keyOf(write.tenant, write.series);
  const points = model.get(key) ?? new Map<number, number>();
  model.set(key, points);
  if (write.kind === 'insert') for (const [slot, value] of write.points) points.set(at(slot), value);
  else for (const ts of [...points.keys()]) if (ts >= at(write.from) && ts < at(write.from + write.slots)) points.delete(ts);
}

async function runWrite(tenantOf: (i: number) => string, write: Insert | Delete): Promise<void> {
  const ref = REFS[write.series] as SeriesRef;
  if (write.kind === 'delete') return store.deleteRange(tenantOf(write.tenant), ref.seriesId, at(write.from), at(write.from + write.slots));
  // One batch holds each timestamp once, the last value drawn wins, sorted.
  const byTs = new Map<number, number>();
  for (const [slot, value] of write.points) byTs.set(at(slot), value);
  const ts = [...byTs.keys()].sort((a, b) => a - b);
  const points: SeriesPoints = { ...ref, timestampMs: Float64Array.from(ts) };
  if (ref.valueType === 'BIGINT') points.bigint = BigInt64Array.from(ts, (x) => BigInt(byTs.get(x) as number));
  else points.float = Float64Array.from(ts, (x) => byTs.get(x) as number);
  return store.insert({ tenant: tenantOf(write.tenant), series: [points], writeVersion: store.writeVersions.next() });
}

/** What every read of a series over [from, to) should say, as plain values. */
function expected(model: Model, read: Read) {
  const ref = REFS[read.series] as SeriesRef;
  const num = (v: number) => (ref.valueType === 'BIGINT' ? BigInt(v) : v);
  const all = [...(model.get(keyOf(read.tenant, read.series)) ?? new Map<number, number>())].sort((a, b) => a[0] - b[0]);
  const [start, end] = [at(Math.min(read.from, read.to)), at(Math.max(read.from, read.to))];
  const inWindow = all.filter(([ts]) => ts >= start && ts < end);
  const aggregates: Record<string, unknown> = {};
  for (const granularity of ['1m', '1h', '1d'] as Granularity[]) {
    const size = { '1m': 60_000, '1h': HOUR, '1d': 86_400_000 }[granularity];
    const buckets = new Map<number, number[]>();
    // Buckets start at or after the aligned start and before end (types.ts AggregateOptions).
    for (const [ts, v] of all) {
      const bucket = ts - (ts % size);
      if (bucket >= start - (start % size) && bucket < end) buckets.set(bucket, [...(buckets.get(bucket) ?? []), v]);
    }
    aggregates[granularity] = [...buckets].sort((a, b) => a[0] - b[0]).map(([timestampMs, vs]) => ({
      timestampMs, count: vs.length, sum: ref.valueType === 'BIGINT' ? vs.reduce((s, v) => s + BigInt(v), 0n) : vs.reduce((s, v) => s + v, 0),
      min: num(Math.min(...vs)), max: num(Math.max(...vs)),
    }));
  }
  const last = all[all.length - 1];
  return {
    raw: inWindow.map(([ts, v]) => [ts, num(v)]),
    descending: inWindow.slice(-read.limit).map(([ts, v]) => [ts, num(v)]),
    json: inWindow.slice(0, read.limit).map(([ts, v]) => [ts, String(v)]),
    aggregates,
    latest: last ? [{ seriesId: ref.seriesId, timestampMs: last[0], value: num(last[1]) }] : [],
  };
}

/** The same as the store says it, paging raw reads through their cursors. */
async function actual(tenantOf: (i: number) => string, read: Read) {
  const ref = REFS[read.series] as SeriesRef;
  const tenant = tenantOf(read.tenant);
  const [start, end] = [at(Math.min(read.from, read.to)), at(Math.max(read.from, read.to))];
  const raw: unknown[][] = [];
  let cursor: string | undefined;
  do {
    const page = await store.readRaw(tenant, ref, { start, end, limit: read.limit, cursor });
    const values = ref.valueType === 'BIGINT' ? page.points.bigint : page.points.float;
    page.points.timestampMs.forEach((ts, i) => raw.push([ts, values?.[i]]));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  const down = await store.readRaw(tenant, ref, { end, limit: read.limit });
  const downValues = ref.valueType === 'BIGINT' ? down.points.bigint : down.points.float;
  const descending = [...down.points.timestampMs].map((ts, i) => [ts, downValues?.[i]]).filter(([ts]) => (ts as number) >= start);
  const page = await store.readRawJson(tenant, ref, { start, end, limit: read.limit });
  const json = (JSON.parse(`[${Buffer.from(page.datapoints).toString('utf8')}]`) as { timestamp: number; value: string }[]).map((p) => [p.timestamp, p.value]);
  const aggregates: Record<string, unknown> = {};
  for (const granularity of ['1m', '1h', '1d'] as Granularity[]) {
    aggregates[granularity] = (await store.aggregate(tenant, ref, { start, end, granularity, aggregates: AGGREGATES, limit: 10_000 })).buckets;
  }
  return { raw, descending, json, aggregates, latest: await store.latest(tenant, [ref]) };
}

/** Descending pages ignore `start`: compare only the part in the window, as expected() does. */
function trimDescending(e: ReturnType<typeof expected>, model: Model, read: Read): ReturnType<typeof expected> {
  const ref = REFS[read.series] as SeriesRef;
  const end = at(Math.max(read.from, read.to));
  const start = at(Math.min(read.from, read.to));
  const before = [...(model.get(keyOf(read.tenant, read.series)) ?? new Map<number, number>())].filter(([ts]) => ts < end).sort((a, b) => a[0] - b[0]);
  const num = (v: number) => (ref.valueType === 'BIGINT' ? BigInt(v) : v);
  return { ...e, descending: before.slice(-read.limit).filter(([ts]) => ts >= start).map(([ts, v]) => [ts, num(v)]) };
}

function expectedNow(model: Model, read: Read) {
  return trimDescending(expected(model, read), model, read);
}

let run = 0;
const seed = Number(process.env.PROPERTY_SEED ?? 20261123);

t.test('reads equal the model under random inserts, deletes, folds and concurrency', async (t) => {
  await fc.assert(fc.asyncProperty(fc.array(commandArb, { minLength: 1, maxLength: 14 }), async (commands) => {
    run++;
    const tenantOf = (i: number) => `p${run}-${i}`;
    const model: Model = new Map();
    const check = async (read: Read, label: string) => assert.deepStrictEqual(await actual(tenantOf, read), expectedNow(model, read), label);
    for (const command of commands) {
      if (command.kind === 'insert' || command.kind === 'delete') {
        await runWrite(tenantOf, command);
        applyToModel(model, command);
      } else if (command.kind === 'fold') {
        await store.runMaintenance({ includeHot: true });
      } else if (command.kind === 'read') {
        await check(command, 'read');
      } else {
        const before = new Map([...model].map(([k, v]) => [k, new Map(v)]));
        const after = new Map([...model].map(([k, v]) => [k, new Map(v)]));
        for (const write of command.writes) applyToModel(after, write);
        const written = new Set(command.writes.map((w) => keyOf(w.tenant, w.series)));
        const [reads] = await Promise.all([
          Promise.all(command.reads.map((read) => actual(tenantOf, read))),
          Promise.all(command.writes.map((write) => runWrite(tenantOf, write))),
          command.fold ? store.runMaintenance({ includeHot: true }) : undefined,
        ]);
        command.reads.forEach((read, i) => {
          const got = reads[i];
          if (!written.has(keyOf(read.tenant, read.series))) return assert.deepStrictEqual(got, expectedNow(before, read), 'read beside writes to other series');
          // Each part of the answer comes from before or after the one write of its series.
          const [b, a] = [expectedNow(before, read), expectedNow(after, read)];
          for (const part of Object.keys(b) as (keyof typeof b)[]) {
            const ok = [b[part], a[part]].some((e) => { try { assert.deepStrictEqual(got?.[part], e); return true; } catch { return false; } });
            assert.ok(ok, `read beside a write to its series, ${part}: ${JSON.stringify(got?.[part], (_, v) => (typeof v === 'bigint' ? `${v}n` : v))}`);
          }
        });
        for (const write of command.writes) applyToModel(model, write);
      }
    }
    // Everything written, before and after a final fold.
    for (const fold of [false, true]) {
      if (fold) await store.runMaintenance({ includeHot: true });
      for (let tenant = 0; tenant < 2; tenant++) {
        for (let series = 0; series < REFS.length; series++) await check({ kind: 'read', tenant, series, from: 0, to: SLOTS, limit: 50 }, `final read (fold ${fold})`);
      }
    }
  }), { numRuns: Number(process.env.PROPERTY_RUNS ?? 10), seed, endOnFailure: true });
  t.pass(`property held (seed ${seed})`);
});
