// The data point store's cases, shared by datapoint-store.test.ts (the engine in process) and
// datapoint-store.server.test.ts (a ClickHouse server through @clickhouse/client): the same
// promises must hold on both paths of the columnar seam.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { BadRequestError } from '../errors.ts';
import { formatDatapointValue } from './read/datapoint-format.ts';
import { openDatapointStore, type DatapointStore } from './datapoint-store.ts';
import type { SeriesPoints, SeriesRef, ValueType } from './types.ts';
import type { IngestBatch } from '../ingest/ingest-log.ts';
import { columnarConfig, type ColumnarKind } from '../testing/columnar-kinds.ts';

/**
 * The store's cases against one columnar kind (the engine in process, or a server through
 * @clickhouse/client): each kind's test file runs them in a process of its own.
 */
export async function datapointStoreCases(kind: ColumnarKind): Promise<void> {
  const store: DatapointStore = await openDatapointStore(await columnarConfig(t, 'datapoint-store-test', kind), { maintenanceIntervalMs: 0 });
  t.teardown(() => store.close());
  t.equal(store.columnar.kind, kind, `the store runs on the ${kind} side of the columnar seam`);

  const T0 = 1_700_000_000_000;
  const tenantOf = () => `t-${randomUUID()}`;
  const times = (count: number, from = T0, stepMs = 1000) => Float64Array.from({ length: count }, (_, i) => from + i * stepMs);
  const batch = (tenant: string, series: SeriesPoints[], writeVersion = store.writeVersions.next()): IngestBatch => ({ tenant, series, writeVersion });
  const floatSeries = (seriesId: number, ts: Float64Array, value: (i: number) => number): SeriesPoints =>
    ({ seriesId, valueType: 'FLOAT', timestampMs: ts, float: Float64Array.from(ts, (_, i) => value(i)) });
  const all = { start: -2_208_988_800_000, limit: 100_000 };

  /** Every value of a raw read as the API's strings. */
  async function rawStrings(tenant: string, ref: SeriesRef): Promise<string[]> {
    const { points } = await store.readRaw(tenant, ref, all);
    const values: string[] = [];
    for (let i = 0; i < points.timestampMs.length; i++) {
      const value = points.float?.[i] ?? points.bigint?.[i] ?? points.scaled?.[i] ?? points.text?.[i];
      const mixed = points.isText ? (points.isText[i] ? points.text?.[i] : points.float?.[i]) : undefined;
      values.push(`${points.timestampMs[i]}=${formatDatapointValue(ref.valueType, (mixed ?? value) as number | bigint | string)}`);
    }
    return values;
  }

  t.test('every value family reads back exactly', async (t) => {
    const tenant = tenantOf();
    const ts = times(3);
    const series: SeriesPoints[] = [
      floatSeries(1, ts, (i) => [0.1, -1e-300, 1.7976931348623157e308][i] as number),
      { seriesId: 2, valueType: 'FLOAT32', timestampMs: ts, float: Float64Array.of(Math.fround(0.1), 0, -3) },
      { seriesId: 3, valueType: 'BIGINT', timestampMs: ts, bigint: BigInt64Array.of(-9223372036854775808n, 9007199254740993n, 9223372036854775807n) },
      { seriesId: 4, valueType: 'NUMERIC', timestampMs: ts, scaled: BigInt64Array.of(-999999999999999999n, 1n, 123456789012345678n) },
      { seriesId: 5, valueType: 'DECIMAL32', timestampMs: ts, scaled: BigInt64Array.of(-999999999n, 5n, 999999999n) },
      { seriesId: 6, valueType: 'TEXT', timestampMs: ts, text: ["it's", '', 'ünï\\cødé ☃'] },
      { seriesId: 7, valueType: 'MIXED', timestampMs: ts, float: Float64Array.of(1.5, 0, -2), text: ['', 'word', ''], isText: Uint8Array.of(0, 1, 0) },
    ];
    await store.insert(batch(tenant, series));
    const check = async (seriesId: number, valueType: ValueType, expected: string[]) =>
      t.same(await rawStrings(tenant, { seriesId, valueType }), expected.map((v, i) => `${ts[i]}=${v}`), valueType);
    await check(1, 'FLOAT', ['0.1', '-1e-300', '1.7976931348623157e+308']);
    await check(2, 'FLOAT32', [String(Math.fround(0.1)), '0', '-3']);
    await check(3, 'BIGINT', ['-9223372036854775808', '9007199254740993', '9223372036854775807']);
    await check(4, 'NUMERIC', ['-999999999999.999999', '0.000001', '123456789012.345678']);
    await check(5, 'DECIMAL32', ['-999999.999', '0.005', '999999.999']);
    await check(6, 'TEXT', ["it's", '', 'ünï\\cødé ☃']);
    await check(7, 'MIXED', ['1.5', 'word', '-2']);
  });

  t.test('BIGINT beyond 2^53 stays exact in MIN, MAX, SUM and latest', async (t) => {
    const tenant = tenantOf();
    const ref: SeriesRef = { seriesId: 10, valueType: 'BIGINT' };
    const values = [9007199254740993n, 9223372036854775807n, 9223372036854775807n, -9223372036854775808n, 9007199254740995n];
    const ts = times(values.length);
    await store.insert(batch(tenant, [{ ...ref, timestampMs: ts, bigint: BigInt64Array.from(values) }]));
    const expected = { count: 5, sum: values.reduce((a, b) => a + b, 0n), min: -9223372036854775808n, max: 9223372036854775807n };
    const options = { start: T0, end: T0 + 86_400_000, granularity: '1d', aggregates: ['COUNT', 'SUM', 'MIN', 'MAX'], limit: 10 } as const;
    const before = await store.aggregate(tenant, ref, options);
    t.same(before.buckets, [{ timestampMs: T0 - (T0 % 86_400_000), ...expected }], 'from raw points');
    await store.runMaintenance({ includeHot: true });
    t.same((await store.aggregate(tenant, ref, options)).buckets, before.buckets, 'from the folded rollup');
    t.same(await store.latest(tenant, [ref]), [{ seriesId: 10, timestampMs: ts[4], value: 9007199254740995n }]);
    t.equal(formatDatapointValue('BIGINT', expected.sum), '9241386435364257794');
  });

  t.test('a later write at a timestamp replaces the value; an older version does not', async (t) => {
    const tenant = tenantOf();
    const ref: SeriesRef = { seriesId: 20, valueType: 'FLOAT' };
    const ts = times(3);
    const old = store.writeVersions.next();
    await store.insert(batch(tenant, [floatSeries(20, ts, () => 1)]));
    await store.insert(batch(tenant, [floatSeries(20, ts.subarray(1, 2), () => 2)]));
    await store.insert(batch(tenant, [floatSeries(20, ts.subarray(2, 3), () => 9)], old));
    t.same(await rawStrings(tenant, ref), [`${ts[0]}=1`, `${ts[1]}=2`, `${ts[2]}=1`]);
    const sum = async () => (await store.aggregate(tenant, ref, { start: T0, end: T0 + 3600_000, granularity: '1h', aggregates: ['SUM', 'COUNT'], limit: 1 })).buckets;
    t.same(await sum(), [{ timestampMs: T0 - (T0 % 3_600_000), sum: 4, count: 3 }]);
    await store.runMaintenance({ includeHot: true });
    t.same(await sum(), [{ timestampMs: T0 - (T0 % 3_600_000), sum: 4, count: 3 }]);
  });

  t.test('tenants with the same series id never see each other', async (t) => {
    const [a, b] = [tenantOf(), tenantOf()];
    const ref: SeriesRef = { seriesId: 30, valueType: 'FLOAT' };
    await store.insert(batch(a, [floatSeries(30, times(2), () => 1)]));
    await store.insert(batch(b, [floatSeries(30, times(1, T0 + 5000), () => 2)]));
    await store.deleteRange(b, 30);
    t.same(await rawStrings(a, ref), [`${T0}=1`, `${T0 + 1000}=1`]);
    t.same(await rawStrings(b, ref), []);
    t.same((await store.latest(a, [ref])).map((p) => p.value), [1]);
    t.same(await store.latest(b, [ref]), []);
    await store.runMaintenance({ includeHot: true });
    t.same((await store.aggregate(a, ref, { start: T0, end: T0 + 10_000, granularity: '1h', aggregates: ['COUNT'], limit: 5 })).buckets.map((x) => x.count), [2]);
  });

  t.test('cursor paging visits every point exactly once, forwards and backwards', async (t) => {
    const tenant = tenantOf();
    const ref: SeriesRef = { seriesId: 40, valueType: 'FLOAT' };
    const ts = times(1000, T0, 7);
    await store.insert(batch(tenant, [floatSeries(40, ts, (i) => i)]));
    await store.deleteRange(tenant, 40, ts[100], ts[150]);
    const expected = [...ts].filter((_, i) => i < 100 || i >= 150);
    for (const [label, base] of [['ascending', { start: T0 - 1, end: T0 + 1_000_000 }], ['most recent first', { end: ts[999]! + 1 }]] as const) {
      const seen: number[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store.readRaw(tenant, ref, { ...base, limit: 64, cursor });
        const pageTs = [...page.points.timestampMs];
        t.same(pageTs, [...pageTs].sort((x, y) => x - y), `${label}: a page is ascending`);
        seen.push(...pageTs);
        cursor = page.nextCursor;
        pages++;
      } while (cursor !== undefined && pages < 100);
      t.same(seen.sort((x, y) => x - y), expected, `${label}: each point once`);
      t.equal(pages, Math.ceil(expected.length / 64), `${label}: no empty last page`);
    }
    const recent = await store.readRaw(tenant, ref, { limit: 3 });
    t.same([...recent.points.timestampMs], [ts[997], ts[998], ts[999]], 'no bounds: the most recent points, ascending');
    await t.rejects(store.readRaw(tenant, ref, { start: T0, limit: 3, cursor: 'garbage' }), { code: 'BadRequestError' });
    const backwards = (await store.readRaw(tenant, ref, { limit: 3 })).nextCursor as string;
    await t.rejects(store.readRaw(tenant, ref, { start: T0, limit: 3, cursor: backwards }), { code: 'BadRequestError' }, 'a cursor of the other direction');
  });

  t.test('a walk back over overwritten points, older versions still stored beside them, gives each live point once at its newest value', async (t) => {
    // A descending page starts where its newest rows begin, found over the stored rows as they
    // lie (datapoint-read.ts newestFrom), where two or three versions of a timestamp count as
    // two or three rows: the narrowed page comes out short, and is read again from the start.
    const tenant = tenantOf();
    const ref: SeriesRef = { seriesId: 41, valueType: 'FLOAT' };
    const ts = times(300, T0, 1000);
    const table = 'datapoints_float';
    await store.columnar.command(`SYSTEM STOP MERGES ${table}`);
    t.teardown(() => store.columnar.command(`SYSTEM START MERGES ${table}`));
    await store.insert(batch(tenant, [floatSeries(41, ts, (i) => i)]));
    const newest = ts.slice(100);
    await store.insert(batch(tenant, [floatSeries(41, newest, (i) => 1000 + i)]));
    await store.insert(batch(tenant, [floatSeries(41, newest.filter((_, i) => i % 2 === 0), (i) => 2000 + i)]));
    await store.deleteRange(tenant, 41, ts[250], ts[260]);
    const expected = new Map<number, number>();
    ts.forEach((at, i) => expected.set(at, i));
    newest.forEach((at, i) => expected.set(at, 1000 + i));
    newest.filter((_, i) => i % 2 === 0).forEach((at, i) => expected.set(at, 2000 + i));
    for (let i = 250; i < 260; i++) expected.delete(ts[i]!);
    const [stored] = await store.columnar.query<{ rows: string }>(`SELECT toString(count()) AS rows FROM ${table} WHERE tenant = {tenant:String} AND series_id = 41`, { tenant });
    t.ok(Number(stored?.rows) >= 300 + 200 + 100 - 20, 'the older versions are still stored (merges stopped)');

    const want = [...expected].sort((a, b) => a[0] - b[0]);
    for (const limit of [1, 16, 150]) {
      const walks: Record<string, [number, number][]> = { readRaw: [], readRawArrow: [], readRawJson: [] };
      for (const [reader, seen] of Object.entries(walks)) {
        let cursor: string | undefined;
        let pages = 0;
        do {
          const options = { end: ts[299]! + 1, limit, cursor };
          let page: [number, number][];
          if (reader === 'readRaw') {
            const read = await store.readRaw(tenant, ref, options);
            page = [...read.points.timestampMs].map((at, i) => [at, read.points.float![i]!]);
            cursor = read.nextCursor;
          } else if (reader === 'readRawArrow') {
            const read = await store.readRawArrow(tenant, ref, options);
            page = [...read.timestamps.values].map((at, i) => [Number(at), read.values.values[i] as number]);
            cursor = read.nextCursor;
          } else {
            const read = await store.readRawJson(tenant, ref, options);
            const text = Buffer.from(read.datapoints).toString('utf8');
            page = (JSON.parse(`[${text}]`) as { timestamp: number; value: string }[]).map((p) => [p.timestamp, Number(p.value)]);
            cursor = read.nextCursor;
          }
          t.ok(page.length === limit || cursor === undefined, `${reader}, limit ${limit}: a page short of its limit is the last`);
          seen.unshift(...page);
          pages++;
        } while (cursor !== undefined && pages < 400);
        t.same(seen, want, `${reader}, limit ${limit}: every live point once, newest versions`);
      }
    }
  });

  t.test('the fold applies many tombstones of one tenant (a join) and a few (a list), never another tenant\'s', async (t) => {
    // The fold once tested every raw row against an array of all its series' tombstones, which
    // the engine copies per row: 20,000 tombstones asked for 24 GiB, and every round failed.
    const [many, spared, few] = [tenantOf(), tenantOf(), tenantOf()];
    // A round purges the 500 oldest pending tombstones: left pending, these would hold up the
    // purges the later cases wait for. Only this case's tenants ever read them.
    t.teardown(() => store.columnar.command('DELETE FROM datapoint_tombstones WHERE tenant IN {tenants:Array(String)}', { tenants: [many, few] }));
    const ref: SeriesRef = { seriesId: 42, valueType: 'FLOAT' };
    const ts = times(40_000, T0, 1000);
    const value = (i: number) => (i % 997) - 400 + (i % 7) / 8;
    for (const tenant of [many, spared, few]) await store.insert(batch(tenant, [floatSeries(42, ts, value)]));
    await store.runMaintenance({ includeHot: true });
    // One second of every eight, and a wider range over several of them (the tombstones overlap).
    const ranges = Array.from({ length: 5000 }, (_, k) => ({ seriesId: 42, inclusiveBeginMs: ts[k * 8]!, exclusiveEndMs: ts[k * 8]! + 1000 }));
    ranges.push({ seriesId: 42, inclusiveBeginMs: ts[20_004]!, exclusiveEndMs: ts[20_100]! });
    await store.deleteRanges(many, ranges);
    await store.deleteRanges(few, [{ seriesId: 42, inclusiveBeginMs: ts[100]!, exclusiveEndMs: ts[3_700]! }, { seriesId: 42, inclusiveBeginMs: ts[9_000]!, exclusiveEndMs: ts[9_001]! }]);
    const report = await store.runMaintenance({ includeHot: true });
    t.ok(report.rangesFolded > 0, 'the fold ran over the deleted hours');
    const [left] = await store.columnar.query<{ marks: string }>('SELECT toString(count()) AS marks FROM datapoint_dirty WHERE tenant IN {tenants:Array(String)}', { tenants: [many, spared, few] });
    t.equal(left?.marks, '0', 'no dirty range left: aggregates come from the folded rollups');

    const live = (tenant: string) => (i: number) => {
      if (tenant === many) return !(i % 8 === 0 && i < 40_000) && !(i >= 20_004 && i < 20_100);
      if (tenant === few) return !(i >= 100 && i < 3_700) && i !== 9_000;
      return true;
    };
    for (const tenant of [many, spared, few]) {
      for (const [granularity, bucketMs] of [['1h', 3_600_000], ['1m', 60_000]] as const) {
        const expected = new Map<number, { count: number; sum: number; min: number; max: number }>();
        ts.forEach((at, i) => {
          const bucket = at - (at % bucketMs);
          if (!live(tenant)(i) || (granularity === '1m' && bucket >= T0 + 2 * 3_600_000)) return;
          const b = expected.get(bucket) ?? { count: 0, sum: 0, min: Infinity, max: -Infinity };
          expected.set(bucket, { count: b.count + 1, sum: b.sum + value(i), min: Math.min(b.min, value(i)), max: Math.max(b.max, value(i)) });
        });
        const end = granularity === '1m' ? T0 + 2 * 3_600_000 : T0 + 12 * 3_600_000;
        const read = await store.aggregate(tenant, ref, { start: T0 - (T0 % bucketMs), end, granularity, aggregates: ['COUNT', 'SUM', 'MIN', 'MAX'], limit: 10_000 });
        const got = read.buckets.map((b) => [b.timestampMs, b.count, Number(Number(b.sum).toFixed(6)), b.min, b.max]);
        const want = [...expected].sort((a, b) => a[0] - b[0]).map(([at, b]) => [at, b.count, Number(b.sum.toFixed(6)), b.min, b.max]);
        const who = tenant === many ? '5,001 tombstones' : tenant === few ? 'two tombstones' : 'none of its own, the same series id';
        t.same(got, want, `${who}: ${granularity} COUNT, SUM, MIN, MAX from the fold`);
      }
    }
  });

  t.test('a delete beats an older version replayed after it, before and after fold and purge', async (t) => {
    const tenant = tenantOf();
    const ref: SeriesRef = { seriesId: 50, valueType: 'NUMERIC' };
    const ts = times(10);
    const replay = batch(tenant, [{ ...ref, timestampMs: ts, scaled: BigInt64Array.from(ts, (_, i) => BigInt(i) * 1_000_000n) }]);
    await store.insert(replay);
    await store.deleteRange(tenant, 50, ts[2], ts[8]);
    const newer = batch(tenant, [{ ...ref, timestampMs: ts.subarray(5, 6), scaled: BigInt64Array.of(42_000_000n) }]);
    await store.insert(newer);
    const expected = [`${ts[0]}=0`, `${ts[1]}=1`, `${ts[5]}=42`, `${ts[8]}=8`, `${ts[9]}=9`];
    const options = { start: T0, end: T0 + 3_600_000, granularity: '1h', aggregates: ['COUNT', 'SUM', 'MAX'], limit: 2 } as const;
    const aggregate = { timestampMs: T0 - (T0 % 3_600_000), count: 5, sum: 60_000_000n, max: 42_000_000n };
    const check = async (when: string) => {
      t.same(await rawStrings(tenant, ref), expected, `${when}: raw`);
      t.same((await store.aggregate(tenant, ref, options)).buckets, [aggregate], `${when}: aggregate`);
      t.same(await store.latest(tenant, [ref]), [{ seriesId: 50, timestampMs: ts[9], value: 9_000_000n }], `${when}: latest`);
    };
    await check('at once');
    await store.insert(replay);
    await check('after a replay of the older batch');
    const report = await store.runMaintenance({ includeHot: true });
    t.ok(report.tombstonesPurged >= 1, 'the tombstone was purged');
    await check('after fold and purge');
    await store.insert(replay);
    await check('after another replay');
    await store.runMaintenance({ includeHot: true });
    await check('after another fold');
    await store.deleteRange(tenant, 50);
    t.same(await rawStrings(tenant, ref), [], 'a delete without bounds clears the series');
    t.same(await store.latest(tenant, [ref]), []);
    t.same((await store.aggregate(tenant, ref, options)).buckets, []);
  });

  t.test('purged series are dead for every version and leave no derived rows', async (t) => {
    const tenant = tenantOf();
    const ref: SeriesRef = { seriesId: 60, valueType: 'TEXT' };
    const points: SeriesPoints = { ...ref, timestampMs: times(2), text: ['a', 'b'] };
    await store.insert(batch(tenant, [points]));
    await store.runMaintenance({ includeHot: true });
    await store.purgeSeries(tenant, [60]);
    t.same(await rawStrings(tenant, ref), []);
    await store.insert(batch(tenant, [points]));
    t.same(await rawStrings(tenant, ref), [], 'even a newer write of the deleted id');
    await store.runMaintenance({ includeHot: true });
    t.same(await store.latest(tenant, [ref]), []);
    const [rows] = await store.columnar.query<{ n: string }>(
      'SELECT toString(count()) AS n FROM datapoints_text_latest WHERE tenant = {tenant:String} AND series_id = 60', { tenant });
    t.equal(rows?.n, '0');
  });

  t.test('TEXT series refuse numeric aggregates with a typed error', async (t) => {
    const tenant = tenantOf();
    const ref: SeriesRef = { seriesId: 70, valueType: 'TEXT' };
    await store.insert(batch(tenant, [{ ...ref, timestampMs: times(3), text: ['x', 'y', 'z'] }]));
    const options = { start: T0, end: T0 + 60_000, granularity: '1m', limit: 10 } as const;
    t.same((await store.aggregate(tenant, ref, { ...options, aggregates: ['COUNT'] })).buckets, [{ timestampMs: T0 - (T0 % 60_000), count: 3 }]);
    const error = await store.aggregate(tenant, ref, { ...options, aggregates: ['COUNT', 'AVG'] }).catch((e: unknown) => e);
    t.type(error, BadRequestError);
    t.match((error as BadRequestError).fields, [{ field: 'aggregates', value: ['AVG'] }]);
  });

  t.test('a batch breaking the store invariants is refused', async (t) => {
    const tenant = tenantOf();
    await t.rejects(store.insert(batch(tenant, [floatSeries(80, Float64Array.of(T0 + 1, T0), () => 1)])), { message: /not strictly ascending/ });
    await t.rejects(store.insert(batch(tenant, [{ seriesId: 80, valueType: 'BIGINT', timestampMs: times(2), float: Float64Array.of(1, 2) }])), { message: /bigint column is missing/ });
    t.same(await rawStrings(tenant, { seriesId: 80, valueType: 'FLOAT' }), []);
  });

  t.test('a range still being written waits for its writes to pause, at most hotMaxAgeMs', async (t) => {
    const tenant = tenantOf();
    const ref: SeriesRef = { seriesId: 70, valueType: 'FLOAT' };
    const mine = (report: { folded?: { tenant: string }[] }) => (report.folded ?? []).filter((m) => m.tenant === tenant).length;
    const hourly = { start: T0 - 3_600_000, end: T0 + 3_600_000, granularity: '1h', aggregates: ['COUNT'], limit: 10 } as const;
    // Hours of 2023: cold by the clock, written just now.
    await store.insert(batch(tenant, [floatSeries(70, times(10), (i) => i)]));
    const fresh = await store.runMaintenance();
    t.equal(mine(fresh), 0, 'marked within quietMs: not folded');
    t.ok(fresh.rangesDeferred >= 1, 'but deferred');
    t.same((await store.aggregate(tenant, ref, hourly)).buckets.map((b) => b.count), [10], 'reads stay exact meanwhile');
    await store.insert(batch(tenant, [floatSeries(70, times(10, T0 + 10_000), (i) => i)]));
    t.equal(mine(await store.runMaintenance({ hotMaxAgeMs: 0 })), 1, 'a range first marked longer than hotMaxAgeMs ago is folded even while written');
    await store.insert(batch(tenant, [floatSeries(70, times(10, T0 + 20_000), (i) => i)]));
    t.equal(mine(await store.runMaintenance({ quietMs: 0 })), 1, 'once quiet, folded');
    t.same((await store.aggregate(tenant, ref, hourly)).buckets.map((b) => b.count), [30], 'from the rollups, exactly');
  });

  t.test('a read of a series with 20,000 pending tombstones answers exactly (past a server URL\'s 1 MiB of bound values)', async (t) => {
    const tenant = tenantOf();
    const ref: SeriesRef = { seriesId: 1_234_567_890, valueType: 'FLOAT' };
    await store.insert(batch(tenant, [floatSeries(ref.seriesId, times(40_000), (i) => i)]));
    // Two requests of ITEMS_PER_REQUEST_MAX disjoint ranges, one point each, before any purge.
    // Last of the cases, so no maintenance runs after it: a maintenance round over this many
    // tombstones of one series asked the engine for 25 GiB (an arrayExists over every tombstone,
    // per row) and failed, in process as through a server.
    for (const request of [0, 1]) {
      await store.deleteRanges(tenant, Array.from({ length: 10_000 }, (_, i) => ({ seriesId: ref.seriesId, inclusiveBeginMs: T0 + (request * 10_000 + i) * 2000, exclusiveEndMs: T0 + (request * 10_000 + i) * 2000 + 1 })));
    }
    const { points } = await store.readRaw(tenant, ref, all);
    t.equal(points.timestampMs.length, 20_000);
    t.equal(points.timestampMs[0], T0 + 1000, 'the first point left is the first odd second');
    const options = { start: T0, end: T0 + 86_400_000, granularity: '1d', aggregates: ['COUNT'], limit: 2 } as const;
    t.equal((await store.aggregate(tenant, ref, options)).buckets.reduce((sum, b) => sum + (b.count ?? 0), 0), 20_000);
  });
}
