// The read-barrier cases, shared by group-commit.read-barrier.test.ts (the engine in process)
// and group-commit.server-read-barrier.test.ts (a ClickHouse server through @clickhouse/client,
// where the barrier is how every read sees acknowledged points: the data point engine reads
// queued points from memory only in process, datapoint-engine.ts).
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import t from 'tap';
import { openDatapointStore } from '../datapoints/datapoint-store.ts';
import { PackedBatch } from '../datapoints/write/packed-batch.ts';
import type { SeriesPoints } from '../datapoints/types.ts';
import type { IngestBatch } from './ingest-log.ts';
import { logger } from '../log.ts';
import { SlabPool } from '../memory/slab-pool.ts';
import { GroupCommitLog } from './group-commit.ts';
import { HoldingSink } from '../testing/holding-sink.ts';
import { IngestWal } from './ingest-wal.ts';
import { columnarConfig, type ColumnarKind } from '../testing/columnar-kinds.ts';

const quietLog = logger.child({ module: 'read-barrier-test' }, { level: 'silent' });

/** The read-barrier cases with the store on one columnar kind; `modelRuns` sequences of the model. */
export async function readBarrierCases(kind: ColumnarKind, modelRuns: number): Promise<void> {
  const config = await columnarConfig(t, 'read-barrier-test', kind);
  const store = await openDatapointStore(config, { maintenanceIntervalMs: 0 });
  t.teardown(() => store.close());

  const T0 = 1_700_000_000_000;
  const point = (seriesId: number, at: number, value = 1): SeriesPoints =>
    ({ seriesId, valueType: 'FLOAT', timestampMs: Float64Array.of(T0 + at * 1000), float: Float64Array.of(value) });

  /** Whether `promise` has settled once the turns already queued have run. */
  async function settled(promise: Promise<unknown>): Promise<boolean> {
    let done = false;
    promise.then(() => { done = true; }, () => { done = true; });
    await new Promise((resolve) => setImmediate(resolve));
    return done;
  }

  async function openLog(options: { loggedWaitMaxMs?: number } = {}) {
    const { wal } = await IngestWal.open({ dir: mkdtempSync(path.join(config.dataDir, 'wal-')), logger: quietLog });
    const sink = new HoldingSink(store);
    const log = new GroupCommitLog({ store: sink, nextWriteVersion: () => store.writeVersions.next(), commitIntervalMinMs: 0, wal, slabs: new SlabPool(), logger: quietLog, ...options });
    return { wal, sink, log };
  }

  async function values(tenant: string, seriesId: number): Promise<number[]> {
    const { points } = await store.readRaw(tenant, { seriesId, valueType: 'FLOAT' }, { start: T0, limit: 1000 });
    return [...(points.float as Float64Array)];
  }

  t.test('a read of an idle series passes while another series of its tenant is being inserted; a read of that series waits for it', async (t) => {
    const tenant = `t-${randomUUID()}`;
    const { wal, sink, log } = await openLog();
    await log.append({ tenant, series: [point(1, 0, 5), point(2, 0, 5)] });
    await sink.entered(1);
    t.ok(await settled(log.readBarrier(tenant, [3])), 'an idle series of the same tenant: at once');
    t.ok(await settled(log.readBarrier(tenant, [])), 'no series: at once');
    t.ok(await settled(log.readBarrier(`${tenant}-other`, [1])), 'the same series id of another tenant: at once');
    const written = log.readBarrier(tenant, [2]);
    const union = log.readBarrier(tenant, [3, 1]);
    const tenantWide = log.readBarrier(tenant);
    t.notOk(await settled(written), 'a series being inserted: waits');
    t.notOk(await settled(union), 'several series: waits for the one being inserted');
    t.notOk(await settled(tenantWide), 'the whole tenant: waits');
    sink.release(0);
    await Promise.all([written, union, tenantWide]);
    t.same(await values(tenant, 2), [5], 'and then reads the acknowledged point');
    t.same(await values(tenant, 1), [5]);
    t.ok(await settled(log.readBarrier(tenant, [1, 2])), 'nothing left: at once');
    await log.close();
    await wal.close();
  });

  t.test('a read of an idle series neither waits for queued appends nor ends a commit\'s wait for more', async (t) => {
    const tenant = `t-${randomUUID()}`;
    const { wal, sink, log } = await openLog({ loggedWaitMaxMs: 60_000 });
    const more = log.expectAppend(); // a request still being parsed: the commit waits for it
    await log.append({ tenant, series: [point(10, 0, 7)] });
    t.ok(await settled(log.readBarrier(tenant, [11])), 'an idle series: at once');
    t.equal(sink.calls.length, 0, 'the commit still waits to grow: the read did not need it');
    t.equal(log.stats().queuedPoints, 1, 'the appended point is still queued');
    const queued = log.readBarrier(tenant, [10]);
    await sink.entered(1);
    t.pass('a read of the queued series ends the wait');
    t.notOk(await settled(queued), 'and waits for the insert');
    sink.release(0);
    await queued;
    t.same(await values(tenant, 10), [7]);
    more();
    await log.close();
    await wal.close();
  });

  t.test('a read waits only for queued points within the time it reads of its series', async (t) => {
    const tenant = `t-${randomUUID()}`;
    const { wal, sink, log } = await openLog();
    // Series 30: an append at T0 + 100 s, then one at T0 + 200 s .. T0 + 205 s (both queued).
    await log.append({ tenant, series: [point(30, 100, 1)] });
    await sink.entered(1);
    await log.append({ tenant, series: [{ seriesId: 30, valueType: 'FLOAT', timestampMs: Float64Array.of(T0 + 200_000, T0 + 205_000), float: Float64Array.of(2, 3) }] });
    await sink.entered(2);
    const at = (from: number, to: number) => ({ start: T0 + from * 1000, end: T0 + to * 1000 });
    t.ok(await settled(log.readBarrier(tenant, [30], [at(0, 100)])), 'history before both: at once');
    t.ok(await settled(log.readBarrier(tenant, [30], [at(101, 200)])), 'between them: at once');
    t.ok(await settled(log.readBarrier(tenant, [30], [at(206, 300)])), 'after both: at once');
    const first = log.readBarrier(tenant, [30], [at(100, 101)]);
    const second = log.readBarrier(tenant, [30], [at(205, 206)]);
    const open = log.readBarrier(tenant, [30], [{ start: -Infinity, end: Infinity }]);
    const unwindowed = log.readBarrier(tenant, [30]);
    t.notOk(await settled(first), 'the first append\'s point: waits');
    t.notOk(await settled(second), 'the second append\'s last point: waits');
    sink.release(0);
    await sink.done(0);
    await first;
    t.pass('the first append in: its reader passes');
    t.notOk(await settled(second), 'the second still held: its reader waits');
    t.notOk(await settled(open), 'an open window waits for the newest');
    t.notOk(await settled(unwindowed), 'so does a read without windows');
    sink.release(1);
    await Promise.all([second, open, unwindowed]);
    t.same(await values(tenant, 30), [1, 2, 3]);
    t.ok(await settled(log.readBarrier(tenant, [30], [at(100, 101)])), 'nothing left: at once');
    await log.close();
    await wal.close();
  });

  t.test('two inserts at once, the later ending first: a read of a series in both waits for the earlier', async (t) => {
    const tenant = `t-${randomUUID()}`;
    const { wal, sink, log } = await openLog();
    await log.append({ tenant, series: [point(20, 0, 1)] });
    await sink.entered(1);
    await log.append({ tenant, series: [point(20, 1, 2), point(21, 1, 2)] });
    await sink.entered(2);
    const both = log.readBarrier(tenant, [20]);
    sink.release(1);
    await sink.done(1);
    t.notOk(await settled(both), 'the later insert is in, the earlier still held: waits');
    t.notOk(await settled(log.readBarrier(tenant, [20])), 'a new read of it too');
    t.ok(await settled(log.readBarrier(tenant, [22])), 'a series in neither: at once');
    sink.release(0);
    await both;
    t.same(await values(tenant, 20), [1, 2], 'then both points are read');
    t.ok(await settled(log.readBarrier(tenant, [20, 21])), 'nothing left: at once');
    await log.close();
    await wal.close();
  });

  // The model: appends in acknowledgement order, each with the series it holds and the insert
  // that carried it; a read needs the acknowledged appends holding its series.
  type Operation = { kind: 'append'; series: number[] } | { kind: 'release'; pick: number } | { kind: 'read'; series: number[] };
  const SERIES = [1, 2, 3, 4, 5];
  const seriesSet = fc.uniqueArray(fc.constantFrom(...SERIES), { minLength: 1, maxLength: 3 });
  const operation: fc.Arbitrary<Operation> = fc.oneof(
    fc.record({ kind: fc.constant('append' as const), series: seriesSet }),
    fc.record({ kind: fc.constant('release' as const), pick: fc.nat({ max: 7 }) }),
    fc.record({ kind: fc.constant('read' as const), series: seriesSet }),
  );
  const SEED = 20_261_127;

  t.test('model: every read passes only once the acknowledged appends of its series are in, and at once when none is pending', async (t) => {
    t.comment(`fast-check seed ${SEED}`);
    await fc.assert(fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 24 }), async (operations) => {
      const tenant = `t-${randomUUID()}`;
      const { wal, sink, log } = await openLog();
      // A marker series per append (100 + its order) tells the sink's inserts apart.
      const appends: { series: number[]; marker: number }[] = [];
      const insertOf = (marker: number) => sink.calls.findIndex((batches) => batches.some((b) => (b instanceof PackedBatch ? Array.from({ length: b.seriesCount }, (_, i) => b.seriesId(i)) : b.series.map((s) => s.seriesId)).includes(marker)));
      const isStored = (marker: number) => sink.stored[insertOf(marker)] === true;
      const reads: Promise<void>[] = [];
      const problems: string[] = [];
      for (const op of operations) {
        if (op.kind === 'append') {
          const marker = 100 + appends.length;
          appends.push({ series: op.series, marker });
          await log.append({ tenant, series: [...op.series, marker].map((id) => point(id, appends.length, appends.length)) });
        } else if (op.kind === 'release') {
          const held = sink.held();
          const index = held[op.pick % Math.max(1, held.length)];
          if (index === undefined) continue;
          sink.release(index);
          await sink.done(index);
        } else {
          const needed = appends.filter((a) => a.series.some((id) => op.series.includes(id)));
          const firstPending = appends.findIndex((a) => !isStored(a.marker));
          // Nothing needed from the appends at or after the first one not yet in: nothing to wait for.
          const idle = firstPending < 0 || needed.every((a) => appends.indexOf(a) < firstPending);
          const read = log.readBarrier(tenant, op.series).then(() => {
            const missing = needed.filter((a) => !isStored(a.marker));
            if (missing.length > 0) problems.push(`read of ${op.series} passed before appends ${missing.map((a) => a.marker)} were in`);
          });
          reads.push(read);
          if (idle && !(await settled(read))) problems.push(`read of ${op.series} waited with nothing of its series pending`);
        }
        await new Promise((resolve) => setImmediate(resolve)); // the commit loop takes what is queued
      }
      for (let held = sink.held(); held.length > 0 || log.stats().queuedPoints > 0; held = sink.held()) {
        for (const index of held) sink.release(index);
        await Promise.all(held.map((index) => sink.done(index)));
        await new Promise((resolve) => setImmediate(resolve));
      }
      await Promise.all(reads);
      for (const id of SERIES) {
        const expected = appends.flatMap((a, k) => (a.series.includes(id) ? [k + 1] : []));
        const stored = await values(tenant, id);
        if (stored.join() !== expected.join()) problems.push(`series ${id}: stored ${stored}, expected ${expected}`);
      }
      await log.close();
      await wal.close();
      if (problems.length > 0) throw new Error(problems.join('; '));
    }), { seed: SEED, numRuns: modelRuns });
    t.pass('every run held');
  });
}
