// Goal: the post-commit hook of the group-commit log lends listeners exactly the
// points of each acknowledged append, every value type exact (BIGINT past 2^53 included), and
// what a listener keeps with copyCommitted is on memory of its own that later appends cannot
// overwrite (only the series asked for); never a refused or failed append;
// not after unsubscribing; and a listener that throws or rejects is logged without failing
// the write. Method: a real data point store (chdb in a temp dir), with and without a real
// write-ahead log; the Kafka ingester's side is in ingester.test.ts.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { openDatapointStore } from '../datapoints/datapoint-store.ts';
import type { SeriesPoints } from '../datapoints/types.ts';
import type { CommittedBatch, IngestBatch } from './ingest-log.ts';
import { logger } from '../log.ts';
import { SlabPool } from '../memory/slab-pool.ts';
import { makeSeries, pointRows } from '../testing/kafka-mock-fixtures.ts';
import { CommitListeners, copyCommitted } from './commit-listeners.ts';
import { GroupCommitLog, type GroupCommitSink } from './group-commit.ts';
import { IngestWal } from './ingest-wal.ts';

const quietLog = logger.child({ module: 'commit-listeners-test' }, { level: 'silent' });

const dir = mkdtempSync(path.join(tmpdir(), 'commit-listeners-test-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const store = await openDatapointStore({ dataDir: dir }, { maintenanceIntervalMs: 0 });
t.teardown(() => store.close());

/** Every value type once; BIGINT values start at 2^53 + 1, where a double would round. */
const allTypes = (startMs = 1_700_000_000_000): SeriesPoints[] => [
  makeSeries(1, 'FLOAT', 4, startMs), makeSeries(2, 'FLOAT32', 3, startMs), makeSeries(3, 'BIGINT', 5, startMs),
  makeSeries(4, 'NUMERIC', 3, startMs), makeSeries(5, 'DECIMAL32', 2, startMs), makeSeries(6, 'TEXT', 3, startMs), makeSeries(7, 'MIXED', 4, startMs),
];

/**
 * A listener that records what it was lent (the objects, and their point rows read during the
 * call) and keeps a copy of each batch, as a listener that keeps points must.
 */
function recorder(): { batches: CommittedBatch[]; lent: CommittedBatch[]; rowsLent: string[]; rows: () => string[]; listener: (batch: CommittedBatch) => void } {
  const batches: CommittedBatch[] = [];
  const lent: CommittedBatch[] = [];
  const rowsLent: string[] = [];
  return {
    batches, lent, rowsLent,
    rows: () => batches.flatMap((b) => pointRows(b.tenant, b.series as SeriesPoints[])),
    listener: (batch) => {
      lent.push(batch);
      rowsLent.push(...pointRows(batch.tenant, batch.series as SeriesPoints[]));
      batches.push(copyCommitted(batch));
    },
  };
}

/** A logger whose error lines the test can read. */
function capturingLogger(): { log: typeof logger; lines: string[] } {
  const lines: string[] = [];
  return { log: pino({ level: 'error' }, { write: (line: string) => void lines.push(line) }), lines };
}

async function openWalLog(t: Test, options: { logger?: typeof logger } = {}): Promise<{ log: GroupCommitLog; wal: IngestWal }> {
  const { wal } = await IngestWal.open({ dir: mkdtempSync(path.join(dir, 'wal-')), logger: quietLog });
  const log = new GroupCommitLog({
    store, nextWriteVersion: () => store.writeVersions.next(), commitIntervalMinMs: 0, wal, slabs: new SlabPool(), logger: options.logger ?? quietLog,
  });
  t.teardown(async () => {
    await log.close();
    await wal.close();
  });
  return { log, wal };
}

t.test('with a write-ahead log: listeners are lent each acknowledged batch, exact; their copies are on memory of their own', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const { log } = await openWalLog(t);
  const first = recorder();
  const second = recorder();
  log.onCommitted(first.listener);
  log.onCommitted(second.listener);
  const series = allTypes();
  const expected = pointRows(tenant, series);
  await log.append({ tenant, series });
  t.same(first.rowsLent, expected, 'at the acknowledgement: exactly the appended points, every value type');
  t.same(first.rows(), expected, 'and the copy holds them');
  t.equal(first.lent[0], second.lent[0], 'every listener is lent the same batch');
  t.equal(typeof first.batches[0]?.writeVersion, 'bigint', 'with its write version');
  for (const column of first.batches[0]?.series.flatMap((s) => [s.timestampMs, s.float, s.bigint, s.scaled, s.isText]) ?? []) {
    if (column) t.notOk(column.buffer instanceof SharedArrayBuffer, 'not on pooled shared memory');
  }
  // The request's memory goes back at its answer, and the log's slab after the insert: a
  // second append of the same shape reuses that slab; what the listener kept must not change.
  for (const s of series) s.timestampMs.fill(0);
  await log.readBarrier();
  await log.append({ tenant, series: allTypes(1_800_000_000_000) });
  await log.readBarrier();
  t.same(first.rows().slice(0, expected.length), expected, 'the first batch as it was, after its slab was reused');
  t.equal(first.batches.length, 2);
  const { points } = await store.readRaw(tenant, { seriesId: 3, valueType: 'BIGINT' }, { start: 0, limit: 100 });
  t.same([...(points.bigint as BigInt64Array)].slice(0, 5), [...(first.batches[0]?.series[2]?.bigint as BigInt64Array)], 'what listeners got is what the store holds');
});

t.test('with a write-ahead log: an append the log could not write is refused and never passed on', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const { log, wal } = await openWalLog(t);
  const seen = recorder();
  log.onCommitted(seen.listener);
  await wal.close(); // a real failure of the log: every write is refused from here
  await t.rejects(log.append({ tenant, series: allTypes() }), { code: 'StoreUnavailableError' });
  t.same(seen.batches, [], 'no listener call for a refused append');
});

t.test('unsubscribe stops the calls; other listeners keep theirs', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const { log } = await openWalLog(t);
  const leaving = recorder();
  const staying = recorder();
  const unsubscribe = log.onCommitted(leaving.listener);
  log.onCommitted(staying.listener);
  await log.append({ tenant, series: [makeSeries(1, 'FLOAT', 2)] });
  unsubscribe();
  unsubscribe();
  await log.append({ tenant, series: [makeSeries(2, 'FLOAT', 2)] });
  t.same(leaving.batches.map((b) => b.series[0]?.seriesId), [1], 'nothing after unsubscribing');
  t.same(staying.batches.map((b) => b.series[0]?.seriesId), [1, 2]);
});

t.test('a listener that throws or rejects is logged and the write still succeeds', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const { log: errorLog, lines } = capturingLogger();
  const { log } = await openWalLog(t, { logger: errorLog });
  log.onCommitted(() => {
    throw new Error('listener bug (test)');
  });
  const after = recorder();
  log.onCommitted(after.listener);
  const series = [makeSeries(1, 'BIGINT', 3)];
  await log.append({ tenant, series });
  t.same(after.rows(), pointRows(tenant, series), 'a later listener still gets the batch');
  await log.readBarrier();
  const { points } = await store.readRaw(tenant, { seriesId: 1, valueType: 'BIGINT' }, { start: 0, limit: 10 });
  t.same([...(points.bigint as BigInt64Array)], [...(series[0]?.bigint as BigInt64Array)], 'the points are stored');
  t.equal(lines.length, 1, 'the failure is logged');
  t.match(lines[0], /a commit listener failed/);
  t.match(lines[0], /listener bug \(test\)/);
});

t.test('a rejected promise of a listener is logged too', async (t) => {
  const { log, lines } = capturingLogger();
  const listeners = new CommitListeners(log);
  t.notOk(listeners.active, 'no listener: callers gather nothing');
  listeners.add(async () => {
    throw new Error('async listener bug (test)');
  });
  t.ok(listeners.active);
  listeners.notify([{ tenant: 't', writeVersion: 1n, series: [] }]);
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(lines.length, 1);
  t.match(lines[0], /async listener bug \(test\)/);
});

/** Passes inserts to the store; fails the next one when told to. */
class FailOnceSink implements GroupCommitSink {
  failNext = false;
  async insertMany(batches: readonly IngestBatch[]): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('disk full (test)');
    }
    await store.insertMany(batches);
  }
}

t.test('without a write-ahead log: listeners get a batch once inserted, never one whose insert failed', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const sink = new FailOnceSink();
  const log = new GroupCommitLog({ store: sink, nextWriteVersion: () => store.writeVersions.next(), commitIntervalMinMs: 0, logger: quietLog });
  t.teardown(() => log.close());
  const seen = recorder();
  log.onCommitted(seen.listener);
  sink.failNext = true;
  await t.rejects(log.append({ tenant, series: [makeSeries(9, 'FLOAT', 2)] }), { code: 'StoreUnavailableError' });
  t.same(seen.batches, [], 'the failed insert is not passed on');
  const series = allTypes();
  await log.append({ tenant, series });
  t.same(seen.rows(), pointRows(tenant, series), 'the stored one is, exactly');
  for (const s of series) s.timestampMs.fill(0);
  t.same(seen.rows(), pointRows(tenant, allTypes()), 'a copy: the request may reuse its memory');
});

t.test('copyCommitted keeps the series asked for, on memory of their own', async (t) => {
  const series = allTypes();
  const batch: CommittedBatch = { tenant: 'acme', writeVersion: 7n, series };
  const kept = copyCommitted(batch, new Set([3, 6]));
  t.same(kept.series.map((s) => s.seriesId), [3, 6], 'only those series, in the batch order');
  t.equal(kept.writeVersion, 7n);
  const expected = pointRows('acme', allTypes().filter((s) => s.seriesId === 3 || s.seriesId === 6));
  for (const s of series) {
    s.timestampMs.fill(0);
    s.bigint?.fill(0n);
  }
  t.same(pointRows('acme', kept.series as SeriesPoints[]), expected, 'unchanged when the lent memory is overwritten');
  t.same(copyCommitted(batch).series.length, series.length, 'every series without a set');
});
