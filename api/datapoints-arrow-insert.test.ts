// Goal: POST /timeseries/data with `Content-Type: application/vnd.apache.arrow.stream` keeps
// every rule of the JSON insert: 204 once durable and readable at once, replace on timestamp,
// 404 listing missing series while the others are inserted, 422 naming the row of a value
// that does not parse (nothing written), the batch caps, malformed and empty streams as 400s,
// the content type, grants; and points inserted as Arrow read back exactly as the same points
// inserted as JSON (every valueType, BIGINT beyond 2^53).
// Method: one real server (embedded PostgreSQL, chdb, group commit) in this process; bodies
// written with apache-arrow as pyarrow would write them; reads through the JSON list.
import t from 'tap';
import fc from 'fast-check';
import { Dictionary, Float64, Int32, Table, Utf8, makeVector, tableToIPC, vectorFromArray, type Vector } from 'apache-arrow';
import { assertErrorBody } from './testing/error-body.ts';
import { createSeries, readAllPoints, startDatapointServer } from './testing/datapoints-fixture.ts';
import { arrowScanDeadlineMs } from '../workers/datapoint-pool.ts';

const srv = await startDatapointServer();
t.teardown(() => srv.close());
const { call } = srv;
const ARROW = 'application/vnd.apache.arrow.stream';
const T0 = Date.UTC(2024, 0, 1);

function tenant() {
  const org = srv.newTenant();
  return { org, token: srv.token({ org }) };
}

function stream(columns: Record<string, Vector>): Uint8Array {
  return tableToIPC(new Table(columns), 'stream');
}

const ts = (values: number[]) => makeVector(BigInt64Array.from(values, (v) => BigInt(v)));
const names = (values: string[], dictionary = false) => vectorFromArray(values, dictionary ? new Dictionary(new Utf8(), new Int32()) : new Utf8());

async function sendArrow(token: string, body: Uint8Array, contentType = ARROW) {
  return srv.request('POST', '/timeseries/data', { token, rawBody: body, headers: { 'content-type': contentType } });
}

t.test('204; the points read back at once, sorted, a later row replacing an earlier one', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, [{ externalId: 'a', valueType: 'FLOAT' }, { externalId: 'b', valueType: 'FLOAT' }]);
  const body = stream({ externalId: names(['a', 'b', 'a', 'a'], true), timestamp: ts([T0 + 2, T0, T0, T0 + 2]), value: makeVector(Float64Array.of(1.5, 7, -2, 3.25)) });
  const res = await sendArrow(token, body);
  t.equal(res.status, 204, res.text);
  t.strictSame(await readAllPoints(t, call, token, { externalId: 'a' }), [{ timestamp: T0, value: '-2' }, { timestamp: T0 + 2, value: '3.25' }]);
  t.strictSame(await readAllPoints(t, call, token, { externalId: 'b' }), [{ timestamp: T0, value: '7' }]);
});

t.test('BIGINT beyond 2^53 is exact; TEXT from utf8; series named by id', async (t) => {
  const { token } = tenant();
  const ids = await createSeries(srv, token, [{ externalId: 'big', valueType: 'BIGINT' }, { externalId: 'words', valueType: 'TEXT' }]);
  const big = [2n ** 53n + 1n, 9_223_372_036_854_775_807n, -9_223_372_036_854_775_808n];
  t.equal((await sendArrow(token, stream({ id: makeVector(BigInt64Array.from(big, () => BigInt(ids['big'] as number))), timestamp: ts([T0, T0 + 1, T0 + 2]), value: makeVector(BigInt64Array.from(big)) }))).status, 204);
  t.strictSame((await readAllPoints(t, call, token, { externalId: 'big' })).map((p) => p.value), big.map(String));
  t.equal((await sendArrow(token, stream({ externalId: names(['words', 'words']), timestamp: ts([T0, T0 + 1]), value: names(['état "quoted" \\ ok', '']) }))).status, 204);
  t.strictSame((await readAllPoints(t, call, token, { externalId: 'words' })).map((p) => p.value), ['état "quoted" \\ ok', '']);
});

t.test('Arrow in, JSON out: the same points as JSON in, for every valueType', async (t) => {
  const { token } = tenant();
  const types = ['FLOAT', 'FLOAT32', 'BIGINT', 'NUMERIC', 'DECIMAL32', 'TEXT', 'MIXED'] as const;
  await createSeries(srv, token, types.flatMap((v) => [{ externalId: `arrow-${v}`, valueType: v }, { externalId: `json-${v}`, valueType: v }]));
  const values: Record<(typeof types)[number], fc.Arbitrary<number | bigint | string>> = {
    FLOAT: fc.double({ noNaN: true, noDefaultInfinity: true }),
    FLOAT32: fc.double({ min: -1e30, max: 1e30, noNaN: true }),
    BIGINT: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
    NUMERIC: fc.integer({ min: -999_999_999, max: 999_999_999 }).map((v) => `${v}.${String(Math.abs(v) % 1_000_000).padStart(6, '0')}`),
    DECIMAL32: fc.integer({ min: -999_999, max: 999_999 }).map((v) => v / 1000),
    TEXT: fc.string({ maxLength: 30 }).filter((s) => s.isWellFormed() && !s.includes('\u0000')),
    MIXED: fc.oneof(fc.string({ maxLength: 10 }).filter((s) => !s.includes('\u0000')), fc.integer().map(String)),
  };
  let round = 0;
  for (const type of types) {
    const points = fc.sample(fc.array(values[type], { minLength: 1, maxLength: 200 }), { numRuns: 1, seed: 17 + round++ })[0] as (number | bigint | string)[];
    const timestamps = points.map((_, i) => T0 + i * 1000);
    const value = typeof points[0] === 'bigint' ? makeVector(BigInt64Array.from(points as bigint[])) : typeof points[0] === 'number' ? makeVector(Float64Array.from(points as number[])) : vectorFromArray(points as string[], new Utf8());
    const arrow = await sendArrow(token, stream({ externalId: names(points.map(() => `arrow-${type}`)), timestamp: ts(timestamps), value }));
    t.equal(arrow.status, 204, `${type} as Arrow: ${arrow.text}`);
    const json = await call(t, 'POST', '/timeseries/data', { token, body: { items: [{ externalId: `json-${type}`, datapoints: points.map((v, i) => ({ timestamp: timestamps[i], value: typeof v === 'bigint' ? String(v) : v })) }] } });
    t.equal(json.status, 204, `${type} as JSON: ${json.text}`);
    t.strictSame(await readAllPoints(t, call, token, { externalId: `arrow-${type}` }), await readAllPoints(t, call, token, { externalId: `json-${type}` }), `${type}: identical points`);
  }
});

t.test('404 lists the missing series; the others are inserted', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, [{ externalId: 'here', valueType: 'FLOAT' }]);
  const res = await sendArrow(token, stream({ externalId: names(['here', 'gone', 'here']), timestamp: ts([T0, T0, T0 + 1]), value: makeVector(Float64Array.of(1, 2, 3)) }));
  assertErrorBody(t, res, { status: 404 }, 'missing series');
  t.strictSame(res.body.error.missing, [{ externalId: 'gone' }]);
  t.strictSame(await readAllPoints(t, call, token, { externalId: 'here' }), [{ timestamp: T0, value: '1' }, { timestamp: T0 + 1, value: '3' }]);
});

t.test('422 names the row of each value that does not parse; nothing is written', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, [{ externalId: 'n', valueType: 'BIGINT' }, { externalId: 'f', valueType: 'FLOAT' }]);
  const res = await sendArrow(token, stream({ externalId: names(['f', 'n', 'n', 'f']), timestamp: ts([T0, T0, T0 + 1, T0 + 1]), value: makeVector(Float64Array.of(1, 2, 2.5, Number.NaN)) }));
  assertErrorBody(t, res, { status: 422, fields: ['rows.3.value', 'rows.2.value'] }, 'values against valueType');
  t.strictSame(await readAllPoints(t, call, token, { externalId: 'f' }), [], 'nothing written to f');
  t.strictSame(await readAllPoints(t, call, token, { externalId: 'n' }), [], 'nothing written to n');
});

t.test('malformed, empty and misshapen streams are 400s naming what is wrong; the wrong content type too', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, [{ externalId: 'a', valueType: 'FLOAT' }]);
  const good = { externalId: names(['a']), timestamp: ts([T0]), value: makeVector(Float64Array.of(1)) };
  const cases: [string, Uint8Array, string, RegExp][] = [
    ['empty body', new Uint8Array(0), 'body', /empty/],
    ['JSON sent as Arrow', new TextEncoder().encode('{"items":[]}'), 'body', /Arrow/],
    ['no rows', stream({ externalId: names([]), timestamp: ts([]), value: makeVector(new Float64Array(0)) }), 'body', /no rows/],
    ['no timestamp column', stream({ externalId: good.externalId, value: good.value }), 'timestamp', /no timestamp/],
    ['a null value', stream({ ...good, value: vectorFromArray([null], new Float64()) }), 'rows.0.value', /null/],
    ['a timestamp before 1900', stream({ ...good, timestamp: ts([-2_208_988_800_001]) }), 'rows.0.timestamp', /epoch milliseconds/],
    ['cut short', stream(good).subarray(0, 150), 'body', /./],
  ];
  for (const [name, body, field, message] of cases) {
    const res = await sendArrow(token, body);
    assertErrorBody(t, res, { status: 400, fields: [field] }, name);
    t.match(res.body.error.message, message, `${name}: says what is wrong`);
  }
  const wrongType = await sendArrow(token, stream(good), 'application/octet-stream');
  assertErrorBody(t, wrongType, { status: 400 }, 'octet-stream');
  t.match(wrongType.body.error.message, /application\/json or application\/vnd\.apache\.arrow\.stream/);
  t.strictSame(await readAllPoints(t, call, token, { externalId: 'a' }), [], 'nothing written by any of them');
});

t.test('a stream whose schema claims millions of fields is refused at once; the service keeps serving', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, [{ externalId: 'a', valueType: 'FLOAT' }]);
  // Dictionary id 0 (flatbuffers leave a default out), so the schema's layout is fixed: byte 44
  // lies in its field vector's length, and 1 there makes it about 16 million.
  const body = stream({ externalId: vectorFromArray(['a', 'b', 'a'], new Dictionary(new Utf8(), new Int32(), 0)), timestamp: ts([1, 2, 3]), value: names(['x', 'y', 'z']) });
  body[44] = 1;
  const started = Date.now();
  const res = await sendArrow(token, body);
  assertErrorBody(t, res, { status: 400, fields: ['body'] }, 'schema with a runaway field count');
  t.match(res.body.error.message, /claims \d+ field entries in \d+ bytes of metadata/);
  t.ok(Date.now() - started < arrowScanDeadlineMs(body.length), 'answered before the scan deadline');
  const after = await sendArrow(token, stream({ externalId: names(['a']), timestamp: ts([T0]), value: makeVector(Float64Array.of(4)) }));
  t.equal(after.status, 204, 'the next stream is taken');
});

t.test('the collection cap holds per series', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, [{ externalId: 'text', valueType: 'TEXT' }]);
  const count = 10_001;
  const res = await sendArrow(token, stream({ externalId: names(new Array<string>(count).fill('text'), true), timestamp: ts(Array.from({ length: count }, (_, i) => T0 + i)), value: names(new Array<string>(count).fill('v'), true) }));
  assertErrorBody(t, res, { status: 400, fields: ['rows'] }, 'TEXT cap of 10 000 points');
  t.match(JSON.stringify(res.body.error), /10001 points of externalId \\"text\\"/);
  t.strictSame(await readAllPoints(t, call, token, { externalId: 'text' }), [], 'nothing written');
});

t.test('data set grants: readable but not writable is 403, unreadable is missing', async (t) => {
  const { org, token } = tenant();
  const dataSet = async (externalId: string) => (await srv.request('POST', '/datasets/create', { token, body: { items: [{ externalId, name: externalId }] } })).body.items[0].id as number;
  const dsA = await dataSet('ds-a');
  const dsB = await dataSet('ds-b');
  await createSeries(srv, token, [{ externalId: 'in-a', valueType: 'FLOAT', dataSetId: dsA }, { externalId: 'in-b', valueType: 'FLOAT', dataSetId: dsB }]);
  const body = stream({ externalId: names(['in-b', 'in-a']), timestamp: ts([T0, T0]), value: makeVector(Float64Array.of(1, 2)) });
  assertErrorBody(t, await sendArrow(srv.token({ org, read: [dsA, dsB] }), body), { status: 403 }, 'readable, not writable');
  const unreadable = await sendArrow(srv.token({ org, write: [dsB] }), body);
  assertErrorBody(t, unreadable, { status: 404 }, 'unreadable series');
  t.strictSame(unreadable.body.error.missing, [{ externalId: 'in-a' }]);
  t.strictSame(await readAllPoints(t, call, token, { externalId: 'in-b' }), [{ timestamp: T0, value: '1' }], 'the writable series was inserted');
  t.strictSame(await readAllPoints(t, call, token, { externalId: 'in-a' }), [], 'nothing in the unreadable one');
});
