// Goal: the unmodified @cognite/sdk 10.5 manages data sets (create, list with the SDK's own
// paging, retrieve with and without ignoreUnknownIds, update, aggregate count) and labels
// (create, list by name and externalId prefix with paging, delete); a token limited to one
// data set sees no other (lists, counts, byids and errors); a wrong project is a 403 that
// writes nothing; errors are CDF's body with `missing` and `duplicated`.
// Method: one real server, a fresh tenant per test, the SDK as a user configures it
// (cdfClient), raw requests where the wire matters.
import t from 'tap';
import { startTestServer } from '../testing/test-server.ts';
import { ROOMY_POLICY } from '../testing/datapoints-fixture.ts';
import { cdfClient, sdkFailure } from './testing/cdf-client.ts';

const srv = await startTestServer({ serviceConfig: ROOMY_POLICY });
t.teardown(() => srv.close());

type DataSet = { id: number; externalId: string; name?: string; description?: string; metadata: Record<string, string>; writeProtected: boolean; createdTime: Date; lastUpdatedTime: Date };
type Label = { externalId: string; name: string; description?: string; createdTime: Date };

t.test('data sets: create in request order, list with paging and filters, aggregate', async (t) => {
  const org = srv.newTenant();
  const client = cdfClient(srv, { org });
  const created: DataSet[] = await client.datasets.create([
    { externalId: 'plant-b', name: 'Plant B', description: 'b', metadata: { site: 'north' } },
    { externalId: 'plant-a', name: 'Plant A', writeProtected: false },
    { externalId: 'lab', metadata: { site: 'south' } },
  ]);
  t.strictSame(created.map((d) => d.externalId), ['plant-b', 'plant-a', 'lab'], 'request order');
  t.ok(created.every((d) => typeof d.id === 'number' && d.createdTime instanceof Date && d.writeProtected === false));
  t.equal(created[2]?.name, undefined, 'no name given: none shown');
  t.strictSame(created[0]?.metadata, { site: 'north' });
  await client.datasets.create(Array.from({ length: 7 }, (_, i) => ({ externalId: `extra-${i}`, name: `extra ${i}` })));
  const all = await client.datasets.list({ limit: 3 }).autoPagingToArray({ limit: -1 });
  t.equal(all.length, 10, 'every data set through four pages');
  const first = await client.datasets.list({ limit: 3 });
  t.type(first.nextCursor, 'string', 'top-level nextCursor');
  const names = async (filter: object) => (await client.datasets.list({ filter }).autoPagingToArray({ limit: -1 })).map((d: DataSet) => d.externalId).sort();
  t.strictSame(await names({ externalIdPrefix: 'plant-' }), ['plant-a', 'plant-b']);
  t.strictSame(await names({ metadata: { site: 'south' } }), ['lab']);
  t.strictSame(await names({ createdTime: { min: created[0]?.createdTime.getTime(), max: created[0]?.createdTime.getTime() } }), ['lab', 'plant-a', 'plant-b']);
  t.strictSame(await names({ writeProtected: true }), [], 'no data set is write-protected');
  t.equal((await names({ writeProtected: false })).length, 10);
  t.strictSame(await client.datasets.aggregate({}), [{ count: 10 }]);
  t.strictSame(await client.datasets.aggregate({ filter: { externalIdPrefix: 'extra-' } }), [{ count: 7 }]);
  t.strictSame(await client.datasets.aggregate({ filter: { metadata: { site: 'north' } } }), [{ count: 1 }]);
});

t.test('data sets: the refusals in CDF form', async (t) => {
  const org = srv.newTenant();
  const client = cdfClient(srv, { org });
  await client.datasets.create([{ externalId: 'taken', name: 't' }]);
  const taken = await sdkFailure(client.datasets.create([{ externalId: 'taken' }, { externalId: 'fresh' }]));
  t.strictSame([taken?.status, taken?.duplicated], [409, [{ externalId: 'taken' }]]);
  const twice = await sdkFailure(client.datasets.create([{ externalId: 'twice' }, { externalId: 'twice' }]));
  t.strictSame([twice?.status, twice?.duplicated], [422, [{ externalId: 'twice' }]]);
  const noExternalId = await sdkFailure(client.datasets.create([{ name: 'n' }]));
  t.equal(noExternalId?.status, 400);
  t.match(noExternalId?.message, /items\[0\]\.externalId/);
  const protectedOne = await sdkFailure(client.datasets.create([{ externalId: 'p', writeProtected: true }]));
  t.equal(protectedOne?.status, 400);
  t.match(protectedOne?.message, /writeProtected/);
  const raw = await srv.request('POST', `/api/v1/projects/${org}/datasets/byids`, { token: srv.token({ org }), body: { items: [{ externalId: 'nope' }] } });
  t.strictSame(raw.body, { error: { code: 400, message: raw.body.error.message, missing: [{ externalId: 'nope' }] } }, 'CDF error body');
  t.strictSame(await client.datasets.aggregate({}), [{ count: 1 }], 'nothing else was written');
});

t.test('data sets: retrieve and update', async (t) => {
  const org = srv.newTenant();
  const client = cdfClient(srv, { org });
  const [a, b] = await client.datasets.create([{ externalId: 'a', name: 'A', description: 'd', metadata: { x: '1', y: '2' } }, { externalId: 'b', name: 'B' }]);
  t.strictSame((await client.datasets.retrieve([{ externalId: 'b' }, { id: a.id }])).map((d: DataSet) => d.id), [b.id, a.id], 'request order');
  const missing = await sdkFailure(client.datasets.retrieve([{ id: a.id }, { externalId: 'nope' }]));
  t.strictSame([missing?.status, missing?.missing], [400, [{ externalId: 'nope' }]]);
  t.strictSame((await client.datasets.retrieve([{ externalId: 'nope' }, { id: a.id }], { ignoreUnknownIds: true })).map((d: DataSet) => d.id), [a.id]);
  const [updated] = await client.datasets.update([{ id: a.id, update: { name: { set: 'A2' }, description: { setNull: true }, metadata: { add: { z: '3' }, remove: ['x'] }, externalId: { set: 'a2' }, writeProtected: { set: false } } }]);
  t.equal(updated.name, 'A2');
  t.equal(updated.externalId, 'a2');
  t.equal(updated.description, undefined);
  t.strictSame(updated.metadata, { y: '2', z: '3' });
  const [again] = await client.datasets.update([{ externalId: 'a2', update: { metadata: { set: { only: 'this' } } } }]);
  t.strictSame(again.metadata, { only: 'this' });
  const unknown = await sdkFailure(client.datasets.update([{ externalId: 'nope', update: { name: { set: 'n' } } }]));
  t.strictSame([unknown?.status, unknown?.missing], [400, [{ externalId: 'nope' }]]);
  const taken = await sdkFailure(client.datasets.update([{ id: a.id, update: { externalId: { set: 'b' } } }]));
  t.strictSame([taken?.status, taken?.duplicated], [409, [{ externalId: 'b' }]]);
  const twice = await sdkFailure(client.datasets.update([{ id: b.id, update: { name: { set: '1' } } }, { id: b.id, update: { name: { set: '2' } } }]));
  t.strictSame([twice?.status, twice?.duplicated], [422, [{ id: b.id }]]);
  t.equal((await sdkFailure(client.datasets.update([{ id: b.id, update: { writeProtected: { set: true } } }])))?.status, 400);
});

t.test('data sets: a token limited to one data set sees no other', async (t) => {
  const org = srv.newTenant();
  const admin = cdfClient(srv, { org });
  const [mine, other] = await admin.datasets.create([{ externalId: 'mine', name: 'm' }, { externalId: 'other', name: 'o' }]);
  const limited = cdfClient(srv, { org, read: ['mine'], write: ['mine'] });
  t.strictSame((await limited.datasets.list().autoPagingToArray({ limit: -1 })).map((d: DataSet) => d.id), [mine.id]);
  t.strictSame(await limited.datasets.aggregate({}), [{ count: 1 }]);
  const byids = await sdkFailure(limited.datasets.retrieve([{ id: mine.id }, { id: other.id }]));
  t.strictSame([byids?.status, byids?.missing], [400, [{ id: other.id }]], 'an unreadable data set is reported as an unknown one');
  const update = await sdkFailure(limited.datasets.update([{ externalId: 'other', update: { name: { set: 'x' } } }]));
  t.strictSame([update?.status, update?.missing], [400, [{ externalId: 'other' }]]);
  t.equal((await sdkFailure(limited.datasets.create([{ externalId: 'root' }])))?.status, 403, 'a root data set needs write access to every data set');
  t.equal((await admin.datasets.retrieve([{ id: other.id }]))[0]?.name, 'o', 'untouched');
});

t.test('labels: create, list by name and prefix with paging, delete', async (t) => {
  const org = srv.newTenant();
  const client = cdfClient(srv, { org });
  const created: Label[] = await client.labels.create([
    { externalId: 'pump', name: 'Pump', description: 'a pump' },
    { externalId: 'valve', name: 'Valve' },
    ...Array.from({ length: 5 }, (_, i) => ({ externalId: `pump-${i}`, name: `Pump ${i}` })),
  ]);
  t.strictSame(created.slice(0, 2).map((l) => l.externalId), ['pump', 'valve'], 'request order');
  t.ok(created[0]?.createdTime instanceof Date);
  t.equal(created[0]?.description, 'a pump');
  const all = await client.labels.list({ limit: 2 }).autoPagingToArray({ limit: -1 });
  t.equal(all.length, 7, 'every label through four pages');
  t.strictSame((await client.labels.list({ filter: { externalIdPrefix: 'pump-' } }).autoPagingToArray({ limit: -1 })).map((l: Label) => l.externalId), ['pump-0', 'pump-1', 'pump-2', 'pump-3', 'pump-4']);
  t.strictSame((await client.labels.list({ filter: { name: 'Valve' } }).autoPagingToArray({ limit: -1 })).map((l: Label) => l.externalId), ['valve']);
  const taken = await sdkFailure(client.labels.create([{ externalId: 'pump', name: 'again' }]));
  t.strictSame([taken?.status, taken?.duplicated], [409, [{ externalId: 'pump' }]]);
  const twice = await sdkFailure(client.labels.create([{ externalId: 'new', name: 'n' }, { externalId: 'new', name: 'n' }]));
  t.strictSame([twice?.status, twice?.duplicated], [422, [{ externalId: 'new' }]]);
  const withDataSet = await sdkFailure(client.labels.create([{ externalId: 'ds', name: 'n', dataSetId: 1 }]));
  t.equal(withDataSet?.status, 400);
  t.match(withDataSet?.message, /dataSetId/);
  t.equal((await sdkFailure(client.labels.list({ filter: { dataSetIds: [{ id: 1 }] } })))?.status, 400);
  await client.labels.delete([{ externalId: 'valve' }, { externalId: 'pump-0' }]);
  t.strictSame((await client.labels.list().autoPagingToArray({ limit: -1 })).map((l: Label) => l.externalId), ['pump', 'pump-1', 'pump-2', 'pump-3', 'pump-4']);
});

t.test('a wrong project is a 403 and nothing is created', async (t) => {
  const org = srv.newTenant();
  const wrong = cdfClient(srv, { org, project: srv.newTenant() });
  t.equal((await sdkFailure(wrong.datasets.create([{ externalId: 'x' }])))?.status, 403);
  t.equal((await sdkFailure(wrong.labels.create([{ externalId: 'x', name: 'x' }])))?.status, 403);
  t.equal((await sdkFailure(wrong.datasets.list().autoPagingToArray({ limit: -1 })))?.status, 403);
  t.equal((await sdkFailure(wrong.labels.delete([{ externalId: 'x' }])))?.status, 403);
  const right = cdfClient(srv, { org });
  t.strictSame(await right.datasets.aggregate({}), [{ count: 0 }]);
  t.strictSame(await right.labels.list().autoPagingToArray({ limit: -1 }), []);
});
