// Goal: the rules of "Resources" (SPEC; docs/api.md "Resources and the asset graph") that api/resources.test.ts does not reach, each with
// its bad inputs: create's field and batch caps at the limit and one past, relations under the
// edge rules and grants, the daily quotas; update's verbs and refusals (all-or-nothing with
// its relations); every read's refusals and filter rule (ids, patterns with `%` and `_`,
// labels, metadata, time ranges, cursors bound to their sort, unreadable data sets omitted,
// time series never answered as resources); delete with time series ends and several roots;
// tenants on every write; and four more pairs of requests racing to strand one resource
// (an edge delete, a root demotion, a time series delete under a new relation, a create
// hanging from a resource being deleted), of which never both succeed.
// Method: one real server, a fresh tenant per test, 2xx schema-checked; each race run 10 times.
import t, { type Test } from 'tap';
import { assertErrorBody, type ExpectedError } from './testing/error-body.ts';
import { schemaCheckedRequest } from './testing/response-schema.ts';
import { startTestServer } from './testing/test-server.ts';

const QUOTA_ORG = `resources-quota-${process.pid}`;
const srv = await startTestServer({ serviceConfig: { tenants: { [QUOTA_ORG]: { dailyQuotas: { nodes: 4, relationships: 2 } } } } });
t.teardown(() => srv.close());
const call = schemaCheckedRequest(srv);

interface Resource { id: number; externalId: string; name: string; isRoot: boolean; dataSetId?: number; labels: string[]; metadata: Record<string, string>; geoLocation?: unknown; description?: string; createdTime: number; lastUpdatedTime: number }

async function ok(t: Test, method: string, path: string, token: string, body: unknown, status = 200) {
  const res = await call(t, method, path, { token, body });
  if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}

const node = (externalId: string, extra: Record<string, unknown> = {}) => ({ externalId, name: `resource ${externalId}`, ...extra });
const root = (externalId: string, extra: Record<string, unknown> = {}) => node(externalId, { isRoot: true, ...extra });
const contains = (from: string, to: string, extra: Record<string, unknown> = {}) => ({ fromExternalId: from, toExternalId: to, relationshipType: 'CONTAINS', ...extra });
const ids = (items: { externalId: string }[]) => items.map((i) => i.externalId);
const all = async (t: Test, token: string) => ids((await ok(t, 'POST', '/resources/filter', token, { sort: { property: 'externalId' } })).items);

/** A checker of one route: one line per case. */
const checker = (t: Test, token: string, method: string, path: string) => async (body: unknown, expected: ExpectedError, name: string) =>
  assertErrorBody(t, await call(t, method, path, { token, body }), expected, name);

t.test('create: caps at the limit and one past, shapes refused before anything is written', async (t) => {
  const token = srv.token({ org: srv.newTenant() });
  const check = checker(t, token, 'POST', '/resources/create');
  await check({ nodes: [{ name: 'x', isRoot: true }] }, { status: 400, fields: ['nodes.0.externalId'] }, 'no externalId');
  await check({ nodes: [{ externalId: 'x', isRoot: true }] }, { status: 400, fields: ['nodes.0.name'] }, 'no name');
  await check({ nodes: [root('x', { isRoot: 'yes' })] }, { status: 400, fields: ['nodes.0.isRoot'] }, 'isRoot not a boolean');
  await check({ nodes: [root('x', { colour: 'red' })] }, { status: 400, fields: ['nodes.0.colour'] }, 'an unknown field');
  await check({ nodes: [root('')] }, { status: 422, fields: ['nodes.0.externalId'] }, 'an empty externalId');
  await check({ nodes: [root('x'.repeat(256), { name: 'n' })] }, { status: 422, fields: ['nodes.0.externalId'] }, 'externalId over 255');
  await check({ nodes: [root('x', { name: 'n'.repeat(256) })] }, { status: 422, fields: ['nodes.0.name'] }, 'name over 255');
  await check({ nodes: [root('x', { labels: Array.from({ length: 65 }, (_, i) => `l${i}`) })] }, { status: 422, fields: ['nodes.0.labels'] }, '65 labels');
  await check({ nodes: [root('x', { labels: ['l'.repeat(513)] })] }, { status: 422, fields: ['nodes.0.labels.0'] }, 'a label over 512');
  await check({ nodes: [root('x', { metadata: Object.fromEntries(Array.from({ length: 257 }, (_, i) => [`k${i}`, 'v'])) })] }, { status: 422, fields: ['nodes.0.metadata'] }, '257 metadata entries');
  await check({ nodes: [root('x', { metadata: { k: 'v'.repeat(1025) } })] }, { status: 422, fields: ['nodes.0.metadata.k'] }, 'a metadata value over 1,024');
  await check({ nodes: [root('x', { geoLocation: 'POINT(1 2)' })] }, { status: 400, fields: ['nodes.0.geoLocation'] }, 'WKT is not GeoJSON');
  await check({ nodes: [root('x'), root('y', { geoLocation: [1, 2] }), root('z', { geoLocation: { type: 'Point' } })] }, { status: 400, fields: ['nodes.1.geoLocation', 'nodes.2.geoLocation'] }, 'every bad geoLocation named');
  t.same(await all(t, token), [], 'nothing written');

  const atLimit = {
    labels: Array.from({ length: 64 }, (_, i) => `label-${i}`),
    metadata: Object.fromEntries(Array.from({ length: 256 }, (_, i) => [`k${i}`, 'v'])),
    description: 'd'.repeat(10_000),
  };
  const [made] = (await ok(t, 'POST', '/resources/create', token, { nodes: [root('x'.repeat(255), { name: 'n'.repeat(255), ...atLimit })] }, 201)).items as Resource[];
  t.equal(made?.labels.length, 64, 'every field cap exactly at its limit');
  const labels = (await ok(t, 'POST', '/labels/list', token, {})).items;
  t.equal(labels.length, 64, 'each new label name created a label');

  const many = Array.from({ length: 1000 }, (_, i) => node(`n${i}`));
  const chain = many.map((n, i) => contains(i === 0 ? 'top' : `n${i - 1}`, n.externalId));
  await check({ nodes: [root('top'), ...many], relations: chain }, { status: 400, fields: ['nodes'] }, '1,001 nodes');
  const big = await ok(t, 'POST', '/resources/create', token, { nodes: [root('top'), ...many.slice(0, 999)], relations: chain.slice(0, 999).concat(contains('top', 'n998')) }, 201);
  t.equal(big.items.length, 1000, '1,000 nodes: at the cap');
  t.equal(big.relations.length, 1000, '1,000 relations: at the cap');
});

t.test('create: relations follow the edge rules and grants; reachability through any node kind', async (t) => {
  const org = srv.newTenant();
  const admin = srv.token({ org });
  const [A, B] = (await ok(t, 'POST', '/datasets/create', admin, { items: [{ externalId: 'A', name: 'A' }, { externalId: 'B', name: 'B' }] }, 201)).items;
  await ok(t, 'POST', '/resources/create', admin, { nodes: [root('site'), node('in-b', { dataSetId: B.id })], relations: [contains('site', 'in-b')] }, 201);
  await ok(t, 'POST', '/timeseries/create', admin, { items: [{ externalId: 'flow', name: 'flow', valueType: 'FLOAT' }] }, 201);
  const check = checker(t, admin, 'POST', '/resources/create');
  await check({ nodes: [node('x')], relations: [{ fromExternalId: 'site', toExternalId: 'x' }] }, { status: 400, fields: ['relations.0.relationshipType'] }, 'a relation with no type (rule 1)');
  await check({ nodes: [node('x')], relations: [{ fromExternalId: 'site', toExternalId: 'x', relationshipTypeId: 987654 }] }, { status: 400 }, 'an unknown relationshipTypeId');
  await check({ nodes: [node('x')], relations: [{ fromExternalId: 'nowhere', toExternalId: 'x', relationshipType: 'CONTAINS' }] }, { status: 400, fields: ['relations.0.fromExternalId'] }, 'a missing start (rule 1)');
  await check({ nodes: [root('x')], relations: [contains('x', 'A')] }, { status: 400, fields: ['relations.0.relationshipType'] }, 'into a data set, not BELONGS_TO (rule 2)');
  await check({ nodes: [node('x')], relations: [contains('site', 'x'), contains('site', 'x')] }, { status: 409 }, 'the same relation twice (rule 5)');
  await check({ nodes: [node('x')], relations: [contains('site', 'x'), contains('site', 'in-b')] }, { status: 409 }, 'a relation that exists (rule 5), nothing else written');
  t.same(await all(t, admin), ['in-b', 'site'], 'none of the refused creates wrote anything');

  const viaSeries = await ok(t, 'POST', '/resources/create', admin, { nodes: [node('meter')], relations: [contains('site', 'flow'), { fromExternalId: 'flow', toExternalId: 'meter', relationshipType: 'MEASURED_BY' }] }, 201);
  t.equal(viaSeries.items[0].externalId, 'meter', 'a path through a time series makes a resource reachable');
  await ok(t, 'POST', '/resources/create', admin, { nodes: [node('bt', { dataSetId: A.id })], relations: [{ fromExternalId: 'bt', toExternalId: 'A', relationshipType: 'belongs_to' }, contains('site', 'bt')] }, 201);
  t.pass('a resource BELONGS_TO its data set (upper-cased)');

  const writerA = srv.token({ org, sub: 'wa', write: [A.id] });
  const asWriterA = checker(t, writerA, 'POST', '/resources/create');
  await asWriterA({ nodes: [node('child', { dataSetId: A.id })], relations: [contains('in-b', 'child')] }, { status: 400, fields: ['relations.0.fromExternalId'] }, 'an unreadable start is missing');
  const readerB = srv.token({ org, sub: 'wa-rb', write: [A.id], read: [B.id] });
  assertErrorBody(t, await call(t, 'POST', '/resources/create', { token: readerB, body: { nodes: [node('child', { dataSetId: A.id })], relations: [contains('in-b', 'child')] } }), { status: 403 }, 'a readable start without write (rule 4)');
  await asWriterA({ nodes: [root('r', { dataSetExternalId: 'B' })] }, { status: 400, fields: ['nodes.0.dataSetId'] }, 'an unreadable data set by externalId is unknown');
  t.same(await all(t, admin), ['bt', 'in-b', 'meter', 'site'], 'the refused writes wrote nothing');
});

t.test('create and update: the daily nodes and relationships quotas', async (t) => {
  const token = srv.token({ org: QUOTA_ORG });
  await ok(t, 'POST', '/resources/create', token, { nodes: [root('r'), node('a')], relations: [contains('r', 'a')] }, 201);
  const nodes = await call(t, 'POST', '/resources/create', { token, body: { nodes: [root('b'), root('c'), root('d')] } });
  t.equal(nodes.status, 429, 'three more resources pass the nodes quota of 4');
  t.match(nodes.body, { metric: 'nodes', limit: 4 });
  const relations = await call(t, 'POST', '/resources/update', { token, body: { relations: [contains('a', 'r'), { ...contains('a', 'r'), relationshipType: 'FEEDS' }] } });
  t.equal(relations.status, 429, 'two more relations pass the relationships quota of 2');
  t.match(relations.body, { metric: 'relationships', limit: 2 });
  t.same(await all(t, token), ['a', 'r']);
});

t.test('update: every verb, refusals, all-or-nothing with its relations', async (t) => {
  const org = srv.newTenant();
  const token = srv.token({ org });
  const [ds] = (await ok(t, 'POST', '/datasets/create', token, { items: [{ externalId: 'plant', name: 'plant' }] }, 201)).items;
  const made = await ok(t, 'POST', '/resources/create', token, {
    nodes: [root('site'), node('pump', { description: 'old', metadata: { a: '1', b: '2' }, labels: ['x', 'y'], dataSetId: ds.id, geoLocation: { type: 'Point', coordinates: [1, 2] } })],
    relations: [contains('site', 'pump')],
  }, 201);
  const pump = made.items[1] as Resource;
  const update = async (u: Record<string, unknown>) => (await ok(t, 'POST', '/resources/update', token, { nodes: [{ id: pump.id, update: u }] })).items[0] as Resource;
  const cleared = await update({ description: { setNull: true }, dataSetId: { setNull: true }, metadata: { remove: ['a'] }, labels: { set: ['z'] }, geoLocation: { set: null } });
  t.match(cleared, { metadata: { b: '2' }, labels: ['z'] });
  t.notOk('description' in cleared || 'dataSetId' in cleared || 'geoLocation' in cleared, 'setNull (and set: null on geoLocation) clears');
  t.ok(cleared.lastUpdatedTime >= pump.lastUpdatedTime && cleared.createdTime === pump.createdTime, 'lastUpdatedTime moves, createdTime stays');
  const set = await update({ metadata: { set: { c: '3' } }, labels: { setNull: true }, dataSetId: { set: ds.id }, name: { set: 'Pump' } });
  t.match(set, { metadata: { c: '3' }, labels: [], dataSetId: ds.id, name: 'Pump' });
  t.same(await update({}), { ...set, lastUpdatedTime: (await ok(t, 'GET', `/resources/${pump.id}`, token, undefined)).lastUpdatedTime }, 'an empty update changes nothing else');
  await update({ labels: { set: Array.from({ length: 64 }, (_, i) => `l${i}`) }, metadata: { set: Object.fromEntries(Array.from({ length: 256 }, (_, i) => [`k${i}`, 'v'])) } });
  t.pass('64 labels and 256 metadata entries: at the limit');

  const check = checker(t, token, 'POST', '/resources/update');
  await check({ nodes: [{ id: pump.id, update: { labels: { add: ['one-more'] } } }] }, { status: 422, fields: ['nodes.0.update.labels'] }, '65 labels after add');
  await check({ nodes: [{ id: pump.id, update: { metadata: { add: { extra: 'v' } } } }] }, { status: 422, fields: ['nodes.0.update.metadata'] }, '257 metadata entries after add');
  await check({ nodes: [{ id: pump.id, update: { externalId: { setNull: true } } }] }, { status: 400, fields: ['nodes.0.update.externalId'] }, 'setNull on externalId');
  await check({ nodes: [{ id: pump.id, update: { isRoot: { setNull: true } } }] }, { status: 400 }, 'isRoot cannot be cleared');
  await check({ nodes: [{ id: pump.id, update: { isRoot: { set: 'yes' } } }] }, { status: 400, fields: ['nodes.0.update.isRoot.set'] }, 'isRoot not a boolean');
  await check({ nodes: [{ id: pump.id, update: { metadata: { set: { a: '1' }, add: { b: '2' } } } }] }, { status: 400, fields: ['nodes.0.update.metadata'] }, 'set with add');
  await check({ nodes: [{ id: pump.id, update: { name: { set: 'a' } } }, { externalId: 'pump', update: { name: { set: 'b' } } }] }, { status: 400, fields: ['nodes'] }, 'one resource twice');
  await check({ nodes: [{ id: pump.id, externalId: 'site', update: { name: { set: 'a' } } }] }, { status: 400, fields: ['nodes.0'] }, 'id and externalId naming two resources');
  await check({ nodes: [{ id: pump.id, update: { dataSetId: { set: 987654321 } } }] }, { status: 400, fields: ['nodes.0.update.dataSetId'] }, 'an unknown data set');
  await check({ nodes: [{ id: pump.id, update: { geoLocation: { set: [1, 2] } } }] }, { status: 400, fields: ['nodes.0.update.geoLocation'] }, 'invalid GeoJSON');
  await check({ nodes: Array.from({ length: 1001 }, () => ({ id: pump.id, update: {} })) }, { status: 400, fields: ['nodes'] }, '1,001 nodes');
  await check({ nodes: [{ id: pump.id, update: { name: { set: 'renamed' } } }], relations: [contains('site', 'pump')] }, { status: 409 }, 'an existing relation refuses the whole update');
  await check({ nodes: [{ id: pump.id, update: { name: { set: 'renamed' } } }], relations: [contains('pump', 'nowhere')] }, { status: 400, fields: ['relations.0.toExternalId'] }, 'a relation to a missing node refuses the whole update');
  t.equal((await ok(t, 'GET', `/resources/${pump.id}`, token, undefined)).name, 'Pump', 'the refused updates changed nothing');

  const ts = await ok(t, 'POST', '/timeseries/create', token, { items: [{ externalId: 'series', name: 's', valueType: 'FLOAT' }] }, 201);
  await check({ nodes: [{ externalId: 'series', update: { name: { set: 'x' } } }] }, { status: 400, fields: ['nodes.0'] }, 'a time series is not a resource to update');
  t.equal((await ok(t, 'GET', `/timeseries/${ts.items[0].id}`, token, undefined)).items[0].name, 's');

  await ok(t, 'POST', '/resources/update', token, { nodes: [{ externalId: 'pump', update: { isRoot: { set: true } } }] });
  const demoted = await ok(t, 'POST', '/resources/update', token, { nodes: [{ externalId: 'pump', update: { isRoot: { set: false } } }] });
  t.equal(demoted.items[0].isRoot, false, 'demoting a root that another root reaches');
});

t.test('reads: refusals, every filter rule, cursors, time series never answered', async (t) => {
  const org = srv.newTenant();
  const token = srv.token({ org });
  const [A, B] = (await ok(t, 'POST', '/datasets/create', token, { items: [{ externalId: 'A', name: 'A' }, { externalId: 'B', name: 'B' }] }, 201)).items;
  const first = await ok(t, 'POST', '/resources/create', token, {
    nodes: [root('site_1', { name: 'Site 1' }), node('site-1x', { name: 'Site 1 extension', labels: ['a', 'b'], metadata: { kind: 'pump', zone: 'n' }, dataSetId: A.id }), node('tank', { metadata: { kind: 'tank' }, labels: ['a'], dataSetId: B.id })],
    relations: [contains('site_1', 'site-1x'), contains('site_1', 'tank')],
  }, 201);
  const ts = (await ok(t, 'POST', '/timeseries/create', token, { items: [{ externalId: 'site-series', name: 'Site 1 flow', valueType: 'FLOAT' }] }, 201)).items[0];
  const created = Math.max(...first.items.map((r: Resource) => r.createdTime));
  const later = (await ok(t, 'POST', '/resources/create', token, { nodes: [node('valve')], relations: [contains('site_1', 'valve')] }, 201)).items[0] as Resource;

  assertErrorBody(t, await call(t, 'GET', '/resources/abc', { token }), { status: 400, fields: ['id'] }, 'a non-integer id');
  assertErrorBody(t, await call(t, 'GET', '/resources/987654321', { token }), { status: 404 }, 'an unknown id');
  assertErrorBody(t, await call(t, 'GET', `/resources/${ts.id}`, { token }), { status: 404 }, 'a time series id is no resource');
  const byids = checker(t, token, 'POST', '/resources/byids');
  await byids({ items: [] }, { status: 400, fields: ['items'] }, 'byids: no items');
  await byids({ items: [{ id: first.items[0].id, externalId: 'tank' }] }, { status: 400, fields: ['items.0'] }, 'byids: id and externalId naming two resources');
  t.same(ids((await ok(t, 'POST', '/resources/byids', token, { items: [{ externalId: 'site-series' }, { id: ts.id }, { externalId: 'tank' }, { externalId: 'tank' }] })).items), ['tank'], 'byids: time series omitted, a repeat answered once');

  const feature = { type: 'Feature', geometry: null, properties: null, id: 'f1' };
  const located = (await ok(t, 'POST', '/resources/create', token, { nodes: [root('located', { geoLocation: feature, description: 'has nulls inside its GeoJSON' })] }, 201)).items[0] as Resource;
  t.same(located.geoLocation, feature, 'create keeps nulls inside GeoJSON');
  t.same((await ok(t, 'POST', '/resources/filter', token, { filter: { externalId: 'located' } })).items, [located], 'filter answers the same record (nulls inside GeoJSON kept)');
  t.same((await ok(t, 'POST', '/resources/byids', token, { items: [{ externalId: 'located' }] })).items, [located], 'byids too');
  await ok(t, 'POST', '/resources/delete', token, { items: [{ externalId: 'located' }] }, 204);
  const filter = async (body: unknown) => ids((await ok(t, 'POST', '/resources/filter', token, body)).items);
  const sorted = (f: unknown) => filter({ filter: f, sort: { property: 'externalId' } });
  t.same(await filter({}), ['valve', 'tank', 'site-1x', 'site_1'], 'newest created first, id breaking ties; no time series');
  t.same(await sorted({ id: [first.items[0].id, later.id, ts.id] }), ['site_1', 'valve'], 'ids');
  t.same(await sorted({ id: later.id }), ['valve'], 'a bare id');
  t.same(await sorted({ externalId: 'site_1' }), ['site_1'], '`_` is literal');
  t.same(await sorted({ externalId: 'SITE%' }), ['site-1x', 'site_1'], '`%` is a wildcard, case-insensitive');
  t.same(await sorted({ externalId: ['tank', 'valve'] }), ['tank', 'valve'], 'a pattern list is OR-ed');
  t.same(await sorted({ name: 'site 1' }), ['site_1'], 'no wildcard: exact, case-insensitive');
  t.same(await sorted({ labels: 'a' }), ['site-1x', 'tank'], 'a bare label');
  t.same(await sorted({ labels: ['a', 'b'] }), ['site-1x'], 'all labels present');
  t.same(await sorted({ metadata: { kind: 'pump', zone: null } }), ['site-1x'], 'metadata: a null value matches the key alone');
  t.same(await sorted({ metadata: { zone: 's' } }), [], 'metadata: a different value');
  t.same(await sorted({ createdTime: { min: created + 1 } }), later.createdTime > created ? ['valve'] : [], 'createdTime min');
  t.same(await sorted({ lastUpdatedTime: { max: created } }), ['site-1x', 'site_1', 'tank'], 'lastUpdatedTime max, inclusive');
  t.same(await sorted({ isRoot: false, dataSetId: [{ id: A.id }, { externalId: 'B' }] }), ['site-1x', 'tank'], 'data sets by id and externalId, AND-ed with isRoot');

  const readerA = srv.token({ org, sub: 'ra', read: [A.id] });
  t.same(ids((await ok(t, 'POST', '/resources/filter', readerA, { filter: { dataSetId: { id: B.id } } })).items), [], 'an unreadable data set in the filter is silently omitted');
  t.same(ids((await ok(t, 'POST', '/resources/filter', readerA, { filter: { labels: 'a' } })).items), ['site-1x'], 'unreadable resources are not matched');

  const refuse = checker(t, token, 'POST', '/resources/filter');
  await refuse({ limit: 0 }, { status: 400, fields: ['limit'] }, 'limit 0');
  await refuse({ limit: 10_001 }, { status: 400, fields: ['limit'] }, 'limit 10,001');
  await refuse({ filter: { valueType: 'FLOAT' } }, { status: 400, fields: ['filter.valueType'] }, 'a time series-only field');
  await refuse({ cursor: 'not-a-cursor' }, { status: 400, fields: ['cursor'] }, 'a cursor this service did not issue');
  const page = await ok(t, 'POST', '/resources/filter', token, { limit: 1, sort: { property: 'name' } });
  await refuse({ limit: 1, cursor: page.nextCursor, sort: { property: 'externalId' } }, { status: 400, fields: ['cursor'] }, 'a cursor sent back with another sort');
  t.same(ids((await ok(t, 'POST', '/resources/filter', token, { limit: 10_000 })).items).length, 4, 'limit 10,000');

  const search = checker(t, token, 'POST', '/resources/search');
  await search({ search: { query: 'site' }, limit: 1001 }, { status: 400, fields: ['limit'] }, 'search limit 1,001');
  await search({}, { status: 400, fields: ['search'] }, 'search without a query');
  const found = ids((await ok(t, 'POST', '/resources/search', token, { search: { query: 'site 1' }, limit: 1000 })).items);
  t.ok(found.includes('site_1') && found.includes('site-1x') && !found.includes('site-series'), 'search answers resources only');
  t.same(ids((await ok(t, 'POST', '/resources/search', token, { search: { query: 'site 1' }, limit: 1 })).items).length, 1, 'search limit');
});

t.test('delete: time series ends, several roots, refusals', async (t) => {
  const token = srv.token({ org: srv.newTenant() });
  await ok(t, 'POST', '/timeseries/create', token, { items: [{ externalId: 'flow', name: 'flow', valueType: 'FLOAT' }] }, 201);
  await ok(t, 'POST', '/resources/create', token, {
    nodes: [root('north'), root('south'), node('shared'), node('meter')],
    relations: [contains('north', 'shared'), contains('south', 'shared'), contains('shared', 'flow'), { fromExternalId: 'flow', toExternalId: 'meter', relationshipType: 'MEASURED_BY' }],
  }, 201);
  assertErrorBody(t, await call(t, 'POST', '/timeseries/delete', { token, body: { items: [{ externalId: 'flow' }] } }), { status: 400 }, 'the series starts a relationship');
  t.equal((await call(t, 'POST', '/resources/delete', { token, body: { items: [{ externalId: 'north' }] } })).status, 204, 'a root whose resources another root reaches');
  const strand = await call(t, 'POST', '/resources/delete', { token, body: { items: [{ externalId: 'shared' }] } });
  assertErrorBody(t, strand, { status: 400, fields: ['items'] }, 'the path to meter runs through shared and the series');
  t.match(strand.body.error.fields, [{ externalId: 'meter' }]);
  t.equal((await call(t, 'DELETE', '/resources/delete', { token, body: { items: [{ externalId: 'meter' }] } })).status, 204);
  t.equal((await call(t, 'POST', '/timeseries/delete', { token, body: { items: [{ externalId: 'flow' }] } })).status, 204, 'the resource delete removed the series\' relationship');
  const check = checker(t, token, 'POST', '/resources/delete');
  await check({ items: [] }, { status: 400, fields: ['items'] }, 'no items');
  await check({ items: Array.from({ length: 10_001 }, (_, i) => ({ id: i + 1 })) }, { status: 400, fields: ['items'] }, '10,001 items');
  await check({ items: [{ externalId: 'south', id: 987654321 }] }, { status: 400, fields: ['items.0'] }, 'id and externalId naming different records');
  await check({ items: [{ name: 'south' }] }, { status: 400 }, 'not an identifier');
  t.same(await all(t, token), ['shared', 'south']);
});

t.test('tenants: no write reaches another tenant\'s resources', async (t) => {
  const mine = srv.token({ org: srv.newTenant() });
  const theirs = srv.token({ org: srv.newTenant() });
  const made = await ok(t, 'POST', '/resources/create', mine, { nodes: [root('site'), node('pump')], relations: [contains('site', 'pump')] }, 201);
  const [site, pump] = made.items as Resource[];
  assertErrorBody(t, await call(t, 'POST', '/resources/update', { token: theirs, body: { nodes: [{ id: pump?.id, update: { name: { set: 'x' } } }] } }), { status: 400, fields: ['nodes.0'] }, 'update by id');
  assertErrorBody(t, await call(t, 'POST', '/resources/create', { token: theirs, body: { nodes: [node('x')], relations: [{ fromId: site?.id, toExternalId: 'x', relationshipType: 'CONTAINS' }] } }), { status: 400, fields: ['relations.0.fromId'] }, 'a relation from their id');
  t.equal((await call(t, 'POST', '/resources/delete', { token: theirs, body: { items: [{ id: site?.id }, { externalId: 'pump' }] } })).status, 204, 'delete: unknown to them, skipped');
  t.same((await ok(t, 'POST', '/resources/byids', theirs, { items: [{ id: site?.id }] })).items, []);
  t.same((await ok(t, 'POST', '/resources/search', theirs, { search: { query: 'site' } })).items, []);
  t.same(await all(t, mine), ['pump', 'site'], 'untouched');
  t.equal((await ok(t, 'GET', `/resources/${pump?.id}`, mine, undefined)).name, 'resource pump');
});

type Request = [method: string, path: string, body: unknown];

/** Runs `rounds` times: a fresh graph from `setup`, the two requests it returns raced; one 2xx and one 400 or 409 expected. */
async function race(t: Test, name: string, rounds: number, setup: (token: string) => Promise<Request[]>, survivors: string[]) {
  const tally: Record<string, number> = {};
  for (let round = 0; round < rounds; round++) {
    const token = srv.token({ org: srv.newTenant() });
    const requests = await setup(token);
    const outcomes = await Promise.all(requests.map(([method, path, body]) => srv.request(method, path, { token, body })));
    const statuses = outcomes.map((o) => o.status);
    const landed = statuses.filter((s) => s >= 200 && s < 300).length;
    const refused = statuses.filter((s) => s === 400 || s === 409).length;
    t.ok(landed === 1 && refused === 1, `${name}, round ${round}: one lands, one is refused (${statuses.join(', ')})`);
    tally[statuses.join(',')] = (tally[statuses.join(',')] ?? 0) + 1;
    const left = await all(t, token);
    t.ok(survivors.every((s) => left.includes(s)), `${name}, round ${round}: ${survivors.join(', ')} still there`);
  }
  t.comment(`${name}: ${JSON.stringify(tally)}`);
}

t.test('races: two requests that would strand one resource together never both succeed', async (t) => {
  /** root → p1, p2 → leaf: either parent alone keeps leaf reachable. */
  const diamond = async (token: string) => (await ok(t, 'POST', '/resources/create', token, {
    nodes: [root('root'), node('p1'), node('p2'), node('leaf')],
    relations: [contains('root', 'p1'), contains('root', 'p2'), contains('p1', 'leaf'), contains('p2', 'leaf')],
  }, 201)).relations as { id: number }[];
  await race(t, 'an edge delete and a resource delete', 10, async (token) => {
    const [, , p1Leaf] = await diamond(token);
    return [['POST', '/edges/delete', { items: [{ id: p1Leaf?.id }] }], ['POST', '/resources/delete', { items: [{ externalId: 'p2' }] }]];
  }, ['root', 'leaf']);
  await race(t, 'a root demotion and a resource delete', 10, async (token) => {
    // root → p1 → leaf ⇄ p2, p2 a root too: leaf needs p1 or p2's root flag, and p2 needs leaf or its flag.
    await ok(t, 'POST', '/resources/create', token, {
      nodes: [root('root'), node('p1'), root('p2'), node('leaf')],
      relations: [contains('root', 'p1'), contains('p1', 'leaf'), contains('p2', 'leaf'), { ...contains('leaf', 'p2'), relationshipType: 'FEEDS' }],
    }, 201);
    return [['POST', '/resources/update', { nodes: [{ externalId: 'p2', update: { isRoot: { set: false } } }] }], ['POST', '/resources/delete', { items: [{ externalId: 'p1' }] }]];
  }, ['root', 'leaf', 'p2']);
  await race(t, 'a time series delete and a relation from that series', 10, async (token) => {
    // root → series; a resource hung below the series needs it, and a series that starts a relationship cannot be deleted.
    await ok(t, 'POST', '/timeseries/create', token, { items: [{ externalId: 'series', name: 'series', valueType: 'FLOAT' }] }, 201);
    await ok(t, 'POST', '/resources/create', token, { nodes: [root('root')], relations: [contains('root', 'series')] }, 201);
    return [['POST', '/timeseries/delete', { items: [{ externalId: 'series' }] }], ['POST', '/resources/create', { nodes: [node('meter')], relations: [{ ...contains('series', 'meter'), relationshipType: 'MEASURED_BY' }] }]];
  }, ['root']);
  await race(t, 'a create hanging from a resource and that resource\'s delete', 10, async (token) => {
    await diamond(token);
    return [['POST', '/resources/create', { nodes: [node('child')], relations: [contains('leaf', 'child')] }], ['POST', '/resources/delete', { items: [{ externalId: 'leaf' }] }]];
  }, ['root']);
});
