// Goal: SPEC "Event" and "Events" with the shapes of docs/api.md: create (ids kept or assigned, idempotent
// retries, racing ones included, eventTime required and ISO-8601 accepted, related resources
// resolved, caps), reads (get, byids by externalId, count, distinct lists and searches),
// the filter, advanced filter, sort and paging rules with the odd ones, a paging walk over a
// few hundred events with ties and nulls visiting each exactly once in every sort, search,
// update and delete, grants on every read and write, tenants, the quota and the ceiling.
// Method: one real server; per test a fresh tenant; every 2xx schema-checked.
import t, { type Test } from 'tap';
import { assertErrorBody } from './testing/error-body.ts';
import { schemaCheckedRequest } from './testing/response-schema.ts';
import { startTestServer } from './testing/test-server.ts';

const QUOTA_ORG = `events-quota-${process.pid}`;
const CEILING_ORG = `events-ceiling-${process.pid}`;
const srv = await startTestServer({ serviceConfig: { tenants: { [QUOTA_ORG]: { dailyQuotas: { events: 3 } }, [CEILING_ORG]: { ceilings: { events: 2 } } } } });
t.teardown(() => srv.close());
const call = schemaCheckedRequest(srv);

interface Event { id: string; externalId: string; eventTime: number; type?: string; subType?: string; status?: string; source?: string; description?: string; dataSetId?: string; relatedResources: { id: string; externalId: string }[]; metadata: Record<string, string> }

const T0 = Date.UTC(2026, 5, 1);

async function ok(t: Test, method: string, path: string, token: string, body?: unknown, status = 200) {
  const res = await call(t, method, path, { token, body });
  if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}

const ev = (externalId: string, extra: Record<string, unknown> = {}) => ({ externalId, eventTime: T0, ...extra });

t.test('create: ids, idempotent retries, eventTime, related resources, caps', async (t) => {
  const org = srv.newTenant();
  const token = srv.token({ org });
  const [ds] = (await ok(t, 'POST', '/datasets/create', token, { items: [{ externalId: 'plant', name: 'plant' }] }, 201)).items;
  await ok(t, 'POST', '/resources/create', token, { nodes: [{ externalId: 'pump', name: 'pump', isRoot: true }] }, 201);
  const [series] = (await ok(t, 'POST', '/timeseries/create', token, { items: [{ externalId: 'flow', name: 'flow', valueType: 'FLOAT' }] }, 201)).items;
  const mine = '0190f7a2-3b4c-7d5e-8f60-718293a4b5c6';
  const made = (await ok(t, 'POST', '/events/create', token, { items: [
    ev('wo-1', { id: mine, type: 'work_order', status: 'OPEN', description: 'Replace seal', metadata: { crew: 'A', '': 'dropped' }, dataSetId: String(ds.id),
      relatedResources: [{ externalId: 'pump' }, { id: series.id }, { id: String(ds.id), externalId: 'plant' }], relatedResourceIds: [1, 2] }),
    ev('wo-1', { eventTime: '2026-06-01T01:00:00Z', status: 'DONE' }),
  ] }, 201)).items as Event[];
  t.equal(made[0]?.id, mine, 'a client id is kept');
  t.match(made[1]?.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'an absent id gets a UUID v7');
  t.equal(made[1]?.eventTime, T0 + 3_600_000, 'ISO-8601 accepted, returned as epoch ms');
  t.same(made[0]?.metadata, { crew: 'A' }, 'an empty metadata key is dropped');
  t.equal(made[0]?.dataSetId, String(ds.id), 'dataSetId as a JSON string');
  t.same(made[0]?.relatedResources, [{ id: String(made[0]?.relatedResources[0]?.id), externalId: 'pump' }, { id: String(series.id), externalId: 'flow' }, { id: String(ds.id), externalId: 'plant' }], 'the missing side filled in, ids as strings');
  t.notOk('relatedResourceIds' in (made[0] as object), 'the removed field is ignored');
  const retried = (await ok(t, 'POST', '/events/create', token, { items: [ev('something-else', { id: mine, description: 'a different payload' })] }, 201)).items;
  t.same(retried[0], made[0], 'a retry with the same id answers the stored event');
  const racing = '0190f7a2-3b4c-7d5e-8f60-000000000001';
  const answers = await Promise.all([1, 2, 3, 4].map((k) => srv.request('POST', '/events/create', { token, body: { items: [ev(`race-${k}`, { id: racing })] } })));
  t.same(answers.map((a) => a.status), [201, 201, 201, 201], 'racing retries all succeed');
  t.equal(new Set(answers.map((a) => JSON.stringify(a.body.items[0]))).size, 1, 'and answer the one stored event');
  t.equal((await ok(t, 'POST', '/events/byids', token, { items: [{ id: racing }] })).items.length, 1, 'stored once');

  const check = async (items: unknown[], expected: Parameters<typeof assertErrorBody>[2], name: string) =>
    assertErrorBody(t, await call(t, 'POST', '/events/create', { token, body: { items } }), expected, name);
  await check([{ externalId: 'x-1' }], { status: 400 }, 'eventTime missing');
  await check([ev('x-1', { eventTime: 'yesterday' })], { status: 400, fields: ['items.0.eventTime'] }, 'eventTime not an instant');
  await check([ev('x-1', { relatedResources: [{ externalId: 'nope' }] })], { status: 400, fields: ['items.0.relatedResources.0'] }, 'an unknown related resource');
  await check([ev('x-1', { relatedResources: [{ id: series.id, externalId: 'pump' }] })], { status: 400, fields: ['items.0.relatedResources.0'] }, 'id and externalId naming different resources');
  await check([ev('x-1', { dataSetId: '987654321' })], { status: 400, fields: ['items.0.dataSetId'] }, 'an unknown data set');
  for (const [name, item] of [['externalId under 3', ev('ab')], ['type over 128', ev('x-1', { type: 'x'.repeat(129) })], ['source under 2', ev('x-1', { source: 's' })],
    ['description over 10,000', ev('x-1', { description: 'x'.repeat(10_001) })], ['101 related resources', ev('x-1', { relatedResources: Array.from({ length: 101 }, () => ({ externalId: 'pump' })) })]] as const) {
    const res = await call(t, 'POST', '/events/create', { token, body: { items: [item] } });
    t.ok(res.status === 400 || res.status === 422, `${name}: ${res.status}`);
  }
  t.equal((await ok(t, 'GET', '/events/count', token)).count, 3, 'nothing of the refused requests was stored');
});

t.test('reads: get, byids by externalId, count, distinct values and their searches', async (t) => {
  const org = srv.newTenant();
  const token = srv.token({ org });
  const made = (await ok(t, 'POST', '/events/create', token, { items: [
    ev('batch-7', { type: 'batch_step', subType: 'heat', status: 'Started', source: 'mes' }),
    ev('batch-7', { eventTime: T0 + 1, type: 'batch_step', subType: 'cool', status: 'Done', source: 'mes' }),
    ev('alarm-1', { type: 'alarm', subType: 'high_temp', source: 'scada' }),
  ] }, 201)).items as Event[];
  t.same(await ok(t, 'GET', `/events/${made[2]?.id}`, token), made[2]);
  assertErrorBody(t, await call(t, 'GET', '/events/0190f7a2-3b4c-7d5e-8f60-718293a4b5c7', { token }), { status: 404 }, 'none');
  assertErrorBody(t, await call(t, 'GET', '/events/not-a-uuid', { token }), { status: 400, fields: ['id'] }, 'not a UUID');
  const byids = (await ok(t, 'POST', '/events/byids', token, { items: [{ externalId: 'batch-7' }, { id: made[2]?.id }, { externalId: 'none' }, { id: made[0]?.id }] })).items as Event[];
  t.same(byids.map((e) => e.id), [made[0]?.id, made[1]?.id, made[2]?.id], 'an externalId returns every event under it; misses omitted; each once');
  t.same(await ok(t, 'GET', '/events/count', token), { count: 3 });
  t.same((await ok(t, 'GET', '/events/list/types', token)).items, ['alarm', 'batch_step']);
  t.same((await ok(t, 'GET', '/events/list/sub-types?limit=2', token)).items, ['cool', 'heat']);
  t.same((await ok(t, 'GET', '/events/list/statuses?limit=0', token)).items, ['Done'], 'limit clamped to 1');
  t.same((await ok(t, 'GET', '/events/list/sources?limit=99999', token)).items, ['mes', 'scada'], 'limit clamped to 10,000');
  t.same((await ok(t, 'GET', '/events/search/type?q=BATCH', token)).items, ['batch_step'], 'contains q, case-insensitive');
  t.same((await ok(t, 'GET', '/events/search/sub-type?q=o', token)).items, ['cool']);
  assertErrorBody(t, await call(t, 'GET', '/events/search/status', { token }), { status: 400, fields: ['q'] }, 'q missing');
});

t.test('filter rules: patterns, case, metadata, data sets, related resources, time bounds, advanced filter', async (t) => {
  const org = srv.newTenant();
  const token = srv.token({ org });
  const [P, C] = (await ok(t, 'POST', '/datasets/create', token, { items: [{ externalId: 'P', name: 'P' }, { externalId: 'C', name: 'C', parentExternalId: 'P' }] }, 201)).items;
  await ok(t, 'POST', '/resources/create', token, { nodes: [{ externalId: 'r1', name: 'r1', isRoot: true }, { externalId: 'r2', name: 'r2', isRoot: true }] }, 201);
  await ok(t, 'POST', '/events/create', token, { items: [
    ev('WO-100', { type: 'work_order', source: 'sap', metadata: { plant: 'oslo', crew: 'a' }, dataSetId: P.id, relatedResources: [{ externalId: 'r1' }, { externalId: 'r2' }] }),
    ev('wo-101', { eventTime: T0 + 10, type: 'work_order', source: 'sap', metadata: { plant: 'oslo' }, dataSetId: C.id, relatedResources: [{ externalId: 'r1' }] }),
    ev('alarm-7', { eventTime: T0 + 20, type: 'alarm', subType: 'x_y', source: 'scada', metadata: { plant: 'bergen' } }),
  ] }, 201);
  const filter = async (body: unknown) => ((await ok(t, 'POST', '/events/filter', token, body)).items as Event[]).map((e) => e.externalId);
  t.same(await filter({ filter: { externalId: 'WO-100' } }), ['WO-100'], 'a literal externalId is case-sensitive');
  t.same(await filter({ filter: { externalId: 'wo-100' } }), [], '...so another case finds nothing');
  t.same(await filter({ filter: { externalId: 'wo-*' } }), ['WO-100', 'wo-101'], 'with a wildcard, case-insensitive');
  t.same(await filter({ filter: { type: ['alarm', 'nothing'] } }), ['alarm-7'], 'array entries OR-ed');
  t.same(await filter({ filter: { subType: 'x_y' } }), ['alarm-7'], '_ is literal');
  t.same(await filter({ filter: { subType: 'xzy' } }), []);
  t.same(await filter({ filter: { metadata: { plant: 'oslo', crew: 'a' } } }), ['WO-100'], 'every metadata pair');
  // Rule 1: metadata takes a bare object or an array, whose entries must all match (AND).
  t.same(await filter({ filter: { metadata: [{ plant: 'oslo' }, { crew: 'a' }] } }), ['WO-100'], 'an array of metadata objects: every entry matches');
  t.same(await filter({ filter: { metadata: [{ plant: 'oslo' }] } }), ['WO-100', 'wo-101'], 'an array of one metadata object');
  t.same(await filter({ filter: { metadata: [{ plant: 'oslo' }, { plant: 'bergen' }] } }), [], 'entries naming one key with two values: none has both');
  t.same(await filter({ filter: { metadata: [] } }), ['WO-100', 'wo-101', 'alarm-7'], 'an empty array restricts nothing');
  t.same(await filter({ filter: { dataSetId: { externalId: 'P' } } }), ['WO-100', 'wo-101'], 'a data set covers its descendants');
  t.same(await filter({ filter: { dataSetId: [] } }), [], 'an explicit empty list matches nothing');
  t.same(await filter({ filter: { dataSetId: null } }), ['WO-100', 'wo-101', 'alarm-7'], 'null: no restriction');
  t.same(await filter({ filter: { dataSetId: [{ externalId: 'nope' }, { id: C.id }] } }), ['wo-101'], 'an unknown externalId contributes nothing');
  t.same(await filter({ filter: { relatedResources: [{ externalId: 'r1' }, { externalId: 'r2' }] } }), ['WO-100'], 'every related resource must match');
  t.same(await filter({ filter: { eventTime: { min: T0 + 10, max: T0 + 20 } } }), ['wo-101'], 'eventTime: min inclusive, max exclusive');
  t.same(await filter({ filter: { eventTime: { min: '2026-06-01T00:00:00.010Z' } } }), ['wo-101', 'alarm-7'], 'ISO-8601 bounds');
  t.same(await filter({ advancedFilter: { or: [{ equals: { property: ['type'], value: 'alarm' } }, { prefix: { property: ['externalId'], value: 'WO' } }] } }), ['WO-100', 'alarm-7'], 'or, equals, prefix');
  t.same(await filter({ advancedFilter: { and: [{ in: { property: ['source'], values: ['sap', 'x'] } }, { not: { equals: { property: ['externalId', 'ignored'], value: 'wo-101' } } }] } }), ['WO-100'], 'and, in, not; only the first property entry is read');
  t.same(await filter({ advancedFilter: { equals: { property: ['dataSetId'], value: C.id } } }), ['wo-101'], 'values compare as strings');
  t.same(await filter({ advancedFilter: { equals: { property: ['metadata'], value: 'bergen' } } }), ['alarm-7'], 'a metadata leaf matches any metadata value');
  assertErrorBody(t, await call(t, 'POST', '/events/filter', { token, body: { advancedFilter: { equals: { property: ['status'], value: 'x' } } } }), { status: 400, fields: ['advancedFilter.equals.property'] }, 'a property not in the list');
  assertErrorBody(t, await call(t, 'POST', '/events/filter', { token, body: { advancedFilter: { xor: [] } } }), { status: 400 }, 'an unknown combinator');
});

t.test('sort and paging: every sort visits each event exactly once; the odd rules', async (t) => {
  const org = srv.newTenant();
  const token = srv.token({ org });
  // 240 events with many ties (12 event times, 5 types) and nulls (every third has no type / source / status).
  const items = Array.from({ length: 240 }, (_, i) => ev(`k-${i % 40}`, {
    eventTime: T0 + (i % 12) * 1000,
    ...(i % 3 === 0 ? {} : { type: `type-${i % 5}`, source: `src-${i % 4}`, status: `st-${i % 2}`, subType: `sub-${i % 3}` }),
  }));
  await ok(t, 'POST', '/events/create', token, { items }, 201);
  const walk = async (sort: unknown, limit: number) => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await ok(t, 'POST', '/events/filter', token, { sort, limit, ...(cursor ? { cursor } : {}) });
      seen.push(...(page.items as Event[]).map((e) => e.id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 1000);
    return { seen, pages };
  };
  for (const property of ['eventTime', 'createdTime', 'lastUpdatedTime', 'externalId', 'type', 'source', 'dataSetId']) {
    for (const order of ['asc', 'desc']) {
      const { seen } = await walk({ property: [property], order }, 17);
      t.equal(seen.length, 240, `${property} ${order}: 240 visited`);
      t.equal(new Set(seen).size, 240, `${property} ${order}: each once`);
    }
  }
  const full = await walk(undefined, 40);
  t.equal(full.pages, 7, '240 in pages of 40: six full pages, then one empty page');
  const first = await ok(t, 'POST', '/events/filter', token, { sort: { property: ['type'], order: 'asc' }, limit: 240 });
  const types = (first.items as Event[]).map((e) => e.type ?? null);
  t.same(types.slice(-80), Array(80).fill(null), 'nulls last ascending');
  const desc = await ok(t, 'POST', '/events/filter', token, { sort: { property: ['type'], order: 'DESC' }, limit: 5 });
  t.notSame((desc.items as Event[]).map((e) => e.type ?? null), Array(5).fill(null), 'any order but exactly `desc` is ascending');
  const descNulls = await ok(t, 'POST', '/events/filter', token, { sort: { property: ['type'], order: 'desc' }, limit: 5 });
  t.same((descNulls.items as Event[]).map((e) => e.type ?? null), Array(5).fill(null), 'nulls first descending');
  const unpaged = await ok(t, 'POST', '/events/filter', token, { sort: { property: ['subType'] }, limit: 10 });
  t.equal(unpaged.items.length, 10);
  t.notOk('nextCursor' in unpaged, 'sorting by subType is not paged');
  const ignored = await ok(t, 'POST', '/events/filter', token, { sort: { property: ['description'] }, limit: 240 });
  const times = (ignored.items as Event[]).map((e) => e.eventTime);
  t.same(times, [...times].sort((a, b) => a - b), 'a non-sortable property is ignored: eventTime ascending');
  const page1 = await ok(t, 'POST', '/events/filter', token, { limit: 10 });
  const restarted = await ok(t, 'POST', '/events/filter', token, { limit: 10, cursor: 'garbage!' });
  t.same(restarted.items, page1.items, 'an undecodable cursor restarts from the first page');
  const other = await ok(t, 'POST', '/events/filter', token, { limit: 10, cursor: page1.nextCursor, sort: { property: ['externalId'] } });
  t.same(other, { items: [] }, 'a cursor with another sort gets an empty response');
  t.equal((await ok(t, 'POST', '/events/filter', token, { limit: 0 })).items.length, 100, 'limit 0 falls back to 100');
  t.equal((await ok(t, 'POST', '/events/filter', token, { limit: -5 })).items.length, 100, 'a negative limit too');
});

t.test('search: ranked, the query rules, filter ignored', async (t) => {
  const org = srv.newTenant();
  const token = srv.token({ org });
  await ok(t, 'POST', '/events/create', token, { items: [
    ev('e-1', { description: 'Bearing temperature high on feed pump, bearing replaced' }),
    ev('e-2', { description: 'Feed pump started', type: 'start' }),
    ev('e-3', { description: 'Shift handover' }),
  ] }, 201);
  const search = async (query: string, filter?: unknown) => ((await ok(t, 'POST', '/events/search', token, { search: { query }, ...(filter ? { filter } : {}) })).items as Event[]).map((e) => e.externalId);
  t.same(await search('bearing pump'), ['e-1', 'e-2'], 'ranked by relevance');
  t.same(await search('shif', { type: 'start' }), ['e-3'], 'prefixes match; the filter is ignored');
  for (const bad of ['ab', 'pump!', 'x'.repeat(141)]) {
    assertErrorBody(t, await call(t, 'POST', '/events/search', { token, body: { search: { query: bad } } }), { status: 400 }, `query "${bad.slice(0, 10)}"`);
  }
});

t.test('update and delete', async (t) => {
  const org = srv.newTenant();
  const token = srv.token({ org });
  await ok(t, 'POST', '/resources/create', token, { nodes: [{ externalId: 'r1', name: 'r1', isRoot: true }, { externalId: 'r2', name: 'r2', isRoot: true }] }, 201);
  const made = (await ok(t, 'POST', '/events/create', token, { items: [
    ev('wo-1', { status: 'OPEN', metadata: { a: '1', b: '2' }, relatedResources: [{ externalId: 'r1' }] }),
    ev('wo-1', { eventTime: T0 + 1, status: 'OPEN' }),
    ev('wo-2', { description: 'keep' }),
  ] }, 201)).items as Event[];
  const updated = (await ok(t, 'POST', '/events/update', token, { items: [
    { id: made[0]?.id, update: { status: { set: 'CLOSED' }, metadata: { add: { c: '3' }, remove: ['a'] }, relatedResources: { add: [{ externalId: 'r2' }], remove: [{ externalId: 'r1' }] }, eventTime: { set: '2026-06-02T00:00:00Z' } } },
  ] })).items as Event[];
  t.match(updated[0], { status: 'CLOSED', metadata: { b: '2', c: '3' }, eventTime: Date.UTC(2026, 5, 2) });
  t.same(updated[0]?.relatedResources.map((r) => r.externalId), ['r2']);
  const byExternalId = (await ok(t, 'POST', '/events/update', token, { items: [{ externalId: 'wo-1', update: { type: { set: 'work_order' } } }] })).items as Event[];
  t.equal(byExternalId.length, 2, 'an externalId updates every event under it');
  const cleared = (await ok(t, 'POST', '/events/update', token, { items: [{ externalId: 'wo-2', update: { description: { setNull: true } } }] })).items as Event[];
  t.notOk('description' in (cleared[0] as object), 'setNull clears');
  const bad = async (items: unknown[], fields: string[], name: string) => assertErrorBody(t, await call(t, 'POST', '/events/update', { token, body: { items } }), { status: 400, fields }, name);
  await bad([{ id: made[0]?.id, update: { status: { set: 'A_B', setNull: true } } }], ['items.0.update.status'], 'set with setNull');
  await bad([{ id: made[0]?.id, update: { source: { set: 's'.repeat(65) } } }], ['items.0.update.source'], 'a source over 64 on update');
  await bad([{ id: made[0]?.id, update: { status: { set: 'NEVER' } } }, { externalId: 'nope', update: { status: { set: 'x_y' } } }], ['items.1'], 'an unknown target: nothing changed');
  t.equal((await ok(t, 'GET', `/events/${made[0]?.id}`, token)).status, 'CLOSED', 'the refused updates changed nothing');
  t.same(await ok(t, 'POST', '/events/delete', token, { items: [{ externalId: 'wo-1' }, { id: '0190f7a2-3b4c-7d5e-8f60-718293a4b5c6' }] }), {}, '200 with an empty body; unknown skipped');
  t.same(await ok(t, 'POST', '/events/delete', token, { items: [{ externalId: 'wo-1' }] }), {}, 'idempotent');
  t.same(await ok(t, 'GET', '/events/count', token), { count: 1 }, 'every event under the externalId is gone');
});

t.test('grants on every read and write; tenants see nothing of each other', async (t) => {
  const org = srv.newTenant();
  const admin = srv.token({ org });
  const [A, B] = (await ok(t, 'POST', '/datasets/create', admin, { items: [{ externalId: 'A', name: 'A' }, { externalId: 'B', name: 'B' }] }, 201)).items;
  const made = (await ok(t, 'POST', '/events/create', admin, { items: [ev('in-a', { dataSetId: A.id, type: 'ta_type', description: 'alpha event' }), ev('in-b', { dataSetId: B.id, type: 'tb_type', description: 'beta event' }), ev('open', { type: 'open_type' })] }, 201)).items as Event[];
  const readerA = srv.token({ org, sub: 'ra', read: [A.id] });
  const names = async (path: string, body?: unknown, method = 'POST') => ((await ok(t, method, path, readerA, body)).items as Event[]).map((e) => e.externalId);
  t.same(await names('/events/filter', {}), ['in-a', 'open'], 'filter');
  t.same(await names('/events/byids', { items: [{ externalId: 'in-b' }, { id: made[1]?.id }, { externalId: 'in-a' }] }), ['in-a'], 'byids');
  t.same(await names('/events/search', { search: { query: 'beta' } }), [], 'search');
  assertErrorBody(t, await call(t, 'GET', `/events/${made[1]?.id}`, { token: readerA }), { status: 404 }, 'get');
  t.same(await ok(t, 'GET', '/events/count', readerA), { count: 2 }, 'count');
  t.same((await ok(t, 'GET', '/events/list/types', readerA)).items, ['open_type', 'ta_type'], 'distinct list');
  t.same((await ok(t, 'GET', '/events/search/type?q=tb', readerA)).items, [], 'distinct search');
  assertErrorBody(t, await call(t, 'POST', '/events/create', { token: readerA, body: { items: [ev('x-1', { dataSetId: A.id })] } }), { status: 403 }, 'create without write');
  assertErrorBody(t, await call(t, 'POST', '/events/update', { token: readerA, body: { items: [{ externalId: 'in-a', update: { status: { set: 'x_y' } } }] } }), { status: 403 }, 'update without write');
  assertErrorBody(t, await call(t, 'POST', '/events/delete', { token: readerA, body: { items: [{ externalId: 'in-a' }] } }), { status: 403 }, 'delete without write');
  await ok(t, 'POST', '/events/delete', readerA, { items: [{ externalId: 'in-b' }] });
  t.equal((await ok(t, 'GET', '/events/count', admin)).count, 3, 'an unreadable event is skipped by a delete');
  const other = srv.token({ org: srv.newTenant() });
  t.same(await ok(t, 'GET', '/events/count', other), { count: 0 }, 'another tenant counts none');
  t.same((await ok(t, 'POST', '/events/byids', other, { items: [{ id: made[2]?.id }] })).items, []);
});

t.test('the daily events quota and the lifetime ceiling', async (t) => {
  const quota = srv.token({ org: QUOTA_ORG });
  await ok(t, 'POST', '/events/create', quota, { items: [ev('q-1'), ev('q-2')] }, 201);
  const over = await call(t, 'POST', '/events/create', { token: quota, body: { items: [ev('q-3'), ev('q-4')] } });
  t.equal(over.status, 429, 'past the daily quota: 429');
  t.match(over.body, { metric: 'events', limit: 3 });
  t.ok(Number(over.headers.get('retry-after')) > 0, 'with Retry-After');
  const ceiling = srv.token({ org: CEILING_ORG });
  await ok(t, 'POST', '/events/create', ceiling, { items: [ev('c-1'), ev('c-2')] }, 201);
  const past = await call(t, 'POST', '/events/create', { token: ceiling, body: { items: [ev('c-3')] } });
  t.equal(past.status, 403, 'past the cumulative ceiling: 403');
  t.match(past.body, { metric: 'events', limit: 2 });
});
