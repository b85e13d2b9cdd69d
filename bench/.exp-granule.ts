import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openColumnarStore } from '../engine/stores/columnar.ts';
import { ColumnarParams } from '../engine/stores/columnar-params.ts';
import { DatapointStore, embeddedColumnarPath } from '../engine/datapoints/datapoint-store.ts';
import { MINUTE_DAYS_SQL } from '../engine/datapoints/read/datapoint-read.sql.ts';
const dir = mkdtempSync(path.join(tmpdir(), 'exp-granule-'));
const columnar = await openColumnarStore({ engine: 'chdb', path: embeddedColumnarPath(dir) });
const store = await DatapointStore.open({ columnar, maintenanceIntervalMs: 0 });
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);
for (let part = 0; part < 10; part++) {
  await columnar.command(`INSERT INTO datapoints_float_1m (tenant, series_id, bucket, point_count, value_count, value_sum_m, value_sum_e, value_min_m, value_min_e, value_max_m, value_max_e, last_ts, last_value_m, last_value_e, first_ts, first_value_m, first_value_e, lin_integral, step_integral, computed_at)
SELECT 't1', ${part * 100} + intDiv(number, 2880), ${T0} + (number % 2880) * 60000, 60, 60, 1200000 + rand() % 1000, 3, 20000 + rand() % 100, 3, 21000 + rand() % 100, 3, ${T0} + (number % 2880) * 60000 + 59000, 20500, 3, ${T0} + (number % 2880) * 60000, 20400, 3, rand() / 1e3, rand() / 1e3, 1 FROM numbers(288000)`);
}
await columnar.command('OPTIMIZE TABLE datapoints_float_1m FINAL');
const parts = await columnar.query<{ n: string }>("SELECT toString(count()) AS n FROM system.parts WHERE table = 'datapoints_float_1m' AND active");
console.log('parts', parts[0]?.n);
async function time(label: string, settings: string) {
  const samples: number[] = [];
  for (let i = 0; i < 200; i++) {
    const id = (i * 37) % 1000;
    const day = T0 + (i % 2) * DAY;
    const params = new ColumnarParams();
    const list = `(series_id = ${params.bind(id, 'UInt64')} AND bucket >= ${params.bind(day, 'Int64')} AND bucket < ${params.bind(day + DAY, 'Int64')})`;
    let sql = MINUTE_DAYS_SQL(list);
    if (settings) sql = sql.replace('SETTINGS enable_analyzer = 0', `SETTINGS enable_analyzer = 0, ${settings}`);
    const started = performance.now();
    const table = await columnar.queryArrow(sql, { ...params.values, tenant: 't1' });
    samples.push(performance.now() - started);
    if (table.numRows !== 1440) throw new Error(`rows ${table.numRows}`);
  }
  samples.sort((a, b) => a - b);
  console.log(`${label}: median ${samples[100]!.toFixed(2)} p90 ${samples[180]!.toFixed(2)}`);
}
async function timeSql(label: string, sql: string) {
  const samples: number[] = [];
  for (let i = 0; i < 200; i++) { const s = performance.now(); await columnar.query(sql.replace('$ID', String((i * 37) % 1000))); samples.push(performance.now() - s); }
  samples.sort((a, b) => a - b);
  console.log(`${label}: median ${samples[100]!.toFixed(2)} p90 ${samples[180]!.toFixed(2)}`);
}
for (let round = 0; round < 2; round++) {
  await timeSql('SELECT 1', 'SELECT 1 AS x');
  await time('default', '');
  await time('uncompressed cache', 'use_uncompressed_cache = 1');
  await time('no FINAL-ish: do_not_merge_across_partitions', 'do_not_merge_across_partitions_select_final = 1');
  await time('max_threads 1', 'max_threads = 1');
  await time('local fs read method pread', "local_filesystem_read_method = 'pread'");
  await time('read in order off', 'optimize_read_in_order = 0');
  await timeSql('count one series', "SELECT count() AS n FROM datapoints_float_1m WHERE tenant = 't1' AND series_id = $ID");
  await timeSql('count one series FINAL', "SELECT count() AS n FROM datapoints_float_1m FINAL WHERE tenant = 't1' AND series_id = $ID");
}
await store.close();
