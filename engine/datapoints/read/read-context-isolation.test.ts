// Goal: on the embedded engine a read never runs the context statement, and writes
// to other series (inserts, deletes, folds, another tenant's ingest) neither make it run one
// nor evict its kept rollup rows and raw pages; a write held back at the fold's clock keeps its
// dirty ranges; contexts reloaded at open give the same answers. Method: the real chdb store
// behind a wrapper that counts (and, for the fold's clock, can delay) the statements it passes
// on; answers are compared before and after, and with the uncached read functions.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { openColumnarStore, type ColumnarStore } from '../../stores/columnar.ts';
import { aggregate } from './datapoint-aggregate.ts';
import { latest } from './datapoint-latest.ts';
import { SERIES_CONTEXT_SQL } from './datapoint-read.sql.ts';
import { DatapointStore, embeddedColumnarPath } from '../datapoint-store.ts';
import { FOLD_CLOCK_SQL } from '../rollups/rollup-fold.sql.ts';
import type { AggregateOptions, SeriesPoints, SeriesRef } from '../types.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'read-context-isolation-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

interface Counts { statements: number; context: number; clockDelayMs: number; insertDelayMs: number }

/** The real store, counting what passes through it. */
function counting(store: ColumnarStore, counts: Counts): ColumnarStore {
  const count = (sql: string) => {
    counts.statements++;
    if (sql === SERIES_CONTEXT_SQL) counts.context++;
  };
  return {
    kind: store.kind,
    readsColumnSources: store.readsColumnSources,
    query: async (sql, params) => {
      count(sql);
      if (sql === FOLD_CLOCK_SQL && counts.clockDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, counts.clockDelayMs));
      return store.query(sql, params);
    },
    queryArrow: (sql, params) => { count(sql); return store.queryArrow(sql, params); },
    queryBytes: (sql, params) => { count(sql); return store.queryBytes(sql, params); },
    command: (sql, params) => { count(sql); return store.command(sql, params); },
    insertColumns: async (insert) => {
      counts.statements++;
      if (counts.insertDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, counts.insertDelayMs));
      return store.insertColumns(insert);
    },
    ping: () => store.ping(),
    close: () => store.close(),
  };
}

async function open(counts: Counts): Promise<DatapointStore> {
  const columnar = await openColumnarStore({ engine: 'chdb', path: embeddedColumnarPath(dir) });
  return DatapointStore.open({ columnar: counting(columnar, counts), maintenanceIntervalMs: 0 });
}

const counts: Counts = { statements: 0, context: 0, clockDelayMs: 0, insertDelayMs: 0 };
let store = await open(counts);
t.teardown(() => store.close());

const HOUR = 3_600_000;
const T0 = Math.floor(1_700_000_000_000 / HOUR) * HOUR;
const X: SeriesRef = { seriesId: 1, valueType: 'FLOAT' };
const minutes = (ref: SeriesRef, from: number, count: number, value: number): SeriesPoints =>
  ({ ...ref, timestampMs: Float64Array.from({ length: count }, (_, i) => from + i * 60_000), float: new Float64Array(count).fill(value) });
const agg: AggregateOptions = { start: T0, end: T0 + 4 * HOUR, granularity: '1h', aggregates: ['COUNT', 'SUM', 'MAX'], limit: 100 };
const span = { start: T0, end: T0 + 4 * HOUR, limit: 1000 };

/** Statements (and context statements) a function ran. */
async function measure<T>(run: () => Promise<T>): Promise<{ result: T; statements: number; context: number }> {
  const [statements, context] = [counts.statements, counts.context];
  const result = await run();
  return { result, statements: counts.statements - statements, context: counts.context - context };
}

const readX = (tenant: string) => Promise.all([store.aggregate(tenant, X, agg), store.readRawJson(tenant, X, span), store.latest(tenant, [X])]);

t.test('writes to other series and tenants never make a read of X run a statement it did not need', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const other = `t-${randomUUID()}`;
  await store.insert({ tenant, series: [minutes(X, T0, 180, 1)], writeVersion: store.writeVersions.next() });
  await store.runMaintenance({ includeHot: true });
  const first = await measure(() => readX(tenant));
  t.equal(first.context, 0, 'no context statement, even for the first read');
  const again = await measure(() => readX(tenant));
  t.equal(again.statements, 0, 'a repeated read runs no statement (kept rollup rows, latest rows and page)');
  // Another tenant ingests, the same tenant writes and deletes other series, a fold runs: all beside reads of X.
  let ingesting = true;
  let batches = 0;
  const ingest = (async () => {
    for (let i = 0; ingesting; i++) {
      await store.insertMany([
        { tenant: other, series: [minutes({ seriesId: 1 + (i % 50), valueType: 'FLOAT' }, T0 + (i % 180) * 60_000, 1, i)], writeVersion: store.writeVersions.next() },
        { tenant, series: [minutes({ seriesId: 2, valueType: 'FLOAT' }, T0 + (i % 180) * 60_000, 1, i)], writeVersion: store.writeVersions.next() },
      ]);
      batches++;
    }
  })();
  let reads = 0;
  let statements = 0;
  let context = 0;
  const latencies: number[] = [];
  for (let round = 0; round < 30; round++) {
    const started = performance.now();
    const m = await measure(() => Promise.all([
      readX(tenant),
      round % 10 === 3 ? store.runMaintenance({ includeHot: true }) : undefined,
      round % 10 === 7 ? store.deleteRange(tenant, 2, T0, T0 + 60_000) : undefined,
    ]));
    latencies.push(performance.now() - started);
    const [aggregated, , latestPoints] = m.result[0];
    t.same(aggregated, first.result[0], 'aggregate unchanged');
    t.same(latestPoints, first.result[2], 'latest unchanged');
    reads++;
    context += m.context;
  }
  ingesting = false;
  await ingest;
  const quiet = await measure(() => readX(tenant));
  statements = quiet.statements;
  latencies.sort((a, b) => a - b);
  t.comment(`${reads} reads of X beside ${batches} inserts of other series (and folds, deletes): ${context} context statements; p50 ${latencies[15]?.toFixed(1)} ms, max ${latencies[29]?.toFixed(1)} ms (each round includes any fold or delete it started)`);
  t.equal(context, 0, 'no context statement while others are written');
  t.equal(statements, 0, 'X\'s kept results survived the other series\' writes and folds');
  t.ok(batches > 0, 'inserts ran beside the reads');
  // A write to X itself is seen at once.
  await store.insert({ tenant, series: [minutes(X, T0 + 3 * HOUR, 1, 50)], writeVersion: store.writeVersions.next() });
  const after = await measure(() => readX(tenant));
  t.equal(after.context, 0);
  t.same(after.result[2], [{ seriesId: 1, timestampMs: T0 + 3 * HOUR, value: 50 }], 'the write to X is read back');
  t.same(after.result[0], await aggregate(store.columnar, tenant, X, agg), 'same aggregate as an uncached read');
});

t.test('a write held back at the fold\'s clock keeps its dirty range (its points come after the recompute)', async (t) => {
  const tenant = `t-${randomUUID()}`;
  await store.insert({ tenant, series: [minutes(X, T0, 60, 1)], writeVersion: store.writeVersions.next() });
  counts.clockDelayMs = 200;
  const fold = store.runMaintenance({ includeHot: true });
  await new Promise((resolve) => setTimeout(resolve, 50)); // the fold is reading its clock now
  counts.insertDelayMs = 500; // and the held-back insert lands after the fold's recompute
  const late = store.insert({ tenant, series: [minutes(X, T0, 60, 2)], writeVersion: store.writeVersions.next() });
  await fold;
  counts.insertDelayMs = 0;
  counts.clockDelayMs = 0;
  await late;
  const expected = [{ timestampMs: T0, count: 60, sum: 120, max: 2 }];
  t.same((await store.aggregate(tenant, X, agg)).buckets, expected, 'the overwrite is in the answer before the next fold');
  await store.runMaintenance({ includeHot: true });
  t.same((await store.aggregate(tenant, X, agg)).buckets, expected, 'and after it');
});

t.test('contexts reloaded at open give the same answers', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const now = Math.floor(Date.now() / 60_000) * 60_000;
  const refs: SeriesRef[] = [1, 2, 3].map((seriesId) => ({ seriesId, valueType: 'FLOAT' }));
  await store.insert({ tenant, series: refs.map((ref) => minutes(ref, T0, 120, ref.seriesId)), writeVersion: store.writeVersions.next() });
  await store.runMaintenance({ includeHot: true });
  // Hot marks stay (a fold without includeHot defers them), deletes leave tombstones.
  await store.insert({ tenant, series: refs.map((ref) => minutes(ref, now - 10 * 60_000, 5, 10 + ref.seriesId)), writeVersion: store.writeVersions.next() });
  await store.deleteRange(tenant, 2, T0 + 30 * 60_000, T0 + 45 * 60_000);
  await store.deleteRange(tenant, 3, now - 8 * 60_000, now - 7 * 60_000);
  // Marks are hour runs: a day of grace keeps the last ten minutes hot whatever the time of the hour.
  await store.runMaintenance({ hotGraceMs: 24 * HOUR });
  const window = { start: T0, end: now + HOUR, granularity: '1h' as const, aggregates: ['COUNT', 'SUM'] as const, limit: 10_000 };
  const answers = async () => Promise.all(refs.map(async (ref) => ({
    aggregate: await store.aggregate(tenant, ref, { ...window, aggregates: [...window.aggregates] }),
    raw: Buffer.from((await store.readRawJson(tenant, ref, { start: T0, end: now + HOUR, limit: 10_000 })).datapoints).toString(),
    latest: await store.latest(tenant, [ref]),
    context: store.contexts?.index.context(tenant, ref.seriesId),
  })));
  const before = await answers();
  t.ok(before.some((a) => (a.context?.dirty.length ?? 0) > 0), 'some series still dirty');
  t.ok(before.some((a) => (a.context?.tombstones.length ?? 0) > 0), 'some series with tombstones');
  await store.close();
  store = await open(counts);
  const m = await measure(answers);
  const sortContext = (a: (typeof before)[number]) => ({ ...a, context: { dirty: [...(a.context?.dirty ?? [])].sort((x, y) => x[0] - y[0] || x[1] - y[1]), tombstones: a.context?.tombstones } });
  t.same(m.result.map(sortContext), before.map(sortContext), 'same contexts and answers after reopening');
  t.equal(m.context, 0, 'no context statement after reopening');
  for (const ref of refs) t.same(await store.latest(tenant, [ref]), await latest(store.columnar, tenant, [ref]), `latest of ${ref.seriesId} as uncached`);
});
