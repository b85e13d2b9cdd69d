// Goal: "Resources" (SPEC; docs/api.md "Resources and the asset graph"): create (nodes and relations in one transaction, the caps, GeoJSON,
// labels, data sets by id or externalId, duplicates, a resource no root reaches), update
// (verbs, root changes, added relations), get / byids / filter / search, delete (every
// relationship removed, the stranding 400 naming every stranded resource, idempotent,
// all-or-nothing), grants and tenants on every read and write, quotas and the objects
// ceiling, and two requests racing to strand one resource never both succeeding.
// Method: one real server; per test a fresh tenant; every 2xx schema-checked.
import t, { type Test } from 'tap';
import { assertErrorBody } from './testing/error-body.ts';
import { schemaCheckedRequest } from './testing/response-schema.ts';
import { startTestServer } from './testing/test-server.ts';

const CEILING_ORG = `resources-ceiling-${process.pid}`;
const srv = await startTestServer({ serviceConfig: { tenants: { [CEILING_ORG]: { ceilings: { objects: 3 } } } } });
t.teardown(() => srv.close());
const call = schemaCheckedRequest(srv);

interface Resource { id: number; externalId: string; isRoot: boolean; dataSetId?: number; labels: string[]; metadata: Record<string, string>; geoLocation?: unknown; description?: string }
interface Edge { id: number; start: number; end: number; type: string }

async function ok(t: Test, method: string, path: string, token: string, body: unknown, status = 200) {
  const res = await call(t, method, path, { token, body });
  if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}

const node = (externalId: string, extra: Record<string, unknown> = {}) => ({ externalId, name: `resource ${externalId}`, ...extra });
const contains = (from: string, to: string) => ({ fromExternalId: from, toExternalId: to, relationshipType: 'CONTAINS' });

/** root → area → (pump, valve); pump → motor. */
async function tree(t: Test, token: string) {
  return ok(t, 'POST', '/resources/create', token, {
    nodes: [node('root', { isRoot: true }), node('area'), node('pump', { labels: ['rotating'] }), node('valve'), node('motor')],
    relations: [contains('root', 'area'), contains('area', 'pump'), contains('area', 'valve'), contains('pump', 'motor')],
  }, 201);
}

const ids = (items: { externalId: string }[]) => items.map((i) => i.externalId);

t.test('create: shape, relations naming nodes of the same request, labels, GeoJSON, data sets', async (t) => {
  const org = srv.newTenant();
  const token = srv.token({ org });
  const [ds] = (await ok(t, 'POST', '/datasets/create', token, { items: [{ externalId: 'plant', name: 'plant' }] }, 201)).items;
  const point = { type: 'Point', coordinates: [10.75, 59.91] };
  const made = await ok(t, 'POST', '/resources/create', token, {
    nodes: [
      node('site', { isRoot: true, description: 'Oslo site', metadata: { country: 'NO' }, geoLocation: point, labels: ['site'] }),
      node('line', { dataSetExternalId: 'plant' }),
      node('cell', { dataSetId: ds.id }),
    ],
    relations: [contains('site', 'line'), { ...contains('line', 'cell'), description: 'cabling', metadata: { cable: 'c1' } }],
  }, 201);
  t.same(ids(made.items), ['site', 'line', 'cell'], 'items in request order');
  t.match(made.items[0], { isRoot: true, description: 'Oslo site', metadata: { country: 'NO' }, geoLocation: point, labels: ['site'] });
  t.match(made.items[1], { isRoot: false, dataSetId: ds.id, labels: [], metadata: {} });
  t.match(made.relations, [{ start: made.items[0].id, end: made.items[1].id, type: 'CONTAINS' }, { description: 'cabling', metadata: { cable: 'c1' } }]);
  t.ok(made.items.every((r: { createdTime: number; lastUpdatedTime: number }) => r.createdTime > 0 && r.lastUpdatedTime === r.createdTime));
  const labels = (await ok(t, 'POST', '/labels/list', token, {})).items.map((l: { externalId: string }) => l.externalId);
  t.same(labels, ['site'], 'a new label name creates the label');
  const got = await ok(t, 'GET', `/resources/${made.items[0].id}`, token, undefined);
  t.same(got, made.items[0], 'GET answers the resource');
  const moreRelations = await ok(t, 'POST', '/resources/create', token, { nodes: [node('cell2')], relations: [contains('line', 'cell2')] }, 201);
  t.equal(moreRelations.relations[0].start, made.items[1].id, 'a relation from an existing resource');
});

t.test('create: every refusal names what is wrong and writes nothing', async (t) => {
  const org = srv.newTenant();
  const token = srv.token({ org });
  await tree(t, token);
  await ok(t, 'POST', '/timeseries/create', token, { items: [{ externalId: 'series-1', name: 's', valueType: 'FLOAT' }] }, 201);
  const check = async (body: unknown, expected: Parameters<typeof assertErrorBody>[2], name: string) =>
    assertErrorBody(t, await call(t, 'POST', '/resources/create', { token, body }), expected, name);
  await check({ nodes: [node('orphan')] }, { status: 400, fields: ['items'] }, 'a non-root resource nothing reachable points at');
  await check({ nodes: [node('x', { isRoot: true }), node('y')], relations: [contains('y', 'x')] }, { status: 400, fields: ['items'] }, 'pointing from the new resource at a root does not make it reachable');
  await check({ nodes: [node('pump', { isRoot: true })] }, { status: 409, duplicated: ['pump'] }, 'an externalId taken by a resource');
  await check({ nodes: [node('series-1', { isRoot: true })] }, { status: 409, duplicated: ['series-1'] }, 'the node space is shared with time series');
  await check({ nodes: [node('d', { isRoot: true }), node('d', { isRoot: true })] }, { status: 409, duplicated: ['d'] }, 'twice in one request');
  await check({ nodes: [node('e', { isRoot: true, dataSetId: 987654321 })] }, { status: 400, fields: ['nodes.0.dataSetId'] }, 'an unknown data set');
  await check({ nodes: [node('e', { isRoot: true, dataSetExternalId: 'nope' })] }, { status: 400, fields: ['nodes.0.dataSetId'] }, 'an unknown data set by externalId');
  await check({ nodes: [node('e', { isRoot: true, geoLocation: { type: 'Point', coordinates: [1] } })] }, { status: 400, fields: ['nodes.0.geoLocation'] }, 'invalid GeoJSON');
  await check({ nodes: [node('e', { isRoot: true, geoLocation: { type: 'Nope' } })] }, { status: 400, fields: ['nodes.0.geoLocation'] }, 'not a GeoJSON type');
  const ring = Array.from({ length: 8000 }, (_, i) => [i / 1000, i / 1000]);
  await check({ nodes: [node('e', { isRoot: true, geoLocation: { type: 'LineString', coordinates: ring } })] }, { status: 422, fields: ['nodes.0.geoLocation'] }, 'GeoJSON over 65,536 characters');
  await check({ nodes: [node('e', { isRoot: true })], relations: [contains('e', 'nowhere')] }, { status: 400, fields: ['relations.0.toExternalId'] }, 'a relation to a missing node');
  await check({ nodes: Array.from({ length: 1001 }, (_, i) => node(`n${i}`, { isRoot: true })) }, { status: 400 }, '1,001 nodes: over the cap');
  await check({ relations: Array.from({ length: 1001 }, () => contains('root', 'area')) }, { status: 400 }, '1,001 relations: over the cap');
  await check({ nodes: [node('e', { isRoot: true, description: 'x'.repeat(10_001) })] }, { status: 422 }, 'a description over 10,000 characters');
  const all = (await ok(t, 'POST', '/resources/filter', token, {})).items;
  t.same(ids(all).sort(), ['area', 'motor', 'pump', 'root', 'valve'], 'nothing of a refused request was written');
});

t.test('update: verbs, root changes, added relations, refusals', async (t) => {
  const org = srv.newTenant();
  const token = srv.token({ org });
  const made = await tree(t, token);
  const pump = made.items[2] as Resource;
  const res = await ok(t, 'POST', '/resources/update', token, {
    nodes: [
      { externalId: 'pump', update: { name: { set: 'Pump 1' }, metadata: { add: { rpm: '1450' } }, labels: { add: ['critical'] }, geoLocation: { set: { type: 'Point', coordinates: [1, 2] } } } },
      { id: made.items[3].id, update: { description: { set: 'gate valve' }, externalId: { set: 'valve-1' } } },
    ],
    relations: [{ fromExternalId: 'valve-1', toExternalId: 'motor', relationshipType: 'FEEDS' }],
  });
  t.match(res.items[0], { id: pump.id, name: 'Pump 1', metadata: { rpm: '1450' }, labels: ['rotating', 'critical'], geoLocation: { type: 'Point' } });
  t.match(res.items[1], { externalId: 'valve-1', description: 'gate valve' });
  t.match(res.relations, [{ type: 'FEEDS', end: made.items[4].id }], 'relations are added');
  const cleared = await ok(t, 'POST', '/resources/update', token, { nodes: [{ externalId: 'pump', update: { geoLocation: { setNull: true }, labels: { remove: ['rotating'] } } }] });
  t.notOk('geoLocation' in cleared.items[0], 'setNull clears');
  t.same(cleared.items[0].labels, ['critical']);
  const check = async (body: unknown, expected: Parameters<typeof assertErrorBody>[2], name: string) =>
    assertErrorBody(t, await call(t, 'POST', '/resources/update', { token, body }), expected, name);
  await check({ nodes: [{ externalId: 'root', update: { isRoot: { set: false } } }] }, { status: 400, fields: ['items', 'items', 'items', 'items', 'items'] }, 'demoting the only root strands all five');
  await check({ nodes: [{ externalId: 'pump', update: { description: { set: 'x', setNull: true } } }] }, { status: 400, fields: ['nodes.0.update.description'] }, 'set with setNull');
  await check({ nodes: [{ externalId: 'pump', update: { name: { setNull: true } } }] }, { status: 400, fields: ['nodes.0.update.name'] }, 'setNull on name');
  await check({ nodes: [{ externalId: 'nope', update: { name: { set: 'x' } } }] }, { status: 400, fields: ['nodes.0'] }, 'not found');
  await check({ nodes: [{ update: { name: { set: 'x' } } }] }, { status: 400, fields: ['nodes.0'] }, 'no identifier');
  await check({ nodes: [{ externalId: 'pump', update: { externalId: { set: 'area' } } }] }, { status: 409, duplicated: ['area'] }, 'a new externalId taken');
  await check({ nodes: [{ externalId: 'pump', update: { geoLocation: { set: { type: 'Point' } } } }] }, { status: 400, fields: ['nodes.0.update.geoLocation'] }, 'invalid GeoJSON');
  // A second root makes demoting the first a matter of paths.
  await ok(t, 'POST', '/resources/update', token, { nodes: [{ externalId: 'area', update: { isRoot: { set: true } } }] });
  const demoted = await ok(t, 'POST', '/resources/update', token, { nodes: [{ externalId: 'root', update: { isRoot: { set: false } } }] }).catch((e: Error) => e);
  t.ok(demoted instanceof Error && /400/.test(demoted.message), 'the old root itself would be stranded (nothing points at it)');
  const after = await ok(t, 'GET', `/resources/${pump.id}`, token, undefined);
  t.equal(after.name, 'Pump 1', 'the refused updates changed nothing');
});

t.test('reads: byids, filter (patterns, isRoot, data sets with descendants, metadata, labels, paging), search', async (t) => {
  const org = srv.newTenant();
  const token = srv.token({ org });
  const [parent, child] = (await ok(t, 'POST', '/datasets/create', token, { items: [{ externalId: 'P', name: 'P' }, { externalId: 'C', name: 'C', parentExternalId: 'P' }] }, 201)).items;
  await ok(t, 'POST', '/resources/create', token, {
    nodes: [node('site-1', { isRoot: true, dataSetId: parent.id }), node('pump-a', { dataSetId: child.id, metadata: { kind: 'pump' }, labels: ['rotating'] }), node('pump-b', { metadata: { kind: 'pump' }, description: 'Centrifugal pump in the basement' }), node('valve-a')],
    relations: [contains('site-1', 'pump-a'), contains('site-1', 'pump-b'), contains('site-1', 'valve-a')],
  }, 201);
  const byids = await ok(t, 'POST', '/resources/byids', token, { items: [{ externalId: 'valve-a' }, { externalId: 'missing' }, { externalId: 'site-1' }] });
  t.same(ids(byids.items), ['valve-a', 'site-1'], 'request order, misses omitted');
  const filter = async (body: unknown) => ids((await ok(t, 'POST', '/resources/filter', token, body)).items);
  t.same(await filter({ filter: { externalId: 'PUMP-*' }, sort: { property: 'externalId' } }), ['pump-a', 'pump-b'], 'a case-insensitive pattern');
  t.same(await filter({ filter: { isRoot: true } }), ['site-1']);
  t.same(await filter({ filter: { dataSetId: { externalId: 'P' } }, sort: { property: 'externalId' } }), ['pump-a', 'site-1'], 'a data set with its descendants');
  t.same(await filter({ filter: { metadata: { kind: 'pump' }, labels: ['rotating'] } }), ['pump-a']);
  t.same(await filter({ filter: { description: '*basement*' } }), ['pump-b']);
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await ok(t, 'POST', '/resources/filter', token, { limit: 1, sort: { property: 'externalId', order: 'desc' }, ...(cursor ? { cursor } : {}) });
    seen.push(...ids(page.items));
    cursor = page.nextCursor;
  } while (cursor);
  t.same(seen, ['valve-a', 'site-1', 'pump-b', 'pump-a'], 'paging visits each once');
  assertErrorBody(t, await call(t, 'POST', '/resources/filter', { token, body: { sort: { property: 'source' } } }), { status: 400 }, 'not a resource sort property');
  const search = await ok(t, 'POST', '/resources/search', token, { search: { query: 'centrifugal' }, filter: { isRoot: true } });
  t.same(ids(search.items), ['pump-b'], 'search over the description; its filter is ignored');
  const typo = await ok(t, 'POST', '/resources/search', token, { search: { query: 'centrifgal' } });
  t.same(ids(typo.items), ['pump-b'], 'fuzzy: a typo still finds it');
});

t.test('delete: relationships go too; the stranding 400 names every stranded resource; idempotent; all-or-nothing', async (t) => {
  const org = srv.newTenant();
  const token = srv.token({ org });
  const made = await tree(t, token);
  const [rootArea] = made.relations as Edge[];
  const res = await call(t, 'POST', '/resources/delete', { token, body: { items: [{ externalId: 'area' }] } });
  assertErrorBody(t, res, { status: 400, fields: ['items', 'items', 'items'] }, 'deleting area strands pump, valve and motor');
  t.same(res.body.error.fields.map((f: { externalId: string }) => f.externalId).sort(), ['motor', 'pump', 'valve']);
  t.equal((await call(t, 'GET', `/edges/${rootArea?.id}`, { token })).status, 200, 'nothing removed');
  t.equal((await call(t, 'POST', '/resources/delete', { token, body: { items: [{ externalId: 'motor' }] } })).status, 204, 'a leaf');
  t.equal((await call(t, 'DELETE', '/resources/delete', { token, body: { items: [{ externalId: 'area' }, { externalId: 'pump' }, { externalId: 'valve' }, { externalId: 'never' }] } })).status, 204, 'a subtree whole, unknown skipped');
  t.equal((await call(t, 'GET', `/edges/${rootArea?.id}`, { token })).status, 404, 'its relationships are gone');
  t.same(ids((await ok(t, 'POST', '/resources/filter', token, {})).items), ['root']);
  t.equal((await call(t, 'POST', '/resources/delete', { token, body: { items: [{ externalId: 'area' }] } })).status, 204, 'again: idempotent');
  t.equal((await call(t, 'POST', '/resources/delete', { token, body: { items: [{ externalId: 'root' }] } })).status, 204, 'the last root, with nothing below it');
});

t.test('grants and tenants: a resource\'s data set decides who reads and writes it', async (t) => {
  const org = srv.newTenant();
  const admin = srv.token({ org });
  const [A, B] = (await ok(t, 'POST', '/datasets/create', admin, { items: [{ externalId: 'A', name: 'A' }, { externalId: 'B', name: 'B' }] }, 201)).items;
  const made = await ok(t, 'POST', '/resources/create', admin, {
    nodes: [node('root', { isRoot: true }), node('in-a', { dataSetId: A.id }), node('in-b', { dataSetId: B.id })],
    relations: [contains('root', 'in-a'), contains('root', 'in-b')],
  }, 201);
  const writerA = srv.token({ org, sub: 'wa', write: [A.id] });
  assertErrorBody(t, await call(t, 'GET', `/resources/${made.items[2].id}`, { token: writerA }), { status: 404 }, 'unreadable: 404');
  t.same(ids((await ok(t, 'POST', '/resources/filter', writerA, { sort: { property: 'externalId' } })).items), ['in-a', 'root'], 'filter omits unreadable');
  t.same((await ok(t, 'POST', '/resources/byids', writerA, { items: [{ externalId: 'in-b' }] })).items, []);
  t.same(ids((await ok(t, 'POST', '/resources/search', writerA, { search: { query: 'in-b' } })).items).includes('in-b'), false, 'search omits unreadable');
  assertErrorBody(t, await call(t, 'POST', '/resources/create', { token: writerA, body: { nodes: [node('x', { dataSetId: B.id, isRoot: true })] } }), { status: 403 }, 'create in B without write');
  assertErrorBody(t, await call(t, 'POST', '/resources/update', { token: writerA, body: { nodes: [{ externalId: 'in-a', update: { dataSetId: { set: B.id } } }] } }), { status: 403 }, 'moving into B');
  assertErrorBody(t, await call(t, 'POST', '/resources/update', { token: writerA, body: { nodes: [{ externalId: 'in-b', update: { name: { set: 'x' } } }] } }), { status: 400, fields: ['nodes.0'] }, 'an unreadable resource is not found');
  const readerA = srv.token({ org, sub: 'ra', read: [A.id] });
  assertErrorBody(t, await call(t, 'POST', '/resources/delete', { token: readerA, body: { items: [{ externalId: 'in-a' }] } }), { status: 403 }, 'delete needs write');
  t.equal((await call(t, 'POST', '/resources/delete', { token: writerA, body: { items: [{ externalId: 'in-b' }] } })).status, 204, 'an unreadable resource is skipped as unknown');
  t.equal((await call(t, 'GET', `/resources/${made.items[2].id}`, { token: admin })).status, 200, 'and stays');
  const other = srv.token({ org: srv.newTenant() });
  assertErrorBody(t, await call(t, 'GET', `/resources/${made.items[0].id}`, { token: other }), { status: 404 }, 'another tenant');
  t.same((await ok(t, 'POST', '/resources/filter', other, {})).items, []);
  await ok(t, 'POST', '/resources/create', other, { nodes: [node('root', { isRoot: true })] }, 201);
  t.pass('another tenant may use the same externalIds');
});

t.test('the objects ceiling counts live resources; deleting frees room', async (t) => {
  const token = srv.token({ org: CEILING_ORG });
  await ok(t, 'POST', '/resources/create', token, { nodes: [node('r1', { isRoot: true }), node('r2', { isRoot: true })] }, 201);
  const over = await call(t, 'POST', '/resources/create', { token, body: { nodes: [node('r3', { isRoot: true }), node('r4', { isRoot: true })] } });
  t.equal(over.status, 403, 'past the ceiling: 403');
  t.match(over.body, { metric: 'objects', limit: 3 });
  await ok(t, 'POST', '/resources/delete', token, { items: [{ externalId: 'r1' }] }, 204);
  await ok(t, 'POST', '/resources/create', token, { nodes: [node('r3', { isRoot: true }), node('r4', { isRoot: true })] }, 201);
  t.pass('after a delete there is room again');
});

t.test('two requests racing to strand one resource never both succeed', async (t) => {
  let refused = 0;
  for (let round = 0; round < 15; round++) {
    const org = srv.newTenant();
    const token = srv.token({ org });
    // leaf hangs from root through two parents; each request deletes one parent.
    await ok(t, 'POST', '/resources/create', token, {
      nodes: [node('root', { isRoot: true }), node('p1'), node('p2'), node('leaf')],
      relations: [contains('root', 'p1'), contains('root', 'p2'), contains('p1', 'leaf'), contains('p2', 'leaf')],
    }, 201);
    const outcomes = await Promise.all(['p1', 'p2'].map((p) => srv.request('POST', '/resources/delete', { token, body: { items: [{ externalId: p }] } })));
    const statuses = outcomes.map((o) => o.status).sort();
    t.ok(statuses[0] === 204 && (statuses[1] === 400 || statuses[1] === 409), `round ${round}: one lands, the other is refused (${statuses.join(', ')})`);
    refused += outcomes.filter((o) => o.status !== 204).length;
    const left = ids((await ok(t, 'POST', '/resources/filter', token, {})).items).sort();
    t.ok(left.includes('leaf') && left.length === 3, `round ${round}: leaf and one parent remain`);
  }
  t.equal(refused, 15);
});
