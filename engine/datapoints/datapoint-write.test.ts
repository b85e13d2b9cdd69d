// Goal: a group commit's parts go to the engine in the table's sort order (tenant as a string,
// series, first timestamp, version) whatever order the tenants arrived in, so the engine is
// spared its sort on insert; and a large insert lets waiting I/O run between its steps.
// Method: fast-check draws parts over a few tenants and compares the order with a plain sort by
// the key tuple; the real chdb store behind a wrapper that notes how many event-loop turns (a
// chain of immediates) passed when the raw insert reached the engine.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import t from 'tap';
import { openColumnarStore, type ColumnarStore } from '../stores/columnar.ts';
import { DatapointStore, embeddedColumnarPath } from './datapoint-store.ts';
import { sortBySortKey, type FamilyRows } from './datapoint-write.ts';

t.test('parts sort by tenant string, series, first timestamp and version', async () => {
  const part = fc.record({
    tenant: fc.constantFrom('b', 'a', 'ab', 'B', 'é', ''),
    seriesId: fc.integer({ min: 1, max: 5 }),
    first: fc.integer({ min: 0, max: 5 }),
    version: fc.bigInt({ min: 1n, max: 4n }),
  });
  fc.assert(fc.property(fc.array(part, { maxLength: 60 }), (drawn) => {
    const tenants: string[] = [];
    const group: FamilyRows = { tenants, pointCount: 0, parts: drawn.map((d) => {
      let index = tenants.indexOf(d.tenant) + 1;
      if (index === 0) index = tenants.push(d.tenant);
      return { tenantIndex: index, version: d.version, points: { seriesId: d.seriesId, valueType: 'FLOAT', timestampMs: Float64Array.of(d.first), float: Float64Array.of(0) } };
    }) };
    sortBySortKey(group);
    const key = (p: FamilyRows['parts'][number]) => [tenants[p.tenantIndex - 1] as string, p.points.seriesId, p.points.timestampMs[0] as number, p.version] as const;
    const want = [...drawn].sort((a, b) => (a.tenant < b.tenant ? -1 : a.tenant > b.tenant ? 1 : 0) || a.seriesId - b.seriesId || a.first - b.first || (a.version < b.version ? -1 : a.version > b.version ? 1 : 0));
    const got = group.parts.map(key);
    if (JSON.stringify(got.map(String)) !== JSON.stringify(want.map((d) => String([d.tenant, d.seriesId, d.first, d.version])))) throw new Error(`${JSON.stringify(got.map(String))}`);
  }), { numRuns: 500 });
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
  t.ok((await insertOf(60_000) ?? 0) >= 3, 'a 60,000-point insert gives the event loop a turn after its checks, its sort and its columns');
  t.equal(await insertOf(100), 0, 'a 100-point insert goes straight through');
});
