// Goal: the unmodified @cognite/sdk 10.5 manages time series here: create (request order, ids
// as numbers, times as epoch ms, isString and isStep), list with a filter and the SDK's own
// cursor paging, GET /timeseries, retrieve with and without ignoreUnknownIds, search, update
// with every verb, delete, aggregate count; a token limited to one data set sees nothing else
// (lists, byids, errors); a wrong project is a 403 that writes nothing; errors are CDF's body
// with `missing` and `duplicated`; SPEC's surface never shows isStep.
// Method: one real server (ROOMY_POLICY: many requests), a fresh tenant per test, the SDK as a
// user configures it (cdfClient), raw requests where the wire matters.
import t from 'tap';
import { startTestServer } from '../testing/test-server.ts';
import { ROOMY_POLICY } from '../testing/datapoints-fixture.ts';
import { cdfClient, sdkFailure } from './testing/cdf-client.ts';

const srv = await startTestServer({ serviceConfig: ROOMY_POLICY });
t.teardown(() => srv.close());

type Series = { id: number; externalId: string; name?: string; isString: boolean; isStep: boolean; unit?: string; metadata: Record<string, string>; dataSetId?: number; description?: string; createdTime: Date; lastUpdatedTime: Date };

async function dataSet(org: string, externalId: string): Promise<number> {
  const res = await srv.request('POST', '/datasets/create', { token: srv.token({ org }), body: { items: [{ externalId, name: externalId }] } });
  return res.body.items[0].id as number;
}

t.test('create: request order, numbers and dates, isString and isStep, defaults', async (t) => {
  const org = srv.newTenant();
  const client = cdfClient(srv, { org });
  const before = Date.now();
  const created: Series[] = await client.timeseries.create([
    { externalId: 'b', name: 'B', isString: true, description: 'text', metadata: { k: 'v' } },
    { externalId: 'a', isStep: true, unit: 'm' },
    { externalId: 'c', name: 'C', isString: false, isStep: false, legacyName: 'ignored' },
  ]);
  t.strictSame(created.map((s) => s.externalId), ['b', 'a', 'c'], 'request order');
  t.ok(created.every((s) => typeof s.id === 'number'), 'ids are numbers');
  t.ok(created.every((s) => s.createdTime instanceof Date && s.createdTime.getTime() >= before), 'createdTime parsed as a date from epoch ms');
  t.strictSame(created.map((s) => [s.isString, s.isStep]), [[true, false], [false, true], [false, false]]);
  t.equal(created[0]?.name, 'B');
  t.equal(created[1]?.name, undefined, 'no name given: none shown');
  t.equal(created[1]?.unit, 'm');
  t.strictSame(created[0]?.metadata, { k: 'v' });
  const raw = await srv.request('POST', `/api/v1/projects/${org}/timeseries/byids`, { token: srv.token({ org }), body: { items: [{ externalId: 'a' }] } });
  t.type(raw.body.items[0].createdTime, 'number', 'epoch ms on the wire');
  t.notOk('valueType' in raw.body.items[0] || 'labels' in raw.body.items[0], 'CDF form only');
  const spec = await srv.request('POST', '/timeseries/byids', { token: srv.token({ org }), body: { items: [{ externalId: 'a' }, { externalId: 'b' }] } });
  t.strictSame(spec.body.items.map((s: { valueType: string }) => s.valueType), ['FLOAT', 'TEXT'], 'SPEC sees FLOAT and TEXT');
  t.notOk(spec.body.items.some((s: object) => 'isStep' in s), 'SPEC never shows isStep');
  const specCreate = await srv.request('POST', '/timeseries/create', { token: srv.token({ org }), body: { items: [{ externalId: 'x', name: 'x', valueType: 'FLOAT', isStep: true }] } });
  t.equal(specCreate.status, 400, 'SPEC does not accept isStep');
});

t.test('create: the refusals in CDF form', async (t) => {
  const org = srv.newTenant();
  const client = cdfClient(srv, { org });
  await client.timeseries.create([{ externalId: 'taken' }]);
  const check = async (items: object[], status: number, field: { missing?: unknown; duplicated?: unknown; message?: RegExp }) => {
    const failure = await sdkFailure(client.timeseries.create(items));
    t.equal(failure?.status, status, JSON.stringify(items));
    if (field.duplicated) t.strictSame(failure?.duplicated, field.duplicated);
    if (field.message) t.match(failure?.message, field.message);
  };
  await check([{ externalId: 'taken' }, { externalId: 'new' }], 409, { duplicated: [{ externalId: 'taken' }] });
  await check([{ externalId: 'twice' }, { externalId: 'twice' }], 422, { duplicated: [{ externalId: 'twice' }] });
  await check([{ name: 'no externalId' }], 400, { message: /items\[0\]\.externalId/ });
  await check([{ externalId: 'asset', assetId: 5 }], 400, { message: /assetId/ });
  await check([{ externalId: 'sec', securityCategories: [1] }], 400, { message: /securityCategories/ });
  await check([{ externalId: 'unknown-field', color: 'red' }], 400, {});
  const raw = await srv.request('POST', `/api/v1/projects/${org}/timeseries`, { token: srv.token({ org }), body: { items: [{ externalId: 'taken' }] } });
  t.strictSame(raw.body, { error: { code: 409, message: raw.body.error.message, duplicated: [{ externalId: 'taken' }] } }, 'CDF error body');
  const listed = await client.timeseries.list().autoPagingToArray({ limit: -1 });
  t.strictSame(listed.map((s: Series) => s.externalId), ['taken'], 'nothing else was written');
});

t.test('list: filters, the SDK paging over several pages, GET /timeseries', async (t) => {
  const org = srv.newTenant();
  const ds = await dataSet(org, 'ds');
  const client = cdfClient(srv, { org });
  const items = Array.from({ length: 25 }, (_, i) => ({ externalId: `s-${String(i).padStart(2, '0')}`, name: `series ${i}`, isStep: i % 5 === 0, isString: i % 10 === 1, ...(i < 3 ? { dataSetId: ds } : {}), metadata: { parity: i % 2 ? 'odd' : 'even' } }));
  await client.timeseries.create(items);
  const all = await client.timeseries.list({ limit: 4 }).autoPagingToArray({ limit: -1 });
  t.equal(all.length, 25, 'every series through seven pages');
  t.equal(new Set(all.map((s: Series) => s.id)).size, 25, 'no repeats');
  const first = await client.timeseries.list({ limit: 4 });
  t.equal(first.items.length, 4);
  t.type(first.nextCursor, 'string', 'top-level nextCursor');
  const names = async (filter: object) => (await client.timeseries.list({ filter }).autoPagingToArray({ limit: -1 })).map((s: Series) => s.externalId).sort();
  t.strictSame(await names({ isStep: true }), ['s-00', 's-05', 's-10', 's-15', 's-20']);
  t.strictSame(await names({ isString: true }), ['s-01', 's-11', 's-21']);
  t.strictSame(await names({ externalIdPrefix: 's-1' }), ['s-10', 's-11', 's-12', 's-13', 's-14', 's-15', 's-16', 's-17', 's-18', 's-19']);
  t.strictSame(await names({ name: 'series 7' }), ['s-07'], 'name is exact');
  t.strictSame(await names({ dataSetIds: [{ id: ds }] }), ['s-00', 's-01', 's-02']);
  t.strictSame(await names({ dataSetIds: [{ externalId: 'ds' }], metadata: { parity: 'odd' } }), ['s-01']);
  t.equal((await sdkFailure(client.timeseries.list({ filter: { assetIds: [1] } })))?.status, 400, 'asset filters are refused');
  const token = srv.token({ org });
  const got = await srv.request('GET', `/api/v1/projects/${org}/timeseries?limit=10`, { token });
  t.equal(got.status, 200);
  t.equal(got.body.items.length, 10);
  const rest = await srv.request('GET', `/api/v1/projects/${org}/timeseries?limit=100&cursor=${encodeURIComponent(got.body.nextCursor)}`, { token });
  t.equal(rest.body.items.length, 15);
  t.notOk('nextCursor' in rest.body, 'the last page has no nextCursor');
  const bare = await srv.request('GET', `/api/v1/projects/${org}/timeseries?limit=1&includeMetadata=false`, { token });
  t.notOk('metadata' in bare.body.items[0], 'includeMetadata=false leaves metadata out');
  t.equal((await srv.request('GET', `/api/v1/projects/${org}/timeseries?limit=5000`, { token })).status, 400, 'CDF caps a page at 1000');
});

t.test('retrieve: request order, ignoreUnknownIds, missing listed', async (t) => {
  const org = srv.newTenant();
  const client = cdfClient(srv, { org });
  const [a, b] = await client.timeseries.create([{ externalId: 'a' }, { externalId: 'b' }]);
  const got = await client.timeseries.retrieve([{ externalId: 'b' }, { id: a.id }]);
  t.strictSame(got.map((s: Series) => s.id), [b.id, a.id]);
  const failure = await sdkFailure(client.timeseries.retrieve([{ externalId: 'a' }, { externalId: 'nope' }, { id: 9_000_000_000 }]));
  t.equal(failure?.status, 400);
  t.strictSame(failure?.missing, [{ externalId: 'nope' }, { id: 9_000_000_000 }]);
  const ignoring = await client.timeseries.retrieve([{ externalId: 'nope' }, { externalId: 'a' }], { ignoreUnknownIds: true });
  t.strictSame(ignoring.map((s: Series) => s.externalId), ['a']);
});

t.test('search: name, description, query, with a filter', async (t) => {
  const org = srv.newTenant();
  const client = cdfClient(srv, { org });
  await client.timeseries.create([
    { externalId: 'p1', name: 'Pump pressure', description: 'outlet of the feed pump' },
    { externalId: 't1', name: 'Tank level', description: 'level in tank one', isStep: true },
    { externalId: 't2', name: 'Tank temperature', description: 'temperature of tank two' },
  ]);
  const ids = (items: Series[]) => items.map((s) => s.externalId).sort();
  t.strictSame(ids(await client.timeseries.search({ search: { name: 'pump' } })), ['p1']);
  t.strictSame(ids(await client.timeseries.search({ search: { description: 'temperature' } })), ['t2']);
  t.strictSame(ids(await client.timeseries.search({ search: { query: 'tank' } })), ['t1', 't2']);
  t.strictSame(ids(await client.timeseries.search({ search: { query: 'tank' }, filter: { isStep: true } })), ['t1']);
  t.strictSame(ids(await client.timeseries.search({ filter: { isStep: false } })), ['p1', 't2'], 'a filter alone');
});

t.test('update: set, setNull, add, remove, isStep; missing and repeats', async (t) => {
  const org = srv.newTenant();
  const ds = await dataSet(org, 'ds');
  const client = cdfClient(srv, { org });
  const [a] = await client.timeseries.create([{ externalId: 'a', name: 'A', description: 'd', unit: 'm', metadata: { x: '1', y: '2' } }, { externalId: 'b' }]);
  const [updated] = await client.timeseries.update([{ id: a.id, update: {
    name: { set: 'A2' }, description: { setNull: true }, unit: { setNull: true }, isStep: { set: true },
    metadata: { add: { z: '3' }, remove: ['x'] }, dataSetId: { set: ds }, externalId: { set: 'a2' },
  } }]);
  t.equal(updated.name, 'A2');
  t.equal(updated.externalId, 'a2');
  t.equal(updated.description, undefined);
  t.equal(updated.unit, undefined);
  t.equal(updated.isStep, true);
  t.equal(updated.dataSetId, ds);
  t.strictSame(updated.metadata, { y: '2', z: '3' });
  t.ok(updated.lastUpdatedTime instanceof Date);
  const [again] = await client.timeseries.update([{ externalId: 'a2', update: { metadata: { set: { only: 'this' } }, dataSetId: { setNull: true }, isStep: { set: false } } }]);
  t.strictSame(again.metadata, { only: 'this' });
  t.equal(again.dataSetId, undefined);
  t.equal(again.isStep, false);
  const missing = await sdkFailure(client.timeseries.update([{ externalId: 'nope', update: { name: { set: 'n' } } }]));
  t.equal(missing?.status, 400);
  t.strictSame(missing?.missing, [{ externalId: 'nope' }]);
  const twice = await sdkFailure(client.timeseries.update([{ id: a.id, update: { name: { set: '1' } } }, { id: a.id, update: { name: { set: '2' } } }]));
  t.equal(twice?.status, 422);
  t.strictSame(twice?.duplicated, [{ id: a.id }]);
  const taken = await sdkFailure(client.timeseries.update([{ id: a.id, update: { externalId: { set: 'b' } } }]));
  t.equal(taken?.status, 409);
  t.strictSame(taken?.duplicated, [{ externalId: 'b' }]);
  t.equal((await sdkFailure(client.timeseries.update([{ id: a.id, update: { assetId: { set: 1 } } }])))?.status, 400, 'assetId is refused');
});

t.test('delete with and without ignoreUnknownIds; aggregate count', async (t) => {
  const org = srv.newTenant();
  const client = cdfClient(srv, { org });
  await client.timeseries.create([{ externalId: 'a' }, { externalId: 'b', isStep: true }, { externalId: 'c', isStep: true }, { externalId: 'd' }]);
  t.strictSame(await client.timeseries.aggregate({}), [{ count: 4 }]);
  t.strictSame(await client.timeseries.aggregate({ filter: { isStep: true } }), [{ count: 2 }]);
  const failure = await sdkFailure(client.timeseries.delete([{ externalId: 'a' }, { externalId: 'nope' }]));
  t.equal(failure?.status, 400);
  t.strictSame(failure?.missing, [{ externalId: 'nope' }]);
  t.strictSame(await client.timeseries.aggregate({}), [{ count: 4 }], 'nothing deleted');
  const twice = await sdkFailure(client.timeseries.delete([{ externalId: 'a' }, { externalId: 'a' }]));
  t.equal(twice?.status, 422);
  t.strictSame(twice?.duplicated, [{ externalId: 'a' }]);
  await client.timeseries.delete([{ externalId: 'a' }]);
  const raw = await srv.request('POST', `/api/v1/projects/${org}/timeseries/delete`, { token: srv.token({ org }), body: { items: [{ externalId: 'b' }, { externalId: 'nope' }], ignoreUnknownIds: true } });
  t.equal(raw.status, 200);
  t.strictSame(raw.body, {});
  t.strictSame(await client.timeseries.aggregate({}), [{ count: 2 }]);
});

t.test('grants: a token limited to one data set sees nothing else', async (t) => {
  const org = srv.newTenant();
  const mine = await dataSet(org, 'mine');
  const other = await dataSet(org, 'other');
  const admin = cdfClient(srv, { org });
  const [inMine, inOther] = await admin.timeseries.create([{ externalId: 'in-mine', name: 'hidden pump', dataSetId: mine }, { externalId: 'in-other', name: 'hidden pump', dataSetId: other }]);
  const limited = cdfClient(srv, { org, read: ['mine'], write: ['mine'] });
  t.strictSame((await limited.timeseries.list().autoPagingToArray({ limit: -1 })).map((s: Series) => s.externalId), ['in-mine']);
  t.strictSame(await limited.timeseries.aggregate({}), [{ count: 1 }]);
  t.strictSame((await limited.timeseries.search({ search: { query: 'hidden pump' } })).map((s: Series) => s.externalId), ['in-mine']);
  const byids = await sdkFailure(limited.timeseries.retrieve([{ id: inOther.id }, { id: inMine.id }]));
  t.equal(byids?.status, 400);
  t.strictSame(byids?.missing, [{ id: inOther.id }], 'an unreadable series is reported as an unknown one');
  const update = await sdkFailure(limited.timeseries.update([{ externalId: 'in-other', update: { name: { set: 'x' } } }]));
  t.strictSame([update?.status, update?.missing], [400, [{ externalId: 'in-other' }]]);
  const del = await sdkFailure(limited.timeseries.delete([{ externalId: 'in-other' }]));
  t.strictSame([del?.status, del?.missing], [400, [{ externalId: 'in-other' }]]);
  t.equal((await sdkFailure(limited.timeseries.create([{ externalId: 'x', dataSetId: other }])))?.status, 403, 'no write grant on the other data set');
  t.strictSame((await admin.timeseries.retrieve([{ externalId: 'in-other' }])).map((s: Series) => s.name), ['hidden pump'], 'untouched');
});

t.test('a wrong project is a 403 and nothing is created', async (t) => {
  const org = srv.newTenant();
  const elsewhere = srv.newTenant();
  const wrong = cdfClient(srv, { org, project: elsewhere });
  const failure = await sdkFailure(wrong.timeseries.create([{ externalId: 'x' }]));
  t.equal(failure?.status, 403);
  t.equal((await sdkFailure(wrong.timeseries.list().autoPagingToArray({ limit: -1 })))?.status, 403);
  const right = cdfClient(srv, { org });
  t.strictSame(await right.timeseries.aggregate({}), [{ count: 0 }], 'nothing created in the token\'s tenant');
});
