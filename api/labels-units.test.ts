// Goal: labels are tenant-scoped and shared (POST /labels/create, list, duplicates 409, a time
// series with a new label creates it) and the unit catalogue is a read-only list of several
// hundred units fetched by externalId, with the value type advice of
// GET /timeseries/recommend-value-type/{unitExternalId} (recognized=false for an unknown unit).
// Method: one real server, a fresh tenant per test; a local check() per endpoint runs one
// case per line, valid and invalid, at the caps and one past them. Every 2xx is schema-checked.
import t from 'tap';
import { assertErrorBody } from './testing/error-body.ts';
import { schemaCheckedRequest } from './testing/response-schema.ts';
import { startTestServer } from './testing/test-server.ts';

const srv = await startTestServer();
t.teardown(() => srv.close());
const call = schemaCheckedRequest(srv);

interface Label { externalId: string; name: string; description?: string; createdTime: number }

function tenant() {
  const org = srv.newTenant();
  return { org, token: srv.token({ org }) };
}

const externalIds = (res: { body: { items?: { externalId: string }[] } }) => (res.body.items ?? []).map((i) => i.externalId);

t.test('labels: create, duplicates, caps', async (t) => {
  const { token } = tenant();
  const created = await call(t, 'POST', '/labels/create', { token, body: { items: [{ externalId: 'pump', name: 'Pump', description: 'rotating equipment' }, { externalId: 'valve' }] } });
  t.equal(created.status, 201);
  t.match(created.body.items, [{ externalId: 'pump', name: 'Pump', description: 'rotating equipment' }, { externalId: 'valve', name: 'valve' }], 'name defaults to the externalId');
  t.ok(created.body.items.every((l: Label) => Number.isInteger(l.createdTime)), 'createdTime set');
  await call(t, 'POST', '/timeseries/create', { token, body: { items: [{ externalId: 's', name: 's', valueType: 'FLOAT', labels: ['from-series', 'pump'] }] } });
  const check = async (items: unknown[], expected: number | { status: number; fields?: string[]; duplicated?: string[] }, name: string) => {
    const res = await call(t, 'POST', '/labels/create', { token, body: { items } });
    if (typeof expected === 'number') return t.equal(res.status, expected, `${name}: ${expected}`);
    assertErrorBody(t, res, expected, name);
    const list = await srv.request('POST', '/labels/list', { token, body: { limit: 1000 } });
    const fresh = (items as { externalId?: string }[]).flatMap((i) => (i.externalId && !['pump', 'valve', 'from-series'].includes(i.externalId) ? [i.externalId] : []));
    t.notOk(externalIds(list).some((e) => fresh.includes(e)), `${name}: nothing created`);
  };
  await check([{ externalId: 'n1' }, { externalId: 'pump' }], { status: 409, duplicated: ['pump'] }, 'existing label');
  await check([{ externalId: 'from-series' }], { status: 409, duplicated: ['from-series'] }, 'a label created by a time series');
  await check([{ externalId: 'n2' }, { externalId: 'n2' }], { status: 409, duplicated: ['n2'] }, 'twice in a batch');
  await check([{ externalId: 'x'.repeat(512) }], 201, 'externalId 512');
  await check([{ externalId: 'y'.repeat(513) }], { status: 422, fields: ['items.0.externalId'] }, 'externalId 513');
  await check([{ externalId: 'n3', name: 'n'.repeat(140) }], 201, 'name 140');
  await check([{ externalId: 'n4', name: 'n'.repeat(141) }], { status: 422, fields: ['items.0.name'] }, 'name 141');
  await check([{ externalId: 'n5', description: 'd'.repeat(500) }], 201, 'description 500');
  await check([{ externalId: 'n6', description: 'd'.repeat(501) }], { status: 422, fields: ['items.0.description'] }, 'description 501');
  await check([{ externalId: '' }], { status: 422, fields: ['items.0.externalId'] }, 'empty externalId');
  await check([{ name: 'no id' }], { status: 400, fields: ['items.0.externalId'] }, 'missing externalId');
  await check([], { status: 400, fields: ['items'] }, 'no items');
  await check(Array.from({ length: 10_001 }, (_, i) => ({ externalId: `b${i}` })), { status: 400, fields: ['items'] }, '10001 items');
});

t.test('labels: list, prefix, paging, delete, tenant scope', async (t) => {
  const { token } = tenant();
  const names = ['area-1', 'area-2', 'critical', 'pump', 'valve'];
  await call(t, 'POST', '/labels/create', { token, body: { items: names.map((externalId) => ({ externalId })) } });
  const all = await call(t, 'GET', '/labels', { token });
  t.strictSame(externalIds(all), names, 'GET /labels: by externalId');
  const prefixed = await call(t, 'POST', '/labels/list', { token, body: { filter: { externalIdPrefix: 'area' } } });
  t.strictSame(externalIds(prefixed), ['area-1', 'area-2'], 'by prefix');
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await call(t, 'POST', '/labels/list', { token, body: { limit: 2, ...(cursor ? { cursor } : {}) } });
    seen.push(...externalIds(page));
    cursor = page.body.nextCursor;
  } while (cursor);
  t.strictSame(seen, names, 'pages of 2 visit every label once');
  const getPage = await call(t, 'GET', '/labels?limit=2', { token });
  t.strictSame(externalIds(getPage), ['area-1', 'area-2'], 'GET /labels?limit=2');
  const next = await call(t, 'GET', `/labels?limit=2&cursor=${encodeURIComponent(getPage.body.nextCursor)}`, { token });
  t.strictSame(externalIds(next), ['critical', 'pump'], 'GET /labels with cursor');
  const forged = await call(t, 'GET', `/labels?cursor=${Buffer.from('a\u0000').toString('base64url')}`, { token });
  assertErrorBody(t, forged, { status: 400, fields: ['cursor'] }, 'a cursor with a NUL character');
  const badLimit = await call(t, 'POST', '/labels/list', { token, body: { limit: 1001 } });
  assertErrorBody(t, badLimit, { status: 400, fields: ['limit'] }, 'list limit 1001');
  const other = await call(t, 'GET', '/labels', { token: srv.token({ org: srv.newTenant() }) });
  t.strictSame(externalIds(other), [], 'another tenant sees none of them');
  const again = await call(t, 'POST', '/labels/create', { token: srv.token({ org: srv.newTenant() }), body: { items: [{ externalId: 'pump' }] } });
  t.equal(again.status, 201, 'the same label in another tenant is not a duplicate');
  await call(t, 'POST', '/timeseries/create', { token, body: { items: [{ externalId: 's', name: 's', valueType: 'FLOAT', labels: ['pump'] }] } });
  const deleted = await call(t, 'POST', '/labels/delete', { token, body: { items: [{ externalId: 'pump' }, { externalId: 'never-was' }] } });
  t.equal(deleted.status, 204, 'delete: 204, unknown skipped');
  t.strictSame(externalIds(await call(t, 'GET', '/labels', { token })), ['area-1', 'area-2', 'critical', 'valve'], 'deleted label gone');
  const series = await call(t, 'POST', '/timeseries/filter', { token, body: { filter: { labels: ['pump'] } } });
  t.strictSame(externalIds(series), ['s'], 'a series keeps the label it carries');
});

t.test('units: catalogue, one unit, byids', async (t) => {
  const { token } = tenant();
  const list = await call(t, 'GET', '/units', { token });
  t.equal(list.status, 200);
  t.ok(list.body.items.length >= 300, `several hundred units (${list.body.items.length})`);
  t.equal(new Set(externalIds(list)).size, list.body.items.length, 'externalIds are unique');
  const celsius = list.body.items.find((u: { externalId: string }) => u.externalId === 'temperature:deg_c');
  t.match(celsius, { externalId: 'temperature:deg_c', symbol: '°C', quantity: 'Temperature', conversion: { multiplier: 1, offset: 273.15 } }, 'degree Celsius converts to kelvin');
  const temperatures = await call(t, 'GET', '/units?quantity=temperature', { token });
  t.ok(temperatures.body.items.length > 1 && temperatures.body.items.every((u: { quantity: string }) => u.quantity === 'Temperature'), 'by quantity, case-insensitive');
  const check = async (externalId: string, expected: 200 | 404) => {
    const res = await call(t, 'GET', `/units/${encodeURIComponent(externalId)}`, { token });
    if (expected === 404) return assertErrorBody(t, res, { status: 404 }, `GET /units/${externalId}`);
    t.equal(res.status, 200, `GET /units/${externalId}: 200`);
    t.equal(res.body.externalId, externalId, `GET /units/${externalId}: the unit`);
  };
  await check('temperature:deg_c', 200);
  await check('pressure:bar', 200);
  await check('no:such_unit', 404);
  await check('Temperature:DEG_C', 404);
  const byids = async (items: unknown[], expected: string[] | { status: number; fields?: string[] }, name: string) => {
    const res = await call(t, 'POST', '/units/byids', { token, body: { items } });
    if (!Array.isArray(expected)) return assertErrorBody(t, res, expected, name);
    t.equal(res.status, 200, `${name}: 200`);
    t.strictSame(externalIds(res), expected, name);
  };
  await byids([{ externalId: 'pressure:bar' }, { externalId: 'nope' }, { externalId: 'temperature:deg_c' }], ['pressure:bar', 'temperature:deg_c'], 'byids: request order, misses omitted');
  await byids(Array.from({ length: 1000 }, () => ({ externalId: 'pressure:bar' })), Array(1000).fill('pressure:bar'), 'byids: 1000 items');
  await byids(Array.from({ length: 1001 }, () => ({ externalId: 'pressure:bar' })), { status: 400, fields: ['items'] }, 'byids: 1001 items');
  await byids([], { status: 400, fields: ['items'] }, 'byids: no items');
  const anonymous = await srv.request('GET', '/units');
  t.equal(anonymous.status, 401, 'the catalogue needs a token like every endpoint');
});

t.test('recommend-value-type: known and unknown units', async (t) => {
  const { token } = tenant();
  const check = async (unitExternalId: string, expected: Record<string, unknown>) => {
    const res = await call(t, 'GET', `/timeseries/recommend-value-type/${encodeURIComponent(unitExternalId)}`, { token });
    t.equal(res.status, 200, `${unitExternalId}: 200`);
    t.match(res.body, { unitExternalId, ...expected }, `${unitExternalId}: ${JSON.stringify(expected)}`);
    t.type(res.body.reason, 'string');
  };
  await check('count:num', { recognized: true, valueType: 'BIGINT', quantity: 'Count' });
  await check('energy:kilo_w_hr', { recognized: true, valueType: 'NUMERIC' });
  await check('temperature:deg_c', { recognized: true, valueType: 'FLOAT', quantity: 'Temperature' });
  await check('no:such_unit', { recognized: false, valueType: 'FLOAT' });
  await check('kWh', { recognized: false });
});
