// Goal: GET /timeseries, GET /timeseries/{id}, POST /timeseries/byids and POST or DELETE
// /timeseries/delete answer as SPEC "Time series" says: list limit rules with plain-text
// 400s, newest first, data sets with descendants; get as a collection of one and an
// indistinguishable 404 for missing, other-tenant and unreadable ids; byids omitting misses;
// delete idempotent with 204, refusing a series that starts a relationship.
// Method: one real server, a fresh tenant per test; local check() helpers run one case per
// line. The relationship is written straight into PostgreSQL (the test is about the time
// series routes, not the edges API) through the server's own pool. Every 2xx is checked against its response schema.
import t, { type Test } from 'tap';
import { ensureRelationshipType } from '../engine/graph/relationship-types.ts';
import { assertErrorBody } from './testing/error-body.ts';
import { schemaCheckedRequest } from './testing/response-schema.ts';
import { startTestServer } from './testing/test-server.ts';

const srv = await startTestServer();
t.teardown(() => srv.close());
const call = schemaCheckedRequest(srv);

interface Series { id: number; externalId: string; createdTime: number }

function tenant() {
  const org = srv.newTenant();
  return { org, token: srv.token({ org }) };
}

async function create(t: Test, token: string, items: Record<string, unknown>[]): Promise<Series[]> {
  const res = await call(t, 'POST', '/timeseries/create', { token, body: { items: items.map((i) => ({ name: 'n', valueType: 'FLOAT', ...i })) } });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
  return res.body.items;
}

const externalIds = (res: { body: { items?: { externalId: string }[] } }) => (res.body.items ?? []).map((i) => i.externalId);

t.test('list: limit rules, plain-text 400s, newest first, cursor', async (t) => {
  const { token } = tenant();
  await create(t, token, Array.from({ length: 1000 }, (_, i) => ({ externalId: `old-${i}` })));
  const [newest] = await create(t, token, [{ externalId: 'newest' }]);
  const check = async (query: string, expected: number | string) => {
    const res = await call(t, 'GET', `/timeseries${query}`, { token });
    if (typeof expected === 'number') {
      t.equal(res.status, 200, `${query || '(no query)'}: 200`);
      t.equal(res.body.items?.length, expected, `${query || '(no query)'}: ${expected} items`);
      return res;
    }
    t.equal(res.status, 400, `${query}: 400`);
    t.match(res.headers.get('content-type'), /^text\/plain/, `${query}: text/plain`);
    t.equal(typeof res.body, 'string', `${query}: a plain string body`);
    t.match(res.text, new RegExp(expected), `${query}: says what is wrong`);
    return res;
  };
  const page = await check('', 1000);
  t.equal(page.body.items[0].externalId, 'newest', 'newest first');
  t.equal(page.body.items[0].id, newest?.id);
  t.type(page.body.nextCursor, 'string', 'default limit 1000 (the parameter default): a full page has nextCursor');
  const rest = await check(`?cursor=${encodeURIComponent(page.body.nextCursor)}`, 1);
  t.notOk('nextCursor' in rest.body, 'the last page has no nextCursor');
  t.strictSame([...page.body.items, ...rest.body.items].length, new Set([...page.body.items, ...rest.body.items].map((i: Series) => i.id)).size, 'no record twice');
  await check('?limit=1', 1);
  await check('?limit=10000', 1001);
  await check('?limit=0', 'limit');
  await check('?limit=10001', 'limit');
  await check('?limit=abc', 'limit');
  await check('?limit=-1', 'limit');
  await check('?limit=1.5', 'limit');
  await check('?limit=', 'limit');
  await check('?dataSetId=abc', 'dataSetId');
  await check('?dataSetId=1.5', 'dataSetId');
  await check('?dataSetId=', 'dataSetId');
  await check('?dataSetId=99999999999999999999', 'dataSetId');
});

t.test('list: dataSetId includes descendants', async (t) => {
  const { token } = tenant();
  const sets = await call(t, 'POST', '/datasets/create', {
    token, body: { items: [{ externalId: 'root', name: 'r' }, { externalId: 'mid', name: 'm', parentExternalId: 'root' }, { externalId: 'leaf', name: 'l', parentExternalId: 'mid' }, { externalId: 'other', name: 'o' }] },
  });
  const [root, mid, leaf, other] = sets.body.items as { id: number }[];
  await create(t, token, [{ externalId: 'in-root', dataSetId: root?.id }, { externalId: 'in-mid', dataSetId: mid?.id }, { externalId: 'in-leaf', dataSetId: leaf?.id }, { externalId: 'in-other', dataSetId: other?.id }, { externalId: 'none' }]);
  const check = async (dataSetId: number | undefined, expected: string[]) => {
    const res = await call(t, 'GET', `/timeseries?dataSetId=${dataSetId}`, { token });
    t.equal(res.status, 200);
    t.strictSame(externalIds(res).sort(), expected.sort(), `dataSetId=${dataSetId}`);
  };
  await check(root?.id, ['in-root', 'in-mid', 'in-leaf']);
  await check(mid?.id, ['in-mid', 'in-leaf']);
  await check(leaf?.id, ['in-leaf']);
  await check(other?.id, ['in-other']);
  await check(987654321, []);
});

t.test('get: a collection of one; 404 alike for missing, other tenant and unreadable', async (t) => {
  const { org, token } = tenant();
  const sets = await call(t, 'POST', '/datasets/create', { token, body: { items: [{ externalId: 'open', name: 'o' }, { externalId: 'closed', name: 'c' }] } });
  const [open, closed] = sets.body.items as { id: number }[];
  const [visible, hidden, free] = await create(t, token, [{ externalId: 'visible', dataSetId: open?.id }, { externalId: 'hidden', dataSetId: closed?.id }, { externalId: 'free' }]);
  const stranger = srv.token({ org: srv.newTenant() });
  const [theirs] = await create(t, stranger, [{ externalId: 'theirs' }]);
  const reader = srv.token({ org, sub: 'reader', read: [open?.id as number] });
  const found = await call(t, 'GET', `/timeseries/${visible?.id}`, { token: reader });
  t.equal(found.status, 200);
  t.strictSame(externalIds(found), ['visible'], '{ items: [record] }');
  t.strictSame(externalIds(await call(t, 'GET', `/timeseries/${free?.id}`, { token: reader })), ['free'], 'no data set: readable by every token');
  const bodies: string[] = [];
  const check = async (id: number, who: string, name: string) => {
    const res = await call(t, 'GET', `/timeseries/${id}`, { token: who });
    assertErrorBody(t, res, { status: 404 }, name);
    t.equal(res.headers.get('content-type'), 'application/json', `${name}: JSON`);
    bodies.push(JSON.stringify(res.body).replaceAll(String(id), '<id>'));
  };
  const lastId = Math.max(...[visible, hidden, free, theirs].map((s) => s?.id as number));
  await check(lastId + 1_000_000, reader, 'missing');
  await check(theirs?.id as number, token, "another tenant's");
  await check(hidden?.id as number, reader, 'unreadable');
  t.equal(new Set(bodies).size, 1, 'the three 404 bodies are the same but for the id');
  const notInteger = await call(t, 'GET', '/timeseries/abc', { token });
  assertErrorBody(t, notInteger, { status: 400, fields: ['id'] }, 'id not an integer');
  const tooBig = await call(t, 'GET', '/timeseries/9007199254740993', { token });
  assertErrorBody(t, tooBig, { status: 400, fields: ['id'] }, 'id over 2^53-1');
});

t.test('byids: misses omitted, request order, id and externalId must agree', async (t) => {
  const { token } = tenant();
  const [a, b] = await create(t, token, [{ externalId: 'a' }, { externalId: 'b' }]);
  const [theirs] = await create(t, srv.token({ org: srv.newTenant() }), [{ externalId: 'theirs' }]);
  const check = async (items: unknown[], expected: string[] | { status: number; fields?: string[] }, name: string) => {
    const res = await call(t, 'POST', '/timeseries/byids', { token, body: { items } });
    if (Array.isArray(expected)) {
      t.equal(res.status, 200, `${name}: 200`);
      t.strictSame(externalIds(res), expected, name);
    } else {
      assertErrorBody(t, res, expected, name);
    }
  };
  await check([{ id: a?.id }, { externalId: 'b' }], ['a', 'b'], 'by id and by externalId');
  await check([{ externalId: 'b' }, { id: a?.id }], ['b', 'a'], 'request order');
  await check([{ id: a?.id, externalId: 'a' }], ['a'], 'both naming the same record');
  await check([{ externalId: 'nope' }, { id: 987654321 }, { id: b?.id }], ['b'], 'misses silently omitted');
  await check([{ id: theirs?.id }, { externalId: 'theirs' }], [], "another tenant's records are misses");
  await check([{ id: a?.id }, { externalId: 'a' }], ['a'], 'the same record twice: once');
  await check([{ id: a?.id }, { id: b?.id, externalId: 'a' }], { status: 400, fields: ['items.1'] }, 'id and externalId naming different records');
  await check([], { status: 400, fields: ['items'] }, 'no items');
  await check([{}], { status: 400 }, 'an item without identifier');
  await check(Array.from({ length: 10_001 }, (_, i) => ({ id: i + 1 })), { status: 400, fields: ['items'] }, '10001 items');
  await check([{ id: a?.id }, ...Array.from({ length: 9_999 }, (_, i) => ({ id: 9e15 + i }))], ['a'], '10000 items');
});

t.test('delete: 204 without body, idempotent, unknown skipped, POST and DELETE', async (t) => {
  const { token } = tenant();
  const [a, , c] = await create(t, token, [{ externalId: 'a' }, { externalId: 'b' }, { externalId: 'c' }, { externalId: 'd' }]);
  const check = async (method: string, items: unknown[], name: string) => {
    const res = await call(t, method, '/timeseries/delete', { token, body: { items } });
    t.equal(res.status, 204, `${name}: 204`);
    t.equal(res.text, '', `${name}: no body`);
  };
  await check('POST', [{ id: a?.id }, { externalId: 'b' }], 'POST by id and externalId');
  await check('POST', [{ id: a?.id }, { externalId: 'b' }], 'POST again: idempotent');
  await check('DELETE', [{ id: c?.id }, { externalId: 'nope' }, { id: 987654321 }], 'DELETE with unknown identifiers skipped');
  await check('DELETE', [{ externalId: 'nope' }], 'DELETE of nothing known');
  const left = await call(t, 'POST', '/timeseries/filter', { token, body: {} });
  t.strictSame(externalIds(left), ['d'], 'only the undeleted series is left');
  const gone = await call(t, 'GET', `/timeseries/${a?.id}`, { token });
  assertErrorBody(t, gone, { status: 404 }, 'a deleted series is gone');
  const again = await create(t, token, [{ externalId: 'a' }]);
  t.not(again[0]?.id, a?.id, 'a new series with a deleted externalId gets a new id');
  const empty = await call(t, 'POST', '/timeseries/delete', { token, body: { items: [] } });
  assertErrorBody(t, empty, { status: 400, fields: ['items'] }, 'no items');
  const over = await call(t, 'DELETE', '/timeseries/delete', { token, body: { items: Array.from({ length: 10_001 }, (_, i) => ({ id: i + 1 })) } });
  assertErrorBody(t, over, { status: 400, fields: ['items'] }, '10001 items');
});

t.test('delete: a series that starts a relationship is refused; one that ends it is not', async (t) => {
  const { org, token } = tenant();
  const [start, end, plain] = await create(t, token, [{ externalId: 'start' }, { externalId: 'end' }, { externalId: 'plain' }]);
  const pool = srv.server.engine.relational.pool;
  const typeId = await ensureRelationshipType(pool, org, 'FLOWS_TO');
  const { rows } = await pool.query<{ id: number }>(
    `INSERT INTO edges (tenant, id, start_id, end_id, type_id, created_time, last_updated_time)
     VALUES ($1, nextval('edge_id_seq'), $2, $3, $4, 0, 0) RETURNING id`,
    [org, start?.id, end?.id, typeId],
  );
  const edgeId = Number(rows[0]?.id);
  const refused = await call(t, 'POST', '/timeseries/delete', { token, body: { items: [{ id: plain?.id }, { externalId: 'start' }] } });
  assertErrorBody(t, refused, { status: 400, fields: ['items'] }, 'starts a relationship');
  t.match(refused.body.error.fields[0], { type: 'relationship', timeseriesId: start?.id, edgeId }, 'fields name the series and the relationship');
  const kept = await call(t, 'POST', '/timeseries/byids', { token, body: { items: [{ id: start?.id }, { id: plain?.id }] } });
  t.strictSame(externalIds(kept), ['start', 'plain'], 'nothing was deleted');
  const endDeleted = await call(t, 'DELETE', '/timeseries/delete', { token, body: { items: [{ id: end?.id }] } });
  t.equal(endDeleted.status, 204, 'the end of a relationship can be deleted');
  const edges = await pool.query('SELECT id FROM edges WHERE tenant = $1 AND id = $2', [org, edgeId]);
  t.equal(edges.rowCount, 0, 'its relationship goes with it');
  const nowFree = await call(t, 'POST', '/timeseries/delete', { token, body: { items: [{ id: start?.id }] } });
  t.equal(nowFree.status, 204, 'without the relationship the start can be deleted');
});

// Data point requests resolve series from keys held in memory (engine/meta/series-directory.ts):
// right after a change commits, they must already see it.
t.test('data point requests see a rename, a data set move and a delete at once', async (t) => {
  const { org, token } = tenant();
  const [s] = await create(t, token, [{ externalId: 'held' }]);
  const write = (externalId: string, as = token) => call(t, 'POST', '/timeseries/data', { token: as, body: { items: [{ externalId, datapoints: [{ timestamp: 1_700_000_000_000, value: '1' }] }] } });
  t.equal((await write('held')).status, 204, 'written: the keys are held now');
  t.equal((await call(t, 'POST', '/timeseries/update', { token, body: { items: [{ id: s?.id, update: { externalId: { set: 'renamed' } } }] } })).status, 200);
  assertErrorBody(t, await write('held'), { status: 404 }, 'the old externalId is unknown at once');
  t.equal((await write('renamed')).status, 204, 'the new one is known at once');
  const ds = await call(t, 'POST', '/datasets/create', { token, body: { items: [{ externalId: 'locked', name: 'locked' }] } });
  const dataSetId = ds.body.items[0].id as number;
  const readOnly = srv.token({ org, read: [dataSetId], write: [] });
  t.equal((await write('renamed', readOnly)).status, 204, 'an open series: any token writes');
  t.equal((await call(t, 'POST', '/timeseries/update', { token, body: { items: [{ id: s?.id, update: { dataSetId: { set: dataSetId } } }] } })).status, 200);
  assertErrorBody(t, await write('renamed', readOnly), { status: 403 }, 'moved into a data set the token may not write: 403 at once');
  t.equal((await call(t, 'POST', '/timeseries/delete', { token, body: { items: [{ id: s?.id }] } })).status, 204);
  assertErrorBody(t, await write('renamed'), { status: 404 }, 'deleted: unknown at once');
});
