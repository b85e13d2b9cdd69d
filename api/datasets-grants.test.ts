// Goal: data sets (create with parents as BELONGS_TO, byids, list, update with re-parenting
// and the cycle refusal) and CONTRACT "Tokens" grants on every time series read and write:
// grants by id, by externalId and "*", a parent's grant covering its children, write
// implying read, records without data set open to every token, unreadable records missing
// (omitted or 404), writes without grant 403, and no tenant seeing another's records.
// Method: one real server; per test a fresh tenant whose admin token (no datasets claim)
// builds a small tree A ⊃ A1, B with one series in each and one without data set; then one
// line per token and operation through a local check(). Every 2xx is schema-checked.
import t, { type Test } from 'tap';
import { assertErrorBody } from './testing/error-body.ts';
import { schemaCheckedRequest } from './testing/response-schema.ts';
import { startTestServer } from './testing/test-server.ts';

const srv = await startTestServer();
t.teardown(() => srv.close());
const call = schemaCheckedRequest(srv);

interface DataSet { id: number; externalId: string; parentId?: number; parentExternalId?: string; [field: string]: unknown }
interface Series { id: number; externalId: string }

const externalIds = (res: { body: { items?: { externalId: string }[] } }) => (res.body.items ?? []).map((i) => i.externalId).sort();

async function createDataSets(t: Test, token: string, items: Record<string, unknown>[]): Promise<DataSet[]> {
  const res = await call(t, 'POST', '/datasets/create', { token, body: { items: items.map((i) => ({ name: `set ${i['externalId']}`, ...i })) } });
  if (res.status !== 201) throw new Error(`data sets: ${res.status} ${res.text}`);
  return res.body.items;
}

/** A tenant with data sets A ⊃ A1 and B, and series sa, sa1, sb and sn (no data set). */
async function tree(t: Test) {
  const org = srv.newTenant();
  const admin = srv.token({ org, sub: 'admin' });
  const [a, a1, b] = await createDataSets(t, admin, [{ externalId: 'A' }, { externalId: 'A1', parentExternalId: 'A' }, { externalId: 'B' }]) as [DataSet, DataSet, DataSet];
  const res = await call(t, 'POST', '/timeseries/create', {
    token: admin,
    body: { items: [['sa', a.id], ['sa1', a1.id], ['sb', b.id], ['sn', undefined]].map(([externalId, dataSetId]) => ({ externalId, name: `series ${externalId}`, valueType: 'FLOAT', dataSetId })) },
  });
  const series = Object.fromEntries((res.body.items as Series[]).map((s) => [s.externalId, s])) as Record<'sa' | 'sa1' | 'sb' | 'sn', Series>;
  return { org, admin, a, a1, b, series };
}

t.test('data sets: create with parents, byids, list', async (t) => {
  const org = srv.newTenant();
  const token = srv.token({ org });
  const [plant, area, unit] = await createDataSets(t, token, [
    { externalId: 'plant', description: 'd', metadata: { site: 'oslo' } },
    { externalId: 'area', parentExternalId: 'plant' },
    { externalId: 'unit', parentExternalId: 'area' },
  ]) as [DataSet, DataSet, DataSet];
  t.match(plant, { externalId: 'plant', name: 'set plant', description: 'd', metadata: { site: 'oslo' } });
  t.notOk('parentId' in plant, 'a root has no parent');
  t.match(area, { parentId: plant.id, parentExternalId: 'plant' }, 'a parent created earlier in the batch');
  t.match(unit, { parentId: area.id, parentExternalId: 'area' });
  const [byId] = await createDataSets(t, token, [{ externalId: 'cell', parentId: unit.id }]);
  t.match(byId, { parentId: unit.id, parentExternalId: 'unit' }, 'a parent by id');
  await call(t, 'POST', '/timeseries/create', { token, body: { items: [{ externalId: 'ts-taken', name: 'n', valueType: 'FLOAT' }] } });
  const check = async (items: unknown[], expected: { status: number; fields?: string[]; duplicated?: string[] }, name: string) => {
    const res = await call(t, 'POST', '/datasets/create', { token, body: { items } });
    assertErrorBody(t, res, expected, name);
    const fresh = (items as { externalId?: string }[]).flatMap((i) => (i.externalId && !['plant', 'ts-taken'].includes(i.externalId) ? [{ externalId: i.externalId }] : []));
    if (fresh.length) t.strictSame((await srv.request('POST', '/datasets/byids', { token, body: { items: fresh } })).body.items, [], `${name}: nothing created`);
  };
  await check([{ externalId: 'x1', name: 'x' }, { externalId: 'x2', name: 'x', parentExternalId: 'nope' }], { status: 400, fields: ['items.1.parentExternalId'] }, 'unknown parent externalId');
  await check([{ externalId: 'x3', name: 'x', parentId: 987654321 }], { status: 400, fields: ['items.0.parentId'] }, 'unknown parent id');
  await check([{ externalId: 'x4', name: 'x', parentId: (await seriesId(token, 'ts-taken')) }], { status: 400, fields: ['items.0.parentId'] }, 'a time series is not a parent');
  await check([{ externalId: 'x5', name: 'x' }, { externalId: 'plant', name: 'x' }], { status: 409, duplicated: ['plant'] }, 'existing externalId');
  await check([{ externalId: 'x6', name: 'x' }, { externalId: 'x6', name: 'x' }], { status: 409, duplicated: ['x6'] }, 'twice in a batch');
  await check([{ externalId: 'ts-taken', name: 'x' }], { status: 409, duplicated: ['ts-taken'] }, "a time series' externalId");
  await check([{ externalId: 'x7' }], { status: 400, fields: ['items.0.name'] }, 'missing name');
  await check([{ externalId: 'x8', name: 'x', description: 'x'.repeat(10_001) }], { status: 422, fields: ['items.0.description'] }, 'description 10001');
  const found = await call(t, 'POST', '/datasets/byids', { token, body: { items: [{ externalId: 'unit' }, { id: plant.id }, { externalId: 'nope' }] } });
  t.strictSame(found.body.items.map((d: DataSet) => d.externalId), ['unit', 'plant'], 'byids: request order, misses omitted');
  const listed = await call(t, 'POST', '/datasets/list', { token, body: {} });
  t.strictSame(listed.body.items.map((d: DataSet) => d.externalId), ['plant', 'area', 'unit', 'cell'], 'list: every data set, by id');
  const children = await call(t, 'POST', '/datasets/list', { token, body: { filter: { parentIds: [plant.id, area.id] } } });
  t.strictSame(children.body.items.map((d: DataSet) => d.externalId), ['area', 'unit'], 'list: by parent');
  const prefixed = await call(t, 'POST', '/datasets/list', { token, body: { filter: { externalIdPrefix: 'a' } } });
  t.strictSame(prefixed.body.items.map((d: DataSet) => d.externalId), ['area'], 'list: by externalId prefix');
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await call(t, 'POST', '/datasets/list', { token, body: { limit: 3, ...(cursor ? { cursor } : {}) } });
    seen.push(...page.body.items.map((d: DataSet) => d.externalId));
    cursor = page.body.nextCursor;
  } while (cursor);
  t.strictSame(seen, ['plant', 'area', 'unit', 'cell'], 'list: pages visit each data set once');
  const forged = await call(t, 'POST', '/datasets/list', { token, body: { cursor: Buffer.from('1e30').toString('base64url') } });
  assertErrorBody(t, forged, { status: 400, fields: ['cursor'] }, 'list: a cursor out of range');
  const get = await call(t, 'GET', '/datasets?limit=2', { token });
  t.strictSame(get.body.items.map((d: DataSet) => d.externalId), ['plant', 'area'], 'GET /datasets');
});

async function seriesId(token: string, externalId: string): Promise<number> {
  const res = await srv.request('POST', '/timeseries/byids', { token, body: { items: [{ externalId }] } });
  return res.body.items[0].id;
}

t.test('data sets: update, re-parenting, cycles', async (t) => {
  const { org, admin, a, a1, b, series } = await tree(t);
  const check = async (items: unknown[], expected: Record<string, unknown> | { status: number; fields?: string[]; duplicated?: string[] }, name: string) => {
    const res = await call(t, 'POST', '/datasets/update', { token: admin, body: { items } });
    if (!('status' in expected)) {
      t.equal(res.status, 200, `${name}: 200`);
      t.match(res.body.items?.[0], expected, name);
      return res.body.items?.[0] as DataSet;
    }
    assertErrorBody(t, res, expected as { status: number }, name);
    return undefined;
  };
  await check([{ id: a.id, update: { name: { set: 'Area A' }, description: { set: 'd' }, metadata: { add: { k: 'v', j: 'w' } } } }], { name: 'Area A', description: 'd', metadata: { k: 'v', j: 'w' } }, 'set name, description, metadata');
  const cleared = await check([{ externalId: 'A', update: { description: { setNull: true }, metadata: { remove: ['k'] } } }], { metadata: { j: 'w' } }, 'setNull description, remove metadata');
  t.notOk(cleared && 'description' in cleared, 'description cleared');
  await check([{ id: a.id, update: { externalId: { set: 'A-renamed' } } }], { externalId: 'A-renamed' }, 'set externalId');
  await check([{ id: a.id, update: { externalId: { set: 'B' } } }], { status: 409, duplicated: ['B'] }, 'externalId taken by a data set');
  await check([{ id: a.id, update: { externalId: { set: 'sn' } } }], { status: 409, duplicated: ['sn'] }, 'externalId taken by a series');
  await check([{ id: a.id, update: { description: { set: 'd', setNull: true } } }], { status: 400 }, 'set with setNull');
  await check([{ id: a1.id, update: { parentId: { set: b.id, setNull: true } } }], { status: 400, fields: ['items.0.update.parentId'] }, 'parentId set with setNull');
  await check([{ id: a1.id, update: { parentId: {} } }], { parentId: a.id }, 'an empty parentId verb changes nothing');
  await check([{ externalId: 'nope', update: { name: { set: 'x' } } }], { status: 400, fields: ['items.0'] }, 'not found');
  const full = Object.fromEntries(Array.from({ length: 255 }, (_, i) => [`k${i}`, 'v']));
  await check([{ id: b.id, update: { metadata: { set: full } } }], { metadata: { k0: 'v' } }, 'metadata set 255 entries');
  await check([{ id: b.id, update: { metadata: { add: { j: 'w' } } } }], { metadata: { j: 'w' } }, 'metadata add to 256 entries');
  await check([{ id: b.id, update: { metadata: { add: { i: 'w' } } } }], { status: 422, fields: ['items.0.update.metadata'] }, 'metadata add to 257 entries');
  await check([{ id: b.id, update: { metadata: { add: { ['x'.repeat(129)]: 'w' } } } }], { status: 422, fields: ['items.0.update.metadata.add'] }, 'metadata key 129');
  await check([{ id: a.id, update: { parentId: { set: a.id } } }], { status: 400 }, 'its own parent: cycle');
  await check([{ id: a.id, update: { parentId: { set: a1.id } } }], { status: 400 }, 'under its child: cycle');
  await check([{ id: a.id, update: { name: { set: 'changed' } } }, { id: b.id, update: { parentId: { set: b.id } } }], { status: 400 }, 'a good item with a cycle');
  const unchanged = await call(t, 'POST', '/datasets/byids', { token: admin, body: { items: [{ id: a.id }] } });
  t.equal(unchanged.body.items[0].name, 'Area A', 'a refused batch changes nothing');
  const reader = srv.token({ org, sub: 'reader', read: ['B'] });
  const before = await call(t, 'POST', '/timeseries/filter', { token: reader, body: {} });
  t.strictSame(externalIds(before), ['sb', 'sn'], 'before re-parenting: B covers sb');
  await check([{ id: a1.id, update: { parentExternalId: { set: 'B' } } }], { parentId: b.id, parentExternalId: 'B' }, 're-parent A1 under B');
  const moved = await call(t, 'POST', '/timeseries/filter', { token: reader, body: {} });
  t.strictSame(externalIds(moved), ['sa1', 'sb', 'sn'], "after re-parenting: B's grant covers A1");
  const orphan = await check([{ id: a1.id, update: { parentId: { setNull: true } } }], {}, 'parent cleared');
  t.notOk(orphan && 'parentId' in orphan, 'A1 is a root again');
  const alone = await call(t, 'POST', '/timeseries/filter', { token: reader, body: {} });
  t.strictSame(externalIds(alone), ['sb', 'sn'], 'a root no longer covered');
  t.ok(series.sa1.id > 0);
});

t.test('grants: reads by id, externalId and "*"; parents cover children; write implies read', async (t) => {
  const { org, admin, a, a1, series } = await tree(t);
  const check = async (token: string, expected: string[], name: string) => {
    const all = ['sa', 'sa1', 'sb', 'sn'] as const;
    const filter = await call(t, 'POST', '/timeseries/filter', { token, body: {} });
    t.strictSame(externalIds(filter), expected, `${name}: filter`);
    t.strictSame(externalIds(await call(t, 'GET', '/timeseries', { token })), expected, `${name}: list`);
    t.strictSame(externalIds(await call(t, 'POST', '/timeseries/search', { token, body: { search: { query: 'series' } } })), expected, `${name}: search`);
    const byids = await call(t, 'POST', '/timeseries/byids', { token, body: { items: all.map((externalId) => ({ externalId })) } });
    t.strictSame(externalIds(byids), expected, `${name}: byids`);
    for (const externalId of all) {
      const res = await call(t, 'GET', `/timeseries/${series[externalId].id}`, { token });
      t.equal(res.status, expected.includes(externalId) ? 200 : 404, `${name}: get ${externalId}`);
    }
  };
  await check(admin, ['sa', 'sa1', 'sb', 'sn'], 'no datasets claim');
  await check(srv.token({ org, read: [a.id] }), ['sa', 'sa1', 'sn'], 'read A by id');
  await check(srv.token({ org, read: ['A'] }), ['sa', 'sa1', 'sn'], 'read A by externalId');
  await check(srv.token({ org, read: [a1.id] }), ['sa1', 'sn'], 'read A1 only');
  await check(srv.token({ org, read: ['*'] }), ['sa', 'sa1', 'sb', 'sn'], 'read "*"');
  await check(srv.token({ org, write: ['A1'] }), ['sa1', 'sn'], 'write A1 implies read');
  await check(srv.token({ org, write: ['*'] }), ['sa', 'sa1', 'sb', 'sn'], 'write "*"');
  await check(srv.token({ org, read: [], write: [] }), ['sn'], 'no grant: records without data set only');
  await check(srv.token({ org, read: ['nope', 987654321] }), ['sn'], 'grants naming nothing');
  const [late] = await createDataSets(t, admin, [{ externalId: 'A2', parentId: a.id }]);
  await call(t, 'POST', '/timeseries/create', { token: admin, body: { items: [{ externalId: 'sa2', name: 'series sa2', valueType: 'FLOAT', dataSetId: late?.id }] } });
  const grown = await call(t, 'POST', '/timeseries/filter', { token: srv.token({ org, read: ['A'] }), body: {} });
  t.strictSame(externalIds(grown), ['sa', 'sa1', 'sa2', 'sn'], 'a child created after the token was minted is covered');
});

t.test('grants: writes need a write grant (403); unreadable targets behave as missing', async (t) => {
  const { org, admin, a, a1, b, series } = await tree(t);
  const readA = srv.token({ org, sub: 'reader', read: [a.id] });
  const writeA1 = srv.token({ org, sub: 'writer', write: [a1.id] });
  const none = srv.token({ org, sub: 'nobody', read: [], write: [] });
  const check = async (token: string, path: string, items: unknown[], expected: number | { status: number; fields?: string[] }, name: string) => {
    const res = await call(t, 'POST', path, { token, body: { items } });
    if (typeof expected === 'number') t.equal(res.status, expected, name);
    else assertErrorBody(t, res, expected, name);
    return res;
  };
  const ts = (externalId: string, dataSetId?: number) => ({ externalId, name: externalId, valueType: 'FLOAT', dataSetId });
  const denied = await check(readA, '/timeseries/create', [ts('c1', a.id)], { status: 403 }, 'create with a read grant only');
  t.strictSame(denied.body.error.dataSetIds, [a.id], '403 names the data set');
  await check(writeA1, '/timeseries/create', [ts('c2', a1.id), ts('c3', b.id)], { status: 403 }, 'create: one item without grant refuses the batch');
  await check(writeA1, '/timeseries/create', [ts('c4', a1.id)], 201, 'create in the granted data set');
  await check(none, '/timeseries/create', [ts('c5')], 201, 'create without data set: any token');
  await check(readA, '/timeseries/update', [{ id: series.sa.id, update: { name: { set: 'x' } } }], { status: 403 }, 'update with a read grant only');
  await check(writeA1, '/timeseries/update', [{ id: series.sa1.id, update: { name: { set: 'x' } } }], 200, 'update in the granted data set');
  await check(writeA1, '/timeseries/update', [{ id: series.sa1.id, update: { dataSetId: { set: b.id } } }], { status: 403 }, 'moving into an ungranted data set');
  await check(writeA1, '/timeseries/update', [{ id: series.sn.id, update: { dataSetId: { set: a1.id } } }], 200, 'moving an open record into the granted data set');
  await check(writeA1, '/timeseries/update', [{ id: series.sb.id, update: { name: { set: 'x' } } }], { status: 400, fields: ['items.0'] }, 'update of an unreadable series: not found');
  await check(readA, '/timeseries/delete', [{ id: series.sa.id }], { status: 403 }, 'delete with a read grant only');
  await check(readA, '/timeseries/delete', [{ id: series.sb.id }], 204, 'delete of an unreadable series: skipped as missing');
  await check(writeA1, '/timeseries/delete', [{ externalId: 'c4' }], 204, 'delete in the granted data set');
  const left = await call(t, 'POST', '/timeseries/filter', { token: admin, body: {} });
  t.strictSame(externalIds(left), ['c5', 'sa', 'sa1', 'sb', 'sn'], 'only the granted writes happened');
  await check(writeA1, '/datasets/create', [{ externalId: 'd1', name: 'd', parentId: a.id }], { status: 403 }, 'data set under an ungranted parent');
  await check(writeA1, '/datasets/create', [{ externalId: 'd2', name: 'd' }], { status: 403 }, 'a root data set needs a "*" write grant');
  await check(writeA1, '/datasets/create', [{ externalId: 'd3', name: 'd', parentId: a1.id }], 201, 'data set under the granted parent');
  await check(readA, '/datasets/update', [{ id: a.id, update: { name: { set: 'x' } } }], { status: 403 }, 'data set update with a read grant only');
  await check(writeA1, '/datasets/update', [{ id: a1.id, update: { parentId: { set: b.id } } }], { status: 403 }, 're-parenting under an ungranted parent');
  const listed = await call(t, 'POST', '/datasets/list', { token: readA, body: {} });
  t.strictSame(listed.body.items.map((d: DataSet) => d.externalId), ['A', 'A1', 'd3'], 'data set list: readable ones only');
  const byids = await call(t, 'POST', '/datasets/byids', { token: readA, body: { items: [{ id: b.id }, { id: a1.id }] } });
  t.strictSame(byids.body.items.map((d: DataSet) => d.externalId), ['A1'], 'data set byids: unreadable omitted');
});

t.test('grants: a dataSetId filter silently omits unreadable data sets', async (t) => {
  const { org, a, b } = await tree(t);
  const readA = srv.token({ org, read: ['A'] });
  const check = async (filter: unknown, expected: string[]) => {
    const res = await call(t, 'POST', '/timeseries/filter', { token: readA, body: { filter } });
    t.equal(res.status, 200);
    t.strictSame(externalIds(res), expected, JSON.stringify(filter));
  };
  await check({ dataSetId: { id: b.id } }, []);
  await check({ dataSetId: { externalId: 'B' } }, []);
  await check({ dataSetId: [{ id: a.id }, { id: b.id }] }, ['sa', 'sa1']);
  const list = await call(t, 'GET', `/timeseries?dataSetId=${b.id}`, { token: readA });
  t.strictSame(externalIds(list), [], 'GET /timeseries?dataSetId of an unreadable data set: empty');
  const search = await call(t, 'POST', '/timeseries/search', { token: readA, body: { search: { query: 'series' }, filter: { dataSetId: { id: b.id } } } });
  t.strictSame(externalIds(search), [], 'search with an unreadable data set: empty');
});

t.test('tenants never see each other', async (t) => {
  const one = await tree(t);
  const two = await tree(t);
  t.not(one.series.sa.id, two.series.sa.id, 'the same externalId in two tenants: two records');
  const check = async (token: string, items: unknown[], expected: number[], name: string) => {
    const res = await call(t, 'POST', '/timeseries/byids', { token, body: { items } });
    t.strictSame(res.body.items.map((s: Series) => s.id), expected, name);
  };
  await check(two.admin, [{ externalId: 'sa' }, { id: one.series.sb.id }], [two.series.sa.id], "by externalId: one's own; by another tenant's id: nothing");
  await check(srv.token({ org: two.org, read: [one.a.id] }), [{ id: one.series.sa.id }, { id: two.series.sa.id }], [], "a grant naming another tenant's data set covers nothing");
  const filter = await call(t, 'POST', '/timeseries/filter', { token: two.admin, body: { filter: { dataSetId: { id: one.a.id } } } });
  t.strictSame(filter.body.items, [], "filter by another tenant's data set: nothing");
  const update = await call(t, 'POST', '/timeseries/update', { token: two.admin, body: { items: [{ id: one.series.sa.id, update: { name: { set: 'x' } } }] } });
  assertErrorBody(t, update, { status: 400, fields: ['items.0'] }, "update of another tenant's series: not found");
  const del = await call(t, 'POST', '/timeseries/delete', { token: two.admin, body: { items: [{ id: one.series.sa.id }] } });
  t.equal(del.status, 204, "delete of another tenant's series: skipped");
  const still = await call(t, 'GET', `/timeseries/${one.series.sa.id}`, { token: one.admin });
  t.equal(still.status, 200, 'and it is still there');
  const sets = await call(t, 'POST', '/datasets/byids', { token: two.admin, body: { items: [{ id: one.a.id }, { externalId: 'A' }] } });
  t.strictSame(sets.body.items.map((d: DataSet) => d.id), [two.a.id], "data sets: another tenant's id is a miss");
});
