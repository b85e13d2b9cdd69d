// Goal: a crash between a change and its dirty marks (points inserted, or a tombstone
// written, but no marks) does not leave rollups stale for good: reopening the store marks
// the changes since the last checkpoint dirty, so aggregates count exactly the stored live
// points, before and after the fold. Method: real chdb; the crash is simulated by writing the
// change without marks and closing the engine without the store's own close (no checkpoint).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { openDatapointStore, type DatapointStore } from '../datapoint-store.ts';
import { insertPoints } from './datapoint-write.ts';
import type { SeriesRef } from '../types.ts';
import { PARTS_AFTER_SQL, seriesInPartsSql } from './unmarked-recovery.sql.ts';
import { highestBlock } from './unmarked-recovery.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'unmarked-recovery-test-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const open = () => openDatapointStore({ dataDir: dir }, { maintenanceIntervalMs: 0 });
const T0 = Date.UTC(2024, 2, 1);
const ref: SeriesRef = { seriesId: 1, valueType: 'FLOAT' };
const points = (from: number, count: number) => ({ ...ref, timestampMs: Float64Array.from({ length: count }, (_, i) => from + i * 60_000), float: new Float64Array(count).fill(1) });

async function counts(store: DatapointStore): Promise<number[]> {
  const { buckets } = await store.aggregate('acme', ref, { start: T0, end: T0 + 86_400_000, granularity: '1h', aggregates: ['COUNT'], limit: 48 });
  return buckets.map((b) => b.count as number);
}

t.test('changes without marks before a crash are marked dirty again at open', async (t) => {
  const first = await open();
  await first.insert({ tenant: 'acme', writeVersion: first.writeVersions.next(), series: [points(T0, 120)] });
  await first.runMaintenance({ includeHot: true });
  t.same(await counts(first), [60, 60]);
  await first.close();

  const crashed = await open();
  await insertPoints(crashed.columnar, [{ tenant: 'acme', writeVersion: crashed.writeVersions.next(), series: [points(T0 + 150 * 60_000, 60)] }]);
  await crashed.columnar.command(`INSERT INTO datapoint_tombstones (tenant, series_id, begin_ms, end_ms, version)
    SELECT 'acme', 1, {begin:Int64}, {end:Int64}, {version:UInt64}`, { begin: T0, end: T0 + 10 * 60_000, version: crashed.writeVersions.next() });
  await crashed.writeVersions.flush();
  await crashed.columnar.close(); // no store close: no checkpoint, as after SIGKILL

  const reopened = await open();
  t.teardown(() => reopened.close());
  const expected = [50, 60, 30, 30];
  t.same(await counts(reopened), expected, 'raw points answer the re-marked hours');
  await reopened.runMaintenance({ includeHot: true });
  t.same(await counts(reopened), expected, 'and the fold brings the rollups in line');
});

t.test('a part merged away between the listing and the scan is still scanned', async (t) => {
  // The scan is the statement recovery runs after listing the parts past the checkpoint; at
  // open merges run meanwhile, so the rows it must find may sit in a part of another name.
  const store = await open();
  t.teardown(() => store.close());
  const table = 'datapoints_float';
  const block = await highestBlock(store.columnar, table);
  await insertPoints(store.columnar, [{ tenant: 'acme', writeVersion: store.writeVersions.next(), series: [{ ...points(T0 + 600 * 60_000, 5), seriesId: 77 }] }]);
  const listed = await store.columnar.query<{ name: string }>(PARTS_AFTER_SQL, { table, block });
  t.equal(listed.length, 1, 'the new part is listed');
  await store.columnar.command(`OPTIMIZE TABLE ${table} FINAL`);
  const [renamed] = await store.columnar.query<{ name: string }>(`SELECT name FROM system.parts WHERE database = currentDatabase() AND table = '${table}' AND active`);
  t.not(renamed?.name, listed[0]?.name, 'the merge gave its rows another part');
  const series = await store.columnar.query<{ series: string }>(seriesInPartsSql(table), { block });
  t.ok(series.some((row) => row.series === '77'), 'the scan finds the series in the merged part', { series });
});
