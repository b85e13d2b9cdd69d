// Goal: the group-commit log merges concurrent appends into one store insert, gives each
// append its own write version (the later append wins a shared timestamp), refuses appends
// past its queue bound with OverloadedError and a Retry-After, reports store failures to the
// appends concerned only, and drains on close. Method: a real data point store (chdb in a
// temp dir) behind a gate that holds the first insert open while more appends arrive.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { OverloadedError, StoreUnavailableError } from '../errors.ts';
import { openDatapointStore } from '../datapoints/datapoint-store.ts';
import type { SeriesPoints } from '../datapoints/types.ts';
import type { IngestBatch } from './ingest-log.ts';
import { logger } from '../log.ts';
import { GroupCommitLog, type GroupCommitSink } from './group-commit.ts';
import { IngestWal } from './ingest-wal.ts';
import { SlabPool } from '../memory/slab-pool.ts';
import { replayIngestWal } from './wal-replay.ts';
import { decodeWalRecord } from './wal-record.ts';
import { PACKED_ROW, PACKED_TS, PackedBatch, type PackedRows } from '../datapoints/write/packed-batch.ts';
import { VALUE_TYPES } from '../datapoints/types.ts';
import { committedSpans } from './commit-listeners.ts';

const quietLog = logger.child({ module: 'group-commit-test' }, { level: 'silent' });

const dir = mkdtempSync(path.join(tmpdir(), 'group-commit-test-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const store = await openDatapointStore({ dataDir: dir }, { maintenanceIntervalMs: 0 });
t.teardown(() => store.close());

const T0 = 1_700_000_000_000;
const series = (seriesId: number, count: number, value = 1, from = T0): SeriesPoints =>
  ({ seriesId, valueType: 'FLOAT', timestampMs: Float64Array.from({ length: count }, (_, i) => from + i * 1000), float: new Float64Array(count).fill(value) });

/** Passes inserts to the store; while closed, holds them until open() is called. */
class GatedSink implements GroupCommitSink {
  readonly calls: (IngestBatch | PackedBatch)[][] = [];
  failNext = false;
  private gate: Promise<void> | undefined;
  private release: (() => void) | undefined;
  private entered: (() => void) | undefined;
  close(): Promise<void> {
    this.gate = new Promise((resolve) => { this.release = resolve; });
    return new Promise((resolve) => { this.entered = resolve; });
  }
  open(): void { this.release?.(); this.gate = undefined; }
  async insertMany(batches: readonly (IngestBatch | PackedBatch)[]): Promise<void> {
    this.calls.push([...batches]);
    this.entered?.();
    this.entered = undefined;
    await this.gate;
    if (this.failNext) { this.failNext = false; throw new Error('disk full (test)'); }
    await store.insertMany(batches);
  }
}

/** Holds every insert until release(index) is called for it (index: order of arrival). */
class HoldingSink implements GroupCommitSink {
  readonly calls: (IngestBatch | PackedBatch)[][] = [];
  private readonly releases: (() => void)[] = [];
  private readonly watchers: { count: number; resolve: () => void }[] = [];
  /** Resolves once `count` inserts have entered. */
  entered(count: number): Promise<void> {
    if (this.calls.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.watchers.push({ count, resolve }));
  }
  release(index: number): void { this.releases[index]?.(); }
  async insertMany(batches: readonly (IngestBatch | PackedBatch)[]): Promise<void> {
    const index = this.calls.push([...batches]) - 1;
    for (const watcher of this.watchers.filter((w) => this.calls.length >= w.count)) watcher.resolve();
    await new Promise<void>((resolve) => { this.releases[index] = resolve; });
    await store.insertMany(batches);
  }
}

const newLog = (sink: GroupCommitSink, options: { queuePointsMax?: number; expectedWaitMaxMs?: number; concurrentCommitsMax?: number } = {}) =>
  new GroupCommitLog({ store: sink, nextWriteVersion: () => store.writeVersions.next(), commitIntervalMinMs: 0, ...options });

async function values(tenant: string, seriesId: number): Promise<number[]> {
  const { points } = await store.readRaw(tenant, { seriesId, valueType: 'FLOAT' }, { start: T0, limit: 1000 });
  return [...(points.float as Float64Array)];
}

t.test('concurrent appends share one insert', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const sink = new GatedSink();
  const log = newLog(sink);
  const held = sink.close();
  const first = log.append({ tenant, series: [series(1, 5)] });
  await held;
  const rest = [2, 3, 4].map((id) => log.append({ tenant: id === 4 ? `${tenant}-other` : tenant, series: [series(id, 5)] }));
  sink.open();
  await Promise.all([first, ...rest]);
  t.same(sink.calls.map((batches) => batches.length), [1, 3], 'the three waiting appends went in one insert');
  t.same(await values(tenant, 3), [1, 1, 1, 1, 1]);
  t.same(await values(`${tenant}-other`, 4), [1, 1, 1, 1, 1], 'several tenants in one insert');
  t.same(log.stats(), { appendsAccepted: 4, appendsRefused: 0, commits: 2, pointsCommitted: 20, commitFailures: 0, queuedPoints: 0 });
  await log.close();
});

t.test('a second insert runs while the first is being written; a third waits for one of them', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const sink = new HoldingSink();
  const log = newLog(sink, { concurrentCommitsMax: 2 });
  let firstDone = false;
  const first = log.append({ tenant, series: [series(60, 2)] }).then(() => { firstDone = true; });
  await sink.entered(1);
  const second = log.append({ tenant, series: [series(61, 2)] });
  await sink.entered(2);
  const third = log.append({ tenant, series: [series(62, 2)] });
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(sink.calls.length, 2, 'two inserts at once, not three');
  sink.release(1);
  await second;
  t.notOk(firstDone, 'the second append is acknowledged while the first insert is still held');
  t.same(await values(tenant, 61), [1, 1], 'and its points are readable');
  await sink.entered(3);
  t.same(sink.calls[2]?.map((b) => (b as IngestBatch).series[0]?.seriesId), [62], 'the third went in once the second insert ended');
  sink.release(2);
  sink.release(0);
  await Promise.all([first, third]);
  t.same(await values(tenant, 60), [1, 1]);
  t.same(await values(tenant, 62), [1, 1]);
  t.equal(log.stats().commits, 3);
  await log.close();
});

t.test('concurrentCommitsMax 1 keeps one insert at a time', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const sink = new HoldingSink();
  const log = newLog(sink, { concurrentCommitsMax: 1 });
  const first = log.append({ tenant, series: [series(63, 1)] });
  await sink.entered(1);
  const second = log.append({ tenant, series: [series(64, 1)] });
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(sink.calls.length, 1, 'the second append waits for the running insert');
  sink.release(0);
  await first;
  await sink.entered(2);
  sink.release(1);
  await second;
  t.same(await values(tenant, 64), [1]);
  await log.close();
});

t.test('the later append wins a timestamp shared inside one insert', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const sink = new GatedSink();
  const log = newLog(sink);
  const held = sink.close();
  const first = log.append({ tenant, series: [series(9, 1, 0, T0 - 1000)] });
  await held;
  const older = log.append({ tenant, series: [series(10, 3, 1)] });
  const newer = log.append({ tenant, series: [series(10, 3, 2)] });
  sink.open();
  await Promise.all([first, older, newer]);
  t.equal(sink.calls[1]?.length, 2);
  t.ok((sink.calls[1]?.[1]?.writeVersion as bigint) > (sink.calls[1]?.[0]?.writeVersion as bigint));
  t.same(await values(tenant, 10), [2, 2, 2]);
});

t.test('appends past the queue bound are refused with a Retry-After', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const sink = new GatedSink();
  const log = newLog(sink, { queuePointsMax: 100 });
  const held = sink.close();
  const first = log.append({ tenant, series: [series(20, 60)] });
  await held;
  const second = log.append({ tenant, series: [series(21, 40)] });
  const refused = await log.append({ tenant, series: [series(22, 1)] }).catch((error: unknown) => error);
  t.type(refused, OverloadedError);
  t.equal((refused as OverloadedError).retryAfterSeconds, 1);
  t.match((refused as Error).message, /holds 100 points \(limit 100\)/);
  sink.open();
  await Promise.all([first, second]);
  await log.append({ tenant, series: [series(22, 1)] });
  t.same(await values(tenant, 22), [1], 'accepted again once the queue drained');
  t.equal(log.stats().appendsRefused, 1);
});

t.test('a failed insert refuses only its own appends', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const sink = new GatedSink();
  const log = newLog(sink);
  sink.failNext = true;
  const failed = await log.append({ tenant, series: [series(30, 2)] }).catch((error: unknown) => error);
  t.type(failed, StoreUnavailableError);
  await log.append({ tenant, series: [series(31, 2)] });
  t.same(await values(tenant, 30), []);
  t.same(await values(tenant, 31), [1, 1]);
  t.equal(log.stats().commitFailures, 1);
});

t.test('a commit waits for an announced append, which then shares its insert', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const sink = new GatedSink();
  const log = newLog(sink, { expectedWaitMaxMs: 60_000 });
  const announced = log.expectAppend();
  const first = log.append({ tenant, series: [series(50, 2)] });
  // The commit loop is parked on the announcement; the announced append arrives later.
  await new Promise((resolve) => setImmediate(resolve));
  t.same(sink.calls.length, 0, 'no insert while an announced append is on its way');
  const second = log.append({ tenant, series: [series(51, 2)] });
  announced();
  await Promise.all([first, second]);
  t.same(sink.calls.map((batches) => batches.length), [2], 'one insert for both');
  t.same(await values(tenant, 51), [1, 1]);
});

t.test('an announcement that never appends holds a commit only until expectedWaitMaxMs', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const sink = new GatedSink();
  const log = newLog(sink, { expectedWaitMaxMs: 1 });
  const abandoned = log.expectAppend();
  await log.append({ tenant, series: [series(52, 1)] });
  t.same(sink.calls.length, 1);
  abandoned();
  abandoned();
  await log.append({ tenant, series: [series(53, 1)] });
  t.same(await values(tenant, 53), [1], 'released twice counts once');
});

t.test('close waits for queued appends and refuses new ones', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const log = newLog(new GatedSink());
  const pending = log.append({ tenant, series: [series(40, 3)] });
  await log.close();
  await pending;
  t.same(await values(tenant, 40), [1, 1, 1]);
  await t.rejects(log.append({ tenant, series: [series(41, 1)] }), { code: 'StoreUnavailableError' });
});

t.test('with a write-ahead log a commit grows while requests arrive, until a read needs it', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const { wal } = await IngestWal.open({ dir: mkdtempSync(path.join(dir, 'wal-')), logger: quietLog });
  const sink = new HoldingSink();
  const log = new GroupCommitLog({ store: sink, nextWriteVersion: () => store.writeVersions.next(), commitIntervalMinMs: 0, wal, slabs: new SlabPool(), loggedWaitMaxMs: 60_000 });
  const more = log.expectAppend(); // a request still being parsed, as under a gateway's steady load
  await log.append({ tenant, series: [series(75, 2)] });
  await log.append({ tenant, series: [series(76, 2)] });
  await new Promise((resolve) => setTimeout(resolve, 300)); // past expectedWaitMaxMs (150), which bounds the wait without a log
  t.equal(sink.calls.length, 0, 'acknowledged from the log; the insert waits for more while no read needs it');
  const barrier = log.readBarrier(tenant);
  await sink.entered(1);
  t.same(sink.calls.map((batches) => batches.length), [2], 'a read ends the wait: both appends in one insert');
  sink.release(0);
  await barrier;
  t.same(await values(tenant, 76), [1, 1], 'and reads them');
  more();
  await log.close();
  await wal.close();
});

t.test('with a write-ahead log a steady stream gathers into one insert up to loggedInsertPointsMin, a read ending the wait', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const { wal } = await IngestWal.open({ dir: mkdtempSync(path.join(dir, 'wal-')), logger: quietLog });
  const sink = new HoldingSink();
  const log = new GroupCommitLog({ store: sink, nextWriteVersion: () => store.writeVersions.next(), commitIntervalMinMs: 0, wal, slabs: new SlabPool(), loggedWaitMaxMs: 60_000, loggedInsertPointsMin: 10 });
  // Requests one after another, none announced ahead (each parsed before the next arrives).
  await log.append({ tenant, series: [series(77, 4)] });
  await new Promise((resolve) => setTimeout(resolve, 50));
  await log.append({ tenant, series: [series(78, 4)] });
  await new Promise((resolve) => setTimeout(resolve, 200));
  t.equal(sink.calls.length, 0, 'acknowledged from the log; 8 points of 10 wait for more');
  await log.append({ tenant, series: [series(79, 4)] });
  await sink.entered(1);
  t.same(sink.calls.map((batches) => batches.length), [3], 'the append that reaches 10 points starts the insert, all three in it');
  sink.release(0);
  await log.append({ tenant, series: [series(80, 2)] });
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.equal(sink.calls.length, 1, 'the next 2 points wait');
  const barrier = log.readBarrier(tenant, [80]);
  await sink.entered(2);
  sink.release(1);
  await barrier;
  t.same(await values(tenant, 80), [1, 1], 'a read of them ends the wait and finds them');
  await log.close();
  await wal.close();
});

t.test('with a write-ahead log: acknowledged once logged, inserted after, and reads wait for the insert', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const { wal } = await IngestWal.open({ dir: mkdtempSync(path.join(dir, 'wal-')), logger: quietLog });
  const sink = new HoldingSink();
  const log = new GroupCommitLog({ store: sink, nextWriteVersion: () => store.writeVersions.next(), commitIntervalMinMs: 0, wal, slabs: new SlabPool() });
  const points = series(70, 3, 7);
  await log.append({ tenant, series: [points] });
  points.float?.fill(-1); // the request's memory goes back at its answer: the log kept its own copy
  t.equal(wal.segmentCount(), 1, 'acknowledged with its batch in the log');
  await sink.entered(1);
  let readable = false;
  const barrier = log.readBarrier().then(() => { readable = true; });
  await new Promise((resolve) => setImmediate(resolve));
  t.notOk(readable, 'a read waits while the acknowledged batch is being inserted');
  sink.release(0);
  await barrier;
  t.same(await values(tenant, 70), [7, 7, 7], 'then finds it, as logged');
  await log.readBarrier();
  t.pass('nothing pending: the barrier passes at once');
  await log.close();
  await wal.close();
  t.equal(wal.segmentCount(), 0, 'all applied: the segment is gone');
});

t.test('with a write-ahead log: a read waits only for its own tenant\'s acknowledged batches', async (t) => {
  const writer = `t-${randomUUID()}`;
  const other = `t-${randomUUID()}`;
  const { wal } = await IngestWal.open({ dir: mkdtempSync(path.join(dir, 'wal-')), logger: quietLog });
  const sink = new HoldingSink();
  const log = new GroupCommitLog({ store: sink, nextWriteVersion: () => store.writeVersions.next(), commitIntervalMinMs: 0, wal, slabs: new SlabPool() });
  await log.append({ tenant: writer, series: [series(72, 2, 5)] });
  await sink.entered(1);
  await log.readBarrier(other);
  t.pass('another tenant reads at once while the writer\'s batch is being inserted');
  let readable = false;
  const barrier = log.readBarrier(writer).then(() => { readable = true; });
  const everyone = log.readBarrier();
  await new Promise((resolve) => setImmediate(resolve));
  t.notOk(readable, 'the writing tenant waits for its batch');
  sink.release(0);
  await Promise.all([barrier, everyone]);
  t.same(await values(writer, 72), [5, 5], 'and then finds it');
  await log.close();
  await wal.close();
});

t.test('with a write-ahead log: a failed insert is retried, never refused (the append was acknowledged)', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const { wal } = await IngestWal.open({ dir: mkdtempSync(path.join(dir, 'wal-')), logger: quietLog });
  const sink = new GatedSink();
  sink.failNext = true;
  const log = new GroupCommitLog({ store: sink, nextWriteVersion: () => store.writeVersions.next(), commitIntervalMinMs: 0, wal, slabs: new SlabPool(), logger: quietLog });
  await log.append({ tenant, series: [series(71, 2, 3)] });
  await log.readBarrier();
  t.same(await values(tenant, 71), [3, 3], 'in the store after the retry');
  t.equal(log.stats().commitFailures, 1);
  t.equal(sink.calls.length, 2, 'the same batch went in twice: once failed, once stored');
  await log.close();
  await wal.close();
});

t.test('with a write-ahead log: a batch acknowledged but not yet inserted when the process dies is replayed at the next start', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const walDir = mkdtempSync(path.join(dir, 'wal-'));
  const { wal } = await IngestWal.open({ dir: walDir, logger: quietLog });
  const sink = new HoldingSink();
  const log = new GroupCommitLog({ store: sink, nextWriteVersion: () => store.writeVersions.next(), commitIntervalMinMs: 0, wal, slabs: new SlabPool() });
  await log.append({ tenant, series: [series(72, 4, 9)] });
  await sink.entered(1);
  t.same(await values(tenant, 72), [], 'acknowledged, the insert still held: not in the store');
  // The process dies here: the held insert never happens. The next start opens the log again.
  const reopened = await IngestWal.open({ dir: walDir, logger: quietLog });
  t.equal(reopened.recovered.length, 1);
  await replayIngestWal(store, reopened.recovered, quietLog);
  await reopened.wal.dropRecovered();
  t.same(await values(tenant, 72), [9, 9, 9, 9], 'replayed into the store');
  // A newer write of the same points wins over a replay of the older batch, whenever it comes.
  await store.insert({ tenant, series: [series(72, 4, 10)], writeVersion: store.writeVersions.next() });
  await replayIngestWal(store, reopened.recovered, quietLog);
  t.same(await values(tenant, 72), [10, 10, 10, 10], 'a replay never brings an overwritten value back');
  sink.release(0);
  await log.close();
  await wal.close();
  await reopened.wal.close();
});

/** Memory handed to append with a batch: counts its releases and says whether they came. */
class HandedMemory {
  releases = 0;
  release(): void { this.releases++; }
}

t.test('with a write-ahead log: memory handed over with a batch is kept, not copied, and released once inserted', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const walDir = mkdtempSync(path.join(dir, 'wal-'));
  const { wal } = await IngestWal.open({ dir: walDir, logger: quietLog });
  const sink = new HoldingSink();
  const log = new GroupCommitLog({ store: sink, nextWriteVersion: () => store.writeVersions.next(), commitIntervalMinMs: 0, wal, slabs: new SlabPool() });
  const memory = new HandedMemory();
  const points = series(73, 3, 4);
  await log.append({ tenant, series: [points] }, memory);
  await sink.entered(1);
  const inserted = sink.calls[0]?.[0];
  t.ok(inserted instanceof PackedBatch, 'held packed until inserted');
  const float = (inserted as PackedBatch).series(0).float as Float64Array;
  t.ok(float.buffer === points.float?.buffer && float.byteOffset === points.float.byteOffset && float.length === 3, 'the insert reads the handed columns themselves');
  t.equal(memory.releases, 0, 'acknowledged, not yet inserted: still held');
  const reopened = await IngestWal.open({ dir: walDir, logger: quietLog });
  t.same(reopened.recovered.map((r) => decodeWalRecord(r).series.map((s) => [...(s.float ?? [])])), [[[4, 4, 4]]], 'the logged record holds the points');
  await reopened.wal.close();
  sink.release(0);
  await log.readBarrier();
  t.equal(memory.releases, 1, 'released once, after the insert');
  t.same(await values(tenant, 73), [4, 4, 4]);
  await log.close();
  await wal.close();
});

/** FLOAT series packed as the parse workers lay them: each one's timestamps then values, back to back in one buffer. */
function packedFloat(list: { seriesId: number; values: number[]; from?: number }[]): PackedRows {
  const bytes = list.reduce((n, s) => n + 16 * s.values.length, 0);
  const memory = new SharedArrayBuffer(bytes + 64);
  const rows = new Float64Array(list.length * PACKED_ROW).fill(-1);
  let at = 64; // not at the buffer's start, as in a slab shared by several carves
  list.forEach((s, i) => {
    const n = s.values.length;
    const row = i * PACKED_ROW;
    rows.set([s.seriesId, VALUE_TYPES.indexOf('FLOAT'), n, 0, at, 0, at + 8 * n], row);
    new Float64Array(memory, at, n).set(s.values.map((_, k) => (s.from ?? T0) + k * 1000));
    new Float64Array(memory, at + 8 * n, n).set(s.values);
    at += 16 * n;
  });
  const pointCount = list.reduce((n, s) => n + s.values.length, 0);
  return { seriesCount: list.length, pointCount, textPointCount: 0, columnByteCount: bytes, rows, memory: [memory], texts: undefined };
}

t.test('with a write-ahead log: packed series go to the log as they lie, the same record, kept and released once inserted', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const walDir = mkdtempSync(path.join(dir, 'wal-'));
  const { wal } = await IngestWal.open({ dir: walDir, logger: quietLog });
  const sink = new HoldingSink();
  const log = new GroupCommitLog({ store: sink, nextWriteVersion: () => store.writeVersions.next(), commitIntervalMinMs: 0, wal, slabs: new SlabPool() });
  const heard: { tenant: string; spans: number[]; series: number[][] }[] = [];
  log.onCommitted((batch) => { heard.push({ tenant: batch.tenant, spans: [...committedSpans(batch)], series: batch.series.map((s) => [...(s.float ?? [])]) }); });
  const memory = new HandedMemory();
  const packed = packedFloat([{ seriesId: 81, values: [1, 2, 3] }, { seriesId: 82, values: [5] }]);
  await log.appendPacked(tenant, packed, memory);
  await sink.entered(1);
  const inserted = sink.calls[0]?.[0];
  t.ok(inserted instanceof PackedBatch, 'held packed until inserted');
  t.equal((inserted as PackedBatch).f64(0, PACKED_TS).buffer, packed.memory[0], 'the insert reads the handed memory itself');
  t.equal(memory.releases, 0, 'acknowledged, not yet inserted: still held');
  t.same(heard, [{ tenant, spans: [81, T0, T0 + 2000, 82, T0, T0], series: [[1, 2, 3], [5]] }], 'listeners hear it at the acknowledgement, spans and series alike');
  const reopened = await IngestWal.open({ dir: walDir, logger: quietLog });
  const record = reopened.recovered.map((r) => decodeWalRecord(r));
  t.same(record.map((b) => b.series.map((s) => [s.seriesId, s.valueType, [...s.timestampMs], [...(s.float ?? [])]])), [[[81, 'FLOAT', [T0, T0 + 1000, T0 + 2000], [1, 2, 3]], [82, 'FLOAT', [T0], [5]]]], 'the logged record holds the points');
  t.equal(record[0]?.tenant, tenant);
  await reopened.wal.close();
  sink.release(0);
  await log.readBarrier();
  t.equal(memory.releases, 1, 'released once, after the insert');
  t.same(await values(tenant, 81), [1, 2, 3]);
  t.same(await values(tenant, 82), [5]);
  await log.close();
  await wal.close();
});

t.test('packed series the log cannot keep as they lie go unpacked; refusals release their memory once', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const walDir = mkdtempSync(path.join(dir, 'wal-'));
  const { wal } = await IngestWal.open({ dir: walDir, logger: quietLog });
  const log = new GroupCommitLog({ store, nextWriteVersion: () => store.writeVersions.next(), commitIntervalMinMs: 0, wal, slabs: new SlabPool() });
  await log.appendPacked(tenant, packedFloat([{ seriesId: 83, values: [7, 8] }]));
  const moved = packedFloat([{ seriesId: 84, values: [1, 2] }, { seriesId: 85, values: [3, 3] }]);
  moved.rows[PACKED_ROW] = 85;
  moved.rows[PACKED_ROW + 2] = 1; // the second series' n shortened: a gap between its timestamps and values
  moved.pointCount = 3;
  moved.columnByteCount -= 16;
  const gap = new HandedMemory();
  await log.appendPacked(tenant, moved, gap);
  await log.readBarrier();
  t.same(await values(tenant, 83), [7, 8], 'no memory handed: the log copies them');
  t.same(await values(tenant, 84), [1, 2]);
  t.same(await values(tenant, 85), [3], 'columns not back to back: unpacked, still written');
  t.equal(gap.releases, 1, 'and their memory released once inserted');
  const broken = new HandedMemory();
  const bad = packedFloat([{ seriesId: 86, values: [1, 2] }]);
  new Float64Array(bad.memory[0] as SharedArrayBuffer, 64, 2).set([T0 + 1000, T0]);
  await t.rejects(log.appendPacked(tenant, bad, broken), /not strictly ascending/);
  t.equal(broken.releases, 1, 'a batch breaking an invariant: refused, released at once');
  await log.close();
  const closed = new HandedMemory();
  await t.rejects(log.appendPacked(tenant, packedFloat([{ seriesId: 87, values: [1] }]), closed), { code: 'StoreUnavailableError' });
  t.equal(closed.releases, 1, 'after close: refused, released at once');
  await wal.close();
});

t.test('memory handed over with a batch is released once on every other path', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const plain = newLog(new GatedSink());
  const inserted = new HandedMemory();
  await plain.append({ tenant, series: [series(74, 2, 1)] }, inserted);
  t.equal(inserted.releases, 1, 'without a write-ahead log: at the insert');
  const failing = new GatedSink();
  failing.failNext = true;
  const failed = new HandedMemory();
  const refusing = newLog(failing);
  await t.rejects(refusing.append({ tenant, series: [series(79, 2, 1)] }, failed));
  t.equal(failed.releases, 1, 'without a write-ahead log, an insert that failed: at its refusal');
  await refusing.close();
  const empty = new HandedMemory();
  await plain.append({ tenant, series: [] }, empty);
  t.equal(empty.releases, 1, 'an empty batch: at once');
  const broken = new HandedMemory();
  await t.rejects(plain.append({ tenant, series: [{ ...series(75, 2), timestampMs: Float64Array.from([T0 + 1000, T0]) }] }, broken));
  t.equal(broken.releases, 1, 'a batch breaking an invariant: at once');
  const sink = new GatedSink();
  const held = newLog(sink, { queuePointsMax: 2 });
  const entered = sink.close();
  const first = held.append({ tenant, series: [series(76, 2)] });
  await entered;
  const refused = new HandedMemory();
  await t.rejects(held.append({ tenant, series: [series(77, 2)] }, refused), { code: 'OverloadedError' });
  t.equal(refused.releases, 1, 'refused past the queue bound: at once');
  sink.open();
  await first;
  await held.close();
  await plain.close();
  const closed = new HandedMemory();
  await t.rejects(plain.append({ tenant, series: [series(78, 1)] }, closed));
  t.equal(closed.releases, 1, 'after close: at once');
});
