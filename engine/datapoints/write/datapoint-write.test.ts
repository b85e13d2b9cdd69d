// Goal: a group commit's long parts go to the engine in the table's sort order (tenant as a
// string, series, first timestamp, version) whatever order the tenants arrived in, so the engine
// is spared its sort on insert; short parts (a gateway's) go as they arrived, and the engine's
// own sort stores the same rows; a large insert's work goes in slices with event-loop turns
// between them (inside its loops too), a small one's in one piece; the columns of short and long
// parts hold every point with its own series, time, value and version, though the parts are read
// in the order their memory lies in; a newer version of a point wins whichever arrived first.
// Method: fast-check draws parts over a few tenants and compares the order with a plain sort by
// the key tuple; the real chdb store behind a wrapper that notes how many event-loop turns (a
// chain of immediates) passed when the raw insert reached the engine; slices of 0 ms (a turn at
// every check) counted against the checks each loop must make; the columns the engine is handed
// compared with the batches' points in arrival order (short parts) and sorted by the key (long
// ones); the points read back.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import t, { type Test } from 'tap';
import { openColumnarStore, type ColumnarStore } from '../../stores/columnar.ts';
import { DatapointStore, embeddedColumnarPath } from '../datapoint-store.ts';
import { EventLoopTurns } from '../../scheduling/event-loop-turns.ts';
import { insertPoints } from './datapoint-write.ts';
import { SORTED_PART_POINTS_MIN, sortBySortKey, type FamilyRows } from './family-rows.ts';
import { PackedBatch } from './packed-batch.ts';
import type { IngestBatch } from '../../ingest/ingest-log.ts';

t.test('parts sort by tenant string, series, first timestamp and version', async () => {
  const part = fc.record({
    tenant: fc.constantFrom('b', 'a', 'ab', 'B', 'é', ''),
    seriesId: fc.integer({ min: 1, max: 5 }),
    first: fc.integer({ min: 0, max: 5 }),
    version: fc.bigInt({ min: 1n, max: 4n }),
  });
  await fc.assert(fc.asyncProperty(fc.array(part, { maxLength: 60 }), async (drawn) => {
    const tenants: string[] = [];
    // A batch of one series per drawn part, as the group commit hands them over.
    const batches = drawn.map((d) => new PackedBatch({ tenant: d.tenant, writeVersion: d.version, series: [{ seriesId: d.seriesId, valueType: 'FLOAT', timestampMs: Float64Array.of(d.first), float: Float64Array.of(0) }] }));
    const group: FamilyRows = { tenants, batches, partBatch: new Int32Array(drawn.length), partSeries: new Int32Array(drawn.length), partTenant: new Int32Array(drawn.length), partCount: drawn.length, pointCount: drawn.length };
    drawn.forEach((d, p) => {
      let index = tenants.indexOf(d.tenant) + 1;
      if (index === 0) index = tenants.push(d.tenant);
      group.partBatch[p] = p;
      group.partTenant[p] = index;
    });
    await sortBySortKey(group);
    const key = (p: number) => {
      const batch = batches[group.partBatch[p] as number] as PackedBatch;
      return [tenants[(group.partTenant[p] as number) - 1] as string, batch.seriesId(0), batch.firstTimestamp(0), batch.writeVersion] as const;
    };
    const want = [...drawn].sort((a, b) => (a.tenant < b.tenant ? -1 : a.tenant > b.tenant ? 1 : 0) || a.seriesId - b.seriesId || a.first - b.first || (a.version < b.version ? -1 : a.version > b.version ? 1 : 0));
    const got = Array.from({ length: group.partCount }, (_, p) => key(p));
    if (JSON.stringify(got.map(String)) !== JSON.stringify(want.map((d) => String([d.tenant, d.seriesId, d.first, d.version])))) throw new Error(`${JSON.stringify(got.map(String))}`);
  }), { numRuns: 500 });
});

t.test('a sliced sort of thousands of parts (runs sorted apart, then merged in turns) gives the order of one stable sort', async (t) => {
  const batchShape = fc.record({
    tenant: fc.constantFrom('b', 'a', 'c'),
    version: fc.bigInt({ min: 1n, max: 6n }),
    series: fc.array(fc.record({ seriesId: fc.integer({ min: 1, max: 30 }), first: fc.integer({ min: 0, max: 5 }) }), { minLength: 150, maxLength: 250 }),
  });
  let turnsTaken = 0;
  await fc.assert(fc.asyncProperty(fc.array(batchShape, { minLength: 30, maxLength: 40 }), async (drawn) => {
    const tenants: string[] = [];
    const batches = drawn.map((d) => new PackedBatch({ tenant: d.tenant, writeVersion: d.version, series: d.series.map((s) => ({ seriesId: s.seriesId, valueType: 'FLOAT' as const, timestampMs: Float64Array.of(s.first), float: Float64Array.of(0) })) }));
    const n = drawn.reduce((sum, d) => sum + d.series.length, 0);
    const group: FamilyRows = { tenants, batches, partBatch: new Int32Array(n), partSeries: new Int32Array(n), partTenant: new Int32Array(n), partCount: n, pointCount: n };
    const want: { b: number; i: number; tenant: string; seriesId: number; first: number; version: bigint }[] = [];
    let p = 0;
    drawn.forEach((d, b) => {
      let index = tenants.indexOf(d.tenant) + 1;
      if (index === 0) index = tenants.push(d.tenant);
      d.series.forEach((s, i) => {
        group.partBatch[p] = b;
        group.partSeries[p] = i;
        group.partTenant[p++] = index;
        want.push({ b, i, tenant: d.tenant, seriesId: s.seriesId, first: s.first, version: d.version });
      });
    });
    // Array.prototype.sort is stable: equal keys stay in arrival order.
    want.sort((x, y) => (x.tenant < y.tenant ? -1 : x.tenant > y.tenant ? 1 : 0) || x.seriesId - y.seriesId || x.first - y.first || (x.version < y.version ? -1 : x.version > y.version ? 1 : 0));
    const turns = new EventLoopTurns(0);
    await sortBySortKey(group, turns);
    turnsTaken += turns.turns;
    for (let k = 0; k < n; k++) {
      const w = want[k] as (typeof want)[number];
      if (group.partBatch[k] !== w.b || group.partSeries[k] !== w.i) throw new Error(`part ${k}: batch ${group.partBatch[k]} series ${group.partSeries[k]}, expected ${w.b} ${w.i}`);
      if (tenants[(group.partTenant[k] as number) - 1] !== w.tenant) throw new Error(`part ${k}: tenant moved apart from its part`);
    }
  }), { numRuns: 15, endOnFailure: true }); // shrinking thousands of parts takes minutes: the message names the part
  t.ok(turnsTaken >= 15, `the sort gave the event loop turns (${turnsTaken})`);
});

t.test('a large insert lets waiting I/O run between its steps, a small one does not wait', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'datapoint-write-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const engine = await openColumnarStore({ engine: 'chdb', path: embeddedColumnarPath(dir) });
  // Event-loop turns counted by a chain of immediates; read when the raw insert reaches the engine.
  let turns = 0;
  let turnsAtInsert: number | undefined;
  const columnar: ColumnarStore = {
    ...engine,
    kind: engine.kind,
    query: (sql, params) => engine.query(sql, params),
    queryArrow: (sql, params) => engine.queryArrow(sql, params),
    queryBytes: (sql, params) => engine.queryBytes(sql, params),
    command: (sql, params) => engine.command(sql, params),
    insertColumns: (insert) => { if (insert.table === 'datapoints_float') turnsAtInsert = turns; return engine.insertColumns(insert); },
    ping: () => engine.ping(),
    close: () => engine.close(),
  };
  const store = await DatapointStore.open({ columnar, maintenanceIntervalMs: 0 });
  t.teardown(() => store.close());
  const insertOf = async (count: number) => {
    const ts = Float64Array.from({ length: count }, (_, i) => 1_700_000_000_000 + i * 1000);
    turns = 0;
    let running = true;
    const tick = () => { turns++; if (running) setImmediate(tick); };
    setImmediate(tick);
    await store.insert({ tenant: 'x', series: [{ seriesId: count, valueType: 'FLOAT', timestampMs: ts, float: new Float64Array(count) }], writeVersion: store.writeVersions.next() });
    running = false;
    return turnsAtInsert;
  };
  t.ok((await insertOf(60_000) ?? 0) >= 1, 'a 60,000-point insert gives the event loop a turn before the engine registers its columns');
  t.equal(await insertOf(100), 0, 'a 100-point insert goes straight through');
});

/** The chdb store behind a wrapper that copies the raw FLOAT insert's columns as the engine gets them (their memory goes back after it). */
async function storeNotingColumns(t: Test): Promise<{ engine: ColumnarStore; columnar: ColumnarStore; sent: () => Record<string, unknown[]> | undefined }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'datapoint-write-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const engine = await openColumnarStore({ engine: 'chdb', path: embeddedColumnarPath(dir) });
  const store = await DatapointStore.open({ columnar: engine, maintenanceIntervalMs: 0 });
  t.teardown(() => store.close());
  let sent: Record<string, unknown[]> | undefined;
  const columnar: ColumnarStore = Object.create(engine, {
    insertColumns: { value: (insert: Parameters<ColumnarStore['insertColumns']>[0]) => {
      if (insert.table === 'datapoints_float') sent = Object.fromEntries(insert.columns.map((c) => [c.name, Array.from(c.data as ArrayLike<unknown>)]));
      return engine.insertColumns(insert);
    } },
  });
  return { engine, columnar, sent: () => sent };
}

type SentRow = [tenantIndex: number, seriesId: number, ts: number, version: bigint, value: number];

/** The sent columns as rows, and the batches' points as such rows in arrival order (tenant 'a' is bound first, index 1). */
function sentAndArrived(sent: Record<string, unknown[]> | undefined, batches: IngestBatch[]): { rows: SentRow[]; arrived: SentRow[] } {
  const rows = (sent?.['ts'] ?? []).map((ts, r) => [sent?.['tenant_index']?.[r], sent?.['series_id']?.[r], ts, sent?.['version']?.[r], sent?.['value']?.[r]] as SentRow);
  const arrived = batches.flatMap((b) => b.series.flatMap((s) => Array.from(s.timestampMs, (ts, i) => [b.tenant === 'a' ? 1 : 2, s.seriesId, ts, b.writeVersion, (s.float as Float64Array)[i]] as SentRow)));
  return { rows, arrived };
}

const byKey = (x: SentRow, y: SentRow) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2] || (x[3] < y[3] ? -1 : x[3] > y[3] ? 1 : 0);

/** Every tenant's points stored once, with their values, read back under FINAL. */
async function assertStored(t: Test, engine: ColumnarStore, batches: IngestBatch[]): Promise<void> {
  for (const tenant of ['a', 'b']) {
    const [row] = await engine.query<{ n: string; sum: number }>('SELECT toString(count()) AS n, sum(value) AS sum FROM datapoints_float FINAL WHERE tenant = {tenant:String}', { tenant });
    const mine = batches.filter((b) => b.tenant === tenant).flatMap((b) => b.series);
    t.equal(row?.n, String(mine.reduce((n, s) => n + s.timestampMs.length, 0)), `tenant ${tenant}: every point`);
    t.equal(row?.sum, mine.reduce((sum, s) => sum + (s.float as Float64Array).reduce((a, v) => a + v, 0), 0), `tenant ${tenant}: every value`);
  }
}

const T0 = 1_700_000_000_000;

/** `count` requests of 40 series over two tenants, each series' points from lengthOf(series). */
function requests(count: number, version: () => bigint, lengthOf: (s: number) => number): IngestBatch[] {
  return Array.from({ length: count }, (_, b) => ({
    tenant: b % 2 === 0 ? 'a' : 'b',
    writeVersion: version(),
    series: Array.from({ length: 40 }, (_, s) => {
      const n = lengthOf(s);
      return { seriesId: s + 1, valueType: 'FLOAT' as const, timestampMs: Float64Array.from({ length: n }, (_, i) => T0 + b * 1_000_000 + i * 1000), float: Float64Array.from({ length: n }, (_, i) => b * 1000 + s + i / 8) };
    }),
  }));
}

t.test('a sliced insert of short parts checks its slice in every loop, and its columns hold every point as it arrived', async (t) => {
  const { engine, columnar, sent } = await storeNotingColumns(t);
  let version = 0n;
  // 30 requests of 40 series: short parts (10 points) and some long ones (100, past the copy
  // loop's bound), 32.5 points a part on average: the engine sorts them.
  const batches = requests(30, () => ++version, (s) => (s % 4 === 0 ? 100 : 10));
  const turns = new EventLoopTurns(0);
  await insertPoints(columnar, batches, undefined, turns);
  const parts = 30 * 40;
  const { rows, arrived } = sentAndArrived(sent(), batches);
  t.same(rows, arrived, 'the columns hold every point in the order it arrived, with its own series, time, value and version');
  // Each batch in the checks and in the grouping, the columns every 512 parts, and before the engine's registration.
  t.ok(turns.turns >= 2 * 30 + Math.ceil(parts / 512) + 1, `a turn at every check of a 0 ms slice (${turns.turns})`);
  await assertStored(t, engine, batches);
  const [first] = await engine.query<{ ts: string; value: number; version: string }>('SELECT toString(ts) AS ts, value, toString(version) AS version FROM datapoints_float FINAL WHERE tenant = {tenant:String} AND series_id = 2 ORDER BY ts LIMIT 1 OFFSET 3', { tenant: 'b' });
  t.same(first, { ts: String(T0 + 1_000_000 + 3000), value: 1000 + 1 + 3 / 8, version: String(batches[1]?.writeVersion) }, 'a short part\'s point with its series, time and version');
});

t.test('long parts go to the engine in the table\'s sort order', async (t) => {
  const { engine, columnar, sent } = await storeNotingColumns(t);
  let version = 0n;
  const batches = requests(6, () => ++version, (s) => SORTED_PART_POINTS_MIN + (s % 3) * 40);
  await insertPoints(columnar, batches, undefined, new EventLoopTurns(0));
  const { rows, arrived } = sentAndArrived(sent(), batches);
  t.ok(arrived.some((row, k) => k > 0 && byKey(arrived[k - 1] as SentRow, row) > 0), 'the requests did not arrive in the sort order');
  t.same(rows, arrived.sort(byKey), 'the columns hold every point in (tenant, series, time, version) order');
  await assertStored(t, engine, batches);
});

t.test('in an insert the engine sorts, a newer version of a point wins though it arrived first', async (t) => {
  const { engine, columnar } = await storeNotingColumns(t);
  // Versions handed out newest first: each request rewrites the points of the one after it.
  let version = 100n;
  const batches = requests(20, () => --version, () => 10).map((b) => ({ ...b, tenant: 'a', series: b.series.map((s) => ({ ...s, timestampMs: s.timestampMs.map((_, i) => T0 + i * 1000) })) }));
  await insertPoints(columnar, batches, undefined, new EventLoopTurns(0));
  const rows = await engine.query<{ series: number; n: string; versions: string; sum: number }>(
    'SELECT series_id AS series, toString(count()) AS n, toString(uniqExact(version)) AS versions, sum(value) AS sum FROM datapoints_float FINAL WHERE tenant = {tenant:String} GROUP BY series_id ORDER BY series_id',
    { tenant: 'a' },
  );
  t.equal(rows.length, 40, 'every series');
  t.same(rows.map((r) => [r.n, r.versions]), rows.map(() => ['10', '1']), 'one row per point, all of one version');
  t.same(rows.map((r) => r.sum), rows.map((r) => Array.from({ length: 10 }, (_, i) => r.series - 1 + i / 8).reduce((a, v) => a + v, 0)), 'the values of the first request, the newest');
});
