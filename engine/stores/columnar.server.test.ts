// Goal: the @clickhouse/client side of the columnar seam does what the data point store relies
// on, as the chdb side does (columnar.test.ts): Arrow column inserts of every column type through
// input(), row, Arrow and RawBLOB reads with exact 64-bit integers, bound values that stay values,
// JS columns bound as ColumnSource (copied into the statement, past a server's URL and query size
// defaults), identifiers refused, and errors that leave the store answering. Method: the real
// ServerColumnarStore against the ClickHouse HTTP fixture over a temp chdb data directory.
import t from 'tap';
import { columnarConfig } from '../testing/columnar-kinds.ts';
import { ColumnSource } from './columnar-params.ts';
import { openColumnarStore, type ColumnarStore } from './columnar.ts';

const config = await columnarConfig(t, 'columnar-server-test', 'clickhouse');
const store: ColumnarStore = await openColumnarStore({ engine: 'clickhouse', ...config.clickhouse! });
t.teardown(() => store.close());

await store.command(`CREATE TABLE seam (tenant String, id UInt64, ts Int64, f Float64, s String, b UInt8, i Int32)
ENGINE = MergeTree ORDER BY (tenant, id, ts)`);

t.test('inserts Arrow columns of every type and reads them back as rows, Arrow and bytes', async (t) => {
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
    settings: { max_insert_threads: 1 },
  });
  const rows = await store.query<{ id: string; ts: string; f: number; s: string; b: number; i: number }>(
    'SELECT toString(id) AS id, toString(ts) AS ts, f, s, b, i FROM seam WHERE tenant = {tenant:String} ORDER BY id', { tenant: 'a' });
  t.same(rows, [
    { id: '1', ts: '9007199254740993', f: 0.1, s: "o'k\\", b: 0, i: -2147483648 },
    { id: '2', ts: '-1', f: -2.5e300, s: 'é ☃', b: 1, i: 0 },
    { id: '3', ts: '9223372036854775807', f: 3, s: '', b: 255, i: 2147483647 },
  ]);
  const table = await store.queryArrow('SELECT ts, f, s FROM seam WHERE tenant = {tenant:String} ORDER BY id', { tenant: 'a' });
  t.same([...(table.getChild('ts')?.toArray() as BigInt64Array)], [9007199254740993n, -1n, 9223372036854775807n]);
  t.type(table.getChild('f')?.toArray(), Float64Array);
  t.same(Buffer.from(await store.queryBytes("SELECT concat(s, '|') FROM seam WHERE tenant = {tenant:String} ORDER BY id", { tenant: 'a' })).toString(), "o'k\\|é ☃||");
  t.equal((await store.queryArrow('SELECT ts FROM seam WHERE tenant = {tenant:String}', { tenant: 'nobody' })).numRows, 0, 'an empty result is an empty table');
});

t.test('bound values stay values, whatever they contain', async (t) => {
  const hostile = "a' OR 1=1 --\\'\n\u0000";
  await store.insertColumns({
    table: 'seam', targetColumns: ['tenant', 'id', 'ts', 'f', 's', 'b', 'i'],
    select: '{tenant:String}, 7, 0, 0, {tenant:String}, 0, 0',
    columns: [{ name: 'x', type: 'UInt8', data: Uint8Array.of(1) }],
    params: { tenant: hostile },
  });
  t.same(await store.query('SELECT s FROM seam WHERE tenant = {tenant:String}', { tenant: hostile }), [{ s: hostile }]);
  t.same(await store.query('SELECT s FROM seam WHERE tenant = {tenant:String}', { tenant: "a' OR 1=1 --" }), []);
});

t.test('JS columns bound as ColumnSource are read by the server, exactly', async (t) => {
  const source = new ColumnSource([
    { name: 'ts', type: 'Float64', data: Float64Array.of(1, 2, 3) },
    { name: 'v', type: 'Float64', data: Float64Array.of(0.1, 5e-324, -1.7976931348623157e308) },
    { name: 'n', type: 'Int64', data: BigInt64Array.of(9007199254740993n, -9223372036854775808n, 0n) },
    { name: 't', type: 'String', data: ["it's", '\\', '\t'] },
  ]);
  // Aliases differ from the columns: ClickHouse resolves an alias first, in WHERE too.
  const rows = await store.query<Record<string, string>>(`SELECT toString(assumeNotNull(ts)) AS at, toString(reinterpretAsUInt64(assumeNotNull(v))) AS bits,
  toString(assumeNotNull(n)) AS exact, assumeNotNull(t) AS text FROM arrowstream({rows:ColumnSource}) WHERE assumeNotNull(ts) >= {from:Float64} ORDER BY ts`, { rows: source, from: 2 });
  const bits = (x: number) => new BigUint64Array(Float64Array.of(x).buffer)[0]!.toString();
  t.same(rows, [
    { at: '2', bits: bits(5e-324), exact: '-9223372036854775808', text: '\\' },
    { at: '3', bits: bits(-1.7976931348623157e308), exact: '0', text: '\t' },
  ]);
  const count = 100_000;
  const big = new ColumnSource([{ name: 'ts', type: 'Float64', data: Float64Array.from({ length: count }, (_, i) => 1_700_000_000_000 + i) }, { name: 'v', type: 'Float64', data: Float64Array.from({ length: count }, (_, i) => i / 3) }]);
  const [sum] = await store.query<{ n: string; v: number }>('SELECT toString(count()) AS n, sum(assumeNotNull(v)) AS v FROM arrowstream({a:ColumnSource})', { a: big });
  t.equal(sum?.n, String(count), `${count} rows: past a server's 1 MiB URL and 256 KiB query text`);
  const table = await store.queryArrow('SELECT assumeNotNull(v) AS v FROM arrowstream({a:ColumnSource}) ORDER BY ts DESC LIMIT 1', { a: big });
  t.equal(table.getChild('v')?.get(0), (count - 1) / 3, 'an Arrow read of a source');
});

t.test('bound values past a server URL\'s 1 MiB are sent in the statement, with the same types and values', async (t) => {
  const ids = Array.from({ length: 100_000 }, (_, i) => BigInt(i) * 92_233_720_368_547n);
  const names = Array.from({ length: 20_000 }, (_, i) => `o'k\\${i}`);
  const [row] = await store.query<Record<string, string>>(`SELECT toString(length({ids:Array(UInt64)})) AS n, toString(arrayElement({ids:Array(UInt64)}, -1)) AS last,
  toTypeName({ids:Array(UInt64)}) AS type, arrayElement({names:Array(String)}, 20000) AS name, {tenant:String} AS tenant`, { ids, names, tenant: "a'" });
  t.same(row, { n: '100000', last: String(ids[99_999]), type: 'Array(UInt64)', name: "o'k\\19999", tenant: "a'" });
});

t.test('identifiers are refused, and engine errors reject while the store still answers', async (t) => {
  await t.rejects(store.insertColumns({ table: 'seam; DROP TABLE seam', targetColumns: ['id'], select: '1', columns: [{ name: 'x', type: 'UInt8', data: Uint8Array.of(1) }] }), { message: /not an SQL identifier/ });
  await t.rejects(store.query('SELECT no_such_column FROM seam'), { code: '47' });
  await t.rejects(store.command('INSERT INTO no_such_table SELECT 1'), { code: '60' });
  t.equal(await store.ping(), true);
});
