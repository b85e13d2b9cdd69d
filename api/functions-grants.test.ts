// Goal: functions follow CONTRACT "Tokens" grants exactly as time series do: a function in a
// data set the caller cannot read is missing on every route (list, byids, update, delete) and
// in every error body; writes need a write grant (403); tenants never see each other. And a
// target is checked on every write that names one: an existing numeric series of the tenant
// the writer may write, kept by no other function, bound to the series (not to its name).
// Method: one real server; per test a fresh tenant whose admin token (no datasets claim)
// builds data sets A ⊃ A1 and B, series in each (and TEXT and MIXED ones), and functions in
// each; then one line per token and operation through local check() helpers. Every 2xx is
// schema-checked.
import t, { type Test } from 'tap';
import { assertErrorBody, type ExpectedError as Expected } from './testing/error-body.ts';
import { schemaCheckedRequest } from './testing/response-schema.ts';
import { startTestServer } from './testing/test-server.ts';

const srv = await startTestServer();
t.teardown(() => srv.close());
const call = schemaCheckedRequest(srv);

interface Rec { id: number; externalId: string; [field: string]: unknown }

const EXPRESSION = "ts{externalId='sa'} + 1";
const externalIds = (res: { body: { items?: { externalId: string }[] } }) => (res.body.items ?? []).map((i) => i.externalId).sort();

async function post(t: Test, token: string, path: string, items: Record<string, unknown>[]): Promise<Rec[]> {
  const res = await call(t, 'POST', path, { token, body: { items } });
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body.items;
}

/** A tenant with data sets A ⊃ A1 and B, series sa, sa1, sb, sn (no data set), text, mixed, and functions fa, fa1, fb, fn likewise. */
async function tree(t: Test) {
  const org = srv.newTenant();
  const admin = srv.token({ org, sub: 'admin' });
  const [a, a1, b] = await post(t, admin, '/datasets/create', [{ externalId: 'A', name: 'A' }, { externalId: 'A1', name: 'A1', parentExternalId: 'A' }, { externalId: 'B', name: 'B' }]) as [Rec, Rec, Rec];
  const seriesList = await post(t, admin, '/timeseries/create', [
    ...[['sa', a.id], ['sa1', a1.id], ['sb', b.id], ['sn', undefined]].map(([externalId, dataSetId]) => ({ externalId, name: externalId, valueType: 'FLOAT', dataSetId })),
    { externalId: 'text', name: 'text', valueType: 'TEXT' }, { externalId: 'mixed', name: 'mixed', valueType: 'MIXED' }, { externalId: 'big', name: 'big', valueType: 'BIGINT' },
  ]);
  const functionList = await post(t, admin, '/functions/create', [['fa', a.id], ['fa1', a1.id], ['fb', b.id], ['fn', undefined]].map(([externalId, dataSetId]) => ({
    externalId, name: `secret name of ${externalId}`, expression: EXPRESSION, dataSetId,
  })));
  const series = Object.fromEntries(seriesList.map((s) => [s.externalId, s])) as Record<string, Rec>;
  const functions = Object.fromEntries(functionList.map((f) => [f.externalId, f])) as Record<'fa' | 'fa1' | 'fb' | 'fn', Rec>;
  return { org, admin, a, a1, b, series, functions };
}

t.test('grants: list and byids show readable functions only; misses are indistinguishable', async (t) => {
  const { org, admin, a, a1, b, functions } = await tree(t);
  const all = ['fa', 'fa1', 'fb', 'fn'] as const;
  const check = async (token: string, expected: string[], name: string) => {
    t.strictSame(externalIds(await call(t, 'GET', '/functions', { token })), expected, `${name}: list`);
    const byExternalId = await call(t, 'POST', '/functions/byids', { token, body: { items: all.map((externalId) => ({ externalId })) } });
    t.strictSame(externalIds(byExternalId), expected, `${name}: byids by externalId`);
    const byId = await call(t, 'POST', '/functions/byids', { token, body: { items: all.map((f) => ({ id: functions[f].id })) } });
    t.strictSame(externalIds(byId), expected, `${name}: byids by id`);
    const strict = await call(t, 'POST', '/functions/byids', { token, body: { items: all.map((externalId) => ({ externalId })), ignoreUnknownIds: false } });
    const hidden = all.filter((f) => !expected.includes(f));
    if (hidden.length === 0) t.equal(strict.status, 200, `${name}: ignoreUnknownIds false, all readable`);
    else t.strictSame(strict.body.error?.missing, hidden.map((externalId) => ({ externalId })), `${name}: ignoreUnknownIds false lists the unreadable as missing`);
  };
  await check(admin, ['fa', 'fa1', 'fb', 'fn'], 'no datasets claim');
  await check(srv.token({ org, read: [a.id] }), ['fa', 'fa1', 'fn'], 'read A by id');
  await check(srv.token({ org, read: ['A'] }), ['fa', 'fa1', 'fn'], 'read A by externalId');
  await check(srv.token({ org, read: [a1.id] }), ['fa1', 'fn'], 'read A1 only');
  await check(srv.token({ org, read: ['*'] }), ['fa', 'fa1', 'fb', 'fn'], 'read "*"');
  await check(srv.token({ org, write: ['A1'] }), ['fa1', 'fn'], 'write A1 implies read');
  await check(srv.token({ org, read: [], write: [] }), ['fn'], 'no grant: functions without data set only');
  const readA = srv.token({ org, read: ['A'] });
  t.strictSame(externalIds(await call(t, 'GET', `/functions?dataSetId=${b.id}`, { token: readA })), [], 'GET /functions?dataSetId of an unreadable data set: empty');
  // The 404 of an unreadable function and of an unknown one are the same but for the id.
  const bodies: string[] = [];
  for (const id of [functions.fb.id, functions.fn.id + 1_000_000]) {
    const res = await call(t, 'POST', '/functions/byids', { token: readA, body: { items: [{ id }], ignoreUnknownIds: false } });
    assertErrorBody(t, res, { status: 404 }, `404 of id ${id}`);
    bodies.push(JSON.stringify(res.body).replaceAll(String(id), '<id>'));
  }
  t.equal(bodies[0], bodies[1], 'unreadable and unknown: the same 404');
});

t.test('grants: writes need a write grant (403); unreadable functions behave as missing', async (t) => {
  const { org, admin, a, a1, b, functions } = await tree(t);
  const readA = srv.token({ org, sub: 'reader', read: [a.id] });
  const writeA1 = srv.token({ org, sub: 'writer', write: [a1.id] });
  const none = srv.token({ org, sub: 'nobody', read: [], write: [] });
  const check = async (token: string, path: string, body: Record<string, unknown>, expected: number | Expected, name: string) => {
    const res = await call(t, 'POST', path, { token, body });
    if (typeof expected === 'number') t.equal(res.status, expected, name);
    else assertErrorBody(t, res, expected, name);
    // Nothing of the hidden function leaks into an answer to a token that cannot read it.
    if (token !== admin) for (const secret of ['secret name of fb', `"id":${functions.fb.id}`]) t.notOk(res.text.includes(secret), `${name}: nothing of fb in the answer`);
    return res;
  };
  const f = (externalId: string, dataSetId?: number) => ({ externalId, name: externalId, expression: EXPRESSION, dataSetId });
  const denied = await check(readA, '/functions/create', { items: [f('c1', a.id)] }, { status: 403 }, 'create with a read grant only');
  t.strictSame(denied.body.error.dataSetIds, [a.id], '403 names the data set');
  await check(writeA1, '/functions/create', { items: [f('c2', a1.id), f('c3', b.id)] }, { status: 403 }, 'create: one item without grant refuses the batch');
  await check(writeA1, '/functions/create', { items: [f('c4', a1.id)] }, 201, 'create in the granted data set');
  await check(none, '/functions/create', { items: [f('c5')] }, 201, 'create without data set: any token');
  await check(readA, '/functions/update', { items: [{ id: functions.fa.id, update: { name: { set: 'x' } } }] }, { status: 403 }, 'update with a read grant only');
  await check(writeA1, '/functions/update', { items: [{ id: functions.fa1.id, update: { name: { set: 'x' } } }] }, 200, 'update in the granted data set');
  await check(writeA1, '/functions/update', { items: [{ id: functions.fa1.id, update: { dataSetId: { set: b.id } } }] }, { status: 403 }, 'moving into an ungranted data set');
  await check(writeA1, '/functions/update', { items: [{ id: functions.fn.id, update: { dataSetId: { set: a1.id } } }] }, 200, 'moving an open function into the granted data set');
  await check(writeA1, '/functions/update', { items: [{ id: functions.fb.id, update: { name: { set: 'x' } } }] }, { status: 400, fields: ['items.0'] }, 'update of an unreadable function by id: not found');
  await check(writeA1, '/functions/update', { items: [{ externalId: 'fb', update: { name: { set: 'x' } } }] }, { status: 400, fields: ['items.0'] }, 'update of an unreadable function by externalId: not found');
  await check(readA, '/functions/delete', { items: [{ id: functions.fa.id }] }, { status: 403 }, 'delete with a read grant only');
  await check(readA, '/functions/delete', { items: [{ id: functions.fb.id }] }, 204, 'delete of an unreadable function: skipped as missing');
  const strict = await check(readA, '/functions/delete', { items: [{ externalId: 'fb' }], ignoreUnknownIds: false }, { status: 404 }, 'delete of an unreadable function, ignoreUnknownIds false: 404');
  t.strictSame(strict.body.error.missing, [{ externalId: 'fb' }], 'listed as the request named it');
  await check(writeA1, '/functions/delete', { items: [{ externalId: 'c4' }] }, 204, 'delete in the granted data set');
  const left = await call(t, 'GET', '/functions', { token: admin });
  t.strictSame(externalIds(left), ['c5', 'fa', 'fa1', 'fb', 'fn'], 'only the granted writes happened');
  const renamed = await call(t, 'POST', '/functions/byids', { token: admin, body: { items: [{ id: functions.fb.id }] } });
  t.equal(renamed.body.items[0].name, 'secret name of fb', 'the unreadable function was not changed');
});

t.test('tenants never see each other', async (t) => {
  const one = await tree(t);
  const two = await tree(t);
  t.not(one.functions.fa.id, two.functions.fa.id, 'the same externalId in two tenants: two functions');
  const byids = await call(t, 'POST', '/functions/byids', { token: two.admin, body: { items: [{ externalId: 'fa' }, { id: one.functions.fb.id }] } });
  t.strictSame(byids.body.items.map((f: Rec) => f.id), [two.functions.fa.id], "by externalId: one's own; by another tenant's id: nothing");
  const strict = await call(t, 'POST', '/functions/byids', { token: two.admin, body: { items: [{ id: one.functions.fb.id }], ignoreUnknownIds: false } });
  assertErrorBody(t, strict, { status: 404 }, "another tenant's id with ignoreUnknownIds false");
  const list = await call(t, 'GET', '/functions', { token: two.admin });
  t.strictSame(list.body.items.map((f: Rec) => f.id).sort(), Object.values(two.functions).map((f) => f.id).sort(), 'the list holds its own functions only');
  const listed = await call(t, 'GET', `/functions?dataSetId=${one.a.id}`, { token: two.admin });
  t.strictSame(listed.body.items, [], "list by another tenant's data set: nothing");
  const crossGrant = await call(t, 'GET', '/functions', { token: srv.token({ org: two.org, read: [one.a.id] }) });
  t.strictSame(externalIds(crossGrant), ['fn'], "a grant naming another tenant's data set covers nothing");
  const update = await call(t, 'POST', '/functions/update', { token: two.admin, body: { items: [{ id: one.functions.fa.id, update: { name: { set: 'x' } } }] } });
  assertErrorBody(t, update, { status: 400, fields: ['items.0'] }, "update of another tenant's function: not found");
  const del = await call(t, 'POST', '/functions/delete', { token: two.admin, body: { items: [{ id: one.functions.fa.id }] } });
  t.equal(del.status, 204, "delete of another tenant's function: skipped");
  const still = await call(t, 'POST', '/functions/byids', { token: one.admin, body: { items: [{ id: one.functions.fa.id }] } });
  t.strictSame(externalIds(still), ['fa'], 'and it is still there');
  const [only] = await post(t, one.admin, '/timeseries/create', [{ externalId: 'only-in-one', name: 'n', valueType: 'FLOAT' }]);
  t.ok(only, 'a series only tenant one has');
  const target = await call(t, 'POST', '/functions/create', { token: two.admin, body: { items: [{ externalId: 'x', name: 'x', expression: '1', target: { externalId: 'only-in-one' } }] } });
  assertErrorBody(t, target, { status: 400, fields: ['items.0.target.externalId'] }, "another tenant's series as a target: no such time series");
});

t.test('targets: an existing numeric series the writer may write, kept by one function at most', async (t) => {
  const { org, admin, a, a1 } = await tree(t);
  const readA = srv.token({ org, sub: 'reader', read: [a.id] });
  const writeA1 = srv.token({ org, sub: 'writer', write: [a1.id] });
  const f = (externalId: string, target?: string | null) => ({ externalId, name: externalId, expression: EXPRESSION, ...(target !== undefined ? { target: target === null ? null : { externalId: target } } : {}) });
  const check = async (token: string, items: Record<string, unknown>[], expected: number | Expected, name: string) => {
    const res = await call(t, 'POST', '/functions/create', { token, body: { items } });
    if (typeof expected === 'number') t.equal(res.status, expected, `${name}: ${expected}`);
    else assertErrorBody(t, res, expected, name);
    if (res.status !== 201) {
      const fresh = await srv.request('POST', '/functions/byids', { token: admin, body: { items: items.map((i) => ({ externalId: i['externalId'] })) } });
      t.strictSame(fresh.body.items, [], `${name}: nothing created`);
    }
    return res;
  };
  const created = await check(admin, [f('t-sn', 'sn'), f('t-none', null)], 201, 'a target, and none');
  t.strictSame(created.body.items.map((i: Rec) => i['target']), [{ externalId: 'sn' }, null], 'the target as named; null when none');
  await check(admin, [f('t-big', 'big')], 201, 'a BIGINT series');
  const problem = async (token: string, target: string, name: string) => {
    const res = await check(token, [f('t-ok'), f('t-bad', target)], { status: 400, fields: ['items.1.target.externalId'] }, name);
    return res.body.error.fields[0] as { message: string; value: string };
  };
  const missing = await problem(admin, 'no-such-series', 'an unknown series');
  t.equal(missing.value, 'no-such-series', 'the field names the series as given');
  t.match((await problem(admin, 'text', 'a TEXT series')).message, /numeric/);
  t.match((await problem(admin, 'mixed', 'a MIXED series')).message, /numeric/);
  t.match((await problem(readA, 'sa', 'a series the writer may only read')).message, /write/);
  const unreadable = await problem(writeA1, 'sb', 'a series the writer cannot read');
  t.equal(unreadable.message, missing.message, 'an unreadable series reads as an unknown one');
  await check(writeA1, [f('t-sa1', 'sa1')], 201, 'a series in the writer\'s data set');
  const shared = await check(admin, [f('t-ok'), f('t-shared', 'sn')], { status: 409 }, 'a series another function keeps');
  t.strictSame(shared.body.error.duplicated, [{ target: { externalId: 'sn' } }], 'duplicated names the target');
  t.notOk(shared.text.includes('t-sn'), 'the other function is not named');
  const twice = await check(admin, [f('t-x', 'sa'), f('t-y', 'sa')], { status: 409 }, 'one series twice in a batch');
  t.strictSame(twice.body.error.duplicated, [{ target: { externalId: 'sa' } }]);
});

t.test('targets on update: set, taken, cleared and freed; bound to the series, not its name', async (t) => {
  const { org, admin, a } = await tree(t);
  const readA = srv.token({ org, sub: 'reader', read: [a.id] });
  const [one, two] = await post(t, admin, '/functions/create', [{ externalId: 'one', name: 'n', expression: '1', target: { externalId: 'sa' } }, { externalId: 'two', name: 'n', expression: '1' }]) as [Rec, Rec];
  const update = async (token: string, items: unknown[], expected: number | Expected, name: string) => {
    const before = await srv.request('POST', '/functions/byids', { token: admin, body: { items: [{ id: one.id }, { id: two.id }] } });
    const res = await call(t, 'POST', '/functions/update', { token, body: { items } });
    if (typeof expected === 'number') {
      t.equal(res.status, expected, `${name}: ${expected}`);
    } else {
      assertErrorBody(t, res, expected, name);
      const after = await srv.request('POST', '/functions/byids', { token: admin, body: { items: [{ id: one.id }, { id: two.id }] } });
      t.strictSame(after.body.items, before.body.items, `${name}: nothing changed`);
    }
    return res;
  };
  const target = (externalId: string) => ({ target: { set: { externalId } } });
  await update(admin, [{ id: two.id, update: target('sa') }], { status: 409 }, 'a target another function keeps');
  await update(admin, [{ id: two.id, update: target('text') }], { status: 400, fields: ['items.0.update.target.set.externalId'] }, 'a TEXT series');
  await update(admin, [{ id: two.id, update: target('nope') }], { status: 400, fields: ['items.0.update.target.set.externalId'] }, 'an unknown series');
  await update(admin, [{ id: two.id, update: { target: { set: { externalId: 'sb' }, setNull: true } } }], { status: 400, fields: ['items.0.update.target'] }, 'set with setNull');
  await update(readA, [{ id: two.id, update: target('sa1') }], { status: 400, fields: ['items.0.update.target.set.externalId'] }, 'a series the writer may only read');
  await update(admin, [{ id: two.id, update: target('sb') }, { id: one.id, update: target('sb') }], { status: 409 }, 'two functions of the batch on one series');
  await update(admin, [{ id: two.id, update: target('sa') }, { id: one.id, update: { name: { set: 'kept' } } }], { status: 409 }, 'a series a function of the batch keeps');
  const moved = await update(admin, [{ id: one.id, update: target('sb') }, { id: two.id, update: target('sa') }], 200, 'one moves off a series another takes in the same batch');
  t.strictSame(moved.body.items.map((i: Rec) => i['target']), [{ externalId: 'sb' }, { externalId: 'sa' }]);
  const cleared = await update(admin, [{ id: one.id, update: { target: { setNull: true } } }], 200, 'setNull clears the target');
  t.equal(cleared.body.items[0].target, null);
  await update(admin, [{ id: one.id, update: target('sb') }], 200, 'a freed series can be kept again');
  // Renaming the series keeps the binding: the record shows the name its writer gave, and the
  // series under its new name is still kept by that function.
  const renamed = await call(t, 'POST', '/timeseries/update', { token: admin, body: { items: [{ externalId: 'sb', update: { externalId: { set: 'sb-renamed' } } }] } });
  t.equal(renamed.status, 200);
  const kept = await call(t, 'POST', '/functions/byids', { token: admin, body: { items: [{ id: one.id }] } });
  t.strictSame(kept.body.items[0].target, { externalId: 'sb' }, 'the target as written');
  await update(admin, [{ id: two.id, update: target('sb-renamed') }], { status: 409 }, 'the renamed series is still kept');
  // A deleted series frees nothing by name: a new series under the old name is another series.
  const deleted = await call(t, 'POST', '/timeseries/delete', { token: admin, body: { items: [{ externalId: 'sb-renamed' }] } });
  t.equal(deleted.status, 204);
  await post(t, admin, '/timeseries/create', [{ externalId: 'sb-renamed', name: 'n', valueType: 'FLOAT' }]);
  await update(admin, [{ id: two.id, update: target('sb-renamed') }], 200, 'a new series under a deleted one\'s name');
});
