// Goal: the function records (docs/api.md "Functions") answer as the time series records do:
// create, update, list, byids and delete round trips; all-or-nothing batches; 400 / 409 / 422
// with the fields that name the wrong input; the items cap and the expression cap at the limit
// and one past it; an expression that does not parse is a 400 naming the item and the
// character position; cursor paging; ignoreUnknownIds; the daily `nodes` quota.
// Method: one real server (embedded PostgreSQL) in this process, a fresh tenant per test
// (one fixed tenant with a tiny quota); local check() helpers run one case per line, assert
// status and error body, then read back to prove a refused batch changed nothing. Every 2xx
// is checked against its response schema. The expected position of a syntax error is the
// parser's own (engine/functions/expression.ts), so the test does not restate the grammar.
import t, { type Test } from 'tap';
import { parseExpression } from '../engine/functions/expression.ts';
import { assertErrorBody, type ExpectedError as Expected } from './testing/error-body.ts';
import { schemaCheckedRequest } from './testing/response-schema.ts';
import { startTestServer } from './testing/test-server.ts';

const QUOTA_TENANT = 'functions-quota';
const srv = await startTestServer({ serviceConfig: { tenants: { [QUOTA_TENANT]: { dailyQuotas: { nodes: 3 } } } } });
t.teardown(() => srv.close());
const call = schemaCheckedRequest(srv);

interface Fn { id: number; externalId: string; createdTime: number; lastUpdatedTime: number; [field: string]: unknown }

const x = (n: number) => 'x'.repeat(n);
const entries = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
const EXPRESSION = "ts{externalId='in'} * 2";
const fn = (externalId: string, extra: Record<string, unknown> = {}) => ({ externalId, name: `name of ${externalId}`, expression: EXPRESSION, ...extra });
const externalIds = (res: { body: { items?: { externalId: string }[] } }) => (res.body.items ?? []).map((i) => i.externalId);

function tenant() {
  const org = srv.newTenant();
  return { org, token: srv.token({ org }) };
}

async function create(t: Test, token: string, items: Record<string, unknown>[]): Promise<Fn[]> {
  const res = await call(t, 'POST', '/functions/create', { token, body: { items } });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
  return res.body.items;
}

async function dataSets(t: Test, token: string, items: Record<string, unknown>[]): Promise<{ id: number }[]> {
  const res = await call(t, 'POST', '/datasets/create', { token, body: { items: items.map((i) => ({ name: String(i['externalId']), ...i })) } });
  if (res.status !== 201) throw new Error(`data sets: ${res.status} ${res.text}`);
  return res.body.items;
}

/** The error a syntax error in `expression` at `field` must give, position from the parser itself. */
function syntaxError(t: Test, res: { status: number; body: any }, expression: string, field: string, name: string): void { // eslint-disable-line @typescript-eslint/no-explicit-any
  const parsed = parseExpression(expression);
  if (parsed.ok) throw new Error(`${name}: the test expression parses`);
  assertErrorBody(t, res, { status: 400, fields: [field] }, name);
  const problem = res.body.error?.fields?.[0];
  t.equal(problem?.position, parsed.position, `${name}: position is the parser's`);
  t.equal(problem?.index, Number(field.split('.')[1]), `${name}: index names the item`);
  t.ok(String(problem?.message).includes(parsed.message), `${name}: the parser's message`);
  t.ok(String(res.body.error?.message).includes(field), `${name}: the message names the item`);
}

t.test('create: one line per case, valid and invalid, at each cap and one past it', async (t) => {
  const { token } = tenant();
  const [ds] = await dataSets(t, token, [{ externalId: 'c-ds' }]);
  await create(t, token, [fn('c-taken')]);
  await call(t, 'POST', '/timeseries/create', { token, body: { items: [{ externalId: 'c-series', name: 'n', valueType: 'FLOAT' }] } });
  const check = async (name: string, items: unknown[], expected: Expected) => {
    const res = await call(t, 'POST', '/functions/create', { token, body: { items } });
    if (expected.status === 201) {
      t.equal(res.status, 201, `${name}: 201`);
      t.equal(res.body.items?.length, items.length, `${name}: every item created`);
      return res;
    }
    assertErrorBody(t, res, expected, name);
    const fresh = (items as { externalId?: unknown }[]).flatMap((i) => (typeof i.externalId === 'string' && i.externalId !== 'c-taken' && !i.externalId.includes('\u0000') ? [{ externalId: i.externalId }] : []));
    if (fresh.length > 0) {
      const read = await srv.request('POST', '/functions/byids', { token, body: { items: fresh } });
      t.strictSame(read.body.items, [], `${name}: nothing created`);
    }
    return res;
  };
  await check('minimal', [fn('c-min')], { status: 201 });
  await check('every field', [fn('c-all', { description: 'd', dataSetId: ds?.id, metadata: { a: '1' }, target: null })], { status: 201 });
  await check('missing name', [fn('c-1a'), { externalId: 'c-1b', expression: EXPRESSION }], { status: 400, fields: ['items.1.name'] });
  await check('missing externalId', [{ name: 'n', expression: EXPRESSION }], { status: 400, fields: ['items.0.externalId'] });
  await check('missing expression', [{ externalId: 'c-2', name: 'n' }], { status: 400, fields: ['items.0.expression'] });
  await check('targetStatus is read-only', [fn('c-3', { targetStatus: { reason: 'x' } })], { status: 400, fields: ['items.0.targetStatus'] });
  await check('an unknown field', [fn('c-3b', { valueType: 'FLOAT' })], { status: 400, fields: ['items.0.valueType'] });
  await check('target without externalId', [fn('c-3c', { target: {} })], { status: 400 });
  await check('unknown dataSetId', [fn('c-4a'), fn('c-4b', { dataSetId: 987654321 })], { status: 400, fields: ['items.1.dataSetId'] });
  await check('expression 10000', [fn('c-5', { expression: `1${' '.repeat(9_999)}` })], { status: 201 });
  await check('expression 10001', [fn('c-6', { expression: `1${' '.repeat(10_000)}` })], { status: 422, fields: ['items.0.expression'] });
  await check('description 10000', [fn('c-7', { description: x(10_000) })], { status: 201 });
  await check('description 10001', [fn('c-8', { description: x(10_001) })], { status: 422, fields: ['items.0.description'] });
  await check('metadata 256 entries', [fn('c-9', { metadata: entries(256) })], { status: 201 });
  await check('metadata 257 entries', [fn('c-10', { metadata: entries(257) })], { status: 422, fields: ['items.0.metadata'] });
  await check('metadata value 1025', [fn('c-11', { metadata: { k: x(1025) } })], { status: 422, fields: ['items.0.metadata.k'] });
  await check('name 256', [fn('c-12', { name: x(256) })], { status: 422, fields: ['items.0.name'] });
  await check('no items', [], { status: 400, fields: ['items'] });
  await check('NUL in an expression', [fn('c-nul', { expression: '1\u0000' })], { status: 422, fields: ['items.0.expression'] });
  await check('existing externalId', [fn('c-13'), fn('c-taken')], { status: 409, duplicated: ['c-taken'] });
  await check('externalId twice in one batch', [fn('c-14'), fn('c-14')], { status: 409, duplicated: ['c-14'] });
  await check("a time series' externalId: a space of its own", [fn('c-series')], { status: 201 });
  await check('one bad item among good ones', [fn('c-15a'), fn('c-15b'), fn('c-15c', { description: x(10_001) })], { status: 422, fields: ['items.2.description'] });
  for (const [name, expression] of [['a dangling operator', "ts{externalId='in'} *"], ['an empty expression', ''], ['a stray parenthesis', '1 + 2)'], ['an unknown character', '1 # 2']]) {
    const res = await check(`syntax: ${name}`, [fn('c-16a'), fn('c-16b', { expression })], { status: 400, fields: ['items.1.expression'] });
    syntaxError(t, res, expression as string, 'items.1.expression', `syntax: ${name}`);
  }
  const both = await check('two syntax errors: both named', [fn('c-17a', { expression: '1 +' }), fn('c-17b', { expression: '(' })], { status: 400, fields: ['items.0.expression', 'items.1.expression'] });
  t.strictSame(both.body.error.fields.map((f: { index: number }) => f.index), [0, 1]);
});

t.test('create: the record returned and read back', async (t) => {
  const { token } = tenant();
  const [ds] = await dataSets(t, token, [{ externalId: 'r-ds' }]);
  const [one, two] = await create(t, token, [fn('r-1', { description: 'd', dataSetId: ds?.id, metadata: { site: 'oslo' } }), fn('r-2')]);
  t.match(one, { externalId: 'r-1', name: 'name of r-1', description: 'd', dataSetId: ds?.id, metadata: { site: 'oslo' }, expression: EXPRESSION, target: null, targetStatus: null });
  t.strictSame(Object.keys(two as Fn).sort(), ['createdTime', 'expression', 'externalId', 'id', 'lastUpdatedTime', 'metadata', 'name', 'target', 'targetStatus'], 'absent optional fields are omitted; target and targetStatus are null');
  for (const record of [one, two] as Fn[]) {
    t.ok(Number.isSafeInteger(record.id) && record.id > 0, `id ${record.id} is an integer <= 2^53-1`);
    t.equal(record.createdTime, record.lastUpdatedTime, 'createdTime = lastUpdatedTime on create');
  }
  t.not(one?.id, two?.id);
  const read = await call(t, 'POST', '/functions/byids', { token, body: { items: [{ id: two?.id }, { externalId: 'r-1' }] } });
  t.strictSame(read.body.items, [two, one], 'read back as created, in request order');
});

t.test('create: 10000 items is the batch cap, 10001 is a 400', async (t) => {
  const { token } = tenant();
  const batch = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ externalId: `${prefix}${i}`, name: 'b', expression: '1' }));
  const over = await call(t, 'POST', '/functions/create', { token, body: { items: batch(10_001, 'o') } });
  assertErrorBody(t, over, { status: 400, fields: ['items'] }, '10001 items');
  const full = await call(t, 'POST', '/functions/create', { token, body: { items: batch(10_000, 'f') } });
  t.equal(full.status, 201, '10000 items: 201');
  t.equal(full.body.items.length, 10_000);
  t.strictSame(externalIds(full).slice(0, 2), ['f0', 'f1'], 'in request order');
  t.equal(new Set(full.body.items.map((i: Fn) => i.id)).size, 10_000, 'distinct ids');
  const probe = await srv.request('POST', '/functions/byids', { token, body: { items: [{ externalId: 'o0' }, { externalId: 'f9999' }] } });
  t.strictSame(externalIds(probe), ['f9999'], 'nothing of the refused batch exists');
});

t.test('update: set, setNull, metadata verbs, expression and lastUpdatedTime', async (t) => {
  const { token } = tenant();
  const [ds] = await dataSets(t, token, [{ externalId: 'u-ds' }]);
  const [a] = await create(t, token, [fn('u-a', { description: 'd', dataSetId: ds?.id, metadata: { a: '1', b: '2' } })]) as [Fn];
  while (Date.now() <= a.lastUpdatedTime) await new Promise((resolve) => setImmediate(resolve));
  const check = async (name: string, item: unknown, expected: Record<string, unknown>, absent: string[] = []) => {
    const res = await call(t, 'POST', '/functions/update', { token, body: { items: [item] } });
    t.equal(res.status, 200, `${name}: 200`);
    const record = res.body.items?.[0];
    t.match(record, expected, `${name}: fields`);
    for (const field of absent) t.notOk(field in (record ?? {}), `${name}: ${field} cleared`);
    return record;
  };
  const renamed = await check('set name and description', { id: a.id, update: { name: { set: 'N' }, description: { set: 'D' } } }, { id: a.id, name: 'N', description: 'D' });
  t.ok(renamed.lastUpdatedTime > a.lastUpdatedTime, 'lastUpdatedTime moves');
  t.equal(renamed.createdTime, a.createdTime, 'createdTime stays');
  await check('set expression', { externalId: 'u-a', update: { expression: { set: "ts{externalId='other'} + 1" } } }, { expression: "ts{externalId='other'} + 1" });
  await check('metadata add and remove', { id: a.id, update: { metadata: { add: { c: '3', b: '22' }, remove: ['a'] } } }, { metadata: { b: '22', c: '3' } });
  const exact = await check('metadata set replaces', { id: a.id, update: { metadata: { set: { x: '1' } } } }, {});
  t.strictSame(exact.metadata, { x: '1' });
  await check('setNull on optional fields', { id: a.id, update: { description: { setNull: true }, dataSetId: { setNull: true }, metadata: { setNull: true } } }, { metadata: {} }, ['description', 'dataSetId']);
  await check('set dataSetId', { id: a.id, update: { dataSetId: { set: ds?.id } } }, { dataSetId: ds?.id });
  await check('an empty update keeps everything', { id: a.id, update: {} }, { name: 'N', dataSetId: ds?.id });
  await check('set externalId', { id: a.id, update: { externalId: { set: 'u-a2' } } }, { externalId: 'u-a2' });
  const old = await call(t, 'POST', '/functions/byids', { token, body: { items: [{ externalId: 'u-a' }] } });
  t.strictSame(old.body.items, [], 'the old externalId is free');
  await create(t, token, [fn('u-a')]);
  t.pass('and can be taken again');
});

t.test('update: refusals change nothing', async (t) => {
  const { token } = tenant();
  const [a, b] = await create(t, token, [fn('v-a', { metadata: entries(255) }), fn('v-b')]) as [Fn, Fn];
  const check = async (name: string, items: unknown[], expected: Expected) => {
    const res = await call(t, 'POST', '/functions/update', { token, body: { items } });
    assertErrorBody(t, res, expected, name);
    const after = await srv.request('POST', '/functions/byids', { token, body: { items: [{ id: a.id }, { id: b.id }] } });
    t.strictSame(after.body.items, [a, b], `${name}: nothing changed`);
    return res;
  };
  const name = { name: { set: 'changed' } };
  await check('no identifier', [{ update: name }], { status: 400, fields: ['items.0'] });
  await check('unknown id', [{ id: a.id, update: name }, { id: 987654321, update: name }], { status: 400, fields: ['items.1'] });
  await check('unknown externalId', [{ externalId: 'v-none', update: name }], { status: 400, fields: ['items.0'] });
  await check('one function twice', [{ id: a.id, update: name }, { externalId: 'v-a', update: name }], { status: 400, fields: ['items'] });
  await check('set with setNull', [{ id: a.id, update: { description: { set: 'd', setNull: true } } }], { status: 400, fields: ['items.0.update.description'] });
  await check('setNull on name', [{ id: a.id, update: { name: { setNull: true } } }], { status: 400, fields: ['items.0.update.name'] });
  await check('setNull on externalId', [{ id: a.id, update: { externalId: { setNull: true } } }], { status: 400, fields: ['items.0.update.externalId'] });
  await check('setNull on expression', [{ id: a.id, update: { expression: { setNull: true } } }], { status: 400, fields: ['items.0.update.expression'] });
  await check('targetStatus is read-only', [{ id: a.id, update: { targetStatus: { set: {} } } }], { status: 400, fields: ['items.0.update.targetStatus'] });
  await check('unknown dataSetId', [{ id: a.id, update: { dataSetId: { set: 987654321 } } }], { status: 400, fields: ['items.0.update.dataSetId'] });
  await check('new externalId taken', [{ id: a.id, update: { externalId: { set: 'v-b' } } }], { status: 409, duplicated: ['v-b'] });
  await check('expression 10001', [{ id: a.id, update: { expression: { set: `1${' '.repeat(10_000)}` } } }], { status: 422, fields: ['items.0.update.expression.set'] });
  await check('description 10001', [{ id: a.id, update: { description: { set: x(10_001) } } }], { status: 422, fields: ['items.0.update.description.set'] });
  await check('metadata add to 257 entries', [{ id: a.id, update: { metadata: { add: { n1: 'v', n2: 'v' } } } }], { status: 422, fields: ['items.0.update.metadata'] });
  const bad = '2 * (1 +';
  const syntax = await check('expression syntax', [{ id: b.id, update: name }, { id: a.id, update: { expression: { set: bad } } }], { status: 400, fields: ['items.1.update.expression.set'] });
  syntaxError(t, syntax, bad, 'items.1.update.expression.set', 'expression syntax');
  await check('a good item with a bad one (409)', [{ id: b.id, update: name }, { id: a.id, update: { externalId: { set: 'v-b' } } }], { status: 409, duplicated: ['v-b'] });
  await check('a good item with a bad one (422)', [{ id: b.id, update: name }, { id: a.id, update: { metadata: { add: { n1: 'v', n2: 'v' } } } }], { status: 422, fields: ['items.1.update.metadata'] });
  const atCap = await call(t, 'POST', '/functions/update', { token, body: { items: [{ id: a.id, update: { metadata: { add: { n1: 'v' } } } }] } });
  t.equal(atCap.status, 200, 'metadata 256 after update: 200');
  t.equal(Object.keys(atCap.body.items[0].metadata).length, 256);
});

t.test('list: newest first, cursor paging, limit rules, dataSetId', async (t) => {
  const { token } = tenant();
  const [root, child, other] = await dataSets(t, token, [{ externalId: 'root' }, { externalId: 'child', parentExternalId: 'root' }, { externalId: 'other' }]);
  const dataSetOf: Record<string, number | undefined> = { 'l-1': root?.id, 'l-2': child?.id, 'l-3': other?.id, 'l-4': root?.id, 'l-5': child?.id };
  const created: Fn[] = [];
  for (const batch of [['l-1', 'l-2'], ['l-3'], ['l-4', 'l-5']]) {
    created.push(...await create(t, token, batch.map((externalId) => fn(externalId, { dataSetId: dataSetOf[externalId] }))));
  }
  const all = await call(t, 'GET', '/functions', { token });
  t.equal(all.status, 200);
  t.notOk('nextCursor' in all.body, 'everything on one page: no nextCursor');
  const newestFirst = [...created].sort((p, q) => q.createdTime - p.createdTime || q.id - p.id).map((f) => f.externalId);
  t.strictSame(externalIds(all), newestFirst, 'newest created first, id breaking ties');
  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const res = await call(t, 'GET', `/functions?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token });
    t.equal(res.status, 200);
    seen.push(...externalIds(res));
    cursor = res.body.nextCursor;
    pages++;
  } while (cursor && pages < 10);
  t.strictSame(seen, newestFirst, 'pages of 2 visit every function once, in order');
  t.equal(pages, 3);
  // The JSON error body: SPEC's plain-text 400 is GET /timeseries' own.
  const check = async (query: string, expected: string) => {
    assertErrorBody(t, await call(t, 'GET', `/functions${query}`, { token }), { status: 400, fields: [expected] }, query);
  };
  await check('?limit=0', 'limit');
  await check('?limit=10001', 'limit');
  await check('?limit=abc', 'limit');
  await check('?dataSetId=abc', 'dataSetId');
  t.equal((await call(t, 'GET', '/functions?limit=10000', { token })).status, 200, 'limit 10000');
  const garbage = await call(t, 'GET', '/functions?cursor=not-a-cursor', { token });
  assertErrorBody(t, garbage, { status: 400, fields: ['cursor'] }, 'an undecodable cursor');
  const byDataSet = async (id: number | undefined, expected: string[]) => {
    const res = await call(t, 'GET', `/functions?dataSetId=${id}`, { token });
    t.strictSame(externalIds(res).sort(), expected, `dataSetId=${id}`);
  };
  await byDataSet(root?.id, ['l-1', 'l-2', 'l-4', 'l-5']);
  await byDataSet(child?.id, ['l-2', 'l-5']);
  await byDataSet(other?.id, ['l-3']);
  await byDataSet(987654321, []);
});

t.test('byids: request order, each once, misses omitted unless ignoreUnknownIds is false', async (t) => {
  const { token } = tenant();
  const [a, b] = await create(t, token, [fn('a'), fn('b')]);
  const check = async (body: Record<string, unknown>, expected: string[] | Expected, name: string) => {
    const res = await call(t, 'POST', '/functions/byids', { token, body });
    if (Array.isArray(expected)) {
      t.equal(res.status, 200, `${name}: 200`);
      t.strictSame(externalIds(res), expected, name);
    } else {
      assertErrorBody(t, res, expected, name);
    }
    return res;
  };
  await check({ items: [{ id: a?.id }, { externalId: 'b' }] }, ['a', 'b'], 'by id and by externalId');
  await check({ items: [{ externalId: 'b' }, { id: a?.id }] }, ['b', 'a'], 'request order');
  await check({ items: [{ id: a?.id }, { externalId: 'a' }] }, ['a'], 'the same function twice: once');
  await check({ items: [{ externalId: 'nope' }, { id: 987654321 }, { id: b?.id }] }, ['b'], 'misses omitted by default');
  await check({ items: [{ externalId: 'nope' }, { id: b?.id }], ignoreUnknownIds: true }, ['b'], 'ignoreUnknownIds true: misses omitted');
  const missing = await check({ items: [{ externalId: 'nope' }, { id: 987654321 }, { id: b?.id }], ignoreUnknownIds: false }, { status: 404 }, 'ignoreUnknownIds false: a 404');
  t.strictSame(missing.body.error.missing, [{ externalId: 'nope' }, { id: 987654321 }], '404 lists every miss as named');
  await check({ items: [{ id: a?.id }], ignoreUnknownIds: false }, ['a'], 'ignoreUnknownIds false, nothing missing');
  await check({ items: [{ id: a?.id }, { id: b?.id, externalId: 'a' }] }, { status: 400, fields: ['items.1'] }, 'id and externalId naming different functions');
  await check({ items: [] }, { status: 400, fields: ['items'] }, 'no items');
  await check({ items: Array.from({ length: 10_001 }, (_, i) => ({ id: i + 1 })) }, { status: 400, fields: ['items'] }, '10001 items');
  await check({ items: [{ id: a?.id }, ...Array.from({ length: 9_999 }, (_, i) => ({ id: 9e15 + i }))] }, ['a'], '10000 items');
});

t.test('delete: 204 without body, idempotent, unknown skipped unless ignoreUnknownIds is false', async (t) => {
  const { token } = tenant();
  const [a, , c] = await create(t, token, [fn('a'), fn('b'), fn('c'), fn('d'), fn('e')]);
  const check = async (method: string, body: Record<string, unknown>, expected: number | Expected, name: string) => {
    const res = await call(t, method, '/functions/delete', { token, body });
    if (typeof expected === 'number') {
      t.equal(res.status, expected, `${name}: ${expected}`);
      t.equal(res.text, '', `${name}: no body`);
    } else {
      assertErrorBody(t, res, expected, name);
    }
    return res;
  };
  await check('POST', { items: [{ id: a?.id }, { externalId: 'b' }] }, 204, 'POST by id and externalId');
  await check('POST', { items: [{ id: a?.id }, { externalId: 'b' }] }, 204, 'POST again: idempotent');
  await check('DELETE', { items: [{ id: c?.id }, { externalId: 'nope' }, { id: 987654321 }] }, 204, 'DELETE with unknown identifiers skipped');
  const refused = await check('POST', { items: [{ externalId: 'd' }, { externalId: 'nope' }], ignoreUnknownIds: false }, { status: 404 }, 'ignoreUnknownIds false with a miss');
  t.strictSame(refused.body.error.missing, [{ externalId: 'nope' }]);
  const left = await call(t, 'GET', '/functions', { token });
  t.strictSame(externalIds(left).sort(), ['d', 'e'], 'only the undeleted functions are left; the refused delete deleted nothing');
  await check('POST', { items: [{ externalId: 'd' }], ignoreUnknownIds: false }, 204, 'ignoreUnknownIds false, nothing missing');
  const again = await create(t, token, [fn('a')]);
  t.not(again[0]?.id, a?.id, 'a new function with a deleted externalId gets a new id');
  await check('POST', { items: [] }, { status: 400, fields: ['items'] }, 'no items');
  await check('DELETE', { items: Array.from({ length: 10_001 }, (_, i) => ({ id: i + 1 })) }, { status: 400, fields: ['items'] }, '10001 items');
});

t.test('create counts in the daily nodes quota, as time series do', async (t) => {
  const token = srv.token({ org: QUOTA_TENANT });
  t.equal((await call(t, 'POST', '/timeseries/create', { token, body: { items: [{ externalId: 'q-s', name: 'n', valueType: 'FLOAT' }] } })).status, 201);
  t.equal((await call(t, 'POST', '/functions/create', { token, body: { items: [fn('q-1')] } })).status, 201, 'a function and a series: 2 of 3');
  const over = await call(t, 'POST', '/functions/create', { token, body: { items: [fn('q-2'), fn('q-3')] } });
  t.equal(over.status, 429, 'two more pass the quota of 3');
  t.match(over.body, { type: /\/ingest-quota-exceeded$/, metric: 'nodes', limit: 3 });
  t.equal((await call(t, 'POST', '/functions/create', { token, body: { items: [fn('q-2')] } })).status, 201, 'exactly at the quota');
  t.equal((await call(t, 'POST', '/functions/update', { token, body: { items: [{ externalId: 'q-2', update: { name: { set: 'n' } } }] } })).status, 200, 'updates are not charged');
});
