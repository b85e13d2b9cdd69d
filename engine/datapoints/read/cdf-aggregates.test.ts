// Goal: the CDF aggregate call answers CDF's worked examples, writes CDF's JSON (field names,
// JSON numbers, requested fields only), refuses string series and unknown names, and reads
// sub-minute granularities from raw points. Method: the real embedded store, one tenant per
// test, points written through the store and read back before and after the rollup fold.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { openDatapointStore, type DatapointStore } from '../datapoint-store.ts';
import type { SeriesRef } from '../types.ts';
import { cdfAggregateDatapointsJson, type CdfAggregateName } from './cdf-aggregates.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'cdf-aggregates-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const store: DatapointStore = await openDatapointStore({ dataDir: dir }, { maintenanceIntervalMs: 0 });
t.teardown(() => store.close());

const MINUTE = 60_000;
const HOUR = 3_600_000;
const T0 = Date.UTC(2024, 4, 1);
const FLOAT: SeriesRef = { seriesId: 1, valueType: 'FLOAT' };

async function write(tenant: string, series: SeriesRef, points: [number, number][]): Promise<void> {
  const sorted = [...points].sort((a, b) => a[0] - b[0]);
  await store.insert({ tenant, series: [{ ...series, timestampMs: Float64Array.from(sorted, (p) => p[0]), float: Float64Array.from(sorted, (p) => p[1]) }], writeVersion: store.writeVersions.next() });
}

t.test("CDF's worked example: 0 until 04:30, 1.0 at 05:30, the 04:00 hour averages 0.125", async (t) => {
  const tenant = 'worked';
  await write(tenant, FLOAT, [[T0 + 3 * HOUR, 0], [T0 + 4 * HOUR, 0], [T0 + 4.5 * HOUR, 0], [T0 + 5.5 * HOUR, 1]]);
  for (const phase of ['dirty', 'folded']) {
    if (phase === 'folded') await store.runMaintenance({ includeHot: true });
    const aggregates: CdfAggregateName[] = ['average', 'interpolation', 'stepInterpolation', 'count', 'totalVariation'];
    const { buckets } = await store.cdfAggregate(tenant, FLOAT, { start: T0 + 4 * HOUR + 43 * MINUTE, end: T0 + 6 * HOUR, granularity: '1h', aggregates, isStep: false, limit: 10 });
    t.strictSame(buckets, [
      { timestamp: T0 + 4 * HOUR, count: 2, interpolation: 0, stepInterpolation: 0, average: 0.125, totalVariation: 0.5 },
      { timestamp: T0 + 5 * HOUR, count: 1, interpolation: 0.5, stepInterpolation: 0, average: 0.75, totalVariation: 0.5 },
    ], `${phase}: the 1h read from 04:43 starts at 04:00; the last bucket ends at the last point (no next one)`);
    const step = await store.cdfAggregate(tenant, FLOAT, { start: T0 + 4 * HOUR, end: T0 + 6 * HOUR, granularity: 'hour', aggregates: ['average', 'interpolation'], isStep: true, limit: 10 });
    t.strictSame(step.buckets, [{ timestamp: T0 + 4 * HOUR, average: 0, interpolation: 0 }, { timestamp: T0 + 5 * HOUR, average: 0.5, interpolation: 0 }], `${phase}: stepwise holds to the bucket's end`);
    t.equal(cdfAggregateDatapointsJson(step.buckets, ['average', 'interpolation']), `[{"timestamp":${T0 + 4 * HOUR},"average":0,"interpolation":0},{"timestamp":${T0 + 5 * HOUR},"average":0.5,"interpolation":0}]`, 'JSON numbers, CDF names');
  }
});

t.test('30s buckets come from raw points, paged by cursor', async (t) => {
  const tenant = 'seconds';
  const points: [number, number][] = Array.from({ length: 10 }, (_, i) => [T0 + i * 20_000 + 5, i]);
  await write(tenant, FLOAT, points);
  await store.runMaintenance({ includeHot: true });
  const pages: unknown[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.cdfAggregate(tenant, FLOAT, { start: T0 + 500, end: T0 + 200_000, granularity: '30s', aggregates: ['count', 'sum', 'discreteVariance'], isStep: false, limit: 2, cursor });
    pages.push(...page.buckets);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  // 30s from T0 (start rounded down to the second: T0): points at 0,20,40,...,180 s.
  t.strictSame(pages, [
    { timestamp: T0, count: 2, sum: 1, discreteVariance: 0.25 },
    { timestamp: T0 + 30_000, count: 1, sum: 2, discreteVariance: 0 },
    { timestamp: T0 + 60_000, count: 2, sum: 7, discreteVariance: 0.25 },
    { timestamp: T0 + 90_000, count: 1, sum: 5, discreteVariance: 0 },
    { timestamp: T0 + 120_000, count: 2, sum: 13, discreteVariance: 0.25 },
    { timestamp: T0 + 150_000, count: 1, sum: 8, discreteVariance: 0 },
    { timestamp: T0 + 180_000, count: 1, sum: 9, discreteVariance: 0 },
  ]);
});

t.test('string series, unknown names, bad granularities and zones are 400s', async (t) => {
  const options = { start: T0, end: T0 + HOUR, granularity: '1h', aggregates: ['average'] as CdfAggregateName[], isStep: false, limit: 10 };
  await t.rejects(store.cdfAggregate('bad', { seriesId: 2, valueType: 'TEXT' }, options), { code: 'BadRequestError' }, 'TEXT');
  await t.rejects(store.cdfAggregate('bad', FLOAT, { ...options, aggregates: ['median' as CdfAggregateName] }), { code: 'BadRequestError' }, 'unknown name');
  await t.rejects(store.cdfAggregate('bad', FLOAT, { ...options, granularity: '121s' }), { code: 'BadRequestError' }, 'granularity');
  await t.rejects(store.cdfAggregate('bad', FLOAT, { ...options, timeZone: 'Nowhere/Land' }), { code: 'BadRequestError' }, 'zone');
});

t.test('several series at once answer as one at a time, in request order', async (t) => {
  const tenant = 'many';
  const other: SeriesRef = { seriesId: 3, valueType: 'FLOAT' };
  await write(tenant, FLOAT, [[T0, 1], [T0 + 20 * MINUTE, 4], [T0 + 70 * MINUTE, 2]]);
  await write(tenant, other, [[T0 + 5 * MINUTE, 7], [T0 + 95 * MINUTE, -1]]);
  const options = { start: T0, end: T0 + 2 * HOUR, granularity: '30m', timeZone: 'Europe/Oslo', aggregates: ['average', 'sum', 'totalVariation'] as CdfAggregateName[], isStep: false, limit: 10 };
  const many = await store.cdfAggregateMany(tenant, [{ series: other, options }, { series: FLOAT, options: { ...options, isStep: true } }]);
  t.strictSame(many, [await store.cdfAggregate(tenant, other, options), await store.cdfAggregate(tenant, FLOAT, { ...options, isStep: true })]);
  t.equal(many[1]?.buckets.length, 2, 'the buckets holding points');
});
