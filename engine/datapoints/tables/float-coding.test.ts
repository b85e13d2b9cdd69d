// Goal (bytes per point): FLOAT values stored decimally read back as the very doubles
// written, every double alike (decimals, thirds, -0, infinities, NaN, subnormals, the extremes,
// integers past 2^53) in raw reads, every finite one (all the API takes) in aggregates and the
// latest point; decimal-looking values
// are in fact stored as integer and exponent; and a data directory from before the coding
// (doubles stored in `value`) moves to it at open, from the start and from each step a crash
// could have stopped it at, with every value unchanged.
// Method: the real chdb engine in a temp dir. fast-check draws the doubles; bits are compared.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import t from 'tap';
import { reopenableEngine } from '../../testing/columnar-kinds.ts';
import { DatapointStore } from '../datapoint-store.ts';
import { codedColumns, migrateFloatCoding } from './float-coding-migration.ts';
import {
  CODED_COLUMN_KINDS_SQL, addCodedColumnsSql, codedColumnNames, dropStoredColumnSql, materializeCodedColumnsSql, removeCodedDefaultsSql,
} from './float-coding-migration.sql.ts';
import { RAW_BITS, decodeDecimalColumn } from './decimal-coding.ts';

/** The engine for each store opened here: a store's close leaves it open for the next. */
const columnar = await reopenableEngine(t, 'float-coding');

const T0 = 1_700_000_000_000;
const EDGES = [
  0, -0, 0.1, -0.1, 1 / 3, 23.456, -7.001, 123456.789012, 0.000001, 1e-7, 5e-324, -5e-324, 2.2250738585072014e-308,
  1.7976931348623157e308, -1.7976931348623157e308, Infinity, -Infinity, NaN, 2 ** 53, 2 ** 53 + 2, -(2 ** 53), 9007199254740.993,
  900719925.4740991, 1e21, 1e-21, Math.fround(0.1), 0.1 + 0.2,
];
/** Doubles of every kind, and many that look like a sensor's decimals. */
const anyDouble = fc.oneof(
  fc.double(),
  fc.tuple(fc.integer({ min: -1e9, max: 1e9 }), fc.integer({ min: 0, max: 9 })).map(([m, e]) => m / 10 ** e),
  fc.constantFrom(...EDGES),
);

const bitsOf = (v: number) => Buffer.from(Float64Array.of(v).buffer).readBigUInt64LE();
const sameBits = (a: number, b: number) => (Number.isNaN(a) && Number.isNaN(b)) || bitsOf(a) === bitsOf(b);

t.test('a store with the coding', async (t) => {
  const store = await DatapointStore.open({ columnar, maintenanceIntervalMs: 0 });

  await t.test('every double reads back with its bits, raw, aggregated and latest', async (t) => {
    let seriesId = 1;
    await fc.assert(fc.asyncProperty(fc.array(anyDouble, { minLength: 1, maxLength: 60 }), async (values) => {
      const tenant = `t-${randomUUID()}`;
      const series = { seriesId: seriesId++, valueType: 'FLOAT' as const };
      const ts = Float64Array.from(values, (_, i) => T0 + i * 1000);
      await store.insert({ tenant, series: [{ ...series, timestampMs: ts, float: Float64Array.from(values) }], writeVersion: store.writeVersions.next() });
      const { points } = await store.readRaw(tenant, series, { start: T0, end: T0 + 3_600_000, limit: 1000 });
      const read = Array.from(points.float ?? []);
      if (read.length !== values.length || !values.every((v, i) => sameBits(v, read[i] as number))) {
        throw new Error(`read ${JSON.stringify(read.map(String))} for ${JSON.stringify(values.map(String))}`);
      }
      // The API takes finite values only (workers/datapoint-encode.ts); latest and aggregates
      // are checked for those, raw reads for every double the store could be handed.
      const finite = values.filter((v) => Number.isFinite(v));
      if (finite.length === values.length) {
        const latest = (await store.latest(tenant, [series]))[0];
        if (!sameBits(latest?.value as number, values[values.length - 1] as number)) throw new Error(`latest ${latest?.value} for ${values.at(-1)}`);
        const [bucket] = (await store.aggregate(tenant, series, { start: T0, end: T0 + 3_600_000, granularity: '1h', aggregates: ['MIN', 'MAX'], limit: 10 })).buckets;
        const min = finite.reduce((a, b) => (b < a || (b === a && Object.is(b, -0)) ? b : a));
        const max = finite.reduce((a, b) => (b > a ? b : a));
        if (bucket?.min !== min && !(bucket?.min === 0 && min === 0)) throw new Error(`min ${bucket?.min} for ${min}`);
        if (bucket?.max !== max && !(bucket?.max === 0 && max === 0)) throw new Error(`max ${bucket?.max} for ${max}`);
      }
    }), { numRuns: 40 });
    t.pass('40 random series of up to 60 doubles');
  });

  await t.test('decimal values are stored as integer and exponent, others as their bits', async (t) => {
    const tenant = `t-${randomUUID()}`;
    const values = [23.456, -7.001, 12, 0.000001, 12345678901234, 1 / 3, -0, NaN];
    const ts = Float64Array.from(values, (_, i) => T0 + i * 1000);
    await store.insert({ tenant, series: [{ seriesId: 999_999, valueType: 'FLOAT', timestampMs: ts, float: Float64Array.from(values) }], writeVersion: store.writeVersions.next() });
    const rows = await columnar.query<{ m: string; e: number }>(
      'SELECT toString(value_m) AS m, value_e AS e FROM datapoints_float WHERE tenant = {tenant:String} ORDER BY ts', { tenant });
    t.same(rows.slice(0, 5), [{ m: '23456', e: 3 }, { m: '-7001', e: 3 }, { m: '12000', e: 3 }, { m: '1', e: 6 }, { m: '12345678901234', e: 0 }],
      'three decimals first (one scale for a sensor whose trailing zeros vary), then six, then whole numbers');
    t.same(rows.slice(5).map((r) => r.e), [RAW_BITS, RAW_BITS, RAW_BITS], 'a third, -0 and NaN keep their bits');
  });
  await t.test('the stored parts decoded here are the engine\'s decoded double, bit for bit', async (t) => {
    let seriesId = 500_000;
    await fc.assert(fc.asyncProperty(fc.array(anyDouble, { minLength: 1, maxLength: 60 }), async (values) => {
      const tenant = `t-${randomUUID()}`;
      const ts = Float64Array.from(values, (_, i) => T0 + i * 1000);
      await store.insert({ tenant, series: [{ seriesId: seriesId++, valueType: 'FLOAT', timestampMs: ts, float: Float64Array.from(values) }], writeVersion: store.writeVersions.next() });
      const table = await columnar.queryArrow('SELECT value, value_m, value_e FROM datapoints_float WHERE tenant = {tenant:String} ORDER BY ts', { tenant });
      const engine = table.getChild('value')?.toArray() as Float64Array;
      const decoded = decodeDecimalColumn(table.getChild('value_m')?.toArray() as BigInt64Array, table.getChild('value_e')?.toArray() as Uint8Array);
      const wrong = values.findIndex((_, i) => !sameBits(decoded[i] as number, engine[i] as number));
      if (decoded.length !== values.length || wrong >= 0) throw new Error(`value ${values[wrong]}: decoded ${decoded[wrong]}, the engine's alias ${engine[wrong]}`);
    }), { numRuns: 40 });
    t.pass('40 random series of up to 60 doubles');
    t.throws(() => decodeDecimalColumn(BigInt64Array.of(1n), Uint8Array.of(7)), /exponent 7/, 'an exponent the coding never writes is an error, not a guess');
  });

  await t.test('sums of decimals are exact and stay decimal in minute and hour rows', async (t) => {
    const tenant = `t-${randomUUID()}`;
    const hour = Date.UTC(2024, 0, 10);
    // 0.1 + 0.2 + 0.3 is 0.6000000000000001 in doubles; a minute of 0.1 is 5.999999999999998.
    const values = [0.1, 0.2, 0.3, ...Array.from({ length: 60 }, () => 0.1)];
    const ts = Float64Array.from(values, (_, i) => hour + (i < 3 ? i * 1000 : 60_000 + (i - 3) * 1000));
    await store.insert({ tenant, series: [{ seriesId: 424_242, valueType: 'FLOAT', timestampMs: ts, float: Float64Array.from(values) }], writeVersion: store.writeVersions.next() });
    await store.runMaintenance({ includeHot: true });
    const rows = await columnar.query<{ table: string; m: string; e: number }>(
      `SELECT * FROM (
         SELECT 'minute' AS table, toString(value_sum_m) AS m, value_sum_e AS e, bucket FROM datapoints_float_1m FINAL WHERE tenant = {tenant:String} AND point_count > 0
         UNION ALL SELECT 'hour' AS table, toString(value_sum_m) AS m, value_sum_e AS e, bucket FROM datapoints_float_1h FINAL WHERE tenant = {tenant:String} AND point_count > 0)
       ORDER BY table DESC, bucket`, { tenant });
    t.same(rows.map(({ table, m, e }) => ({ table, m, e })), [
      { table: 'minute', m: '600', e: 3 }, { table: 'minute', m: '6000', e: 3 }, { table: 'hour', m: '6600', e: 3 },
    ], 'integers added, stored at three decimals');
    const [minute, second] = (await store.aggregate(tenant, { seriesId: 424_242, valueType: 'FLOAT' }, { start: hour, end: hour + 120_000, granularity: '1m', aggregates: ['SUM'], limit: 10 })).buckets;
    t.same([minute?.sum, second?.sum], [0.6, 6], 'the nearest doubles of the true sums');
  });
  await store.close();
});

/** The FLOAT tables as they were before the coding (doubles stored as Float64). */
const OLD_RAW = `CREATE TABLE datapoints_float (
  tenant LowCardinality(String), series_id UInt64 CODEC(Delta, ZSTD(1)), ts Int64 CODEC(DoubleDelta, ZSTD(1)),
  version UInt64 CODEC(Delta, ZSTD(1)), value Float64 CODEC(ZSTD(3))
) ENGINE = ReplacingMergeTree(version) ORDER BY (tenant, series_id, ts)`;
const oldRollup = (table: string) => `CREATE TABLE ${table} (
  tenant LowCardinality(String), series_id UInt64, bucket Int64, point_count UInt64, value_count UInt64,
  value_sum Float64, value_min Float64, value_max Float64, last_ts Int64, last_value Float64, computed_at UInt64
) ENGINE = ReplacingMergeTree(computed_at) ORDER BY (tenant, series_id, bucket)`;
/** Rollup rows as the fold wrote them before the coding. */
const oldFold = (table: string, bucketMs: number) => `INSERT INTO ${table}
  SELECT tenant, series_id, ts - positiveModulo(ts, ${bucketMs}), count(), count(), sum(value), min(value), max(value), max(ts), argMax(value, ts), 1
  FROM datapoints_float FINAL GROUP BY tenant, series_id, ts - positiveModulo(ts, ${bucketMs})`;

/** `values` at T0, T0 + 1 s, ... of series 7 of tenant 'old', then every even one negated by a later version (two parts). */
async function writeOld(values: readonly number[], base = T0): Promise<void> {
  for (const [version, scale] of [[1, 1], [2, -1]] as const) {
    const at = values.map((_, i) => i).filter((i) => version === 1 || i % 2 === 0);
    await columnar.command(`INSERT INTO datapoints_float (tenant, series_id, ts, version, value)
      SELECT 'old', 7, p.1, ${version}, reinterpret(p.2, 'Float64')
      FROM (SELECT arrayJoin(arrayZip([${at.map((i) => base + i * 1000).join(', ')}], [${at.map((i) => `toUInt64(${bitsOf((values[i] as number) * scale)})`).join(', ')}])) AS p)`);
  }
}

/** The columns FLOAT keeps decimally (written out here, not taken from the code under test). */
const CODED: [table: string, column: string][] = [
  ['datapoints_float', 'value'],
  ...['datapoints_float_1m', 'datapoints_float_1h'].flatMap((table) => ['value_sum', 'value_min', 'value_max', 'last_value'].map((column): [string, string] => [table, column])),
];

/** Every coded column's values as bits, table by table (the rows in key order). */
async function columnBits(): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const [table, column] of CODED) {
    const key = table === 'datapoints_float' ? 'ts' : 'bucket';
    out[`${table}.${column}`] = (await columnar.query<{ b: string }>(`SELECT toString(reinterpret(${column}, 'UInt64')) AS b FROM ${table} FINAL ORDER BY ${key}`)).map((r) => r.b);
  }
  return out;
}

const kindsOf = async (table: string, column: string) => (await columnar.query<{ name: string; kind: string }>(CODED_COLUMN_KINDS_SQL, { table, names: codedColumnNames(column) }))
  .sort((a, b) => a.name.localeCompare(b.name));

t.test('an older directory moves to the coding at open: raw values and rollup columns alike', async (t) => {
  for (const table of ['datapoints_float', 'datapoints_float_1m', 'datapoints_float_1h']) await columnar.command(`DROP TABLE IF EXISTS ${table} SYNC`);
  await columnar.command(OLD_RAW);
  await columnar.command(oldRollup('datapoints_float_1m'));
  await columnar.command(oldRollup('datapoints_float_1h'));
  // Decimals and others over two hours, so minutes and hours both hold several rows.
  const values = Array.from({ length: 7200 }, (_, i) => (i % 7 === 0 ? (i + 1) / 3 : Math.round(Math.sin(i / 100) * 20_000) / 1000));
  const hour = Date.UTC(2024, 0, 10);
  await writeOld(values, hour);
  await columnar.command(oldFold('datapoints_float_1m', 60_000));
  await columnar.command(oldFold('datapoints_float_1h', 3_600_000));
  const before = await columnBits();
  const store = await DatapointStore.open({ columnar, maintenanceIntervalMs: 0 });
  t.same(codedColumns(), CODED, 'the move covers every coded column');
  for (const [table, column] of CODED) {
    t.same(await kindsOf(table, column), [{ name: column, kind: 'ALIAS' }, { name: `${column}_e`, kind: '' }, { name: `${column}_m`, kind: '' }], `${table}.${column} is the alias`);
  }
  t.same(await columnBits(), before, 'every value of every coded column the same double');
  const minutes = (await store.aggregate('old', { seriesId: 7, valueType: 'FLOAT' }, { start: hour, end: hour + 7_200_000, granularity: '1m', aggregates: ['MIN', 'MAX', 'SUM'], limit: 1000 })).buckets;
  t.equal(minutes.length, 120, 'the minute rows answer 1m reads');
  const want = values.map((v, i) => (i % 2 === 0 ? -v : v));
  const first = want.slice(0, 60);
  t.same([minutes[0]?.min, minutes[0]?.max], [Math.min(...first), Math.max(...first)], 'the first minute\'s extremes');
  await store.close();
  const reopened = await DatapointStore.open({ columnar, maintenanceIntervalMs: 0 });
  t.same(await columnBits(), before, 'a second open changes nothing');
  await reopened.close();
});

t.test('a move stopped at any step resumes at open', async (t) => {
  const values = EDGES;
  const [table, column] = ['datapoints_float', 'value'];
  const steps: [string, string[]][] = [
    ['after the parts were added', [addCodedColumnsSql(table, column)]],
    ['after they were written', [addCodedColumnsSql(table, column), materializeCodedColumnsSql(table, column)]],
    ['after their defaults went', [addCodedColumnsSql(table, column), materializeCodedColumnsSql(table, column), removeCodedDefaultsSql(table, column)]],
    ['after the stored value was dropped', [addCodedColumnsSql(table, column), materializeCodedColumnsSql(table, column), removeCodedDefaultsSql(table, column), dropStoredColumnSql(table, column)]],
  ];
  for (const [name, done] of steps) {
    await columnar.command('DROP TABLE IF EXISTS datapoints_float SYNC');
    await columnar.command(OLD_RAW);
    await writeOld(values);
    for (const sql of done) await columnar.command(sql);
    const store = await DatapointStore.open({ columnar, maintenanceIntervalMs: 0 });
    t.same(await kindsOf(table, column), [{ name: 'value', kind: 'ALIAS' }, { name: 'value_e', kind: '' }, { name: 'value_m', kind: '' }], `${name}: value is the alias`);
    const { points } = await store.readRaw('old', { seriesId: 7, valueType: 'FLOAT' }, { start: T0, end: T0 + 3_600_000, limit: 1000 });
    const read = Array.from(points.float ?? []);
    const want = values.map((v, i) => (i % 2 === 0 ? -v : v));
    t.ok(read.length === want.length && want.every((v, i) => sameBits(v, read[i] as number)), `${name}: every value the same double`);
    await migrateFloatCoding(columnar);
    t.equal((await kindsOf(table, column)).length, 3, `${name}: a second move changes nothing`);
    await store.close();
  }
});
