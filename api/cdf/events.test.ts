// Goal: CDF's events routes work for the unmodified @cognite/sdk 10.5 over our event log:
// create (request order, numbers as ids, startTime/subtype/assetIds mapped), list with filter,
// sort and the SDK's own paging over several pages, retrieve with and without
// ignoreUnknownIds, search, update, delete, aggregate count and uniqueValues; what the log
// cannot carry is a 400 naming the field; a token limited to one data set sees nothing else
// (lists, byids, aggregates, errors); another project is a 403 and nothing is written.
// Method: one real server (real stores); the SDK client as a user configures it; raw requests
// where the wire matters; a fresh tenant per test.
import t from 'tap';
import { ROOMY_POLICY } from '../testing/datapoints-fixture.ts';
import { startTestServer } from '../testing/test-server.ts';
import { cdfClient, sdkFailure } from './testing/cdf-client.ts';

const srv = await startTestServer({ serviceConfig: ROOMY_POLICY });
t.teardown(() => srv.close());

type CdfEvent = { id: number; externalId: string; startTime: number; type?: string; subtype?: string; description?: string; assetIds: number[]; dataSetId?: number; metadata: Record<string, string>; createdTime: Date };

async function dataSet(org: string, externalId: string): Promise<number> {
  const res = await srv.request('POST', '/datasets/create', { token: srv.token({ org }), body: { items: [{ externalId, name: externalId }] } });
  return res.body.items[0].id as number;
}

async function rootResource(org: string, externalId: string): Promise<number> {
  const res = await srv.request('POST', '/resources/create', { token: srv.token({ org }), body: { nodes: [{ externalId, name: externalId, isRoot: true }] } });
  return res.body.items[0].id as number;
}

t.test('create, retrieve, list, search, update, delete and aggregate through the SDK', async (t) => {
  const org = srv.newTenant();
  const client = cdfClient(srv, { org });
  const pump = await rootResource(org, 'pump-1');
  const ds = await dataSet(org, 'ds-ops');
  const created: CdfEvent[] = await client.events.create([
    { externalId: 'wo-1', startTime: 1_000, type: 'work_order', subtype: 'planned', description: 'replace the pump seal', assetIds: [pump], dataSetId: ds, metadata: { crew: 'b' }, source: 'SAP' },
    { externalId: 'alarm-1', startTime: 2_000, endTime: 2_000, type: 'alarm', description: 'high pressure at the inlet' },
    { externalId: 'wo-2', startTime: 3_000, type: 'work_order', subtype: 'unplanned' },
  ]);
  t.strictSame(created.map((e) => e.externalId), ['wo-1', 'alarm-1', 'wo-2'], 'request order');
  for (const e of created) t.ok(Number.isSafeInteger(e.id) && e.id > 0, 'ids are JSON numbers');
  t.ok(created[0]?.createdTime instanceof Date, 'the SDK parsed createdTime (epoch ms)');
  t.match(created[0], { startTime: 1_000, type: 'work_order', subtype: 'planned', assetIds: [pump], dataSetId: ds, metadata: { crew: 'b' }, source: 'SAP' });
  const [wo1, alarm, wo2] = created as [CdfEvent, CdfEvent, CdfEvent];

  const got: CdfEvent[] = await client.events.retrieve([{ id: wo2.id }, { externalId: 'wo-1' }]);
  t.strictSame(got.map((e) => e.id), [wo2.id, wo1.id], 'byids in request order');
  t.match(await sdkFailure(client.events.retrieve([{ id: wo1.id }, { id: 987654321 }, { externalId: 'nope' }])),
    { status: 400, missing: [{ id: 987654321 }, { externalId: 'nope' }] });
  const wire = await srv.request('POST', `/api/v1/projects/${org}/events/byids`, { token: srv.token({ org }), body: { items: [{ id: 987654321 }, { externalId: 'nope' }] } });
  t.strictSame(wire.body, { error: { code: 400, message: 'Events not found: 987654321, nope', missing: [{ id: 987654321 }, { externalId: 'nope' }] } }, 'CDF error body');
  t.strictSame((await client.events.retrieve([{ id: 987654321 }, { id: alarm.id }], { ignoreUnknownIds: true })).map((e: CdfEvent) => e.id), [alarm.id]);

  const all: CdfEvent[] = (await client.events.list()).items;
  t.strictSame(all.map((e) => e.externalId), ['wo-1', 'alarm-1', 'wo-2'], 'default order: startTime ascending');
  const desc: CdfEvent[] = (await client.events.list({ sort: { startTime: 'desc' } })).items;
  t.strictSame(desc.map((e) => e.externalId), ['wo-2', 'alarm-1', 'wo-1']);
  const check = async (filter: Record<string, unknown>, expected: string[]) =>
    t.strictSame((await client.events.list({ filter })).items.map((e: CdfEvent) => e.externalId), expected, JSON.stringify(filter));
  await check({ type: 'work_order' }, ['wo-1', 'wo-2']);
  await check({ type: 'WORK_ORDER' }, []);
  await check({ subtype: 'unplanned' }, ['wo-2']);
  await check({ startTime: { min: 1_000, max: 2_000 } }, ['wo-1', 'alarm-1']);
  await check({ activeAtTime: { min: 2_500 } }, ['wo-2']);
  await check({ assetIds: [pump] }, ['wo-1']);
  await check({ assetExternalIds: ['pump-1'] }, ['wo-1']);
  await check({ dataSetIds: [{ id: ds }] }, ['wo-1']);
  await check({ dataSetIds: [{ externalId: 'ds-ops' }] }, ['wo-1']);
  await check({ metadata: { crew: 'b' } }, ['wo-1']);
  await check({ source: 'SAP' }, ['wo-1']);
  await check({ externalIdPrefix: 'wo-' }, ['wo-1', 'wo-2']);
  await check({ endTime: { isNull: true } }, ['wo-1', 'alarm-1', 'wo-2']);
  await check({ endTime: { min: 0 } }, []);

  const found: CdfEvent[] = await client.events.search({ search: { description: 'pressure!' } });
  t.strictSame(found.map((e) => e.id), [alarm.id], 'search over descriptions, punctuation ignored');

  const updated: CdfEvent[] = await client.events.update([
    { id: wo1.id, update: { subtype: { setNull: true }, startTime: { set: 1_500 }, metadata: { add: { shift: 'night' }, remove: ['crew'] }, assetIds: { remove: [pump] } } },
    { externalId: 'wo-2', update: { description: { set: 'done' }, dataSetId: { set: ds } } },
  ]);
  t.match(updated[0], { id: wo1.id, startTime: 1_500, metadata: { shift: 'night' }, assetIds: [] });
  t.notOk('subtype' in (updated[0] as object));
  t.match(updated[1], { id: wo2.id, description: 'done', dataSetId: ds });
  t.equal((await sdkFailure(client.events.update([{ id: 424242, update: { type: { set: 'x-type' } } }])))?.status, 400);
  t.strictSame((await sdkFailure(client.events.update([{ id: 424242, update: { type: { set: 'x-type' } } }])))?.missing, [{ id: 424242 }]);

  t.strictSame(await client.events.aggregate.count({}), [{ count: 3 }]);
  t.strictSame(await client.events.aggregate.count({ filter: { type: 'work_order' } }), [{ count: 2 }]);
  t.strictSame(await client.events.aggregate.uniqueValues({ fields: ['type'] }), [{ count: 2, value: 'work_order' }, { count: 1, value: 'alarm' }]);
  t.strictSame(await client.events.aggregate.uniqueValues({ fields: ['dataSetId'] }), [{ count: 2, value: ds }]);
  t.strictSame(await client.events.aggregate.uniqueValues({ fields: ['subtype'], filter: { type: 'work_order' } }), [{ count: 1, value: 'unplanned' }], 'wo-1 lost its subtype');

  await client.events.delete([{ id: alarm.id }]);
  t.strictSame((await sdkFailure(client.events.delete([{ id: alarm.id }])))?.missing, [{ id: alarm.id }], 'a deleted id is missing');
  // The SDK's events.delete sends no ignoreUnknownIds; CDF's route takes it.
  const ignoring = await srv.request('POST', `/api/v1/projects/${org}/events/delete`, { token: srv.token({ org }), body: { items: [{ id: alarm.id }, { externalId: 'wo-2' }], ignoreUnknownIds: true } });
  t.equal(ignoring.status, 200);
  t.strictSame((await client.events.list()).items.map((e: CdfEvent) => e.externalId), ['wo-1']);
});

t.test('an externalId is a correlation key: many events share it, byids and delete reach them all', async (t) => {
  const org = srv.newTenant();
  const client = cdfClient(srv, { org });
  const [first, second] = await client.events.create([{ externalId: 'pump-7', startTime: 20, type: 'alarm' }, { externalId: 'pump-7', startTime: 10, type: 'cleared' }]) as CdfEvent[];
  t.not(first?.id, second?.id, 'two events, no 409');
  t.strictSame((await client.events.retrieve([{ externalId: 'pump-7' }])).map((e: CdfEvent) => e.id), [second?.id, first?.id], 'every event under it, by startTime');
  t.strictSame((await client.events.retrieve([{ id: first?.id }])).map((e: CdfEvent) => e.type), ['alarm'], 'an id names one');
  await client.events.delete([{ externalId: 'pump-7' }]);
  t.strictSame((await client.events.list()).items, []);
});

t.test('an event named twice in one update or delete is a 422 listing it; nothing changes', async (t) => {
  const org = srv.newTenant();
  const client = cdfClient(srv, { org });
  const [event] = await client.events.create([{ externalId: 'evt-1', startTime: 10, type: 'alarm' }]) as CdfEvent[];
  const update = await sdkFailure(client.events.update([{ id: event?.id, update: { type: { set: 'trip' } } }, { id: event?.id, update: { type: { set: 'reset' } } }]));
  t.match(update, { status: 422, duplicated: [{ id: event?.id }] });
  const remove = await sdkFailure(client.events.delete([{ externalId: 'evt-1' }, { externalId: 'evt-1' }]));
  t.match(remove, { status: 422, duplicated: [{ externalId: 'evt-1' }] });
  t.strictSame((await client.events.list()).items.map((e: CdfEvent) => e.type), ['alarm'], 'not updated, not deleted');
});

t.test('list().autoPagingToArray({limit: -1}) follows nextCursor over several pages', async (t) => {
  const org = srv.newTenant();
  const client = cdfClient(srv, { org });
  const items = Array.from({ length: 250 }, (_, k) => ({ externalId: `e-${String(k).padStart(3, '0')}`, startTime: 10_000 + k }));
  await client.events.create(items);
  const every: CdfEvent[] = await client.events.list({ limit: 100 }).autoPagingToArray({ limit: -1 });
  t.equal(every.length, 250);
  t.strictSame(every.map((e) => e.externalId), items.map((i) => i.externalId), 'each once, in startTime order');
  const first = await srv.request('POST', `/api/v1/projects/${org}/events/list`, { token: srv.token({ org }), body: { sort: [], limit: 100 } });
  t.type(first.body.nextCursor, 'string', 'top-level nextCursor');
  t.type(first.body.items[0].id, 'number');
});

t.test('what the event log cannot carry, and bad input, are 400s in CDF form naming the field', async (t) => {
  const org = srv.newTenant();
  const client = cdfClient(srv, { org });
  const check = async (items: unknown[], field: RegExp) => {
    const failure = await sdkFailure(client.events.create(items));
    t.equal(failure?.status, 400, JSON.stringify(items));
    t.match(failure?.message, field);
  };
  await check([{ externalId: 'e-1', startTime: 1, endTime: 5 }], /items\.0\.endTime/);
  await check([{ startTime: 1 }], /items\.0\.externalId/);
  await check([{ externalId: 'e-1' }], /items\.0\.startTime/);
  await check([{ externalId: 'e-1', startTime: 1, colour: 'red' }], /colour/);
  await check([{ externalId: 'e-1', startTime: 1, assetIds: [777] }], /relatedResources|assetIds|resource/);
  t.equal((await sdkFailure(client.events.update([{ externalId: 'e-1', update: { endTime: { set: 3 } } }])))?.status, 400);
  t.match((await sdkFailure(client.events.list({ filter: { assetSubtreeIds: [{ id: 1 }] } }).autoPagingToArray()))?.message, /assetSubtreeIds/);
  t.match((await sdkFailure(client.events.list({ sort: { type: 'asc' } }).autoPagingToArray()))?.message, /sort/);
  const raw = await srv.request('POST', `/api/v1/projects/${org}/events`, { token: srv.token({ org }), body: { items: [{ externalId: 'e-1', startTime: 1, endTime: 2 }] } });
  t.equal(raw.status, 400);
  t.strictSame(Object.keys(raw.body), ['error']);
  t.equal(raw.body.error.code, 400);
  t.strictSame((await client.events.list()).items, [], 'nothing was written');
});

t.test('a token limited to one data set sees only its events: lists, byids, aggregates, errors', async (t) => {
  const org = srv.newTenant();
  const admin = cdfClient(srv, { org });
  const open = await dataSet(org, 'ds-open');
  const hidden = await dataSet(org, 'ds-hidden');
  const [seen, unseen] = await admin.events.create([
    { externalId: 'seen', startTime: 1, type: 'visible', dataSetId: open },
    { externalId: 'unseen', startTime: 2, type: 'secret', dataSetId: hidden },
  ]) as CdfEvent[];
  const limited = cdfClient(srv, { org, read: ['ds-open'], write: ['ds-open'] });
  t.strictSame((await limited.events.list()).items.map((e: CdfEvent) => e.id), [seen?.id]);
  t.strictSame(await limited.events.aggregate.count({}), [{ count: 1 }]);
  t.strictSame(await limited.events.aggregate.uniqueValues({ fields: ['type'] }), [{ count: 1, value: 'visible' }]);
  const failure = await sdkFailure(limited.events.retrieve([{ id: unseen?.id }]));
  t.strictSame(failure?.missing, [{ id: unseen?.id }], 'an unreadable id is reported as an unknown one');
  const byids = (id: number | undefined) => srv.request('POST', `/api/v1/projects/${org}/events/byids`, { token: srv.token({ org, read: ['ds-open'], write: ['ds-open'] }), body: { items: [{ id }] } });
  const [unreadable, unknown] = [await byids(unseen?.id), await byids(99999999)];
  t.equal(unreadable.status, unknown.status);
  t.equal(unreadable.body.error.message.replace(String(unseen?.id), 'X'), unknown.body.error.message.replace('99999999', 'X'), 'the same words as an unknown id');
  t.strictSame(await limited.events.retrieve([{ id: unseen?.id }], { ignoreUnknownIds: true }), []);
  t.strictSame(await limited.events.search({ search: { description: 'secret' } }), []);
  t.strictSame((await sdkFailure(limited.events.delete([{ externalId: 'unseen' }])))?.missing, [{ externalId: 'unseen' }]);
  t.equal((await sdkFailure(limited.events.create([{ externalId: 'sneak', startTime: 3, dataSetId: hidden }])))?.status, 403);
  t.equal((await admin.events.list()).items.length, 2, 'nothing removed or added');
});

t.test('another project is a 403 and nothing is written', async (t) => {
  const org = srv.newTenant();
  const other = srv.newTenant();
  const wrong = cdfClient(srv, { org, project: other });
  t.equal((await sdkFailure(wrong.events.create([{ externalId: 'x-1', startTime: 1 }])))?.status, 403);
  t.equal((await sdkFailure(wrong.events.list().autoPagingToArray()))?.status, 403);
  t.strictSame((await cdfClient(srv, { org }).events.list()).items, []);
  t.strictSame((await cdfClient(srv, { org: other }).events.list()).items, []);
});
