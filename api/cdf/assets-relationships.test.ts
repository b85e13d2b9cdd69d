// Goal: CDF's assets and relationships routes work for the unmodified @cognite/sdk 10.5 over
// our resources and edges: assets.create with a parent chain given child-first (the SDK sorts
// it and expects the answer in request order), list with filters and the SDK's paging over
// several pages, retrieve, search, update, delete with recursive; relationships create, list,
// retrieve and delete over edges. What our model cannot carry is a 400 naming the field; a
// token limited to one data set sees nothing else (lists, byids, errors); another project is a
// 403 and nothing is written.
// Method: one real server (real stores); the SDK client as a user configures it; raw requests
// where the wire matters; a fresh tenant per test.
import t from 'tap';
import { ROOMY_POLICY } from '../testing/datapoints-fixture.ts';
import { startTestServer } from '../testing/test-server.ts';
import { cdfClient, sdkFailure } from './testing/cdf-client.ts';

const srv = await startTestServer({ serviceConfig: ROOMY_POLICY });
t.teardown(() => srv.close());

type CdfAsset = { id: number; externalId: string; name: string; parentId?: number; parentExternalId?: string; rootId: number; description?: string; dataSetId?: number; labels: { externalId: string }[]; metadata: Record<string, string> };

async function dataSet(org: string, externalId: string): Promise<number> {
  const res = await srv.request('POST', '/datasets/create', { token: srv.token({ org }), body: { items: [{ externalId, name: externalId }] } });
  return res.body.items[0].id as number;
}

t.test('assets: create a chain child-first, retrieve, list, search, update, delete recursively', async (t) => {
  const org = srv.newTenant();
  const client = cdfClient(srv, { org });
  const created: CdfAsset[] = await client.assets.create([
    { externalId: 'motor', name: 'Motor', parentExternalId: 'pump', labels: [{ externalId: 'rotating' }] },
    { externalId: 'pump', name: 'Pump', parentExternalId: 'site', description: 'the feed pump', metadata: { maker: 'acme' } },
    { externalId: 'site', name: 'Site' },
  ]);
  t.strictSame(created.map((a) => a.externalId), ['motor', 'pump', 'site'], 'request order');
  const [motor, pump, site] = created as [CdfAsset, CdfAsset, CdfAsset];
  t.match(site, { rootId: site.id });
  t.notOk('parentId' in site);
  t.match(pump, { parentId: site.id, parentExternalId: 'site', rootId: site.id, description: 'the feed pump', metadata: { maker: 'acme' } });
  t.match(motor, { parentId: pump.id, rootId: site.id, labels: [{ externalId: 'rotating' }] });
  const [valve] = await client.assets.create([{ externalId: 'valve', name: 'Valve', parentId: pump.id }]) as CdfAsset[];
  t.match(valve, { parentId: pump.id, parentExternalId: 'pump', rootId: site.id });

  t.strictSame((await client.assets.retrieve([{ externalId: 'valve' }, { id: site.id }])).map((a: CdfAsset) => a.id), [valve?.id, site.id]);
  t.match(await sdkFailure(client.assets.retrieve([{ id: 123456789 }, { externalId: 'nope' }])), { status: 400, missing: [{ id: 123456789 }, { externalId: 'nope' }] });
  t.strictSame(await client.assets.retrieve([{ externalId: 'nope' }], { ignoreUnknownIds: true }), []);
  const wire = await srv.request('POST', `/api/v1/projects/${org}/assets/byids`, { token: srv.token({ org }), body: { items: [{ externalId: 'nope' }] } });
  t.strictSame(wire.body, { error: { code: 400, message: 'Assets not found: nope', missing: [{ externalId: 'nope' }] } });

  const names = (items: CdfAsset[]) => items.map((a) => a.externalId).sort();
  const check = async (filter: Record<string, unknown>, expected: string[]) =>
    t.strictSame(names((await client.assets.list({ filter })).items), expected, JSON.stringify(filter));
  await check({}, ['motor', 'pump', 'site', 'valve']);
  await check({ parentIds: [pump.id] }, ['motor', 'valve']);
  await check({ parentExternalIds: ['site'] }, ['pump']);
  await check({ assetSubtreeIds: [{ externalId: 'pump' }] }, ['motor', 'pump', 'valve']);
  await check({ rootIds: [{ id: site.id }] }, ['motor', 'pump', 'site', 'valve']);
  await check({ root: true }, ['site']);
  await check({ name: 'Pump' }, ['pump']);
  await check({ externalIdPrefix: 'mo' }, ['motor']);
  await check({ labels: { containsAll: [{ externalId: 'rotating' }] } }, ['motor']);
  await check({ metadata: { maker: 'acme' } }, ['pump']);
  t.strictSame(await client.assets.aggregate({}), [{ count: 4 }]);
  t.strictSame(await client.assets.aggregate({ filter: { parentIds: [pump.id] } }), [{ count: 2 }]);
  t.strictSame(await client.assets.aggregate({ filter: { root: true } }), [{ count: 1 }]);

  const found: CdfAsset[] = await client.assets.search({ search: { name: 'pump' } });
  t.equal(found[0]?.externalId, 'pump', 'search by name, ranked');
  t.ok((await client.assets.search({ search: { description: 'feed' } })).some((a: CdfAsset) => a.id === pump.id), 'search by description');

  const [updated] = await client.assets.update([{ id: motor.id, update: { name: { set: 'Drive motor' }, labels: { add: [{ externalId: 'electric' }], remove: [{ externalId: 'rotating' }] }, metadata: { set: { kw: '5' } } } }]) as CdfAsset[];
  t.match(updated, { id: motor.id, name: 'Drive motor', labels: [{ externalId: 'electric' }], metadata: { kw: '5' }, parentId: pump.id });
  t.match(await sdkFailure(client.assets.update([{ id: 424242, update: { name: { set: 'x' } } }])), { status: 400, missing: [{ id: 424242 }] });

  const stranding = await sdkFailure(client.assets.delete([{ id: pump.id }]));
  t.equal(stranding?.status, 400, 'without recursive, children left without a root are a 400');
  await client.assets.delete([{ id: pump.id }], { recursive: true });
  t.strictSame(names((await client.assets.list()).items), ['site'], 'the subtree went with it');
  await client.assets.delete([{ id: pump.id }], { recursive: true });
  t.pass('the SDK sends ignoreUnknownIds: an unknown id is no error');
});

t.test('assets: list().autoPagingToArray({limit: -1}) over several pages; 409 with duplicated', async (t) => {
  const org = srv.newTenant();
  const client = cdfClient(srv, { org });
  await client.assets.create([{ externalId: 'root', name: 'Root' }]);
  const items = Array.from({ length: 230 }, (_, k) => ({ externalId: `a-${k}`, name: `A ${k}`, parentExternalId: 'root' }));
  await client.assets.create(items);
  const every: CdfAsset[] = await client.assets.list({ limit: 100 }).autoPagingToArray({ limit: -1 });
  t.equal(every.length, 231);
  t.equal(new Set(every.map((a) => a.id)).size, 231, 'each once');
  const duplicate = await sdkFailure(client.assets.create([{ externalId: 'a-3', name: 'again', parentExternalId: 'root' }]));
  t.match(duplicate, { status: 409, duplicated: [{ externalId: 'a-3' }] });
});

t.test('assets: what resources cannot carry is a 400 naming the field; nothing written', async (t) => {
  const org = srv.newTenant();
  const client = cdfClient(srv, { org });
  const check = async (items: unknown[], field: RegExp) => {
    const failure = await sdkFailure(client.assets.create(items));
    t.equal(failure?.status, 400, JSON.stringify(items));
    t.match(failure?.message, field);
  };
  await check([{ name: 'no key' }], /items\.0\.externalId/);
  await check([{ externalId: 'x', name: 'X', source: 'SAP' }], /items\.0\.source/);
  await check([{ externalId: 'x', name: 'X', parentExternalId: 'ghost' }], /ghost|relations/);
  await check([{ externalId: 'x', name: 'X', colour: 'red' }], /colour/);
  const raw = await srv.request('POST', `/api/v1/projects/${org}/assets/list`, { token: srv.token({ org }), body: { filter: { source: 'SAP' } } });
  t.equal(raw.status, 400);
  t.equal(raw.body.error.code, 400);
  t.match(raw.body.error.message, /filter\.source/);
  t.strictSame((await client.assets.list()).items, []);
});

t.test('assets: a token limited to one data set sees only its assets; another project is a 403', async (t) => {
  const org = srv.newTenant();
  const admin = cdfClient(srv, { org });
  const open = await dataSet(org, 'ds-open');
  const hidden = await dataSet(org, 'ds-hidden');
  const [top, shown, secret] = await admin.assets.create([
    { externalId: 'top', name: 'Top', dataSetId: hidden },
    { externalId: 'shown', name: 'Shown', parentExternalId: 'top', dataSetId: open },
    { externalId: 'secret', name: 'Secret', parentExternalId: 'shown', dataSetId: hidden },
  ]) as CdfAsset[];
  const limited = cdfClient(srv, { org, read: ['ds-open'], write: ['ds-open'] });
  const [seen] = (await limited.assets.list()).items as CdfAsset[];
  t.strictSame((await limited.assets.list()).items.map((a: CdfAsset) => a.id), [shown?.id]);
  t.strictSame(await limited.assets.aggregate({}), [{ count: 1 }], 'the count sees only what may be read');
  t.notOk(seen && 'parentId' in seen, 'an unreadable parent is not named');
  t.equal(seen?.rootId, shown?.id, 'the root is the top of what may be read');
  t.match(await sdkFailure(limited.assets.retrieve([{ id: secret?.id }])), { status: 400, missing: [{ id: secret?.id }] });
  t.strictSame((await limited.assets.list({ filter: { assetSubtreeIds: [{ id: shown?.id }] } })).items.map((a: CdfAsset) => a.id), [shown?.id]);
  t.strictSame(await limited.assets.search({ search: { name: 'secret' } }), []);
  t.equal((await sdkFailure(limited.assets.create([{ externalId: 'sneak', name: 'Sneak', parentId: top?.id }])))?.status, 400, 'an unreadable parent is unknown');

  const wrong = cdfClient(srv, { org, project: srv.newTenant() });
  t.equal((await sdkFailure(wrong.assets.create([{ externalId: 'elsewhere', name: 'E' }])))?.status, 403);
  t.equal((await sdkFailure(wrong.assets.list().autoPagingToArray()))?.status, 403);
  t.equal((await admin.assets.list()).items.length, 3, 'nothing written');
});

type CdfRelationship = { externalId: string; sourceExternalId: string; sourceType: string; targetExternalId: string; targetType: string; labels: { externalId: string }[]; createdTime: Date };

async function series(org: string, externalId: string, dataSetId?: number): Promise<void> {
  const res = await srv.request('POST', '/timeseries/create', { token: srv.token({ org }), body: { items: [{ externalId, name: externalId, valueType: 'FLOAT', ...(dataSetId !== undefined ? { dataSetId } : {}) }] } });
  if (res.status !== 201) throw new Error(`time series create: ${res.status} ${JSON.stringify(res.body)}`);
}

t.test('relationships: create, retrieve, list and delete over edges through the SDK', async (t) => {
  const org = srv.newTenant();
  const client = cdfClient(srv, { org });
  await client.assets.create([{ externalId: 'plant', name: 'Plant' }, { externalId: 'pump', name: 'Pump', parentExternalId: 'plant' }, { externalId: 'tank', name: 'Tank', parentExternalId: 'plant' }]);
  await series(org, 'pump.flow');
  const created: CdfRelationship[] = await client.relationships.create([
    { externalId: 'r-measures', sourceExternalId: 'pump', sourceType: 'asset', targetExternalId: 'pump.flow', targetType: 'timeSeries', labels: [{ externalId: 'measured_by' }] },
    { externalId: 'r-feeds', sourceExternalId: 'pump', sourceType: 'asset', targetExternalId: 'tank', targetType: 'asset' },
  ]);
  t.strictSame(created.map((r) => r.externalId), ['r-measures', 'r-feeds'], 'request order');
  t.match(created[0], { sourceExternalId: 'pump', sourceType: 'asset', targetExternalId: 'pump.flow', targetType: 'timeSeries', labels: [{ externalId: 'MEASURED_BY' }] });
  t.notOk('id' in (created[0] as object), 'no numeric id');
  t.strictSame(created[1]?.labels, []);
  t.ok(created[0]?.createdTime instanceof Date);
  const edges = await srv.request('GET', '/edges/types', { token: srv.token({ org }) });
  t.ok(edges.body.items.some((type: { name: string }) => type.name === 'MEASURED_BY'), 'the label is the edge type');

  t.strictSame((await client.relationships.retrieve([{ externalId: 'r-feeds' }, { externalId: 'r-measures' }])).map((r: CdfRelationship) => r.externalId), ['r-feeds', 'r-measures']);
  t.match(await sdkFailure(client.relationships.retrieve([{ externalId: 'r-nope' }])), { status: 400, missing: [{ externalId: 'r-nope' }] });
  t.strictSame(await client.relationships.retrieve([{ externalId: 'r-nope' }], { ignoreUnknownIds: true }), []);
  t.equal((await sdkFailure(client.relationships.retrieve([{ externalId: 'r-feeds' }], { fetchResources: true })))?.status, 400, 'fetchResources is refused by name');

  const check = async (filter: Record<string, unknown>, expected: string[]) =>
    t.strictSame((await client.relationships.list({ filter })).items.map((r: CdfRelationship) => r.externalId).sort(), expected, JSON.stringify(filter));
  await check({}, ['r-feeds', 'r-measures']);
  await check({ targetTypes: ['timeSeries'] }, ['r-measures']);
  await check({ targetExternalIds: ['tank'] }, ['r-feeds']);
  await check({ sourceExternalIds: ['pump'], labels: { containsAny: [{ externalId: 'measured_by' }] } }, ['r-measures']);
  await check({ sourceTypes: ['event'] }, []);

  t.match(await sdkFailure(client.relationships.create([{ externalId: 'r-feeds', sourceExternalId: 'tank', sourceType: 'asset', targetExternalId: 'pump', targetType: 'asset' }])),
    { status: 409, duplicated: [{ externalId: 'r-feeds' }] });
  await client.relationships.delete([{ externalId: 'r-feeds' }]);
  t.match(await sdkFailure(client.relationships.delete([{ externalId: 'r-feeds' }])), { status: 400, missing: [{ externalId: 'r-feeds' }] });
  await client.relationships.delete([{ externalId: 'r-feeds' }], { ignoreUnknownIds: true });
  t.strictSame((await client.relationships.list()).items.map((r: CdfRelationship) => r.externalId), ['r-measures']);
});

t.test('an asset or relationship named twice in one update or delete is a 422 listing it; nothing changes', async (t) => {
  const org = srv.newTenant();
  const client = cdfClient(srv, { org });
  await client.assets.create([{ externalId: 'plant', name: 'Plant' }, { externalId: 'pump', name: 'Pump', parentExternalId: 'plant' }]);
  await client.relationships.create([{ externalId: 'r1', sourceExternalId: 'pump', sourceType: 'asset', targetExternalId: 'plant', targetType: 'asset' }]);
  t.match(await sdkFailure(client.assets.update([{ externalId: 'pump', update: { name: { set: 'a' } } }, { externalId: 'pump', update: { name: { set: 'b' } } }])),
    { status: 422, duplicated: [{ externalId: 'pump' }] });
  t.match(await sdkFailure(client.assets.delete([{ externalId: 'pump' }, { externalId: 'pump' }])), { status: 422, duplicated: [{ externalId: 'pump' }] });
  t.match(await sdkFailure(client.relationships.delete([{ externalId: 'r1' }, { externalId: 'r1' }])), { status: 422, duplicated: [{ externalId: 'r1' }] });
  t.strictSame((await client.assets.retrieve([{ externalId: 'pump' }])).map((a: { name: string }) => a.name), ['Pump'], 'the asset unchanged');
  t.equal((await client.relationships.list()).items.length, 1, 'the relationship kept');
});

t.test('relationships: list().autoPagingToArray({limit: -1}) over several pages', async (t) => {
  const org = srv.newTenant();
  const client = cdfClient(srv, { org });
  const assets = [{ externalId: 'hub', name: 'Hub' }, ...Array.from({ length: 120 }, (_, k) => ({ externalId: `n-${k}`, name: `N ${k}`, parentExternalId: 'hub' }))];
  await client.assets.create(assets);
  await client.relationships.create(Array.from({ length: 120 }, (_, k) => ({ externalId: `rel-${k}`, sourceExternalId: `n-${k}`, sourceType: 'asset', targetExternalId: 'hub', targetType: 'asset' })));
  const every: CdfRelationship[] = await client.relationships.list({ limit: 50 }).autoPagingToArray({ limit: -1 });
  t.equal(every.length, 120);
  t.equal(new Set(every.map((r) => r.externalId)).size, 120, 'each once');
});

t.test('relationships: what edges cannot carry is a 400 naming the field; grants; another project', async (t) => {
  const org = srv.newTenant();
  const admin = cdfClient(srv, { org });
  const open = await dataSet(org, 'ds-open');
  const hidden = await dataSet(org, 'ds-hidden');
  await admin.assets.create([{ externalId: 'a', name: 'A', dataSetId: open }, { externalId: 'b', name: 'B', dataSetId: open }, { externalId: 'h', name: 'H', dataSetId: hidden }]);
  const base = { sourceExternalId: 'a', sourceType: 'asset', targetExternalId: 'b', targetType: 'asset' };
  const check = async (item: Record<string, unknown>, field: RegExp) => {
    const failure = await sdkFailure(admin.relationships.create([{ externalId: 'r-x', ...base, ...item }]));
    t.equal(failure?.status, 400, JSON.stringify(item));
    t.match(failure?.message, field);
  };
  await check({ targetType: 'event', targetExternalId: 'ev-1' }, /items\.0\.targetType/);
  await check({ sourceType: 'file' }, /items\.0\.sourceType/);
  await check({ startTime: 5 }, /items\.0\.startTime/);
  await check({ confidence: 0.5 }, /items\.0\.confidence/);
  await check({ dataSetId: open }, /items\.0\.dataSetId/);
  await check({ labels: [{ externalId: 'x' }, { externalId: 'y' }] }, /items\.0\.labels/);
  await check({ targetType: 'timeSeries' }, /items\.0\.targetType/);
  await check({ targetExternalId: 'ghost' }, /ghost|items\.0/);
  t.strictSame((await admin.relationships.list()).items, [], 'nothing written');

  await admin.relationships.create([{ externalId: 'r-open', ...base }, { externalId: 'r-hidden', ...base, targetExternalId: 'h' }]);
  const limited = cdfClient(srv, { org, read: ['ds-open'], write: ['ds-open'] });
  t.strictSame((await limited.relationships.list()).items.map((r: CdfRelationship) => r.externalId), ['r-open']);
  t.match(await sdkFailure(limited.relationships.retrieve([{ externalId: 'r-hidden' }])), { status: 400, missing: [{ externalId: 'r-hidden' }] });
  t.match(await sdkFailure(limited.relationships.delete([{ externalId: 'r-hidden' }])), { status: 400, missing: [{ externalId: 'r-hidden' }] });
  t.equal((await sdkFailure(limited.relationships.create([{ externalId: 'r-sneak', ...base, targetExternalId: 'h' }])))?.status, 400, 'an unreadable end is unknown');

  const wrong = cdfClient(srv, { org, project: srv.newTenant() });
  t.equal((await sdkFailure(wrong.relationships.create([{ externalId: 'r-w', ...base }])))?.status, 403);
  t.equal((await sdkFailure(wrong.relationships.list().autoPagingToArray()))?.status, 403);
  t.equal((await admin.relationships.list()).items.length, 2, 'nothing written');
});
