// Goal: raw pages written as JSON by the engine (readRawJson) say exactly what the JS path
// says (readRaw formatted as the API did before): every value family with its awkward values
// (-0, 1e21 and up, subnormals, BIGINT beyond 2^53, decimals, text needing escapes) in SPEC's
// form and CDF's (values as JSON numbers), deleted and overwritten points, and cursors in both directions visiting each point once; and the
// store's cached read contexts give the answers of uncached reads after writes, deletes,
// folds and reads racing them. Method: a real chdb engine in a temp dir; the JS rendering and
// the uncached read functions are the references.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { rawItemJson } from './datapoint-json.ts';
import { aggregate } from './datapoint-aggregate.ts';
import { latest } from './datapoint-latest.ts';
import { readRawJson } from './datapoint-read.ts';
import { openDatapointStore, type DatapointStore } from '../datapoint-store.ts';
import { FAMILY_SHAPES } from '../tables/families.ts';
import { foldLatestEmptySql } from '../rollups/rollup-fold.sql.ts';
import { ColumnarParams } from '../../stores/columnar-params.ts';
import type { AggregateName, RawReadOptions, SeriesPoints, SeriesRef } from '../types.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'datapoint-read-test-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const store: DatapointStore = await openDatapointStore({ dataDir: dir }, { maintenanceIntervalMs: 0 });
t.teardown(() => store.close());

const T0 = 1_700_000_000_000;
const times = (count: number) => Float64Array.from({ length: count }, (_, i) => T0 + i * 1000);
const target = (ref: SeriesRef) => ({ seriesId: ref.seriesId, externalId: `x${ref.seriesId}`, valueType: ref.valueType, dataSetId: null });

/** The JS rendering (reference) and the engine's, as parsed JSON. */
async function both(tenant: string, ref: SeriesRef, options: RawReadOptions) {
  const js = await store.readRaw(tenant, ref, options);
  const engine = await store.readRawJson(tenant, ref, options);
  const jsText = rawItemJson(target(ref), js.points, js.nextCursor, options.form).toString('utf8');
  const engineText = `{"datapoints":[${Buffer.from(engine.datapoints).toString('utf8')}]}`;
  return { js: JSON.parse(jsText).datapoints as unknown[], engine: JSON.parse(engineText).datapoints as unknown[], jsCursor: js.nextCursor, engineCursor: engine.nextCursor };
}

async function check(t: Test, tenant: string, ref: SeriesRef, options: RawReadOptions) {
  const { js, engine, jsCursor, engineCursor } = await both(tenant, ref, options);
  t.same(engine, js, `${ref.valueType} ${JSON.stringify(options)}`);
  t.equal(engineCursor === undefined, jsCursor === undefined, 'a next page exactly when the JS path has one');
}

const floats = [0, -0, 0.1, -1e-300, 5e-324, 1e21, -1.5e21, 1e-7, 123456789012345680000, 1.7976931348623157e308, 2 ** 53 + 2, Math.fround(0.1), 20.125];

t.test('every family with awkward values, whole and paged', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const n = floats.length;
  const ts = times(n);
  const pick = <T>(values: readonly T[]) => Array.from({ length: n }, (_, i) => values[i % values.length] as T);
  const texts = ['a"b', 'back\\slash', 'tab\tnl\n', '\u0001ctl', 'é ü 😀', '/slash', '\u2028x', '', "it's", ',{"timestamp":1}', '\r', '\u007f', 'plain'];
  const series: SeriesPoints[] = [
    { seriesId: 1, valueType: 'FLOAT', timestampMs: ts, float: Float64Array.from(floats) },
    { seriesId: 2, valueType: 'FLOAT32', timestampMs: ts, float: Float64Array.from(floats, (v) => Math.fround(v)).map((v) => (Number.isFinite(v) ? v : 1)) },
    { seriesId: 3, valueType: 'BIGINT', timestampMs: ts, bigint: BigInt64Array.from(pick([-9223372036854775808n, 9007199254740993n, 9223372036854775807n, 0n, -1n])) },
    { seriesId: 4, valueType: 'NUMERIC', timestampMs: ts, scaled: BigInt64Array.from(pick([-999999999999999999n, 1n, 123456789012345678n, 0n, -1500000n, 100000000n])) },
    { seriesId: 5, valueType: 'DECIMAL32', timestampMs: ts, scaled: BigInt64Array.from(pick([-999999999n, 5n, 999999999n, 0n, 1000n, -10n])) },
    { seriesId: 6, valueType: 'TEXT', timestampMs: ts, text: pick(texts) },
    { seriesId: 7, valueType: 'MIXED', timestampMs: ts, float: Float64Array.from(floats), text: pick(texts), isText: Uint8Array.from({ length: n }, (_, i) => i % 2) },
  ];
  await store.insert({ tenant, series, writeVersion: store.writeVersions.next() });
  for (const s of series) {
    const ref = { seriesId: s.seriesId, valueType: s.valueType };
    await check(t, tenant, ref, { start: T0, limit: 100 });
    await check(t, tenant, ref, { limit: 100 });
    await check(t, tenant, ref, { start: T0 + 3000, end: T0 + 5000, limit: 100 });
    await check(t, tenant, ref, { start: T0 + 5000, end: T0 + 5000, limit: 100 });
    // CDF's form: the same digits as JSON numbers, text as strings.
    await check(t, tenant, ref, { start: T0, limit: 100, form: 'cdf' });
    await check(t, tenant, ref, { limit: 5, form: 'cdf' });
  }
});

t.test('deleted and overwritten points; cursors both ways visit every point once', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const ref: SeriesRef = { seriesId: 1, valueType: 'FLOAT' };
  const ts = times(50);
  await store.insert({ tenant, series: [{ ...ref, timestampMs: ts, float: Float64Array.from(ts, (_, i) => i) }], writeVersion: store.writeVersions.next() });
  await store.insert({ tenant, series: [{ ...ref, timestampMs: ts.subarray(10, 20), float: Float64Array.from({ length: 10 }, (_, i) => -i) }], writeVersion: store.writeVersions.next() });
  await store.deleteRange(tenant, 1, T0 + 30_000, T0 + 35_000);
  for (const start of [T0, undefined]) {
    const seen: unknown[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const options: RawReadOptions = { ...(start !== undefined ? { start } : {}), limit: 7, ...(cursor ? { cursor } : {}) };
      const { js, engine, jsCursor, engineCursor } = await both(tenant, ref, options);
      t.same(engine, js, `page ${pages} from ${start ?? 'the end'}`);
      t.equal(engineCursor === undefined, jsCursor === undefined);
      seen.push(...engine);
      cursor = engineCursor;
      pages++;
    } while (cursor && pages < 20);
    t.equal(seen.length, 45, 'every live point once');
    t.equal(new Set(seen.map((p) => (p as { timestamp: number }).timestamp)).size, 45, 'no duplicates');
  }
  const { engine } = await both(tenant, ref, { start: T0, limit: 100 });
  t.same(engine.slice(10, 12), [{ timestamp: T0 + 10_000, value: '0' }, { timestamp: T0 + 11_000, value: '-1' }], 'the newer write wins');
});

t.test('cached read contexts and raw pages never hide a write, a delete or a fold (same answers as uncached reads)', async (t) => {
  const tenant = `t-${randomUUID()}`;
  const ref: SeriesRef = { seriesId: 1, valueType: 'FLOAT' };
  const span = { start: T0, end: T0 + 4 * 3_600_000 };
  const agg = { ...span, granularity: '1h' as const, aggregates: ['COUNT', 'SUM', 'MAX'] as AggregateName[], limit: 100 };
  const compare = async (what: string) => {
    t.same(await store.aggregate(tenant, ref, agg), await aggregate(store.columnar, tenant, ref, agg), `aggregate after ${what}`);
    t.same(await store.latest(tenant, [ref]), await latest(store.columnar, tenant, [ref]), `latest after ${what}`);
    const raw = await store.readRawJson(tenant, ref, { ...span, limit: 100_000 });
    const reference = await readRawJson(store.columnar, tenant, ref, { ...span, limit: 100_000 });
    t.equal(Buffer.from(raw.datapoints).toString(), Buffer.from(reference.datapoints).toString(), `raw after ${what}`);
  };
  const minutes = (from: number, count: number, value: number): SeriesPoints =>
    ({ ...ref, timestampMs: Float64Array.from({ length: count }, (_, i) => from + i * 60_000), float: new Float64Array(count).fill(value) });
  await store.insert({ tenant, series: [minutes(T0, 180, 1)], writeVersion: store.writeVersions.next() });
  await compare('the first write');
  await compare('a cached read');
  await store.runMaintenance({ includeHot: true });
  await compare('the fold');
  await store.insert({ tenant, series: [minutes(T0 + 3_600_000, 30, 5)], writeVersion: store.writeVersions.next() });
  await compare('an overwrite');
  await store.deleteRange(tenant, 1, T0 + 600_000, T0 + 1_200_000);
  await compare('a delete');
  // Reads racing writes: whatever they saw, the reads after them see everything.
  for (let round = 0; round < 5; round++) {
    await Promise.all([
      store.aggregate(tenant, ref, agg),
      store.insert({ tenant, series: [minutes(T0 + 3 * 3_600_000 + round * 60_000, 1, 100 + round)], writeVersion: store.writeVersions.next() }),
      store.readRawJson(tenant, ref, { ...span, limit: 10 }),
      round === 2 ? store.runMaintenance({ includeHot: true }) : store.deleteRange(tenant, 1, T0 + round * 60_000, T0 + round * 60_000 + 1),
      store.latest(tenant, [ref]),
    ]);
    await compare(`racing round ${round}`);
  }
});

t.test('latest is exact while a fold is between marking a latest row empty and writing the new one', async (t) => {
  // The fold writes a series' latest row in two statements (rollup-fold.ts): an empty row,
  // then the newest point of its rollups. A read in between saw no row, found nothing in the
  // dirty hours (a delete there) and left out a series whose newest point is in a clean hour
  // (seen once in make test under load: "after deletes: latest"). Here the in-between state
  // is made by running the fold's first statement alone.
  const tenant = `t-${randomUUID()}`;
  const ref: SeriesRef = { seriesId: 7, valueType: 'FLOAT' };
  const HOUR = 3_600_000;
  const points: SeriesPoints = { ...ref, timestampMs: Float64Array.from([T0, T0 + HOUR, T0 + 5 * HOUR]), float: Float64Array.from([1, 2, 3]) };
  await store.insert({ tenant, series: [points], writeVersion: store.writeVersions.next() });
  await store.runMaintenance({ includeHot: true });
  t.same(await store.latest(tenant, [ref]), [{ seriesId: 7, timestampMs: T0 + 5 * HOUR, value: 3 }], 'folded');
  await store.deleteRange(tenant, 7, T0 + HOUR, T0 + 2 * HOUR); // a dirty hour, not the newest point's
  const params = new ColumnarParams();
  const series = `tenant = ${params.bind(tenant, 'String')} AND series_id = ${params.bind(7, 'UInt64')}`;
  const computedAt = BigInt(Date.now()) * 1000n;
  await store.columnar.command(foldLatestEmptySql(FAMILY_SHAPES.float, series), { ...params.values, zero_at: computedAt, computed_at: computedAt + 1n });
  const expected = [{ seriesId: 7, timestampMs: T0 + 5 * HOUR, value: 3 }];
  t.same(await latest(store.columnar, tenant, [ref]), expected, 'uncached read in the fold\'s in-between state');
  t.same(await store.latest(tenant, [ref]), expected, 'cached read in the fold\'s in-between state');
  await store.runMaintenance({ includeHot: true });
  t.same(await store.latest(tenant, [ref]), expected, 'after the fold completes');
});
