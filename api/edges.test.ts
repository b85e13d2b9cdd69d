// Goal: SPEC "Edges": every endpoint with its statuses and shapes, and each of the nine edge
// rules with its own test: ends resolved first (1), BELONGS_TO into data sets (2), the data
// set–time series rule (3), write access on both ends (4), 409 on a duplicate (5), read
// access on both ends (6), the stranding check on delete (7), the two name normalisations
// (8), no find-or-create on the types endpoint (9); tenants never see each other's edges.
// Method: one real server; per test a fresh tenant with a small plant built through the API;
// every 2xx schema-checked.
import t, { type Test } from 'tap';
import { assertErrorBody } from './testing/error-body.ts';
import { schemaCheckedRequest } from './testing/response-schema.ts';
import { startTestServer } from './testing/test-server.ts';

/** A tenant whose daily relationships quota is 3 (the quota test's). */
const LOW_QUOTA_ORG = `edges-quota-${process.pid}`;
const srv = await startTestServer({ serviceConfig: { tenants: { [LOW_QUOTA_ORG]: { dailyQuotas: { relationships: 3 } } } } });
t.teardown(() => srv.close());
const call = schemaCheckedRequest(srv);

interface Edge { id: number; start: number; end: number; type: string; relationshipTypeId: number }
interface Node { id: number; externalId: string; dataSetId?: number }

async function ok(t: Test, method: string, path: string, token: string, body: unknown, status = 200) {
  const res = await call(t, method, path, { token, body });
  if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}

/** A tenant with data sets A and B, root R, resources a (in A) and b (in B) under R, series s (none) and sa (in A). */
async function plant(t: Test) {
  const org = srv.newTenant();
  const admin = srv.token({ org });
  const [A, B] = (await ok(t, 'POST', '/datasets/create', admin, { items: [{ externalId: 'A', name: 'A' }, { externalId: 'B', name: 'B' }] }, 201)).items as Node[];
  const created = await ok(t, 'POST', '/resources/create', admin, {
    nodes: [{ externalId: 'R', name: 'root', isRoot: true }, { externalId: 'a', name: 'a', dataSetId: A?.id }, { externalId: 'b', name: 'b', dataSetExternalId: 'B' }],
    relations: [{ fromExternalId: 'R', toExternalId: 'a', relationshipType: 'CONTAINS' }, { fromExternalId: 'R', toExternalId: 'b', relationshipType: 'CONTAINS' }],
  }, 201);
  const [R, a, b] = created.items as Node[];
  const series = (await ok(t, 'POST', '/timeseries/create', admin, { items: [{ externalId: 's', name: 's', valueType: 'FLOAT' }, { externalId: 'sa', name: 'sa', valueType: 'FLOAT', dataSetId: A?.id }] }, 201)).items as Node[];
  return { org, admin, A: A as Node, B: B as Node, R: R as Node, a: a as Node, b: b as Node, s: series[0] as Node, sa: series[1] as Node, containsEdges: created.relations as Edge[] };
}

const edge = (from: string, to: string, relationshipType: string | undefined = 'FEEDS', extra: Record<string, unknown> = {}) =>
  ({ fromExternalId: from, toExternalId: to, ...(relationshipType !== undefined ? { relationshipType } : {}), ...extra });

t.test('create, get, byids as a graph, delete: shapes and statuses', async (t) => {
  const p = await plant(t);
  const [made] = (await ok(t, 'POST', '/edges/create', p.admin, { items: [edge('a', 'b', 'FEEDS', { description: 'pipe', metadata: { dn: '50' } })] }, 201)).items as Edge[];
  t.match(made, { start: p.a.id, end: p.b.id, type: 'FEEDS', description: 'pipe', metadata: { dn: '50' } });
  const got = await ok(t, 'GET', `/edges/${made?.id}`, p.admin, undefined);
  t.same(got, made, 'GET /edges/{id} answers the edge itself');
  const graph = await ok(t, 'POST', '/edges/byids', p.admin, { items: [{ id: made?.id }, { id: 987654321 }, { id: p.containsEdges[0]?.id }] });
  t.same(graph.relations.map((e: Edge) => e.id), [made?.id, p.containsEdges[0]?.id], 'relations in request order, misses omitted');
  t.same(graph.nodes.map((n: Node & { kind: string }) => [n.externalId, n.kind]), [['R', 'resource'], ['a', 'resource'], ['b', 'resource']], 'each end node once, by id, with its kind');
  assertErrorBody(t, await call(t, 'GET', '/edges/987654321', { token: p.admin }), { status: 404 }, 'a missing edge');
  assertErrorBody(t, await call(t, 'GET', '/edges/abc', { token: p.admin }), { status: 400, fields: ['id'] }, 'a non-integer id');
  t.equal((await call(t, 'POST', '/edges/delete', { token: p.admin, body: { items: [{ id: made?.id }, { id: 987654321 }] } })).status, 204, 'unknown ids skipped');
  t.equal((await call(t, 'DELETE', '/edges/delete', { token: p.admin, body: { items: [{ id: made?.id }] } })).status, 204, 'DELETE, idempotent');
  assertErrorBody(t, await call(t, 'GET', `/edges/${made?.id}`, { token: p.admin }), { status: 404 }, 'gone');
  const theirs = srv.token({ org: srv.newTenant() });
  assertErrorBody(t, await call(t, 'GET', `/edges/${p.containsEdges[0]?.id}`, { token: theirs }), { status: 404 }, 'another tenant\'s edge is missing');
  t.same((await ok(t, 'POST', '/edges/byids', theirs, { items: [{ id: p.containsEdges[0]?.id }] })).relations, []);
});

t.test('rule 1: both ends resolved before writing; a missing end or type is a 400 naming it; nothing is written', async (t) => {
  const p = await plant(t);
  const check = async (items: unknown[], fields: string[], name: string) =>
    assertErrorBody(t, await call(t, 'POST', '/edges/create', { token: p.admin, body: { items } }), { status: 400, fields }, name);
  await check([edge('a', 'b'), edge('a', 'nowhere')], ['items.1.toExternalId'], 'a missing end');
  await check([{ fromId: 987654321, toExternalId: 'b', relationshipType: 'X' }], ['items.0.fromId'], 'a missing start by id');
  await check([{ fromExternalId: 'a', toExternalId: 'b' }], ['items.0.relationshipType'], 'no type');
  await check([{ fromExternalId: 'a', toExternalId: 'b', relationshipTypeId: 987654321 }], ['items.0.relationshipTypeId'], 'an unknown type id');
  await check([{ toExternalId: 'b', relationshipType: 'X' }], ['items.0.fromId'], 'no start at all');
  await check([{ fromId: p.a.id, fromExternalId: 'b', toExternalId: 'R', relationshipType: 'X' }], ['items.0.fromExternalId'], 'fromId and fromExternalId naming different nodes');
  await check([edge('a', 'b', '--')], ['items.0.relationshipType'], 'a type name without a letter or digit');
  const types = (await ok(t, 'GET', '/edges/types', p.admin, undefined)).items.map((x: { name: string }) => x.name);
  t.same(types, ['BELONGS_TO', 'CONTAINS'], 'no type of a refused batch was created (BELONGS_TO: the data sets\' own)');
});

t.test('rule 2: a relation into a data set must be BELONGS_TO', async (t) => {
  const p = await plant(t);
  assertErrorBody(t, await call(t, 'POST', '/edges/create', { token: p.admin, body: { items: [edge('a', 'B', 'FEEDS')] } }), { status: 400, fields: ['items.0.relationshipType'] }, 'FEEDS into a data set');
  const [made] = (await ok(t, 'POST', '/edges/create', p.admin, { items: [edge('b', 'B', 'belongs_to')] }, 201)).items as Edge[];
  t.equal(made?.type, 'BELONGS_TO', 'BELONGS_TO (upper-cased) is accepted');
  await ok(t, 'POST', '/edges/create', p.admin, { items: [edge('B', 'a', 'DOCUMENTS')] }, 201);
  t.pass('a relation out of a data set may be of any type');
});

t.test('rule 3: a data set–time series edge only for a series without a data set (which takes it) or already in it', async (t) => {
  const p = await plant(t);
  assertErrorBody(t, await call(t, 'POST', '/edges/create', { token: p.admin, body: { items: [edge('sa', 'B', 'BELONGS_TO')] } }), { status: 400, fields: ['items.0'] }, 'sa is in A, not B');
  await ok(t, 'POST', '/edges/create', p.admin, { items: [edge('sa', 'A', 'BELONGS_TO')] }, 201);
  t.pass('sa already in A: accepted');
  await ok(t, 'POST', '/edges/create', p.admin, { items: [edge('s', 'B', 'BELONGS_TO')] }, 201);
  const [s] = (await ok(t, 'POST', '/timeseries/byids', p.admin, { items: [{ externalId: 's' }] })).items as Node[];
  t.equal(s?.dataSetId, p.B.id, 'a series without a data set takes the data set of the edge');
  assertErrorBody(t, await call(t, 'POST', '/edges/create', { token: p.admin, body: { items: [edge('A', 's', 'MEASURED_BY')] } }), { status: 400, fields: ['items.0'] }, 'now s is in B: an edge from A is refused, in either direction');
  const readerB = srv.token({ org: p.org, sub: 'rb', read: [p.B.id] });
  t.equal((await call(t, 'POST', '/timeseries/byids', { token: readerB, body: { items: [{ externalId: 's' }] } })).body.items.length, 1, 'grants follow: a reader of B reads s');
});

t.test('rule 4: 403 without write access to either end\'s data set', async (t) => {
  const p = await plant(t);
  const writerA = srv.token({ org: p.org, sub: 'wa', write: [p.A.id], read: [p.B.id] });
  assertErrorBody(t, await call(t, 'POST', '/edges/create', { token: writerA, body: { items: [edge('a', 'b')] } }), { status: 403 }, 'b is in B');
  assertErrorBody(t, await call(t, 'POST', '/edges/create', { token: writerA, body: { items: [edge('b', 'a')] } }), { status: 403 }, 'either end');
  await ok(t, 'POST', '/edges/create', writerA, { items: [edge('a', 'R')] }, 201);
  t.pass('A and no data set: writable');
  const readerOnly = srv.token({ org: p.org, sub: 'r', read: [p.A.id] });
  assertErrorBody(t, await call(t, 'POST', '/edges/create', { token: readerOnly, body: { items: [edge('a', 'R', 'X')] } }), { status: 403 }, 'read access is not write access');
  assertErrorBody(t, await call(t, 'POST', '/edges/delete', { token: readerOnly, body: { items: [{ id: p.containsEdges[0]?.id }] } }), { status: 403 }, 'delete needs write too');
});

t.test('rule 5: 409 when (start, end, type) exists or repeats; all-or-nothing', async (t) => {
  const p = await plant(t);
  const res = await call(t, 'POST', '/edges/create', { token: p.admin, body: { items: [edge('a', 'b', 'X'), edge('R', 'a', 'CONTAINS')] } });
  assertErrorBody(t, res, { status: 409 }, 'R -CONTAINS-> a exists');
  t.same(res.body.error.duplicated, [{ start: p.R.id, end: p.a.id, type: 'CONTAINS' }], 'duplicated names the triple');
  assertErrorBody(t, await call(t, 'POST', '/edges/create', { token: p.admin, body: { items: [edge('a', 'b', 'Y'), edge('a', 'b', 'y')] } }), { status: 409 }, 'the same triple twice in one batch');
  const graph = await ok(t, 'POST', '/edges/byids', p.admin, { items: [] as unknown[] }).catch(() => undefined);
  t.equal(graph, undefined, 'an empty byids is refused by the schema');
  await ok(t, 'POST', '/edges/create', p.admin, { items: [edge('a', 'b', 'X')] }, 201);
  t.pass('nothing of the refused batches was written: a -X-> b is new');
  await ok(t, 'POST', '/edges/create', p.admin, { items: [edge('b', 'a', 'X')] }, 201);
  t.pass('the reverse direction is another edge');
});

t.test('rule 6: reading an edge needs read access to both ends; a denied edge behaves as missing', async (t) => {
  const p = await plant(t);
  const [ab] = (await ok(t, 'POST', '/edges/create', p.admin, { items: [edge('a', 'b')] }, 201)).items as Edge[];
  const readerA = srv.token({ org: p.org, sub: 'ra', read: [p.A.id] });
  assertErrorBody(t, await call(t, 'GET', `/edges/${ab?.id}`, { token: readerA }), { status: 404 }, 'b is unreadable');
  const graph = await ok(t, 'POST', '/edges/byids', readerA, { items: [{ id: ab?.id }, { id: p.containsEdges[0]?.id }] });
  t.same(graph.relations.map((e: Edge) => e.id), [p.containsEdges[0]?.id], 'byids omits it; R -> a stays');
  t.notOk(graph.nodes.some((n: Node) => n.externalId === 'b'), 'and never shows the unreadable node');
  t.equal((await call(t, 'POST', '/edges/delete', { token: readerA, body: { items: [{ id: ab?.id }] } })).status, 204, 'deleting an unreadable edge is skipping an unknown one');
  t.equal((await call(t, 'GET', `/edges/${ab?.id}`, { token: p.admin })).status, 200, 'and it stays');
});

t.test('rule 7: a delete that would strand a resource is a 400 naming it; with another path it goes', async (t) => {
  const p = await plant(t);
  const [Ra] = p.containsEdges;
  const res = await call(t, 'POST', '/edges/delete', { token: p.admin, body: { items: [{ id: Ra?.id }] } });
  assertErrorBody(t, res, { status: 400, fields: ['items'] }, 'R -> a is a\'s only path');
  t.match(res.body.error.fields, [{ id: p.a.id, externalId: 'a' }], 'the stranded resource is named');
  t.equal((await call(t, 'GET', `/edges/${Ra?.id}`, { token: p.admin })).status, 200, 'nothing removed');
  await ok(t, 'POST', '/edges/create', p.admin, { items: [edge('b', 'a', 'FEEDS')] }, 201);
  t.equal((await call(t, 'POST', '/edges/delete', { token: p.admin, body: { items: [{ id: Ra?.id }] } })).status, 204, 'a is reached through b now');
  // Through a time series: paths may pass through series and data sets.
  await ok(t, 'POST', '/edges/create', p.admin, { items: [edge('R', 's', 'HAS'), edge('s', 'b', 'FEEDS')] }, 201);
  const [, Rb] = p.containsEdges;
  t.equal((await call(t, 'POST', '/edges/delete', { token: p.admin, body: { items: [{ id: Rb?.id }] } })).status, 204, 'b is reached through the series s');
});

t.test('rule 8: /edges/create upper-cases, /edges/types/create snake-upper-cases; lookup on the normalised name', async (t) => {
  const p = await plant(t);
  const [viaCreate] = (await ok(t, 'POST', '/edges/create', p.admin, { items: [edge('a', 'b', 'Flows To')] }, 201)).items as Edge[];
  t.equal(viaCreate?.type, 'FLOWS TO', '/edges/create only upper-cases');
  const [registered] = (await ok(t, 'POST', '/edges/types/create', p.admin, { items: [{ name: 'Flows To', description: 'process flow', i18nCode: 'flows_to' }] }, 201)).items;
  t.match(registered, { name: 'FLOWS_TO', description: 'process flow', i18nCode: 'flows_to' }, 'the types endpoint snake-upper-cases');
  t.not(registered.id, viaCreate?.relationshipTypeId, 'FLOWS TO and FLOWS_TO are different types');
  const [lookedUp] = (await ok(t, 'POST', '/edges/create', p.admin, { items: [edge('b', 'a', 'flows_to')] }, 201)).items as Edge[];
  t.equal(lookedUp?.relationshipTypeId, registered.id, 'flows_to upper-cased finds FLOWS_TO');
  const [byId] = (await ok(t, 'POST', '/edges/create', p.admin, { items: [{ fromExternalId: 'R', toExternalId: 'b', relationshipTypeId: registered.id }] }, 201)).items as Edge[];
  t.equal(byId?.type, 'FLOWS_TO', 'a type by id');
  const names = (await ok(t, 'GET', '/edges/types', p.admin, undefined)).items.map((x: { name: string }) => x.name);
  t.same(names, ['BELONGS_TO', 'CONTAINS', 'FLOWS TO', 'FLOWS_TO'], 'the catalogue by name');
});

t.test('rule 9: the types endpoint has no find-or-create: a taken name is a 409 and nothing of the batch is created', async (t) => {
  const p = await plant(t);
  const res = await call(t, 'POST', '/edges/types/create', { token: p.admin, body: { items: [{ name: 'powers' }, { name: 'contains' }] } });
  assertErrorBody(t, res, { status: 409 }, 'CONTAINS exists (ignoring case)');
  t.same(res.body.error.duplicated, [{ name: 'CONTAINS' }]);
  assertErrorBody(t, await call(t, 'POST', '/edges/types/create', { token: p.admin, body: { items: [{ name: 'a b' }, { name: 'A_B' }] } }), { status: 409 }, 'two names normalising to one');
  assertErrorBody(t, await call(t, 'POST', '/edges/types/create', { token: p.admin, body: { items: [{ name: '__' }] } }), { status: 400, fields: ['items.0.name'] }, 'no letter or digit');
  const long = await call(t, 'POST', '/edges/types/create', { token: p.admin, body: { items: [{ name: 'X'.repeat(129) }] } });
  t.ok(long.status === 400 || long.status === 422, `a name over 128 characters: ${long.status}`);
  const names = (await ok(t, 'GET', '/edges/types', p.admin, undefined)).items.map((x: { name: string }) => x.name);
  t.same(names, ['BELONGS_TO', 'CONTAINS'], 'POWERS was not created');
});

t.test('the daily relationships quota; a series that starts a relationship cannot be deleted', async (t) => {
  const token = srv.token({ org: LOW_QUOTA_ORG });
  const r = await srv.request('POST', '/resources/create', { token, body: { nodes: [{ externalId: 'R', name: 'R', isRoot: true }, { externalId: 'x', name: 'x', isRoot: true }], relations: [{ fromExternalId: 'R', toExternalId: 'x', relationshipType: 'A' }] } });
  t.equal(r.status, 201);
  const over = await srv.request('POST', '/edges/create', { token, body: { items: [edge('x', 'R', 'B'), edge('R', 'x', 'C'), edge('x', 'R', 'D')] } });
  t.equal(over.status, 429, 'past the daily relationships quota: 429');
  t.match(over.body, { metric: 'relationships', limit: 3 });

  const p = await plant(t);
  await ok(t, 'POST', '/edges/create', p.admin, { items: [edge('s', 'a', 'FEEDS')] }, 201);
  const refused = await call(t, 'POST', '/timeseries/delete', { token: p.admin, body: { items: [{ externalId: 's' }] } });
  assertErrorBody(t, refused, { status: 400 }, 'a series starting a relationship');
  t.match(refused.body.error.fields[0], { type: 'relationship', timeseriesId: p.s.id });
  t.equal((await call(t, 'POST', '/timeseries/delete', { token: p.admin, body: { items: [{ externalId: 'sa' }] } })).status, 204, 'a series that only ends edges (or none) goes');
});

t.test('filter: edges out of and into a node, by type, paged by id, readable ends only', async (t) => {
  const p = await plant(t);
  await ok(t, 'POST', '/edges/create', p.admin, { items: [edge('a', 'b'), edge('a', 'sa', 'Measured By'), edge('b', 'a')] }, 201);
  const page = (filter: unknown, token = p.admin, extra: Record<string, unknown> = {}) => ok(t, 'POST', '/edges/filter', token, { filter, ...extra });
  const out = await page({ startId: p.a.id });
  t.same(out.items.map((e: Edge) => [e.type, e.end]), [['FEEDS', p.b.id], ['MEASURED BY', p.sa.id]], 'edges out of a, by id; the type upper-cased as /edges/create stores it');
  t.same(out.nodes.map((n: Node) => n.externalId), ['a', 'b', 'sa'], 'their end nodes once each, by id');
  t.notOk('nextCursor' in out, 'a short page has no cursor');
  t.same((await page({ endId: p.a.id })).items.map((e: Edge) => [e.type, e.start]), [['CONTAINS', p.R.id], ['FEEDS', p.b.id]], 'edges into a');
  t.same((await page({ startId: p.a.id, type: 'measured by' })).items.map((e: Edge) => e.end), [p.sa.id], 'the type compared upper-cased');
  t.same((await page({ startId: p.a.id, type: 'NO SUCH TYPE' })).items, [], 'an unknown type matches nothing');
  // Paging: two edges out of R, one per page, then the cursor refused under another filter.
  const first = await page({ startId: p.R.id }, p.admin, { limit: 1 });
  t.equal(first.items.length, 1);
  t.type(first.nextCursor, 'string', 'a full page carries a cursor');
  const second = await page({ startId: p.R.id }, p.admin, { limit: 1, cursor: first.nextCursor });
  t.same([...first.items, ...second.items].map((e: Edge) => e.end), [p.a.id, p.b.id], 'the second page continues after the first');
  const third = await page({ startId: p.R.id }, p.admin, { limit: 1, cursor: second.nextCursor });
  t.same(third.items, [], 'a full last page is followed by an empty one');
  assertErrorBody(t, await call(t, 'POST', '/edges/filter', { token: p.admin, body: { filter: { startId: p.a.id }, cursor: first.nextCursor } }), { status: 400, fields: ['cursor'] }, 'a cursor of another filter');
  assertErrorBody(t, await call(t, 'POST', '/edges/filter', { token: p.admin, body: { limit: 1001 } }), { status: 400, fields: ['limit'] }, 'limit at most 1,000');
  // Rule 6: an edge is readable when both ends are; the page leaves others out before its limit.
  const readerA = srv.token({ org: p.org, sub: 'ra', read: [p.A.id] });
  t.same((await page({ startId: p.a.id }, readerA)).items.map((e: Edge) => e.end), [p.sa.id], 'the edge into b (data set B) is not readable with A only');
  t.same((await page({ startId: p.R.id }, readerA, { limit: 1 })).items.map((e: Edge) => e.end), [p.a.id], 'a page of readable edges only');
  const theirs = srv.token({ org: srv.newTenant() });
  t.same((await page({ startId: p.a.id }, theirs)).items, [], 'another tenant sees none');
});
