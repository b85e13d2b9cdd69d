// Goal (bytes per point): the data point tables' codecs and compression blocks are the ones
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

/** The raw table's bytes on disk (its parts are compact at this size: no per-column figures). */
const rawBytes = async () => Number((await columnar.query<{ b: string }>(
  "SELECT toString(sum(bytes_on_disk)) AS b FROM system.parts WHERE active AND database = currentDatabase() AND table = 'datapoints_float'"))[0]?.b);

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
  const olderBytes = await rawBytes();
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
  const todayBytes = await rawBytes();
  t.ok(todayBytes < olderBytes * 0.99, `a merge writes today's codec: ${(todayBytes / count).toFixed(3)} bytes a point against ${(olderBytes / count).toFixed(3)}`);
  const merged = await reopened.readRaw(TENANT, { seriesId: SERIES, valueType: 'FLOAT' }, { start: T0, end: T0 + count * 1000, limit: count });
  t.same(merged.points.float, values, 'and every value read back after it');
  await reopened.close();
});
