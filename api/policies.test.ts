// Goal: the policy records (docs/api.md): create (defaults, the pattern checks: does not compile,
// catastrophic backtracking), list (GET and POST, paging), byids, update, delete (POST and
// DELETE, idempotent), governance templates (create, apply idempotently, delete), with the
// errors SPEC names, data set grants on every read and write, and tenant isolation.
// Method: one real server; per test a fresh tenant; every 2xx schema-checked.
import t, { type Test } from 'tap';
import { assertErrorBody } from './testing/error-body.ts';
import { schemaCheckedRequest } from './testing/response-schema.ts';
import { startTestServer } from './testing/test-server.ts';

const srv = await startTestServer();
t.teardown(() => srv.close());
const call = schemaCheckedRequest(srv);

interface Policy { id: number; externalId: string; mode: string; pattern: string; dataSetId?: number; description?: string; templateExternalId?: string }

const policy = (externalId: string, extra: Record<string, unknown> = {}) => ({
  externalId, name: `policy ${externalId}`, target: 'timeseries', field: 'name', pattern: '[A-Z]{2}-\\d{3}', ...extra,
});

async function create(t: Test, token: string, items: unknown[]): Promise<Policy[]> {
  const res = await call(t, 'POST', '/policies/create', { token, body: { items } });
  if (res.status !== 201) throw new Error(`policies/create: ${res.status} ${res.text}`);
  return res.body.items;
}

async function dataSet(t: Test, token: string, externalId: string): Promise<number> {
  const res = await call(t, 'POST', '/datasets/create', { token, body: { items: [{ externalId, name: externalId }] } });
  if (res.status !== 201) throw new Error(`datasets/create: ${res.status} ${res.text}`);
  return res.body.items[0].id;
}

t.test('create: defaults, the pattern checks, duplicates, unknown data sets, caps', async (t) => {
  const org = srv.newTenant();
  const token = srv.token({ org });
  const [made] = await create(t, token, [policy('tags')]);
  t.match(made, { externalId: 'tags', mode: 'advisory', target: 'timeseries', field: 'name', pattern: '[A-Z]{2}-\\d{3}' });
  t.notOk('dataSetId' in (made as Policy), 'no data set: tenant-wide');
  const check = async (items: unknown[], expected: Parameters<typeof assertErrorBody>[2], name: string) =>
    assertErrorBody(t, await call(t, 'POST', '/policies/create', { token, body: { items } }), expected, name);
  await check([policy('a', { pattern: '(' })], { status: 400, fields: ['items.0.pattern'] }, 'a pattern that does not compile');
  await check([policy('b'), policy('c', { pattern: '(a+)+$' })], { status: 400, fields: ['items.1.pattern'] }, 'exponential backtracking');
  await check([policy('d', { pattern: '.*-.*-.*-.*' })], { status: 400, fields: ['items.0.pattern'] }, 'polynomial backtracking');
  await check([policy('tags')], { status: 409, duplicated: ['tags'] }, 'an externalId taken');
  await check([policy('e'), policy('e')], { status: 409, duplicated: ['e'] }, 'an externalId twice in the batch');
  await check([policy('f', { dataSetId: 987654321 })], { status: 400, fields: ['items.0.dataSetId'] }, 'an unknown data set');
  await check([policy('x'.repeat(129))], { status: 422 }, 'an externalId over 128 characters');
  await check([policy('g', { target: 'event' })], { status: 400 }, 'findings are never raised for events: no such target');
  await check([policy('h', { mode: 'strict' })], { status: 400 }, 'an unknown mode');
  const listed = await call(t, 'GET', '/policies', { token });
  t.same(listed.body.items.map((p: Policy) => p.externalId), ['tags'], 'nothing of a refused batch was created');
});

t.test('list pages, byids, update, delete', async (t) => {
  const org = srv.newTenant();
  const token = srv.token({ org });
  const made = await create(t, token, Array.from({ length: 5 }, (_, i) => policy(`p${i}`)));
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const res = await call(t, 'GET', `/policies?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { token });
    t.equal(res.status, 200);
    seen.push(...res.body.items.map((p: Policy) => p.externalId));
    cursor = res.body.nextCursor;
  } while (cursor);
  t.same(seen, ['p0', 'p1', 'p2', 'p3', 'p4'], 'GET pages visit each once, by id');
  const post = await call(t, 'POST', '/policies/list', { token, body: { limit: 3 } });
  t.same(post.body.items.map((p: Policy) => p.externalId), ['p0', 'p1', 'p2']);
  assertErrorBody(t, await call(t, 'GET', '/policies?cursor=nonsense', { token }), { status: 400, fields: ['cursor'] }, 'a bad cursor');
  const byids = await call(t, 'POST', '/policies/byids', { token, body: { items: [{ externalId: 'p3' }, { id: 987654321 }, { id: made[0]?.id }] } });
  t.same(byids.body.items.map((p: Policy) => p.externalId), ['p3', 'p0'], 'request order, misses omitted');

  const updated = await call(t, 'POST', '/policies/update', { token, body: { items: [
    { externalId: 'p1', update: { pattern: { set: 'PUMP-\\d+' }, mode: { set: 'enforce' }, description: { set: 'pumps' } } },
    { id: made[2]?.id, update: { externalId: { set: 'p2-renamed' } } },
  ] } });
  t.equal(updated.status, 200);
  t.match(updated.body.items, [{ externalId: 'p1', pattern: 'PUMP-\\d+', mode: 'enforce', description: 'pumps' }, { externalId: 'p2-renamed' }]);
  const cleared = await call(t, 'POST', '/policies/update', { token, body: { items: [{ externalId: 'p1', update: { description: { setNull: true } } }] } });
  t.notOk('description' in cleared.body.items[0], 'setNull clears the description');
  const bad = async (items: unknown[], expected: Parameters<typeof assertErrorBody>[2], name: string) =>
    assertErrorBody(t, await call(t, 'POST', '/policies/update', { token, body: { items } }), expected, name);
  await bad([{ externalId: 'p1', update: { pattern: { set: '(x+x+)+y' } } }], { status: 400, fields: ['items.0.update.pattern'] }, 'a catastrophic pattern');
  await bad([{ externalId: 'p1', update: { description: { set: 'x', setNull: true } } }], { status: 400, fields: ['items.0.update.description'] }, 'set with setNull');
  await bad([{ externalId: 'nope', update: { name: { set: 'x' } } }], { status: 400, fields: ['items.0'] }, 'not found');
  await bad([{ externalId: 'p1', update: { externalId: { set: 'p3' } } }], { status: 409, duplicated: ['p3'] }, 'an externalId taken');
  const after = await call(t, 'POST', '/policies/byids', { token, body: { items: [{ externalId: 'p1' }] } });
  t.equal(after.body.items[0].pattern, 'PUMP-\\d+', 'nothing changed by the refused updates');

  t.equal((await call(t, 'POST', '/policies/delete', { token, body: { items: [{ externalId: 'p0' }, { externalId: 'never' }] } })).status, 204, 'unknown skipped');
  t.equal((await call(t, 'DELETE', '/policies/delete', { token, body: { items: [{ externalId: 'p0' }, { externalId: 'p3' }] } })).status, 204, 'DELETE, idempotent');
  const left = await call(t, 'GET', '/policies', { token });
  t.same(left.body.items.map((p: Policy) => p.externalId), ['p1', 'p2-renamed', 'p4']);
});

t.test('grants: a policy\'s data set decides who reads and writes it; tenants see nothing of each other', async (t) => {
  const org = srv.newTenant();
  const admin = srv.token({ org });
  const a = await dataSet(t, admin, 'A');
  const b = await dataSet(t, admin, 'B');
  await create(t, admin, [policy('in-a', { dataSetId: a }), policy('in-b', { dataSetId: b }), policy('open')]);
  const writerA = srv.token({ org, sub: 'wa', write: [a] });
  const readerB = srv.token({ org, sub: 'rb', read: [b] });
  const names = async (token: string) => (await call(t, 'GET', '/policies', { token })).body.items.map((p: Policy) => p.externalId);
  t.same(await names(writerA), ['in-a', 'open'], 'a writer of A reads A\'s and the open policy');
  t.same(await names(readerB), ['in-b', 'open']);
  t.same((await call(t, 'POST', '/policies/byids', { token: writerA, body: { items: [{ externalId: 'in-b' }] } })).body.items, [], 'unreadable: omitted');
  assertErrorBody(t, await call(t, 'POST', '/policies/create', { token: readerB, body: { items: [policy('new', { dataSetId: b })] } }), { status: 403 }, 'read grant only: 403');
  await create(t, writerA, [policy('new-a', { dataSetId: a })]);
  assertErrorBody(t, await call(t, 'POST', '/policies/update', { token: writerA, body: { items: [{ externalId: 'in-a', update: { dataSetId: { set: b } } }] } }), { status: 403 }, 'moving into B needs write on B');
  assertErrorBody(t, await call(t, 'POST', '/policies/update', { token: writerA, body: { items: [{ externalId: 'in-b', update: { name: { set: 'x' } } }] } }), { status: 400, fields: ['items.0'] }, 'an unreadable policy is not found');
  assertErrorBody(t, await call(t, 'POST', '/policies/delete', { token: readerB, body: { items: [{ externalId: 'in-b' }] } }), { status: 403 }, 'delete needs write');
  t.equal((await call(t, 'POST', '/policies/delete', { token: writerA, body: { items: [{ externalId: 'in-b' }] } })).status, 204, 'an unreadable policy is skipped as unknown');
  t.ok((await names(admin)).includes('in-b'), 'and stays');
  const other = srv.token({ org: srv.newTenant() });
  t.same(await names(other), [], 'another tenant sees none');
  await create(t, other, [policy('in-a')]);
  t.pass('and may use the same externalIds');
});

t.test('governance templates: create, apply idempotently to a data set, delete', async (t) => {
  const org = srv.newTenant();
  const admin = srv.token({ org });
  const plant = await dataSet(t, admin, 'plant');
  const template = {
    externalId: 'iso', name: 'ISO naming',
    policies: [
      { key: 'ts-name', name: 'series names', target: 'timeseries', field: 'name', pattern: '[A-Z]{2}-\\d{3}' },
      { key: 'res-xid', name: 'resource keys', target: 'resource', field: 'externalId', pattern: 'plant/.+', mode: 'enforce' },
    ],
  };
  const created = await call(t, 'POST', '/policies/templates/create', { token: admin, body: { items: [template] } });
  t.equal(created.status, 201);
  t.match(created.body.items[0], { externalId: 'iso', policies: template.policies });
  assertErrorBody(t, await call(t, 'POST', '/policies/templates/create', { token: admin, body: { items: [template] } }), { status: 409, duplicated: ['iso'] }, 'a template externalId taken');
  assertErrorBody(t, await call(t, 'POST', '/policies/templates/create', { token: admin, body: { items: [{ ...template, externalId: 'bad', policies: [{ ...template.policies[0], pattern: '(a|a)*b' }] }] } }),
    { status: 400, fields: ['items.0.policies.0.pattern'] }, 'a catastrophic pattern in a template');
  assertErrorBody(t, await call(t, 'POST', '/policies/templates/create', { token: srv.token({ org, sub: 'w', write: [plant] }), body: { items: [{ ...template, externalId: 'mine' }] } }),
    { status: 403 }, 'templates are tenant-wide: a data set writer may not create one');
  t.same((await call(t, 'GET', '/policies/templates', { token: admin })).body.items.map((x: { externalId: string }) => x.externalId), ['iso']);

  const apply = (token: string, body: unknown) => call(t, 'POST', '/policies/templates/apply', { token, body });
  const first = await apply(admin, { templateExternalId: 'iso', dataSetExternalId: 'plant' });
  t.equal(first.status, 200);
  t.match(first.body.items, [
    { externalId: `iso_ts-name_${plant}`, dataSetId: plant, templateExternalId: 'iso', mode: 'advisory' },
    { externalId: `iso_res-xid_${plant}`, dataSetId: plant, mode: 'enforce' },
  ]);
  const again = await apply(srv.token({ org, sub: 'w', write: [plant] }), { templateExternalId: 'iso', dataSetId: plant });
  t.same(again.body.items.map((p: Policy) => p.id), first.body.items.map((p: Policy) => p.id), 'applying again returns the same policies');
  assertErrorBody(t, await apply(admin, { templateExternalId: 'nope', dataSetId: plant }), { status: 400, fields: ['templateExternalId'] }, 'an unknown template');
  assertErrorBody(t, await apply(admin, { templateExternalId: 'iso', dataSetId: 987654321 }), { status: 400, fields: ['dataSetId'] }, 'an unknown data set');
  assertErrorBody(t, await apply(admin, { templateExternalId: 'iso' }), { status: 400, fields: ['dataSetId'] }, 'no data set named');
  assertErrorBody(t, await apply(srv.token({ org, sub: 'r', read: [plant] }), { templateExternalId: 'iso', dataSetId: plant }), { status: 403 }, 'applying needs write on the data set');
  t.equal((await call(t, 'POST', '/policies/templates/delete', { token: admin, body: { items: [{ externalId: 'iso' }, { externalId: 'never' }] } })).status, 204);
  t.same((await call(t, 'GET', '/policies/templates', { token: admin })).body.items, []);
  t.equal((await call(t, 'GET', '/policies', { token: admin })).body.items.length, 2, 'applied policies stay');
});
