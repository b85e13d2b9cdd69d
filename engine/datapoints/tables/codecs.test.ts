// Goal (bytes per point): the data point tables' codecs (FLOAT, BIGINT, decimals) and compression blocks are the ones
// measured for them, and a data directory whose tables were created with older codecs takes
// today's at open as metadata only (no mutation, every part as it was, every value the same),
// after which a merge writes the new codecs and the same points take fewer bytes.
// Method: the real chdb engine in a temp dir; the older codecs are written out here.
import t from 'tap';
import { reopenableEngine } from '../../testing/columnar-kinds.ts';
import { DatapointStore } from '../datapoint-store.ts';

const columnar = await reopenableEngine(t, 'codecs');
const TENANT = 'codecs';
const SERIES = 31;
const T0 = Date.UTC(2024, 2, 1);

/** The codecs the FLOAT tables had before: default (LZ4) tenant, T64 + ZSTD(3) integers. */
const OLDER_CODECS: [table: string, alter: string][] = [
  ['datapoints_float', "MODIFY COLUMN tenant REMOVE CODEC, MODIFY COLUMN value_m Int64 CODEC(T64, ZSTD(3))"],
  ...['datapoints_float_1m', 'datapoints_float_1h'].map((table): [string, string] => [table,
    ['value_sum_m', 'value_min_m', 'value_max_m', 'last_value_m', 'first_value_m'].map((c) => `MODIFY COLUMN ${c} Int64 CODEC(T64, ZSTD(3))`).concat('MODIFY COLUMN tenant REMOVE CODEC').join(', ')]),
];

/** A sensor's readings: a slow cycle and noise at three decimals, the shape the codecs were measured on. */
function readings(count: number): Float64Array {
  let noise = 0x2545f491;
  return Float64Array.from({ length: count }, (_, i) => {
    noise = (Math.imul(noise, 1_103_515_245) + 12_345) >>> 0;
    return Number((40 + 3 * Math.sin(i / 5000) + 0.25 * (noise / 2 ** 32 - 0.5)).toFixed(3));
  });
}

async function codecsOf(table: string): Promise<Record<string, string>> {
  const rows = await columnar.query<{ name: string; codec: string }>(
    'SELECT name, compression_codec AS codec FROM system.columns WHERE database = currentDatabase() AND table = {table:String}', { table });
  return Object.fromEntries(rows.map((r) => [r.name, r.codec]));
}

const partsOf = async (table: string) => (await columnar.query<{ name: string }>(
  'SELECT name FROM system.parts WHERE active AND database = currentDatabase() AND table = {table:String} ORDER BY name', { table })).map((r) => r.name);

/** A table's bytes on disk (its parts are compact at these sizes: no per-column figures). */
const bytesOf = async (table: string) => Number((await columnar.query<{ b: string }>(
  'SELECT toString(sum(bytes_on_disk)) AS b FROM system.parts WHERE active AND database = currentDatabase() AND table = {table:String}', { table }))[0]?.b);

t.test('a directory with older codecs takes today\'s at open, metadata only', async (t) => {
  const count = 100_000;
  const values = readings(count);
  const store = await DatapointStore.open({ columnar, maintenanceIntervalMs: 0 });
  const created = await codecsOf('datapoints_float');
  t.equal(created['value_m'], "CODEC(Delta(8), T64('bit'), ZSTD(3))", 'the raw integers: differences, bits transposed, ZSTD');
  t.equal(created['tenant'], 'CODEC(ZSTD(1))', 'the tenant column: ZSTD');
  t.equal((await codecsOf('datapoints_float_1m'))['value_sum_m'], "CODEC(Delta(8), T64('bit'), ZSTD(3))", 'minute rows code their integers alike');
  const [{ query }] = await columnar.query<{ query: string }>("SELECT create_table_query AS query FROM system.tables WHERE database = currentDatabase() AND name = 'datapoints_float'") as [{ query: string }];
  t.match(query, /min_compress_block_size = 131072/, 'raw columns compress in blocks of 128 KiB');
  await store.close();

  for (const [table, alter] of OLDER_CODECS) await columnar.command(`ALTER TABLE ${table} ${alter}`);
  t.equal((await codecsOf('datapoints_float'))['value_m'], 'CODEC(T64, ZSTD(3))', 'set back to the older codec');
  await columnar.command('ALTER TABLE datapoints_float MODIFY SETTING min_compress_block_size = 65536');
  const older = await DatapointStore.open({ columnar, maintenanceIntervalMs: 0 });
  const timestampMs = Float64Array.from({ length: count }, (_, i) => T0 + i * 1000);
  await older.insert({ tenant: TENANT, series: [{ seriesId: SERIES, valueType: 'FLOAT', timestampMs, float: values }], writeVersion: older.writeVersions.next() });
  await older.close();
  // The older codecs again: the open above applied today's before the points were written.
  for (const [table, alter] of OLDER_CODECS) await columnar.command(`ALTER TABLE ${table} ${alter}`);
  await columnar.command('ALTER TABLE datapoints_float MODIFY SETTING min_compress_block_size = 65536');
  await columnar.command('OPTIMIZE TABLE datapoints_float FINAL');
  const olderBytes = await bytesOf('datapoints_float');
  const partsBefore = await partsOf('datapoints_float');

  const reopened = await DatapointStore.open({ columnar, maintenanceIntervalMs: 0 });
  t.equal((await codecsOf('datapoints_float'))['value_m'], "CODEC(Delta(8), T64('bit'), ZSTD(3))", 'the raw table takes today\'s codec at open');
  t.equal((await codecsOf('datapoints_float'))['tenant'], 'CODEC(ZSTD(1))', 'and the tenant column\'s');
  for (const table of ['datapoints_float_1m', 'datapoints_float_1h']) {
    t.equal((await codecsOf(table))['last_value_m'], "CODEC(Delta(8), T64('bit'), ZSTD(3))", `${table} takes it too`);
  }
  t.same(await partsOf('datapoints_float'), partsBefore, 'no part rewritten');
  const mutations = await columnar.query<{ n: string }>("SELECT toString(count()) AS n FROM system.mutations WHERE database = currentDatabase() AND table LIKE 'datapoints_float%'");
  t.equal(mutations[0]?.n, '0', 'no mutation');
  const page = await reopened.readRaw(TENANT, { seriesId: SERIES, valueType: 'FLOAT' }, { start: T0, end: T0 + count * 1000, limit: count });
  t.same(page.points.float, values, 'every value read back');

  await columnar.command('OPTIMIZE TABLE datapoints_float FINAL');
  const todayBytes = await bytesOf('datapoints_float');
  t.ok(todayBytes < olderBytes * 0.99, `a merge writes today's codec: ${(todayBytes / count).toFixed(3)} bytes a point against ${(olderBytes / count).toFixed(3)}`);
  const merged = await reopened.readRaw(TENANT, { seriesId: SERIES, valueType: 'FLOAT' }, { start: T0, end: T0 + count * 1000, limit: count });
  t.same(merged.points.float, values, 'and every value read back after it');
  await reopened.close();
});

/** A BIGINT meter beyond 2^53 counting up by a few a second, and a NUMERIC level at three decimals. */
function meterAndLevel(count: number): { meter: BigInt64Array; level: BigInt64Array } {
  let noise = 0x1b873593;
  const meter = new BigInt64Array(count);
  const level = new BigInt64Array(count);
  let total = 2n ** 60n;
  for (let i = 0; i < count; i++) {
    noise = (Math.imul(noise, 1_103_515_245) + 12_345) >>> 0;
    total += BigInt(noise % 7);
    meter[i] = total;
    // NUMERIC travels scaled by 10^6: 12.345 is 12345000n.
    level[i] = BigInt(Math.round((40 + 3 * Math.sin(i / 5000) + 0.25 * (noise / 2 ** 32 - 0.5)) * 1000)) * 1000n;
  }
  return { meter, level };
}

/** The raw value codecs of the integer and decimal families, and each column's type (to set its codec back). */
const VALUE_CODECS = [
  { table: 'datapoints_int', type: 'Int64', today: "CODEC(Delta(8), T64('bit'), ZSTD(3))" },
  { table: 'datapoints_numeric', type: 'Decimal(18, 6)', today: 'CODEC(Delta(8), ZSTD(3))' },
  { table: 'datapoints_decimal32', type: 'Decimal(9, 3)', today: 'CODEC(Delta(4), ZSTD(3))' },
];

t.test('BIGINT and decimal values take their codecs, older tables at open, metadata only', async (t) => {
  const count = 100_000;
  const { meter, level } = meterAndLevel(count);
  const timestampMs = Float64Array.from({ length: count }, (_, i) => T0 + i * 1000);
  const meterRef = { seriesId: 41, valueType: 'BIGINT' } as const;
  const levelRef = { seriesId: 42, valueType: 'NUMERIC' } as const;
  const store = await DatapointStore.open({ columnar, maintenanceIntervalMs: 0 });
  for (const { table, today } of VALUE_CODECS) t.equal((await codecsOf(table))['value'], today, `${table}: today's codec`);
  await store.insert({ tenant: TENANT, series: [{ ...meterRef, timestampMs, bigint: meter }, { ...levelRef, timestampMs, scaled: level }], writeVersion: store.writeVersions.next() });
  await store.close();

  for (const { table, type } of VALUE_CODECS) await columnar.command(`ALTER TABLE ${table} MODIFY COLUMN value ${type} CODEC(ZSTD(3))`);
  t.equal((await codecsOf('datapoints_int'))['value'], 'CODEC(ZSTD(3))', 'set back to the older codec');
  const older: Record<string, number> = {};
  for (const table of ['datapoints_int', 'datapoints_numeric']) {
    await columnar.command(`OPTIMIZE TABLE ${table} FINAL`);
    older[table] = await bytesOf(table);
  }
  const partsBefore = { int: await partsOf('datapoints_int'), numeric: await partsOf('datapoints_numeric') };

  const reopened = await DatapointStore.open({ columnar, maintenanceIntervalMs: 0 });
  for (const { table, today } of VALUE_CODECS) t.equal((await codecsOf(table))['value'], today, `${table} takes today's codec at open`);
  t.same({ int: await partsOf('datapoints_int'), numeric: await partsOf('datapoints_numeric') }, partsBefore, 'no part rewritten');
  const mutations = await columnar.query<{ n: string }>("SELECT toString(count()) AS n FROM system.mutations WHERE database = currentDatabase() AND (table LIKE 'datapoints_int%' OR table LIKE 'datapoints_numeric%' OR table LIKE 'datapoints_decimal32%')");
  t.equal(mutations[0]?.n, '0', 'no mutation');
  const window = { start: T0, end: T0 + count * 1000, limit: count };
  t.same((await reopened.readRaw(TENANT, meterRef, window)).points.bigint, meter, 'every BIGINT read back exact, beyond 2^53');
  t.same((await reopened.readRaw(TENANT, levelRef, window)).points.scaled, level, 'every NUMERIC value read back exact');

  for (const table of ['datapoints_int', 'datapoints_numeric']) {
    await columnar.command(`OPTIMIZE TABLE ${table} FINAL`);
    const today = await bytesOf(table);
    t.ok(today < (older[table] as number) * 0.98, `${table}: a merge writes today's codec: ${(today / count).toFixed(3)} bytes a point against ${((older[table] as number) / count).toFixed(3)}`);
  }
  t.same((await reopened.readRaw(TENANT, meterRef, window)).points.bigint, meter, 'and every BIGINT after it');
  t.same((await reopened.readRaw(TENANT, levelRef, window)).points.scaled, level, 'and every NUMERIC value after it');
  await reopened.close();
});
