// Goal: POST /timeseries/data answers exactly as SPEC "Data point", "Errors" and "Limits" say:
// 204 when all is accepted; 404 listing the missing series while the others are
// inserted; 422 naming the item and the point of a value that does not parse, with nothing
// inserted; every valueType's valid and invalid values; replace at an existing timestamp;
// the batch caps, the 16 MiB body limit and the content type; data set grants.
// Method: one real server (embedded PostgreSQL, chdb, group commit) in this process, a fresh
// tenant per test. Local check() helpers run one case per line and read the series back
// through /timeseries/data/list to prove what was (or was not) stored. Every 2xx is checked
// against its route's response schema.
import net from 'node:net';
import t from 'tap';
import { assertErrorBody, type ExpectedError } from './testing/error-body.ts';
import { createSeries, readAllPoints, startDatapointServer, type Point } from './testing/datapoints-fixture.ts';

const srv = await startDatapointServer();
t.teardown(() => srv.close());
const { call } = srv;

const VALUE_TYPES = ['BIGINT', 'FLOAT', 'FLOAT32', 'NUMERIC', 'DECIMAL32', 'TEXT', 'MIXED'];
const T0 = Date.UTC(2024, 0, 1);

function tenant() {
  const org = srv.newTenant();
  return { org, token: srv.token({ org }) };
}

const pts = (count: number, value: (i: number) => string | number = (i) => String(i), start = T0) =>
  Array.from({ length: count }, (_, i) => ({ timestamp: start + i * 1000, value: value(i) }));

t.test('204, and the points read back', async (t) => {
  const { token } = tenant();
  const ids = await createSeries(srv, token, [{ externalId: 'a', valueType: 'FLOAT' }, { externalId: 'b', valueType: 'BIGINT' }]);
  const res = await call(t, 'POST', '/timeseries/data', {
    token,
    body: { items: [{ externalId: 'a', datapoints: [{ timestamp: T0 + 1, value: '1.5' }, { timestamp: T0, value: '-2' }] }, { id: ids['b'], datapoints: pts(3) }] },
  });
  t.equal(res.status, 204);
  t.equal(res.text, '', 'no body');
  t.strictSame(await readAllPoints(t, call, token, { externalId: 'a' }), [{ timestamp: T0, value: '-2' }, { timestamp: T0 + 1, value: '1.5' }], 'sorted by timestamp');
  t.strictSame(await readAllPoints(t, call, token, { id: ids['b'] as number }), pts(3));
});

t.test('404 lists the missing series; the other items are inserted', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, [{ externalId: 'a', valueType: 'FLOAT' }, { externalId: 'b', valueType: 'TEXT' }]);
  const res = await call(t, 'POST', '/timeseries/data', {
    token,
    body: {
      items: [
        { externalId: 'a', datapoints: pts(2) },
        { externalId: 'nope', datapoints: pts(1) },
        { externalId: 'b', datapoints: [{ timestamp: T0, value: 'on' }] },
        { id: 9_007_199_254_740_991, datapoints: pts(1) },
      ],
    },
  });
  assertErrorBody(t, res, { status: 404 }, 'missing series');
  t.strictSame(res.body.error.missing, [{ externalId: 'nope' }, { id: 9_007_199_254_740_991 }], 'missing lists each missing entry as sent');
  t.strictSame(await readAllPoints(t, call, token, { externalId: 'a' }), pts(2), 'a inserted');
  t.strictSame(await readAllPoints(t, call, token, { externalId: 'b' }), [{ timestamp: T0, value: 'on' }], 'b inserted');
  const none = await call(t, 'POST', '/timeseries/data', { token, body: { items: [{ externalId: 'nope', datapoints: pts(1) }] } });
  assertErrorBody(t, none, { status: 404 }, 'every series missing');
  t.strictSame(none.body.error.missing, [{ externalId: 'nope' }]);
});

t.test('422 names the item and the point; nothing is inserted', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, [{ externalId: 'good', valueType: 'FLOAT' }, { externalId: 'bad', valueType: 'BIGINT' }]);
  const res = await call(t, 'POST', '/timeseries/data', {
    token,
    body: {
      items: [
        { externalId: 'good', datapoints: pts(5) },
        { externalId: 'bad', datapoints: [{ timestamp: T0, value: '1' }, { timestamp: T0 + 1, value: '2' }, { timestamp: T0 + 2, value: 'two' }, { timestamp: T0 + 3, value: '1.5' }] },
        { externalId: 'missing', datapoints: pts(1) },
      ],
    },
  });
  assertErrorBody(t, res, { status: 422, fields: ['items.1.datapoints.2.value', 'items.1.datapoints.3.value'] }, 'bad values');
  t.match(res.body.error.fields, [
    { field: 'items.1.datapoints.2.value', index: 1, pointIndex: 2, value: 'two', valueType: 'BIGINT', reason: 'value-type-mismatch', message: /items\[1\]\.datapoints\[2\]\.value/ },
    { field: 'items.1.datapoints.3.value', index: 1, pointIndex: 3, value: '1.5', valueType: 'BIGINT', reason: 'value-type-mismatch' },
  ]);
  t.strictSame(await readAllPoints(t, call, token, { externalId: 'good' }), [], 'the good item was not inserted either');
  t.strictSame(await readAllPoints(t, call, token, { externalId: 'bad' }), [], 'nothing of the bad item');
});

t.test('each valueType, valid and invalid, one case per line', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, VALUE_TYPES.map((valueType) => ({ externalId: valueType, valueType })));
  let timestamp = T0;
  /** expected: the value read back, or 422 with the error's reason. */
  const check = async (valueType: string, value: unknown, expected: string | { status: 422; reason: string }) => {
    timestamp += 1000;
    const name = `${valueType} ${JSON.stringify(value)}`;
    const res = await call(t, 'POST', '/timeseries/data', { token, body: { items: [{ externalId: valueType, datapoints: [{ timestamp, value }] }] } });
    const back = await readAllPoints(t, call, token, { externalId: valueType }, timestamp, timestamp + 1);
    if (typeof expected === 'string') {
      t.equal(res.status, 204, `${name}: 204`);
      t.strictSame(back, [{ timestamp, value: expected }], `${name}: reads back as ${JSON.stringify(expected)}`);
      return;
    }
    assertErrorBody(t, res, { status: 422, fields: ['items.0.datapoints.0.value'] }, name);
    t.equal(res.body.error?.fields?.[0]?.reason, expected.reason, `${name}: reason`);
    t.strictSame(back, [], `${name}: nothing stored`);
  };
  const mismatch = { status: 422, reason: 'value-type-mismatch' } as const;
  const range = { status: 422, reason: 'value-out-of-range' } as const;
  const long = { status: 422, reason: 'value-too-long' } as const;

  // BIGINT: exact signed 64-bit, beyond 2^53, as strings and as JSON numbers.
  await check('BIGINT', '0', '0');
  await check('BIGINT', '-42', '-42');
  await check('BIGINT', 42, '42');
  await check('BIGINT', '9007199254740993', '9007199254740993');
  await check('BIGINT', '-9007199254740993', '-9007199254740993');
  await check('BIGINT', '9223372036854775807', '9223372036854775807');
  await check('BIGINT', '-9223372036854775808', '-9223372036854775808');
  await check('BIGINT', '9223372036854775808', range);
  await check('BIGINT', '-9223372036854775809', range);
  await check('BIGINT', '1.5', mismatch);
  await check('BIGINT', 1.5, mismatch);
  await check('BIGINT', 'seven', mismatch);
  await check('BIGINT', '', mismatch);
  await check('BIGINT', '1e3', mismatch);
  // FLOAT: finite doubles; decimal or exponent text.
  await check('FLOAT', '1.5', '1.5');
  await check('FLOAT', '-2e-3', '-0.002');
  await check('FLOAT', 0.1, '0.1');
  await check('FLOAT', '1e308', '1e+308');
  await check('FLOAT', '1e309', range);
  await check('FLOAT', 'NaN', mismatch);
  await check('FLOAT', 'Infinity', mismatch);
  await check('FLOAT', 'abc', mismatch);
  await check('FLOAT', '', mismatch);
  // FLOAT32: rounded to 32 bits on write.
  await check('FLOAT32', '0.1', String(Math.fround(0.1)));
  await check('FLOAT32', 1.1, String(Math.fround(1.1)));
  await check('FLOAT32', '16777217', '16777216');
  await check('FLOAT32', '3.4028234663852886e38', String(Math.fround(3.4028234663852886e38)));
  await check('FLOAT32', '3.5e38', range);
  await check('FLOAT32', 'x', mismatch);
  // NUMERIC: Decimal(18, 6), exact, extra digits rounded half to even.
  await check('NUMERIC', '0.1', '0.1');
  await check('NUMERIC', 0.1, '0.1');
  await check('NUMERIC', '123456789012.123456', '123456789012.123456');
  await check('NUMERIC', '999999999999.999999', '999999999999.999999');
  await check('NUMERIC', '-999999999999.999999', '-999999999999.999999');
  await check('NUMERIC', '1.2345675', '1.234568');
  await check('NUMERIC', '1.2345665', '1.234566');
  await check('NUMERIC', '1.23456651', '1.234567');
  await check('NUMERIC', '1e3', '1000');
  await check('NUMERIC', '1000000000000', range);
  await check('NUMERIC', '-999999999999.9999995', range);
  await check('NUMERIC', 'ten', mismatch);
  // DECIMAL32: Decimal(9, 3), exact, rounded half to even.
  await check('DECIMAL32', '1.25', '1.25');
  await check('DECIMAL32', '1.2345', '1.234');
  await check('DECIMAL32', '1.2355', '1.236');
  await check('DECIMAL32', '999999.999', '999999.999');
  await check('DECIMAL32', '-999999.999', '-999999.999');
  await check('DECIMAL32', '1000000', range);
  await check('DECIMAL32', '-999999.9995', range);
  await check('DECIMAL32', '1,5', mismatch);
  // TEXT: strings of up to 64 characters (code points); numbers are not text.
  await check('TEXT', '', '');
  await check('TEXT', 'x'.repeat(64), 'x'.repeat(64));
  await check('TEXT', 'x'.repeat(65), long);
  await check('TEXT', 'é'.repeat(64), 'é'.repeat(64));
  await check('TEXT', 'é'.repeat(65), long);
  await check('TEXT', '\u{1F600}'.repeat(64), '\u{1F600}'.repeat(64));
  await check('TEXT', '\u{1F600}'.repeat(65), long);
  await check('TEXT', 'line\n"quoted"\\', 'line\n"quoted"\\');
  await check('TEXT', 42, mismatch);
  // MIXED: numbers (JSON or numeric text) are numbers, other strings text.
  await check('MIXED', 'abc', 'abc');
  await check('MIXED', '2.5', '2.5');
  await check('MIXED', 7, '7');
  await check('MIXED', '1e3', '1000');
  await check('MIXED', 'x'.repeat(64), 'x'.repeat(64));
  await check('MIXED', 'x'.repeat(65), long);
});

t.test('BIGINT JSON numbers beyond 2^53 are read from their text, exactly', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, [{ externalId: 'big', valueType: 'BIGINT' }]);
  const send = (values: string[]) => srv.request('POST', '/timeseries/data', {
    token, headers: { 'content-type': 'application/json' },
    rawBody: `{"items":[{"externalId":"big","datapoints":[${values.map((v, i) => `{"timestamp":${T0 + i},"value":${v}}`).join(',')}]}]}`,
  });
  const ok = await send(['9223372036854775807', '-9223372036854775808', '9007199254740993']);
  t.equal(ok.status, 204, 'extremes as JSON numbers: 204');
  t.strictSame(await readAllPoints(t, call, token, { externalId: 'big' }), [
    { timestamp: T0, value: '9223372036854775807' }, { timestamp: T0 + 1, value: '-9223372036854775808' }, { timestamp: T0 + 2, value: '9007199254740993' },
  ]);
  assertErrorBody(t, await send(['9223372036854775808']), { status: 422, fields: ['items.0.datapoints.0.value'] }, 'JSON number one past the maximum');
  assertErrorBody(t, await send(['-9223372036854775809']), { status: 422, fields: ['items.0.datapoints.0.value'] }, 'JSON number one past the minimum');
});

t.test('a point at an existing timestamp replaces the old value', async (t) => {
  const { token } = tenant();
  const ids = await createSeries(srv, token, [{ externalId: 's', valueType: 'FLOAT' }, { externalId: 'txt', valueType: 'TEXT' }]);
  const id = ids['s'] as number;
  const insert = async (items: unknown[]) => t.equal((await call(t, 'POST', '/timeseries/data', { token, body: { items } })).status, 204);
  const read = (externalId = 's') => readAllPoints(t, call, token, { externalId });

  await insert([{ externalId: 's', datapoints: [{ timestamp: T0, value: '1' }, { timestamp: T0 + 1, value: '2' }, { timestamp: T0, value: '3' }] }]);
  t.strictSame(await read(), [{ timestamp: T0, value: '3' }, { timestamp: T0 + 1, value: '2' }], 'within one item the later point wins');
  await insert([{ externalId: 's', datapoints: [{ timestamp: T0 + 1, value: '20' }] }]);
  t.strictSame(await read(), [{ timestamp: T0, value: '3' }, { timestamp: T0 + 1, value: '20' }], 'across requests the newer write wins');
  await insert([{ id, datapoints: [{ timestamp: T0, value: '30' }, { timestamp: T0 + 2, value: '5' }] }, { externalId: 's', datapoints: [{ timestamp: T0, value: '31' }] }]);
  t.strictSame(await read(), [{ timestamp: T0, value: '31' }, { timestamp: T0 + 1, value: '20' }, { timestamp: T0 + 2, value: '5' }], 'by id and by externalId in one request: the later item wins');
  await insert([{ externalId: 's', datapoints: [{ timestamp: T0 + 2, value: '6' }] }, { id, datapoints: [{ timestamp: T0 + 2, value: '7' }] }, { externalId: 's', datapoints: [{ timestamp: T0 + 2, value: '8' }] }]);
  t.strictSame((await read())[2], { timestamp: T0 + 2, value: '8' }, 'three items on one timestamp: the last wins');
  await insert([{ externalId: 'txt', datapoints: [{ timestamp: T0, value: 'old' }] }]);
  await insert([{ externalId: 'txt', datapoints: [{ timestamp: T0, value: 'new' }] }]);
  t.strictSame(await read('txt'), [{ timestamp: T0, value: 'new' }], 'TEXT replaced too');
  const agg = await call(t, 'POST', '/timeseries/data/list', { token, body: { items: [{ externalId: 's', start: T0, end: T0 + 3, aggregates: ['COUNT', 'SUM'], granularity: '1m' }] } });
  t.strictSame(agg.body.items[0].datapoints, [{ timestamp: T0, count: 3, sum: '59' }], 'replaced values never count twice: 31 + 20 + 8');
});

t.test('caps: points per collection, items per request, one past each is a 400', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, [{ externalId: 'num', valueType: 'DECIMAL32' }, { externalId: 'txt', valueType: 'TEXT' }, { externalId: 'mix', valueType: 'MIXED' }, { externalId: 'many', valueType: 'BIGINT' }]);
  const check = async (name: string, items: unknown[], expected: ExpectedError | 204, readBack?: { externalId: string; count: number }) => {
    const res = await call(t, 'POST', '/timeseries/data', { token, body: { items } });
    if (expected === 204) t.equal(res.status, 204, `${name}: 204`);
    else {
      assertErrorBody(t, res, expected, name);
      return res.body.error;
    }
    if (readBack) t.equal((await readAllPoints(t, call, token, { externalId: readBack.externalId })).length, readBack.count, `${name}: ${readBack.count} points stored`);
    return undefined;
  };
  const over = await check('numeric 100001', [{ externalId: 'num', datapoints: pts(100_001, (i) => String(i % 1000)) }], { status: 400, fields: ['items.0.datapoints'] });
  t.match(over?.fields?.[0], { index: 0, limit: 100_000 }, 'names the item and the limit');
  t.equal((await readAllPoints(t, call, token, { externalId: 'num' })).length, 0, 'numeric 100001: nothing stored');
  await check('numeric 100000', [{ externalId: 'num', datapoints: pts(100_000, (i) => String(i % 1000)) }], 204, { externalId: 'num', count: 100_000 });
  const overText = await check('TEXT 10001', [{ externalId: 'txt', datapoints: pts(10_001, (i) => `v${i}`) }], { status: 400, fields: ['items.0.datapoints'] });
  t.match(overText?.fields?.[0], { limit: 10_000 });
  await check('TEXT 10000', [{ externalId: 'txt', datapoints: pts(10_000, (i) => `v${i}`) }], 204, { externalId: 'txt', count: 10_000 });
  await check('MIXED 10001', [{ externalId: 'mix', datapoints: pts(10_001) }], { status: 400, fields: ['items.0.datapoints'] });
  await check('MIXED 10000', [{ externalId: 'mix', datapoints: pts(10_000, (i) => (i % 2 ? `v${i}` : i)) }], 204, { externalId: 'mix', count: 10_000 });
  const oneEach = (n: number) => Array.from({ length: n }, (_, i) => ({ externalId: 'many', datapoints: [{ timestamp: T0 + i, value: String(i) }] }));
  await check('10001 items', oneEach(10_001), { status: 400, fields: ['items'] });
  t.equal((await readAllPoints(t, call, token, { externalId: 'many' })).length, 0, '10001 items: nothing stored');
  await check('10000 items naming one series', oneEach(10_000), 204, { externalId: 'many', count: 10_000 });
  await check('no items', [], { status: 400, fields: ['items'] });
});

t.test('body limit, content type and malformed bodies', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, [{ externalId: 's', valueType: 'FLOAT' }]);
  const LIMIT = 16 * 1024 * 1024;
  const json = { 'content-type': 'application/json' };
  const padded = (bytes: number) => {
    const body = `{"items":[{"externalId":"s","datapoints":[{"timestamp":${T0},"value":"1"}]}]`;
    return `${body}${' '.repeat(bytes - body.length - 1)}}`;
  };
  const exact = await srv.request('POST', '/timeseries/data', { token, headers: json, rawBody: padded(LIMIT) });
  t.equal(exact.status, 204, 'exactly 16 MiB: 204');
  const tooLarge = await srv.request('POST', '/timeseries/data', { token, headers: json, rawBody: padded(LIMIT + 1) });
  t.equal(tooLarge.status, 413, '16 MiB + 1: 413');
  t.match(tooLarge.headers.get('content-type'), /^application\/problem\+json/);
  t.match(tooLarge.body, { type: /\/request-too-large$/, title: String, status: 413, detail: String, limitBytes: LIMIT });
  // Without Content-Length the bytes are counted as they arrive.
  const chunk = new Uint8Array(1024 * 1024).fill(0x20);
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent > LIMIT) controller.close();
      else {
        controller.enqueue(chunk);
        sent += chunk.length;
      }
    },
  });
  const streamed = await fetch(`${srv.url}/timeseries/data`, { method: 'POST', headers: { ...json, authorization: `Bearer ${token}` }, body: stream, duplex: 'half' } as RequestInit).catch((error: Error) => error);
  if (streamed instanceof Error) t.fail(`streamed body: ${streamed.message}`);
  else {
    t.equal(streamed.status, 413, 'streamed body over 16 MiB: 413');
    t.match(await streamed.json(), { status: 413, limitBytes: LIMIT });
  }

  const check = async (name: string, headers: Record<string, string>, rawBody: string, expected: ExpectedError) => {
    assertErrorBody(t, await srv.request('POST', '/timeseries/data', { token, headers, rawBody }), expected, name);
  };
  const good = `{"items":[{"externalId":"s","datapoints":[{"timestamp":${T0 + 5},"value":"1"}]}]}`;
  await check('text/plain', { 'content-type': 'text/plain' }, good, { status: 400, fields: ['Content-Type'] });
  await check('no content type', {}, good, { status: 400, fields: ['Content-Type'] });
  await check('not JSON', json, '{"items":[', { status: 400 });
  await check('not an object', json, '[]', { status: 400 });
  await check('items missing', json, '{}', { status: 400, fields: ['items'] });
  await check('no identifier', json, `{"items":[{"datapoints":[]}]}`, { status: 400, fields: ['items.0'] });
  await check('timestamp not an integer', json, `{"items":[{"externalId":"s","datapoints":[{"timestamp":1.5,"value":"1"}]}]}`, { status: 400, fields: ['items.0.datapoints.0.timestamp'] });
  await check('timestamp after 2099', json, `{"items":[{"externalId":"s","datapoints":[{"timestamp":4102444800000,"value":"1"}]}]}`, { status: 400, fields: ['items.0.datapoints.0.timestamp'] });
  await check('value null', json, `{"items":[{"externalId":"s","datapoints":[{"timestamp":${T0},"value":null}]}]}`, { status: 400, fields: ['items.0.datapoints.0.value'] });
  await check('value missing', json, `{"items":[{"externalId":"s","datapoints":[{"timestamp":${T0}}]}]}`, { status: 400, fields: ['items.0.datapoints.0.value'] });
  t.strictSame(await readAllPoints(t, call, token, { externalId: 's' }), [{ timestamp: T0, value: '1' }], 'only the 16 MiB body was stored');
  // application/json with parameters is JSON.
  const charset = await srv.request('POST', '/timeseries/data', { token, headers: { 'content-type': 'application/json; charset=utf-8' }, rawBody: good });
  t.equal(charset.status, 204, 'application/json; charset=utf-8: 204');
});

t.test('a key named twice in one object is a 400 naming it, and nothing is written', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, [{ externalId: 'a', valueType: 'FLOAT' }, { externalId: 'b', valueType: 'FLOAT' }]);
  const rawBody = `{"items":[{"externalId":"a","datapoints":[{"timestamp":${T0},"value":"1"}]},{"externalId":"a","externalId":"b","datapoints":[{"timestamp":${T0},"value":"2"}]}]}`;
  const res = await srv.request('POST', '/timeseries/data', { token, headers: { 'content-type': 'application/json' }, rawBody });
  assertErrorBody(t, res, { status: 400, fields: ['items.1.externalId'] }, 'duplicate externalId');
  t.match(res.body.error.fields, [{ field: 'items.1.externalId', index: 1, message: /^duplicate key "externalId"/ }]);
  t.strictSame(await readAllPoints(t, call, token, { externalId: 'a' }), [], 'nothing written to a');
  t.strictSame(await readAllPoints(t, call, token, { externalId: 'b' }), [], 'nothing written to b');
});

t.test('data set grants: unreadable is missing (404), readable but not writable is 403', async (t) => {
  const { org, token } = tenant();
  const dataSet = async (externalId: string) => (await srv.request('POST', '/datasets/create', { token, body: { items: [{ externalId, name: externalId }] } })).body.items[0].id as number;
  const dsA = await dataSet('ds-a');
  const dsB = await dataSet('ds-b');
  await createSeries(srv, token, [{ externalId: 'in-a', valueType: 'FLOAT', dataSetId: dsA }, { externalId: 'in-b', valueType: 'FLOAT', dataSetId: dsB }, { externalId: 'open', valueType: 'FLOAT' }]);
  const readA = srv.token({ org, read: [dsA] });
  const writeB = srv.token({ org, write: ['ds-b'] });

  const forbidden = await call(t, 'POST', '/timeseries/data', { token: readA, body: { items: [{ externalId: 'open', datapoints: pts(1) }, { externalId: 'in-a', datapoints: pts(1) }] } });
  assertErrorBody(t, forbidden, { status: 403 }, 'readable, not writable');
  t.strictSame(await readAllPoints(t, call, token, { externalId: 'open' }), [], '403: nothing inserted, not even the writable item');

  const unreadable = await call(t, 'POST', '/timeseries/data', { token: writeB, body: { items: [{ externalId: 'in-b', datapoints: pts(2) }, { externalId: 'in-a', datapoints: pts(1) }] } });
  assertErrorBody(t, unreadable, { status: 404 }, 'unreadable series');
  t.strictSame(unreadable.body.error.missing, [{ externalId: 'in-a' }], 'the unreadable series is listed as missing');
  t.strictSame(await readAllPoints(t, call, token, { externalId: 'in-b' }), pts(2), 'the writable item was inserted');
  t.strictSame(await readAllPoints(t, call, token, { externalId: 'in-a' }), [], 'nothing in the unreadable one');

  const allowed = await call(t, 'POST', '/timeseries/data', { token: writeB, body: { items: [{ externalId: 'in-b', datapoints: pts(3) }, { externalId: 'open', datapoints: pts(1) }] } });
  t.equal(allowed.status, 204, 'write grant (by externalId) and a series without data set: 204');
  const readList = await call(t, 'POST', '/timeseries/data/list', { token: readA, body: { items: [{ externalId: 'in-b' }] } });
  assertErrorBody(t, readList, { status: 404 }, 'reading an unreadable series');
});

t.test('hints taken as resolved: grants, an item naming two series, and a renamed series still answer as resolved ones', async (t) => {
  // After a few requests the handler takes what it learned of the tenant's series as the
  // resolution itself (target-hints.ts, series-targets.ts hintedTargets). Each case below is
  // one that must leave that path: the caller's grants, an id and an externalId that disagree,
  // a key changed since the hints were learned.
  const { org, token } = tenant();
  const dataSet = async (externalId: string) => (await srv.request('POST', '/datasets/create', { token, body: { items: [{ externalId, name: externalId }] } })).body.items[0].id as number;
  const dsA = await dataSet('ds-a');
  const dsB = await dataSet('ds-b');
  const ids = await createSeries(srv, token, [
    { externalId: 'in-a', valueType: 'FLOAT', dataSetId: dsA }, { externalId: 'in-b', valueType: 'FLOAT', dataSetId: dsB }, { externalId: 'open', valueType: 'FLOAT' },
  ]);
  const all = ['in-a', 'in-b', 'open'];
  for (let round = 0; round < 3; round++) {
    const warm = await call(t, 'POST', '/timeseries/data', { token, body: { items: all.map((externalId) => ({ externalId, datapoints: pts(1, () => 1, T0 + round) })) } });
    t.equal(warm.status, 204, `round ${round}: the hints learned`);
  }
  const readA = srv.token({ org, read: [dsA] });
  const writeB = srv.token({ org, write: ['ds-b'] });
  const forbidden = await call(t, 'POST', '/timeseries/data', { token: readA, body: { items: [{ externalId: 'open', datapoints: pts(1) }, { externalId: 'in-a', datapoints: pts(1) }] } });
  assertErrorBody(t, forbidden, { status: 403 }, 'readable, not writable');
  const unreadable = await call(t, 'POST', '/timeseries/data', { token: writeB, body: { items: [{ externalId: 'in-b', datapoints: pts(1, () => 7, T0 + 10) }, { externalId: 'in-a', datapoints: pts(1, () => 7, T0 + 10) }] } });
  assertErrorBody(t, unreadable, { status: 404 }, 'unreadable series');
  t.strictSame(unreadable.body.error.missing, [{ externalId: 'in-a' }], 'the unreadable series is listed as missing');
  t.strictSame((await readAllPoints(t, call, token, { externalId: 'in-a' })).length, 3, 'nothing in the unreadable one');
  t.strictSame((await readAllPoints(t, call, token, { externalId: 'in-b' })).at(-1), { timestamp: T0 + 10, value: '7' }, 'the writable item was inserted');

  // The 404 above taught that in-a is missing (for that caller): learned again, in-a by its id.
  for (let round = 3; round < 6; round++) {
    const items = [{ id: ids['in-a'] }, { externalId: 'in-b' }, { externalId: 'open' }].map((item) => ({ ...item, datapoints: pts(1, () => 1, T0 + round) }));
    t.equal((await call(t, 'POST', '/timeseries/data', { token, body: { items } })).status, 204, `round ${round}: the hints learned`);
  }
  const both = await call(t, 'POST', '/timeseries/data', { token, body: { items: [{ id: ids['in-a'], externalId: 'open', datapoints: pts(1, () => 5, T0 + 30) }] } });
  assertErrorBody(t, both, { status: 400, fields: ['items.0'] }, 'an id and an externalId naming two hinted series');
  t.strictSame((await readAllPoints(t, call, token, { externalId: 'in-a' })).length, 6, 'nothing written');

  const renamed = await call(t, 'POST', '/timeseries/update', { token, body: { items: [{ externalId: 'open', update: { externalId: { set: 'opened' } } }] } });
  t.equal(renamed.status, 200, 'open renamed to opened');
  // A read brings the renamed series back into the directory's memory under its new externalId.
  t.strictSame((await readAllPoints(t, call, token, { externalId: 'opened' })).length, 6);
  const stale = await call(t, 'POST', '/timeseries/data', { token, body: { items: [{ externalId: 'open', datapoints: pts(1, () => 9, T0 + 20) }] } });
  assertErrorBody(t, stale, { status: 404 }, 'the old externalId names nothing');
  t.strictSame((await readAllPoints(t, call, token, { externalId: 'opened' })).length, 6, 'the renamed series did not take the points');
});

t.test('JSON numbers are accepted for every numeric valueType', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, ['BIGINT', 'FLOAT', 'FLOAT32', 'NUMERIC', 'DECIMAL32', 'MIXED'].map((valueType) => ({ externalId: valueType, valueType })));
  const res = await call(t, 'POST', '/timeseries/data', {
    token,
    body: { items: ['BIGINT', 'FLOAT', 'FLOAT32', 'NUMERIC', 'DECIMAL32', 'MIXED'].map((externalId) => ({ externalId, datapoints: [{ timestamp: T0, value: 12 }, { timestamp: T0 + 1, value: -3 }] })) },
  });
  t.equal(res.status, 204);
  for (const externalId of ['BIGINT', 'FLOAT', 'FLOAT32', 'NUMERIC', 'DECIMAL32', 'MIXED']) {
    const back: Point[] = await readAllPoints(t, call, token, { externalId });
    t.strictSame(back, [{ timestamp: T0, value: '12' }, { timestamp: T0 + 1, value: '-3' }], `${externalId}: numbers read back as strings`);
  }
});

t.test('an item whose id and externalId name different series is a 400 on every data point route', async (t) => {
  const { token } = tenant();
  const ids = await createSeries(srv, token, [{ externalId: 'a', valueType: 'FLOAT' }, { externalId: 'b', valueType: 'FLOAT' }]);
  const both = { id: ids['a'], externalId: 'b' };
  const check = async (method: string, p: string, body: unknown) => assertErrorBody(t, await call(t, method, p, { token, body }), { status: 400, fields: ['items.1'] }, `${method} ${p}`);
  await check('POST', '/timeseries/data', { items: [{ externalId: 'a', datapoints: pts(1) }, { ...both, datapoints: pts(1) }] });
  await check('POST', '/timeseries/data/list', { items: [{ externalId: 'a' }, both] });
  await check('POST', '/timeseries/data/latest', { items: [{ externalId: 'a' }, both] });
  await check('POST', '/timeseries/data/delete', { items: [{ externalId: 'a' }, both] });
  t.strictSame(await readAllPoints(t, call, token, { externalId: 'a' }), [], 'nothing inserted');
  t.strictSame(await readAllPoints(t, call, token, { externalId: 'b' }), [], 'in either series');
  const agreeing = await call(t, 'POST', '/timeseries/data', { token, body: { items: [{ id: ids['a'], externalId: 'a', datapoints: pts(1) }, { externalId: 'b', datapoints: [] }] } });
  t.equal(agreeing.status, 204, 'id and externalId of one series, and an empty datapoints array: 204');
});

t.test('/metrics counts the raw tables\' parts once points are stored', async (t) => {
  const deadline = Date.now() + 15_000;
  let parts = Number.NaN;
  while (!(parts >= 1) && Date.now() < deadline) {
    const text = (await srv.request('GET', '/metrics')).text;
    parts = Number(/^datapoint_raw_parts (\S+)$/m.exec(text)?.[1] ?? Number.NaN);
    if (!(parts >= 1)) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  t.ok(Number.isInteger(parts) && parts >= 1, `datapoint_raw_parts ${parts}: the earlier tests' points are in at least one part`);
});

t.test('a client that leaves in the middle of its body gives the body memory back', async (t) => {
  const { token } = tenant();
  const onLoan = async () => {
    const text = (await srv.request('GET', '/metrics')).text;
    return Number(/^ingest_memory_bytes\{state="on_loan"\} (\S+)$/m.exec(text)?.[1] ?? NaN);
  };
  const until = async (what: string, test: (bytes: number) => boolean) => {
    const deadline = Date.now() + 15_000;
    let bytes = await onLoan();
    while (!test(bytes) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      bytes = await onLoan();
    }
    t.ok(test(bytes), `${what} (on loan: ${bytes} bytes)`);
  };
  // Earlier tests' batches are still being inserted in the background (the log holds copies).
  await until('nothing on loan once earlier inserts are stored', (bytes) => bytes === 0);
  const { port } = new URL(srv.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const announced = 2_000_000;
  socket.write(`POST /timeseries/data HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${announced}\r\n\r\n`);
  socket.write(`{"items":[{"externalId":"gone","datapoints":[${'{"timestamp":1,"value":1},'.repeat(2000)}`);
  await until('the body being read holds its slab', (bytes) => bytes >= announced);
  socket.destroy();
  await until('the slab is given back once the client is gone', (bytes) => bytes === 0);
});

t.test('a series recreated under the same externalId with another valueType: the next insert is encoded for the new one', async (t) => {
  // The handler lets the worker encode with what it last resolved for 'morph' (target-hints.ts);
  // PostgreSQL says otherwise after the recreate, and the points must be encoded again.
  const { token } = tenant();
  await createSeries(srv, token, [{ externalId: 'morph', valueType: 'FLOAT' }]);
  t.equal((await call(t, 'POST', '/timeseries/data', { token, body: { items: [{ externalId: 'morph', datapoints: pts(2, () => '1.5') }] } })).status, 204);
  t.equal((await call(t, 'POST', '/timeseries/delete', { token, body: { items: [{ externalId: 'morph' }] } })).status, 204);
  await createSeries(srv, token, [{ externalId: 'morph', valueType: 'BIGINT' }]);
  const big = '9007199254740993';
  t.equal((await call(t, 'POST', '/timeseries/data', { token, body: { items: [{ externalId: 'morph', datapoints: pts(2, () => big) }] } })).status, 204);
  t.strictSame(await readAllPoints(t, call, token, { externalId: 'morph' }), pts(2, () => big), 'exact BIGINT, not a guessed FLOAT');
  t.equal((await call(t, 'POST', '/timeseries/delete', { token, body: { items: [{ externalId: 'morph' }] } })).status, 204);
  await createSeries(srv, token, [{ externalId: 'morph', valueType: 'TEXT' }]);
  t.equal((await call(t, 'POST', '/timeseries/data', { token, body: { items: [{ externalId: 'morph', datapoints: pts(1, () => 'hello') }] } })).status, 204, 'text a guessed BIGINT would refuse');
  t.strictSame(await readAllPoints(t, call, token, { externalId: 'morph' }), pts(1, () => 'hello'));
  t.equal((await call(t, 'POST', '/timeseries/delete', { token, body: { items: [{ externalId: 'morph' }] } })).status, 204);
  const missing = await call(t, 'POST', '/timeseries/data', { token, body: { items: [{ externalId: 'morph', datapoints: pts(1) }] } });
  t.equal(missing.status, 404, 'a guessed series that is gone is a 404');
});
