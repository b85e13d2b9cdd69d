// Goal: /timeseries/data/delete (POST and DELETE), /timeseries/data/latest, deleting a time
// series, and tenant isolation answer as SPEC says: bounds as ISO-8601 or epoch ms
// with begin inclusive and end exclusive; omitting both clears the series and keeps its
// definition; 400 for an unknown series or a bad bound (nothing deleted); deleted points gone
// from raw reads, aggregates and latest at once; latest is the highest timestamp per series
// and omits series without points; a deleted series' points are unreachable at once and a new
// series never sees them; two tenants with the same externalIds (and the same numeric ids)
// never see each other's points.
// Method: one real server in this process, a fresh tenant per test; every read right after a
// 204 (no polling: the embedded default acknowledges only what is readable). The rollup fold
// is forced between steps so the latest-point and rollup tables are read as well as raw points.
import t, { type Test } from 'tap';
import { assertErrorBody, type ExpectedError } from './testing/error-body.ts';
import { createSeries, readAllPoints, startDatapointServer, type Point, type SeriesIdentifier } from './testing/datapoints-fixture.ts';

const srv = await startDatapointServer();
t.teardown(() => srv.close());
const { call } = srv;
const store = srv.server.datapoints.store;
const fold = () => store.runMaintenance({ includeHot: true });

const T0 = Date.UTC(2024, 2, 10);
const HOUR = 3_600_000;

function tenant() {
  const org = srv.newTenant();
  return { org, token: srv.token({ org }) };
}

const pts = (count: number, start = T0, stepMs = 1000, value: (i: number) => string = String) =>
  Array.from({ length: count }, (_, i) => ({ timestamp: start + i * stepMs, value: value(i) }));

async function insert(t: Test, token: string, items: unknown[]): Promise<void> {
  const res = await call(t, 'POST', '/timeseries/data', { token, body: { items } });
  if (res.status !== 204) t.fail(`insert: ${res.status} ${res.text.slice(0, 500)}`);
}

async function latestOf(t: Test, token: string, items: SeriesIdentifier[], extra: Record<string, unknown> = {}) {
  return call(t, 'POST', '/timeseries/data/latest', { token, body: { items, ...extra } });
}

/** Raw points, the 1h COUNT/SUM buckets and the latest point of one series, read together. */
async function everyView(t: Test, token: string, identifier: SeriesIdentifier) {
  const raw = await readAllPoints(t, call, token, identifier);
  const agg = await call(t, 'POST', '/timeseries/data/list', { token, body: { items: [{ ...identifier, start: 0, end: T0 + 100 * HOUR, granularity: '1h', aggregates: ['COUNT', 'SUM'] }] } });
  const latest = await latestOf(t, token, [identifier]);
  return { raw, buckets: agg.body.items?.[0]?.datapoints as { timestamp: number; count: number; sum: string }[], latest: latest.body.items?.[0]?.datapoints?.[0] as Point | undefined };
}

/** What everyView should return for these points (FLOAT integers). */
function expectedViews(points: Point[]) {
  const buckets = new Map<number, { count: number; sum: number }>();
  for (const p of points) {
    const b = Math.floor(p.timestamp / HOUR) * HOUR;
    const bucket = buckets.get(b) ?? { count: 0, sum: 0 };
    bucket.count++;
    bucket.sum += Number(p.value);
    buckets.set(b, bucket);
  }
  const sorted = [...points].sort((a, b) => a.timestamp - b.timestamp);
  return {
    raw: sorted,
    buckets: [...buckets.entries()].sort((a, b) => a[0] - b[0]).map(([timestamp, { count, sum }]) => ({ timestamp, count, sum: String(sum) })),
    latest: sorted[sorted.length - 1],
  };
}

t.test('delete: bounds as ISO-8601 or epoch ms, begin inclusive, end exclusive, POST and DELETE', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, [{ externalId: 's', valueType: 'FLOAT' }]);
  let alive = pts(20);
  await insert(t, token, [{ externalId: 's', datapoints: alive }]);
  const iso = (ms: number) => new Date(ms).toISOString();
  const check = async (name: string, method: 'POST' | 'DELETE', bounds: Record<string, unknown>, deleted: (ts: number) => boolean) => {
    const res = await call(t, method, '/timeseries/data/delete', { token, body: { items: [{ externalId: 's', ...bounds }] } });
    t.equal(res.status, 204, `${name}: 204`);
    t.equal(res.text, '', `${name}: no body`);
    alive = alive.filter((p) => !deleted(p.timestamp));
    t.strictSame(await everyView(t, token, { externalId: 's' }), expectedViews(alive), `${name}: raw, aggregates and latest at once`);
  };
  const at = (i: number) => T0 + i * 1000;
  await check('epoch ms', 'POST', { inclusiveBegin: at(1), exclusiveEnd: at(3) }, (ts) => ts >= at(1) && ts < at(3));
  await check('ISO-8601 with Z and ms', 'DELETE', { inclusiveBegin: iso(at(4)), exclusiveEnd: iso(at(5) + 1) }, (ts) => ts >= at(4) && ts <= at(5));
  await check('ISO-8601 with an offset', 'POST', { inclusiveBegin: '2024-03-10T01:00:06+01:00', exclusiveEnd: '2024-03-10T00:00:07Z' }, (ts) => ts === at(6));
  await check('epoch ms as digit strings', 'DELETE', { inclusiveBegin: String(at(7)), exclusiveEnd: String(at(8)) }, (ts) => ts === at(7));
  await check('a leap day is a day', 'POST', { inclusiveBegin: '2024-02-29T00:00:00Z', exclusiveEnd: '2024-02-29T23:59:59.999999Z' }, () => false);
  await check('an empty window', 'POST', { inclusiveBegin: at(9), exclusiveEnd: at(9) }, () => false);
  await fold();
  await check('only exclusiveEnd, after the fold', 'POST', { exclusiveEnd: at(1) }, (ts) => ts < at(1));
  await check('only inclusiveBegin: the latest points go', 'DELETE', { inclusiveBegin: at(18) }, (ts) => ts >= at(18));
  t.equal(alive.length, 11, 'eleven points left');
});

t.test('delete: omitting both bounds clears the series and keeps its definition', async (t) => {
  const { token } = tenant();
  const ids = await createSeries(srv, token, [{ externalId: 'c', valueType: 'FLOAT' }, { externalId: 'other', valueType: 'FLOAT' }]);
  const id = ids['c'] as number;
  const before = await call(t, 'GET', `/timeseries/${id}`, { token });
  await insert(t, token, [{ externalId: 'c', datapoints: pts(50, T0, 60_000) }, { externalId: 'other', datapoints: pts(5) }]);
  await fold();
  const res = await call(t, 'POST', '/timeseries/data/delete', { token, body: { items: [{ id }] } });
  t.equal(res.status, 204);
  t.strictSame(await everyView(t, token, { id }), { raw: [], buckets: [], latest: undefined }, 'no points, no buckets, no latest');
  const latest = await latestOf(t, token, [{ id }, { externalId: 'other' }]);
  t.strictSame(latest.body.items.map((i: { externalId: string }) => i.externalId), ['other'], 'the cleared series is omitted from latest');
  const after = await call(t, 'GET', `/timeseries/${id}`, { token });
  t.equal(after.status, 200, 'GET /timeseries/{id} still 200');
  t.strictSame(after.body, before.body, 'the definition is unchanged');
  t.equal((await readAllPoints(t, call, token, { externalId: 'other' })).length, 5, 'the other series keeps its points');
  await insert(t, token, [{ externalId: 'c', datapoints: [{ timestamp: T0 + 5, value: '7' }] }]);
  t.strictSame(await everyView(t, token, { id }), expectedViews([{ timestamp: T0 + 5, value: '7' }]), 'points written after the clear are there');
});

t.test('delete: 400 for an unknown series or a bad bound, and nothing is deleted', async (t) => {
  const { org, token } = tenant();
  const dataSet = (await srv.request('POST', '/datasets/create', { token, body: { items: [{ externalId: 'ds', name: 'ds' }] } })).body.items[0].id as number;
  await createSeries(srv, token, [{ externalId: 's', valueType: 'FLOAT' }, { externalId: 'guarded', valueType: 'FLOAT', dataSetId: dataSet }]);
  const all = pts(5);
  await insert(t, token, [{ externalId: 's', datapoints: all }, { externalId: 'guarded', datapoints: all }]);
  const check = async (name: string, items: unknown[], expected: ExpectedError, as = token) => {
    const res = await call(t, 'POST', '/timeseries/data/delete', { token: as, body: { items } });
    assertErrorBody(t, res, expected, name);
    t.strictSame(await readAllPoints(t, call, token, { externalId: 's' }), all, `${name}: nothing deleted`);
    t.strictSame(await readAllPoints(t, call, token, { externalId: 'guarded' }), all, `${name}: nothing deleted in the guarded series`);
    return res;
  };
  const s = { externalId: 's' };
  const unknown = await check('unknown externalId', [s, { externalId: 'nope' }], { status: 400, fields: ['items.1'] });
  t.match(unknown.body.error.fields, [{ field: 'items.1', index: 1, value: 'nope' }]);
  await check('unknown id', [{ id: 9_007_199_254_740_991 }, s], { status: 400, fields: ['items.0'] });
  await check('unreadable series is unknown', [{ externalId: 'guarded' }], { status: 400, fields: ['items.0'] }, srv.token({ org, read: [] }));
  await check('readable, not writable', [{ externalId: 'guarded' }], { status: 403 }, srv.token({ org, read: [dataSet] }));
  await check('bound not an instant', [{ ...s, inclusiveBegin: 'yesterday' }], { status: 400, fields: ['items.0.inclusiveBegin'] });
  await check('a date without a time', [{ ...s, exclusiveEnd: '2024-03-10' }], { status: 400, fields: ['items.0.exclusiveEnd'] });
  await check('ISO-8601 without a zone', [{ ...s, inclusiveBegin: '2024-03-10T00:00:00' }], { status: 400, fields: ['items.0.inclusiveBegin'] });
  await check('an impossible date', [s, { ...s, exclusiveEnd: '2024-02-30T00:00:00Z' }], { status: 400, fields: ['items.1.exclusiveEnd'] });
  await check('a fractional epoch', [{ ...s, inclusiveBegin: 1.5 }], { status: 400, fields: ['items.0.inclusiveBegin'] });
  await check('a boolean bound', [{ ...s, inclusiveBegin: true }], { status: 400, fields: ['items.0.inclusiveBegin'] });
  await check('no identifier', [{ inclusiveBegin: T0 }], { status: 400 });
  await check('no items', [], { status: 400, fields: ['items'] });
  await check('10001 items', Array.from({ length: 10_001 }, () => s), { status: 400, fields: ['items'] });
  const many = await call(t, 'POST', '/timeseries/data/delete', { token, body: { items: Array.from({ length: 10_000 }, (_, i) => ({ ...s, inclusiveBegin: T0 + 10_000 + i, exclusiveEnd: T0 + 10_001 + i })) } });
  t.equal(many.status, 204, '10000 items: 204');
  t.strictSame(await everyView(t, token, s), expectedViews(all), 'reads after 10000 consecutive windows: 200, nothing of the points deleted');
});

t.test('latest: the highest timestamp per series, series without points omitted, previous after a delete', async (t) => {
  const { token } = tenant();
  const ids = await createSeries(srv, token, [
    { externalId: 'f', valueType: 'FLOAT' }, { externalId: 'b', valueType: 'BIGINT' }, { externalId: 'n', valueType: 'NUMERIC' },
    { externalId: 'x', valueType: 'TEXT' }, { externalId: 'm', valueType: 'MIXED' }, { externalId: 'none', valueType: 'FLOAT' },
  ]);
  await insert(t, token, [
    { externalId: 'f', datapoints: [{ timestamp: T0 + 5 * HOUR, value: '5' }, { timestamp: T0, value: '0' }, { timestamp: T0 + 2 * HOUR, value: '2' }] },
    { externalId: 'b', datapoints: [{ timestamp: T0, value: '9223372036854775807' }, { timestamp: T0 - 1, value: '1' }] },
    { externalId: 'n', datapoints: [{ timestamp: T0, value: '0.000001' }] },
    { externalId: 'x', datapoints: [{ timestamp: T0, value: 'on' }, { timestamp: T0 + 1, value: 'off' }] },
    { externalId: 'm', datapoints: [{ timestamp: T0, value: 'text' }, { timestamp: T0 + 1, value: 1.5 }] },
  ]);
  const check = async (name: string, items: SeriesIdentifier[], expected: [string, Point][]) => {
    const res = await latestOf(t, token, items);
    t.equal(res.status, 200, `${name}: 200`);
    t.strictSame(res.body.items.map((i: { externalId: string; datapoints: Point[] }) => [i.externalId, i.datapoints[0]]), expected, name);
    t.ok(res.body.items.every((i: { id: number; externalId: string; valueType: string; datapoints: Point[] }) => i.id === ids[i.externalId] && i.datapoints.length === 1), `${name}: id, one point each`);
  };
  const every = ['f', 'b', 'n', 'x', 'm', 'none'].map((externalId) => ({ externalId }));
  const latestOfEach: [string, Point][] = [
    ['f', { timestamp: T0 + 5 * HOUR, value: '5' }], ['b', { timestamp: T0, value: '9223372036854775807' }], ['n', { timestamp: T0, value: '0.000001' }],
    ['x', { timestamp: T0 + 1, value: 'off' }], ['m', { timestamp: T0 + 1, value: '1.5' }],
  ];
  await check('every valueType, request order, none omitted', every, latestOfEach);
  await fold();
  await check('after the fold', every, latestOfEach);
  await check('one series named twice (id and externalId)', [{ id: ids['f'] as number }, { externalId: 'f' }], [latestOfEach[0] as [string, Point], latestOfEach[0] as [string, Point]]);
  await insert(t, token, [{ externalId: 'f', datapoints: [{ timestamp: T0 + 3 * HOUR, value: '3' }] }]);
  await check('an older point written later does not win', [{ externalId: 'f' }], [['f', { timestamp: T0 + 5 * HOUR, value: '5' }]]);
  await insert(t, token, [{ externalId: 'f', datapoints: [{ timestamp: T0 + 5 * HOUR, value: '55' }] }]);
  await check('an overwritten latest point shows its new value', [{ externalId: 'f' }], [['f', { timestamp: T0 + 5 * HOUR, value: '55' }]]);
  await fold();
  const drop = async (externalId: string, begin: number, end: number) => t.equal((await call(t, 'POST', '/timeseries/data/delete', { token, body: { items: [{ externalId, inclusiveBegin: begin, exclusiveEnd: end }] } })).status, 204);
  await drop('f', T0 + 5 * HOUR, T0 + 5 * HOUR + 1);
  await check('latest deleted: the previous one, from an earlier hour', [{ externalId: 'f' }], [['f', { timestamp: T0 + 3 * HOUR, value: '3' }]]);
  await fold();
  await check('the same after the fold', [{ externalId: 'f' }], [['f', { timestamp: T0 + 3 * HOUR, value: '3' }]]);
  await drop('x', T0 + 1, T0 + 2);
  await check('previous in the same hour', [{ externalId: 'x' }], [['x', { timestamp: T0, value: 'on' }]]);
  await drop('b', T0, T0 + 1);
  await check('previous BIGINT', [{ externalId: 'b' }], [['b', { timestamp: T0 - 1, value: '1' }]]);
  await drop('f', T0, T0 + 4 * HOUR);
  await check('every point deleted: omitted', [{ externalId: 'f' }, { externalId: 'n' }], [['n', { timestamp: T0, value: '0.000001' }]]);
  await fold();
  await check('omitted after the fold too', [{ externalId: 'f' }], []);
  const unknown = await latestOf(t, token, [{ externalId: 'n' }, { externalId: 'nope' }]);
  assertErrorBody(t, unknown, { status: 404 }, 'unknown series');
  t.strictSame(unknown.body.error.missing, [{ externalId: 'nope' }]);
  const ignored = await latestOf(t, token, [{ externalId: 'nope' }, { externalId: 'n' }], { ignoreUnknownIds: true });
  t.strictSame(ignored.body.items.map((i: { externalId: string }) => i.externalId), ['n'], 'ignoreUnknownIds leaves it out');
});

t.test('deleting a time series makes its points unreachable at once; a new series never sees them', async (t) => {
  const { token } = tenant();
  const first = await createSeries(srv, token, [{ externalId: 'gone', valueType: 'FLOAT' }, { externalId: 'folded', valueType: 'FLOAT' }, { externalId: 'stays', valueType: 'FLOAT' }]);
  await insert(t, token, [{ externalId: 'gone', datapoints: pts(30, T0, 60_000) }, { externalId: 'folded', datapoints: pts(30, T0, 60_000) }, { externalId: 'stays', datapoints: pts(3) }]);
  await fold();
  const del = await call(t, 'POST', '/timeseries/delete', { token, body: { items: [{ externalId: 'gone' }, { id: first['folded'] }] } });
  t.equal(del.status, 204, 'series deleted');
  for (const identifier of [{ externalId: 'gone' }, { id: first['gone'] as number }, { id: first['folded'] as number }]) {
    assertErrorBody(t, await call(t, 'POST', '/timeseries/data/list', { token, body: { items: [identifier] } }), { status: 404 }, `list ${JSON.stringify(identifier)}`);
    assertErrorBody(t, await latestOf(t, token, [identifier]), { status: 404 }, `latest ${JSON.stringify(identifier)}`);
    assertErrorBody(t, await call(t, 'POST', '/timeseries/data', { token, body: { items: [{ ...identifier, datapoints: pts(1) }] } }), { status: 404 }, `insert ${JSON.stringify(identifier)}`);
  }
  const second = await createSeries(srv, token, [{ externalId: 'gone', valueType: 'FLOAT' }, { externalId: 'folded', valueType: 'BIGINT' }]);
  t.not(second['gone'], first['gone'], 'the new series has a new id');
  for (const externalId of ['gone', 'folded']) {
    t.strictSame(await everyView(t, token, { externalId }), { raw: [], buckets: [], latest: undefined }, `new ${externalId}: no points, buckets or latest of the old one`);
  }
  await insert(t, token, [{ externalId: 'gone', datapoints: [{ timestamp: T0 + 60_000, value: '42' }] }]);
  t.strictSame(await everyView(t, token, { externalId: 'gone' }), expectedViews([{ timestamp: T0 + 60_000, value: '42' }]), 'new points only');
  await fold();
  t.strictSame(await everyView(t, token, { externalId: 'gone' }), expectedViews([{ timestamp: T0 + 60_000, value: '42' }]), 'new points only, after the fold and purge');
  t.strictSame(await readAllPoints(t, call, token, { externalId: 'stays' }), pts(3), 'the other series is untouched');
});

t.test('tenants with the same externalIds and ids never see each other\'s points', async (t) => {
  const a = tenant();
  const b = tenant();
  const specs = [{ externalId: 'shared', valueType: 'FLOAT' }, { externalId: 'other', valueType: 'TEXT' }];
  const idsA = await createSeries(srv, a.token, specs);
  const idsB = await createSeries(srv, b.token, specs);
  const pointsA = pts(10, T0, 1000, (i) => String(i));
  const pointsB = pts(10, T0 + 500, 1000, (i) => String(100 + i));
  await insert(t, a.token, [{ externalId: 'shared', datapoints: pointsA }, { externalId: 'other', datapoints: [{ timestamp: T0, value: 'a' }] }]);
  await insert(t, b.token, [{ externalId: 'shared', datapoints: pointsB }, { externalId: 'other', datapoints: [{ timestamp: T0, value: 'b' }] }]);
  const views = async (phase: string, expectedA: Point[], expectedB: Point[]) => {
    t.strictSame(await everyView(t, a.token, { externalId: 'shared' }), expectedViews(expectedA), `${phase}: tenant A sees only its points`);
    t.strictSame(await everyView(t, b.token, { externalId: 'shared' }), expectedViews(expectedB), `${phase}: tenant B sees only its points`);
    t.strictSame(await everyView(t, a.token, { id: idsA['shared'] as number }), expectedViews(expectedA), `${phase}: tenant A by id`);
    t.strictSame(await everyView(t, b.token, { id: idsB['shared'] as number }), expectedViews(expectedB), `${phase}: tenant B by id`);
  };
  if (idsA['shared'] === idsB['shared']) t.pass('both tenants have the same numeric ids, so only the tenant tells them apart');
  await views('after inserts', pointsA, pointsB);
  t.strictSame(await readAllPoints(t, call, a.token, { externalId: 'other' }), [{ timestamp: T0, value: 'a' }]);
  t.strictSame(await readAllPoints(t, call, b.token, { externalId: 'other' }), [{ timestamp: T0, value: 'b' }]);
  await fold();
  await views('after the fold', pointsA, pointsB);
  t.equal((await call(t, 'POST', '/timeseries/data/delete', { token: a.token, body: { items: [{ externalId: 'shared', exclusiveEnd: T0 + 5000 }] } })).status, 204);
  await views('after a range delete in A', pointsA.slice(5), pointsB);
  t.equal((await call(t, 'POST', '/timeseries/data/delete', { token: b.token, body: { items: [{ externalId: 'shared' }] } })).status, 204);
  await views('after clearing B', pointsA.slice(5), []);
  t.equal((await call(t, 'POST', '/timeseries/delete', { token: a.token, body: { items: [{ externalId: 'other' }] } })).status, 204);
  t.strictSame(await readAllPoints(t, call, b.token, { externalId: 'other' }), [{ timestamp: T0, value: 'b' }], 'deleting A\'s series leaves B\'s points');
  await fold();
  t.strictSame(await readAllPoints(t, call, b.token, { externalId: 'other' }), [{ timestamp: T0, value: 'b' }], 'also after the purge');
  assertErrorBody(t, await call(t, 'POST', '/timeseries/data/list', { token: a.token, body: { items: [{ externalId: 'other' }] } }), { status: 404 }, 'A\'s deleted series');
});

// Last in the file: until the engine copes, the 10 000 tombstones below keep the background
// purge busy for minutes (500 per round), which would slow every test after this one.
t.test('10 000 single points deleted in one request, the others read back', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, [{ externalId: 'sparse', valueType: 'FLOAT' }]);
  const all = Array.from({ length: 20_000 }, (_, i) => ({ timestamp: T0 + i, value: String(i % 7) }));
  await insert(t, token, [{ externalId: 'sparse', datapoints: all }]);
  const res = await call(t, 'POST', '/timeseries/data/delete', { token, body: { items: Array.from({ length: 10_000 }, (_, k) => ({ externalId: 'sparse', inclusiveBegin: T0 + 2 * k, exclusiveEnd: T0 + 2 * k + 1 })) } });
  t.equal(res.status, 204, 'delete: 204');
  const raw = await srv.request('POST', '/timeseries/data/list', { token, body: { items: [{ externalId: 'sparse', start: T0, end: T0 + 20_000, limit: 100_000 }] } });
  t.equal(raw.status, 200, 'raw read: 200');
  if (raw.status === 200) t.strictSame(raw.body.items[0].datapoints, all.filter((_, i) => i % 2 === 1), 'every other point left');
  const latest = await srv.request('POST', '/timeseries/data/latest', { token, body: { items: [{ externalId: 'sparse' }] } });
  t.equal(latest.status, 200, 'latest: 200');
  if (latest.status === 200) t.strictSame(latest.body.items[0].datapoints, [all[all.length - 1]], 'the newest point, never deleted');
  const agg = await srv.request('POST', '/timeseries/data/list', { token, body: { items: [{ externalId: 'sparse', start: T0, end: T0 + HOUR, granularity: '1h', aggregates: ['COUNT'] }] } });
  t.equal(agg.status, 200, 'aggregates: 200');
  if (agg.status === 200) t.strictSame(agg.body.items[0].datapoints, [{ timestamp: T0, count: 10_000 }]);
});
