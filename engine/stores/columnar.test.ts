// Goal: the chdb side of the columnar seam does what the data point store relies on: DDL,
// bound values (also hostile strings), Arrow column inserts of every column type, row and
// Arrow reads with exact 64-bit integers, identifiers refused unless they look like one,
// ping, and data surviving close and reopen. Method: a real chdb engine in a temp dir.
// The ClickHouse server side is columnar.server.test.ts (through the HTTP fixture).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { ColumnarParams } from './columnar-params.ts';
import { assertIdentifier, openColumnarStore, type ColumnarStore } from './columnar.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'columnar-test-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const open = () => openColumnarStore({ engine: 'chdb', path: path.join(dir, 'clickhouse') });
let store: ColumnarStore = await open();
t.teardown(() => store.close());

const DDL = `CREATE TABLE IF NOT EXISTS seam (tenant String, id UInt64, ts Int64, f Float64, s String, b UInt8, i Int32)
ENGINE = MergeTree ORDER BY (tenant, id, ts) SETTINGS fsync_after_insert = 1, fsync_part_directory = 1`;

t.test('inserts Arrow columns of every type and reads them back as rows and as Arrow', async (t) => {
  await store.command(DDL);
  await store.insertColumns({
    table: 'seam',
    targetColumns: ['tenant', 'id', 'ts', 'f', 's', 'b', 'i'],
    select: '{tenant:String}, toUInt64(assumeNotNull(id)), assumeNotNull(ts), assumeNotNull(f), assumeNotNull(s), assumeNotNull(b), assumeNotNull(i)',
    columns: [
      { name: 'id', type: 'Float64', data: Float64Array.of(1, 2, 3) },
      { name: 'ts', type: 'Int64', data: BigInt64Array.of(9007199254740993n, -1n, 9223372036854775807n) },
      { name: 'f', type: 'Float64', data: Float64Array.of(0.1, -2.5e300, 3) },
      { name: 's', type: 'String', data: ["o'k\\", 'é ☃', ''] },
      { name: 'b', type: 'UInt8', data: Uint8Array.of(0, 1, 255) },
      { name: 'i', type: 'Int32', data: Int32Array.of(-2147483648, 0, 2147483647) },
    ],
    params: { tenant: 'a' },
  });
  const rows = await store.query<{ id: string; ts: string; f: number; s: string; b: number; i: number }>(
    'SELECT id, ts, f, s, b, i FROM seam WHERE tenant = {tenant:String} ORDER BY id', { tenant: 'a' });
  t.same(rows, [
    { id: '1', ts: '9007199254740993', f: 0.1, s: "o'k\\", b: 0, i: -2147483648 },
    { id: '2', ts: '-1', f: -2.5e300, s: 'é ☃', b: 1, i: 0 },
    { id: '3', ts: '9223372036854775807', f: 3, s: '', b: 255, i: 2147483647 },
  ]);
  const table = await store.queryArrow('SELECT ts, f, s FROM seam WHERE tenant = {tenant:String} ORDER BY id', { tenant: 'a' });
  t.same([...(table.getChild('ts')?.toArray() as BigInt64Array)], [9007199254740993n, -1n, 9223372036854775807n]);
  t.type(table.getChild('f')?.toArray(), Float64Array);
  t.same([...(table.getChild('s')?.toArray() as string[])], ["o'k\\", 'é ☃', '']);
});

t.test('bound values stay values, whatever they contain', async (t) => {
  const hostile = "a' OR 1=1 --\\'\n\u0000";
  await store.insertColumns({
    table: 'seam', targetColumns: ['tenant', 'id', 'ts', 'f', 's', 'b', 'i'],
    select: '{tenant:String}, 7, 0, 0, {tenant:String}, 0, 0',
    columns: [{ name: 'x', type: 'UInt8', data: Uint8Array.of(1) }],
    params: { tenant: hostile },
  });
  const rows = await store.query<{ s: string }>('SELECT s FROM seam WHERE tenant = {tenant:String}', { tenant: hostile });
  t.same(rows, [{ s: hostile }]);
  t.same(await store.query('SELECT s FROM seam WHERE tenant = {tenant:String}', { tenant: "a' OR 1=1 --" }), []);
  const params = new ColumnarParams();
  const sql = `SELECT toString(count()) AS n FROM seam WHERE (tenant = ${params.bind('a', 'String')} AND id IN ${params.bind([1n, 3n], 'Array(UInt64)')})`;
  t.same(await store.query(sql, params.values), [{ n: '2' }]);
});

t.test('an empty result reads as an empty Arrow table', async (t) => {
  const table = await store.queryArrow('SELECT ts FROM seam WHERE tenant = {tenant:String}', { tenant: 'nobody' });
  t.equal(table.numRows, 0);
});

t.test('identifiers are refused unless they are plain names', async (t) => {
  t.equal(assertIdentifier('datapoints_float'), 'datapoints_float');
  for (const bad of ['', 'a b', 'a;DROP', 'x.y', '1a', "t'"]) t.throws(() => assertIdentifier(bad), { message: /not an SQL identifier/ });
  await t.rejects(store.insertColumns({ table: 'seam; DROP TABLE seam', targetColumns: ['id'], select: '1', columns: [{ name: 'x', type: 'UInt8', data: Uint8Array.of(1) }] }));
  await t.rejects(store.insertColumns({ table: 'seam', targetColumns: ['id'], select: '1', columns: [
    { name: 'x', type: 'UInt8', data: Uint8Array.of(1) }, { name: 'y', type: 'UInt8', data: Uint8Array.of(1, 2) },
  ] }), { message: /has 2 rows, expected 1/ });
});

t.test('engine errors reject, then the store still answers', async (t) => {
  await t.rejects(store.query('SELECT no_such_column FROM seam'));
  t.equal(await store.ping(), true);
});

t.test('a statement does not wait for a long one running on another connection', async (t) => {
  const order: string[] = [];
  const long = store.command('SELECT sleepEachRow(0.05) FROM numbers(20) SETTINGS function_sleep_max_microseconds_per_block = 10000000')
    .then(() => order.push('long'));
  const quick = store.query('SELECT 1 AS one').then(() => order.push('quick'));
  await Promise.all([long, quick]);
  t.same(order, ['quick', 'long']);
});

t.test('data survives close and reopen of the engine', async (t) => {
  await store.close();
  store = await open();
  const [row] = await store.query<{ n: string }>('SELECT toString(count()) AS n FROM seam WHERE tenant = {tenant:String}', { tenant: 'a' });
  t.equal(row?.n, '3');
});
