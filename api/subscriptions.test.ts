// Goal: the subscription records (docs/api.md): create (series by id and externalId, a data
// set, at most 10,000 series, unknown or unreadable series and data sets refused, duplicates
// 409), list with its cursor, byids, update (rename, description, add and remove series, data
// set), delete (idempotent), tenants apart, and SPEC's time series delete rule: a series bound
// to a subscription is a 400 naming `type`, `subscriptionId`, `subscriptionExternalId` and
// `timeseriesId`, and can be deleted once removed from it. Method: one real server; a fresh
// tenant per test; every 2xx schema-checked.
import t, { type Test } from 'tap';
import { assertErrorBody } from './testing/error-body.ts';
import { schemaCheckedRequest } from './testing/response-schema.ts';
import { startTestServer } from './testing/test-server.ts';

const srv = await startTestServer();
t.teardown(() => srv.close());
const call = schemaCheckedRequest(srv);

async function ok(t: Test, method: string, path: string, token: string, body: unknown, status = 200) {
  const res = await call(t, method, path, { token, body });
  if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}

async function tenant(t: Test) {
  const org = srv.newTenant();
  const admin = srv.token({ org });
  const [A, B] = (await ok(t, 'POST', '/datasets/create', admin, { items: [{ externalId: 'A', name: 'A' }, { externalId: 'B', name: 'B' }] }, 201)).items;
  const series = (await ok(t, 'POST', '/timeseries/create', admin, {
    items: [{ externalId: 's1', name: 's1', valueType: 'FLOAT' }, { externalId: 's2', name: 's2', valueType: 'FLOAT' }, { externalId: 'sa', name: 'sa', valueType: 'FLOAT', dataSetId: A.id }],
  }, 201)).items;
  return { org, admin, A, B, s1: series[0], s2: series[1], sa: series[2] };
}

t.test('create, byids, list, update, delete', async (t) => {
  const p = await tenant(t);
  const created = (await ok(t, 'POST', '/subscriptions/create', p.admin, {
    items: [
      { externalId: 'sub1', name: 'one', description: 'first', timeseriesIds: [p.s1.id], timeseriesExternalIds: ['s2', 's1'] },
      { externalId: 'sub2', name: 'two', dataSetId: p.A.id },
    ],
  }, 201)).items;
  t.match(created[0], { externalId: 'sub1', name: 'one', description: 'first', timeseriesCount: 2 });
  t.match(created[1], { externalId: 'sub2', name: 'two', dataSetId: p.A.id, timeseriesCount: 0 });
  t.notOk('dataSetId' in created[0], 'no dataSetId when none');
  const byIds = (await ok(t, 'POST', '/subscriptions/byids', p.admin, { items: [{ externalId: 'sub2' }, { id: created[0].id }, { externalId: 'nope' }, { id: created[0].id }] })).items;
  t.same(byIds.map((s: { externalId: string }) => s.externalId), ['sub2', 'sub1'], 'request order, misses omitted, each once');
  const page1 = await ok(t, 'POST', '/subscriptions/list', p.admin, { limit: 1 });
  t.equal(page1.items.length, 1);
  t.type(page1.nextCursor, 'string');
  const page2 = await ok(t, 'POST', '/subscriptions/list', p.admin, { limit: 1, cursor: page1.nextCursor });
  t.same(page2.items.map((s: { externalId: string }) => s.externalId), ['sub2']);
  t.notOk(page2.nextCursor, 'last page');
  t.same((await ok(t, 'GET', '/subscriptions?limit=10', p.admin, undefined)).items.length, 2, 'GET form');
  assertErrorBody(t, await call(t, 'POST', '/subscriptions/list', { token: p.admin, body: { cursor: 'garbage' } }), { status: 400, fields: ['cursor'] }, 'a bad cursor');

  const updated = (await ok(t, 'POST', '/subscriptions/update', p.admin, {
    items: [{ externalId: 'sub1', update: { name: { set: 'renamed' }, description: { setNull: true }, timeseriesIds: { remove: [p.s1.id] }, timeseriesExternalIds: { add: ['sa'], remove: ['not-there'] } } }],
  })).items;
  t.match(updated[0], { externalId: 'sub1', name: 'renamed', timeseriesCount: 2 });
  t.notOk('description' in updated[0], 'description cleared');
  const moved = (await ok(t, 'POST', '/subscriptions/update', p.admin, { items: [{ id: created[1].id, update: { dataSetId: { set: p.B.id } } }] })).items;
  t.equal(moved[0].dataSetId, p.B.id);
  assertErrorBody(t, await call(t, 'POST', '/subscriptions/update', { token: p.admin, body: { items: [{ externalId: 'nope', update: { name: { set: 'x' } } }] } }), { status: 400, fields: ['items[0]'] }, 'update of a missing subscription');
  assertErrorBody(t, await call(t, 'POST', '/subscriptions/update', { token: p.admin, body: { items: [{ externalId: 'sub1', update: { description: { set: 'x', setNull: true } } }] } }), { status: 400, fields: ['items[0].update.description'] }, 'set with setNull');
  assertErrorBody(t, await call(t, 'POST', '/subscriptions/update', { token: p.admin, body: { items: [{ externalId: 'sub1', update: { timeseriesIds: { add: [987654321] } } }] } }), { status: 400, fields: ['items[0].timeseriesIds'] }, 'adding an unknown series');

  t.equal((await call(t, 'POST', '/subscriptions/delete', { token: p.admin, body: { items: [{ externalId: 'sub2' }, { externalId: 'nope' }] } })).status, 204, 'delete, unknown skipped');
  t.equal((await call(t, 'POST', '/subscriptions/delete', { token: p.admin, body: { items: [{ externalId: 'sub2' }] } })).status, 204, 'idempotent');
  t.same((await ok(t, 'POST', '/subscriptions/byids', p.admin, { items: [{ externalId: 'sub2' }] })).items, [], 'gone');
});

t.test('create refusals: unknown series and data sets, unreadable ones, duplicates, the 10,000 cap', async (t) => {
  const p = await tenant(t);
  const check = async (item: Record<string, unknown>, expected: { status: number; fields?: string[]; duplicated?: string[] }, name: string) =>
    assertErrorBody(t, await call(t, 'POST', '/subscriptions/create', { token: p.admin, body: { items: [item] } }), expected, name);
  await check({ externalId: 'x', name: 'x', timeseriesIds: [987654321] }, { status: 400, fields: ['items[0].timeseriesIds'] }, 'unknown series id');
  await check({ externalId: 'x', name: 'x', timeseriesExternalIds: ['nope'] }, { status: 400, fields: ['items[0].timeseriesExternalIds'] }, 'unknown series externalId');
  await check({ externalId: 'x', name: 'x', dataSetId: 987654321 }, { status: 400, fields: ['items[0].dataSetId'] }, 'unknown data set');
  await check({ externalId: 'x', name: 'x', dataSetId: p.s1.id }, { status: 400, fields: ['items[0].dataSetId'] }, 'a series is not a data set');
  const readerOfB = srv.token({ org: p.org, sub: 'reader', read: [p.B.id] });
  assertErrorBody(t, await call(t, 'POST', '/subscriptions/create', { token: readerOfB, body: { items: [{ externalId: 'x', name: 'x', timeseriesIds: [p.sa.id] }] } }), { status: 400, fields: ['items[0].timeseriesIds'] }, 'an unreadable series is unknown');
  assertErrorBody(t, await call(t, 'POST', '/subscriptions/create', { token: readerOfB, body: { items: [{ externalId: 'x', name: 'x', dataSetId: p.A.id }] } }), { status: 400, fields: ['items[0].dataSetId'] }, 'an unreadable data set is unknown');
  await ok(t, 'POST', '/subscriptions/create', p.admin, { items: [{ externalId: 'taken', name: 'x' }] }, 201);
  await check({ externalId: 'taken', name: 'x' }, { status: 409, duplicated: ['taken'] }, 'externalId taken');
  assertErrorBody(t, await call(t, 'POST', '/subscriptions/create', { token: p.admin, body: { items: [{ externalId: 'twice', name: 'x' }, { externalId: 'twice', name: 'y' }] } }), { status: 409, duplicated: ['twice'] }, 'externalId twice in a batch');
  t.same((await ok(t, 'POST', '/subscriptions/byids', p.admin, { items: [{ externalId: 'x' }, { externalId: 'twice' }] })).items, [], 'nothing written by refused creates');

  // The cap: 10,000 series by id land, 10,001 do not (on create, and on update past it).
  const many = (await ok(t, 'POST', '/timeseries/create', p.admin, { items: Array.from({ length: 10_000 }, (_, i) => ({ externalId: `m${i}`, name: `m${i}`, valueType: 'FLOAT' })) }, 201)).items;
  const ids = many.map((s: { id: number }) => s.id);
  const full = (await ok(t, 'POST', '/subscriptions/create', p.admin, { items: [{ externalId: 'full', name: 'full', timeseriesIds: ids }] }, 201)).items;
  t.equal(full[0].timeseriesCount, 10_000, 'at the limit');
  const res = await call(t, 'POST', '/subscriptions/create', { token: p.admin, body: { items: [{ externalId: 'over', name: 'over', timeseriesIds: ids, timeseriesExternalIds: ['s1'] }] } });
  assertErrorBody(t, res, { status: 400, fields: ['items[0].timeseriesIds'] }, 'one past the limit on create');
  assertErrorBody(t, await call(t, 'POST', '/subscriptions/update', { token: p.admin, body: { items: [{ externalId: 'full', update: { timeseriesIds: { add: [p.s1.id] } } }] } }), { status: 400, fields: ['items[0].timeseriesIds'] }, 'one past the limit on update');
  t.equal((await call(t, 'POST', '/subscriptions/create', { token: p.admin, body: { items: [{ externalId: 'schema', name: 'x', timeseriesIds: [...ids, p.s1.id] }] } })).status >= 400, true, '10,001 ids in one list: refused by the schema');
});

t.test('a series bound to a subscription cannot be deleted (SPEC Errors)', async (t) => {
  const p = await tenant(t);
  const [sub] = (await ok(t, 'POST', '/subscriptions/create', p.admin, { items: [{ externalId: 'binds', name: 'b', timeseriesIds: [p.s1.id], dataSetId: p.A.id }] }, 201)).items;
  const res = await call(t, 'POST', '/timeseries/delete', { token: p.admin, body: { items: [{ id: p.s1.id }, { id: p.s2.id }] } });
  assertErrorBody(t, res, { status: 400, fields: ['items'] }, 'a bound series');
  t.match(res.body.error.fields[0], { type: 'subscription', subscriptionId: sub.id, subscriptionExternalId: 'binds', timeseriesId: p.s1.id });
  t.equal((await ok(t, 'POST', '/timeseries/byids', p.admin, { items: [{ id: p.s2.id }] })).items.length, 1, 'all-or-nothing: the other series stays');
  t.equal((await call(t, 'POST', '/timeseries/delete', { token: p.admin, body: { items: [{ id: p.sa.id }] } })).status, 204, 'a series covered only through the data set is not bound');
  await ok(t, 'POST', '/subscriptions/update', p.admin, { items: [{ id: sub.id, update: { timeseriesIds: { remove: [p.s1.id] } } }] });
  t.equal((await call(t, 'DELETE', '/timeseries/delete', { token: p.admin, body: { items: [{ id: p.s1.id }] } })).status, 204, 'deletable once removed');
});

t.test('tenants apart', async (t) => {
  const p = await tenant(t);
  await ok(t, 'POST', '/subscriptions/create', p.admin, { items: [{ externalId: 'mine', name: 'm' }] }, 201);
  const other = srv.token({ org: srv.newTenant() });
  t.same((await ok(t, 'POST', '/subscriptions/byids', other, { items: [{ externalId: 'mine' }] })).items, [], 'invisible to another tenant');
  t.same((await ok(t, 'POST', '/subscriptions/list', other, {})).items, [], 'not listed');
  await ok(t, 'POST', '/subscriptions/create', other, { items: [{ externalId: 'mine', name: 'theirs' }] }, 201);
  t.equal((await call(t, 'POST', '/subscriptions/delete', { token: other, body: { items: [{ externalId: 'mine' }] } })).status, 204);
  t.equal((await ok(t, 'POST', '/subscriptions/byids', p.admin, { items: [{ externalId: 'mine' }] })).items[0].name, 'm', 'their delete does not touch ours');
});
