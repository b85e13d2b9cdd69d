// Goal: the ClickHouse HTTP fixture answers @clickhouse/client as a server would, so the columnar
// store's server path can be tested here: ping, query/exec/command/insert round trips, bound
// values of every type our SQL binds (hostile strings, 64-bit integers past 2^53, doubles,
// arrays, DateTime64) kept exact, the columnar store's Arrow insert through input(), server
// errors raised as ClickHouseError with their code, compression both ways, credentials, and the
// server's limits. Method: the fixture on a temp chdb data directory, the real client and the
// real ServerColumnarStore against it; the embedded store opened on the same path beside it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ClickHouseError, createClient } from '@clickhouse/client';
import t from 'tap';
import { openColumnarStore } from '../stores/columnar.ts';
import { startClickHouseHttpFixture } from './clickhouse-http-fixture.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'clickhouse-http-fixture-test-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const enginePath = path.join(dir, 'clickhouse');
const fixture = await startClickHouseHttpFixture({ path: enginePath, database: 'server', username: 'u', password: "p'w" });
t.teardown(() => fixture.stop());
const quiet = { level: 127 as never };
const client = createClient({ url: fixture.url, username: 'u', password: "p'w", database: 'server', log: quiet });
t.teardown(() => client.close());

async function rows<Row>(query: string, query_params?: Record<string, unknown>): Promise<Row[]> {
  return (await client.query({ query, query_params, format: 'JSONEachRow' })).json<Row>();
}

async function failure(promise: Promise<unknown>): Promise<ClickHouseError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  if (!(error instanceof ClickHouseError)) throw new Error(`expected a ClickHouseError, got ${String(error)}`, { cause: error });
  return error;
}

t.test('ping, and a plain query in the fixture database', async (t) => {
  t.same(await client.ping(), { success: true });
  t.same(await rows('SELECT currentDatabase() AS db, 1 + 1 AS two'), [{ db: 'server', two: 2 }]);
  t.same(await rows('SELECT toUInt64(1) AS n'), [{ n: '1' }], 'a server quotes 64-bit integers in JSON');
});

t.test('bound values of every type come back exact', async (t) => {
  const hostile = "a'b\\c\t\n\r\u0000 é☃𝄞 {x:String} --";
  const check = async (type: string, value: unknown, expected: string) => {
    const [row] = await rows<{ v: string }>(`SELECT toString({v:${type}}) AS v`, { v: value });
    t.equal(row?.v, expected, type);
  };
  const [row] = await rows<{ h: string }>('SELECT hex({v:String}) AS h', { v: hostile });
  t.equal(Buffer.from(row?.h ?? '', 'hex').toString('utf8'), hostile, 'String, byte for byte');
  await check('Int64', 9007199254740993n, '9007199254740993');
  await check('Int64', -9223372036854775808n, '-9223372036854775808');
  await check('UInt64', 18446744073709551615n, '18446744073709551615');
  await check('UInt32', 4294967295, '4294967295');
  await check('Float64', 0.1, '0.1');
  await check('Float64', -2.5e300, '-2.5e300');
  await check('Array(String)', ["x'", 'y\\', '', 'z\t'], "['x\\'','y\\\\','','z\\t']");
  await check('Array(UInt64)', [1n, 18446744073709551615n], '[1,18446744073709551615]');
  await check('Array(Int64)', [-9223372036854775808n, 9007199254740993n], '[-9223372036854775808,9007199254740993]');
  await check('Array(UInt64)', [], '[]');
  await check("DateTime64(3, 'UTC')", new Date(Date.UTC(2024, 1, 29, 23, 59, 59, 123)), '2024-02-29 23:59:59.123');
  await check("DateTime64(3, 'UTC')", '2024-02-29 23:59:59.123', '2024-02-29 23:59:59.123');
  const [same] = await rows<{ n: string }>("SELECT toString(count()) AS n FROM numbers(10) WHERE number IN {ids:Array(UInt64)} AND '{v:String}' = '{v:String}'", { ids: [1, 3, 99] });
  t.equal(same?.n, '2', 'a placeholder inside a quoted string stays text');
  const missing = await failure(client.query({ query: 'SELECT {nope:String}', format: 'JSONEachRow' }));
  t.equal(missing.code, '456', 'a placeholder without a value is UNKNOWN_QUERY_PARAMETER');
});

t.test('command, insert, exec and the columnar store round trip', async (t) => {
  await client.command({ query: 'CREATE TABLE seam (id UInt64, ts Int64, f Float64, s String) ENGINE = MergeTree ORDER BY id' });
  await client.insert({ table: 'seam', values: [{ id: 1, ts: '9007199254740993', f: 0.5, s: "it's" }], format: 'JSONEachRow' });
  const store = await openColumnarStore({ engine: 'clickhouse', url: fixture.url, username: 'u', password: "p'w", database: 'server' });
  t.teardown(() => store.close());
  await store.insertColumns({
    table: 'seam', targetColumns: ['id', 'ts', 'f', 's'],
    select: 'toUInt64(assumeNotNull(id)), assumeNotNull(ts), assumeNotNull(f), concat({prefix:String}, assumeNotNull(s))',
    columns: [
      { name: 'id', type: 'Int32', data: Int32Array.of(2, 3) },
      { name: 'ts', type: 'Int64', data: BigInt64Array.of(-1n, 9223372036854775807n) },
      { name: 'f', type: 'Float64', data: Float64Array.of(-2.5e300, 0.1) },
      { name: 's', type: 'String', data: ['é ☃', "o'k\\"] },
    ],
    params: { prefix: '>' },
    settings: { max_insert_threads: 1 },
  });
  t.same(await store.query('SELECT id, toString(ts) AS ts, f, s FROM seam ORDER BY id'), [
    { id: '1', ts: '9007199254740993', f: 0.5, s: "it's" },
    { id: '2', ts: '-1', f: -2.5e300, s: '>é ☃' },
    { id: '3', ts: '9223372036854775807', f: 0.1, s: ">o'k\\" },
  ]);
  const table = await store.queryArrow('SELECT ts, s FROM seam WHERE id >= {from:UInt64} ORDER BY id', { from: 2n });
  t.same([...(table.getChild('ts')?.toArray() as BigInt64Array)], [-1n, 9223372036854775807n], 'Arrow Int64 exact');
  t.same(Buffer.from(await store.queryBytes("SELECT concat(s, '|') FROM seam ORDER BY id")).toString('utf8'), "it's|>é ☃|>o'k\\|");
  const tsv = await client.exec({ query: 'SELECT id FROM seam ORDER BY id FORMAT TSV' });
  const chunks: Buffer[] = [];
  for await (const chunk of tsv.stream) chunks.push(chunk as Buffer);
  t.equal(Buffer.concat(chunks).toString(), '1\n2\n3\n');
  const embedded = await openColumnarStore({ engine: 'chdb', path: enginePath, connections: 1 });
  t.teardown(() => embedded.close());
  t.same(await embedded.query("SELECT toString(count()) AS n FROM server.seam"), [{ n: '3' }], 'the embedded store shares the engine');
  await t.rejects(embedded.query('SELECT 1 FROM seam'), 'but works in its own database');
});

t.test('server errors surface as ClickHouseError with their code', async (t) => {
  const identifier = await failure(client.query({ query: 'SELECT no_such_column', format: 'JSONEachRow' }));
  t.equal(identifier.code, '47');
  t.equal(identifier.type, 'UNKNOWN_IDENTIFIER');
  t.equal((await failure(client.command({ query: 'SELECT * FROM no_such_table' }))).code, '60');
  t.equal((await failure(client.exec({ query: 'SELECT 1 FORMAT NoSuchFormat' }))).code, '73', 'unknown format');
  t.equal((await failure(client.command({ query: 'SELECT 1', clickhouse_settings: { no_such_setting: 1 } as never }))).code, '115');
  const refused = await fetch(`${fixture.url}/?default_format=NoSuchFormat&user=u&password=${encodeURIComponent("p'w")}`, { method: 'POST', body: 'SELECT 1' });
  t.equal(refused.status, 400);
  t.equal(refused.headers.get('x-clickhouse-exception-code'), '73');
  t.match(await refused.text(), /^Code: 73\. DB::Exception: .*UNKNOWN_FORMAT/);
  const readonly = await fetch(`${fixture.url}/?query=${encodeURIComponent('CREATE TABLE x (a UInt8) ENGINE = Memory')}&user=u&password=${encodeURIComponent("p'w")}`);
  t.equal(readonly.headers.get('x-clickhouse-exception-code'), '164', 'a GET runs read-only');
  const wrong = createClient({ url: fixture.url, username: 'u', password: 'wrong', log: quiet });
  t.teardown(() => wrong.close());
  t.equal((await failure(wrong.query({ query: 'SELECT 1' }))).code, '516', 'credentials are checked');
  t.same(await rows('SELECT 1 AS one'), [{ one: 1 }], 'and the fixture still answers');
});

t.test('the server limits a request: max_query_size on the text, http_max_uri_size on the URL', async (t) => {
  const long = `SELECT 1 -- ${'x'.repeat(262_144)}`;
  t.equal((await failure(client.command({ query: long }))).code, '62');
  t.same(await rows(`SELECT count() > 0 AS ok FROM numbers(1) SETTINGS max_query_size = 1000000 -- ${'x'.repeat(300_000)}`).catch(() => 'refused'), 'refused',
    'a SETTINGS clause does not raise the limit for its own text');
  const big = Array.from({ length: 60_000 }, (_, i) => `value-${i}`);
  t.match((await failure(client.command({ query: 'SELECT length({v:Array(String)})', query_params: { v: big } }))).message, /URI is too long/, 'a URL past 1 MiB');
  t.same(await rows('SELECT length({v:Array(String)}) AS n', { v: big.slice(0, 20_000) }), [{ n: 20_000 }], 'one under it passes');
});

t.test('compressed requests and answers', async (t) => {
  const compressed = createClient({ url: fixture.url, username: 'u', password: "p'w", database: 'server', compression: { request: true, response: true }, log: quiet });
  t.teardown(() => compressed.close());
  await compressed.insert({ table: 'seam', values: [{ id: 9, ts: '0', f: 0, s: 'gz' }], format: 'JSONEachRow' });
  const result = await compressed.query({ query: 'SELECT s FROM seam WHERE id = {id:UInt64}', query_params: { id: 9 }, format: 'JSONEachRow' });
  t.equal(result.response_headers['content-encoding'], 'gzip');
  t.same(await result.json(), [{ s: 'gz' }]);
  t.ok(fixture.requestCount > 20, 'every call went through the fixture');
});
