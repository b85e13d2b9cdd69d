// Goal: naming policies evaluated on resource and time series writes: enforce
// refuses with 422 naming the field and the policy and writes nothing; advisory lets the
// write through and appends a finding encoded exactly as SPEC's "Policy finding" table says,
// in the write's transaction; the lifecycle (a raise collapses onto an unchanged value, a
// steward resolves by appending, only a different value reopens) and POST /policies/findings
// folding it, filtered and paged, under grants. Method: one real server, REST only.
import t, { type Test } from 'tap';
import { assertErrorBody } from './testing/error-body.ts';
import { schemaCheckedRequest } from './testing/response-schema.ts';
import { startTestServer } from './testing/test-server.ts';

const srv = await startTestServer();
t.teardown(() => srv.close());
const call = schemaCheckedRequest(srv);

async function ok(t: Test, method: string, path: string, token: string, body?: unknown, status = 200) {
  const res = await call(t, method, path, { token, body });
  if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}

const findingEvents = async (t: Test, token: string) =>
  (await ok(t, 'POST', '/events/filter', token, { filter: { type: 'policy_finding' }, sort: { property: ['eventTime'] } })).items;
const findings = async (t: Test, token: string, body: unknown = {}) => ok(t, 'POST', '/policies/findings', token, body);

t.test('advisory: the write goes through and a finding is appended, encoded as SPEC says; the lifecycle', async (t) => {
  const org = srv.newTenant();
  const token = srv.token({ org });
  const [ds] = (await ok(t, 'POST', '/datasets/create', token, { items: [{ externalId: 'plant', name: 'plant' }] }, 201)).items;
  await ok(t, 'POST', '/policies/create', token, { items: [{ externalId: 'tag-names', name: 'ISA tags', target: 'timeseries', field: 'name', pattern: '[A-Z]{2}-\\d{3}' }] }, 201);
  const [series] = (await ok(t, 'POST', '/timeseries/create', token, { items: [{ externalId: 's1', name: 'pt 101', valueType: 'FLOAT', dataSetId: ds.id }] }, 201)).items;
  const [raise] = await findingEvents(t, token);
  t.match(raise, {
    externalId: `policy_finding_tag-names_${series.id}`, type: 'policy_finding', subType: 'tag-names', source: 'service_policy_tag-names', status: 'OPEN',
    dataSetId: String(ds.id), relatedResources: [{ id: String(series.id), externalId: 's1' }],
    metadata: { offendingValue: 'pt 101', suggestion: 'PT-101', raisedBy: 'service' },
  }, 'the raise, encoded per SPEC');
  t.match(raise.description, /pt 101.*tag-names/);
  // The same value again (a rename to itself) collapses onto the stored raise.
  await ok(t, 'POST', '/timeseries/update', token, { items: [{ externalId: 's1', update: { name: { set: 'pt 101' } } }] });
  await ok(t, 'POST', '/timeseries/update', token, { items: [{ externalId: 's1', update: { metadata: { add: { k: 'v' } } } }] });
  t.equal((await findingEvents(t, token)).length, 1, 'an unchanged value collapses; a write not touching the field is not evaluated');
  const [open] = (await findings(t, token)).items;
  t.match(open, { externalId: raise.externalId, policyExternalId: 'tag-names', nodeId: String(series.id), state: 'OPEN', offendingValue: 'pt 101', suggestion: 'PT-101' });
  // A steward resolves by appending an event with the same externalId.
  await ok(t, 'POST', '/events/create', token, { items: [{ externalId: raise.externalId, type: 'policy_finding', subType: 'tag-names', status: 'RESOLVED', eventTime: raise.eventTime + 1, dataSetId: ds.id, metadata: { raisedBy: 'steward-1' } }] }, 201);
  t.equal((await findings(t, token)).items[0].state, 'RESOLVED', 'resolved');
  t.same((await findings(t, token, { filter: { state: 'OPEN' } })).items, [], 'the state filter applies to the fold, not to stored OPEN events');
  await ok(t, 'POST', '/timeseries/update', token, { items: [{ externalId: 's1', update: { name: { set: 'pt 101' } } }] });
  t.equal((await findings(t, token)).items[0].state, 'RESOLVED', 'the same value written again stays resolved (nothing updated in place)');
  await ok(t, 'POST', '/timeseries/update', token, { items: [{ externalId: 's1', update: { name: { set: 'pressure' } } }] });
  const [reopened] = (await findings(t, token)).items;
  t.match(reopened, { state: 'OPEN', offendingValue: 'pressure' }, 'a different non-conforming value reopens');
  t.equal((await findingEvents(t, token)).length, 3, 'raise, resolve, raise: appended, never updated');
  await ok(t, 'POST', '/timeseries/update', token, { items: [{ externalId: 's1', update: { name: { set: 'PT-102' } } }] });
  t.equal((await findingEvents(t, token)).length, 3, 'a conforming value raises nothing');
});

t.test('enforce: 422 naming the field and the policy, nothing written; scoped policies cover descendants', async (t) => {
  const org = srv.newTenant();
  const token = srv.token({ org });
  const [P, C, other] = (await ok(t, 'POST', '/datasets/create', token, { items: [{ externalId: 'P', name: 'P' }, { externalId: 'C', name: 'C', parentExternalId: 'P' }, { externalId: 'O', name: 'O' }] }, 201)).items;
  await ok(t, 'POST', '/policies/create', token, { items: [
    { externalId: 'keys', name: 'resource keys', target: 'resource', field: 'externalId', pattern: 'plant/.+', mode: 'enforce', dataSetId: P.id },
  ] }, 201);
  const refused = await call(t, 'POST', '/resources/create', { token, body: { nodes: [{ externalId: 'plant/root', name: 'root', isRoot: true, dataSetId: C.id }, { externalId: 'pump', name: 'pump', isRoot: true, dataSetId: C.id }] } });
  assertErrorBody(t, refused, { status: 422, fields: ['nodes.1.externalId'] }, 'a resource in a child data set breaks the enforce policy');
  t.match(refused.body.error.fields[0], { policy: 'keys', value: 'pump' });
  t.same((await ok(t, 'POST', '/resources/filter', token, {})).items, [], 'nothing of the refused request was written');
  await ok(t, 'POST', '/resources/create', token, { nodes: [{ externalId: 'pump', name: 'pump', isRoot: true, dataSetId: other.id }] }, 201);
  t.pass('outside the policy\'s data set the name is free');
  const moved = await call(t, 'POST', '/resources/update', { token, body: { nodes: [{ externalId: 'pump', update: { dataSetId: { set: C.id } } }] } });
  assertErrorBody(t, moved, { status: 422, fields: ['nodes.0.update.externalId'] }, 'moving it under the policy re-checks it');
  t.same(await findingEvents(t, token), [], 'enforce raises no finding');
});

t.test('findings: filters, paging, grants; a long policy externalId cuts the source at 128', async (t) => {
  const org = srv.newTenant();
  const admin = srv.token({ org });
  const [A] = (await ok(t, 'POST', '/datasets/create', admin, { items: [{ externalId: 'A', name: 'A' }] }, 201)).items;
  const long = `p${'x'.repeat(127)}`;
  await ok(t, 'POST', '/policies/create', admin, { items: [
    { externalId: 'upper', name: 'upper-case names', target: 'resource', field: 'name', pattern: '[A-Z ]+' },
    { externalId: long, name: 'described', target: 'resource', field: 'description', pattern: '.+' },
  ] }, 201);
  await ok(t, 'POST', '/resources/create', admin, {
    nodes: [{ externalId: 'r1', name: 'root', isRoot: true }, { externalId: 'r2', name: 'lower', dataSetId: A.id, description: 'has one' }, { externalId: 'r3', name: 'OK NAME' }],
    relations: [{ fromExternalId: 'r1', toExternalId: 'r2', relationshipType: 'CONTAINS' }, { fromExternalId: 'r1', toExternalId: 'r3', relationshipType: 'CONTAINS' }],
  }, 201);
  const all = (await findings(t, admin)).items as { externalId: string; policyExternalId: string }[];
  t.equal(all.length, 4, 'r1 and r2 break `upper`; r1 and r3 have no description');
  t.same(all.map((f) => f.externalId), [...all.map((f) => f.externalId)].sort(), 'ordered by finding externalId');
  t.same((await findings(t, admin, { filter: { policyExternalId: 'upper' } })).items.map((f: { policyExternalId: string }) => f.policyExternalId), ['upper', 'upper']);
  const events = await findingEvents(t, admin);
  t.ok(events.filter((e: { subType: string }) => e.subType === long).every((e: { source: string }) => e.source.length === 128 && e.source === `service_policy_${long}`.slice(0, 128)), 'source cut to 128');
  const pages: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await findings(t, admin, { limit: 3, ...(cursor ? { cursor } : {}) });
    pages.push(...page.items.map((f: { externalId: string }) => f.externalId));
    cursor = page.nextCursor;
  } while (cursor);
  t.same(pages, all.map((f) => f.externalId), 'paging visits each once');
  assertErrorBody(t, await call(t, 'POST', '/policies/findings', { token: admin, body: { cursor: 'nope' } }), { status: 400, fields: ['cursor'] }, 'a bad cursor');
  const outsider = srv.token({ org, sub: 'o', read: [] });
  t.equal((await findings(t, outsider)).items.length, 3, 'the finding about r2 (in A) is not readable without A');
  t.equal((await findings(t, admin, { filter: { dataSetIds: [{ id: A.id }] } })).items.length, 1, 'the data set filter');
  t.same((await findings(t, srv.token({ org: srv.newTenant() }))).items, [], 'another tenant sees none');
});

t.test('findings of one record: filter.nodeId (a number or its string) picks the findings whose last segment is that node', async (t) => {
  const org = srv.newTenant();
  const token = srv.token({ org });
  await ok(t, 'POST', '/policies/create', token, { items: [{ externalId: 'tags', name: 'tags', target: 'timeseries', field: 'name', pattern: '[A-Z]{2}-\\d{3}' }] }, 201);
  const created = (await ok(t, 'POST', '/timeseries/create', token, { items: Array.from({ length: 12 }, (_, i) => ({ externalId: `s${i}`, name: `bad ${i}`, valueType: 'FLOAT' })) }, 201)).items as { id: number }[];
  // Twelve records with a finding each: the filter answers the one named and no other.
  for (const series of [created[0], created[11]] as { id: number }[]) {
    const mine = (await findings(t, token, { filter: { nodeId: series.id } })).items;
    t.same(mine.map((f: { nodeId: string }) => f.nodeId), [String(series.id)], `node ${series.id}: its finding only`);
    t.same((await findings(t, token, { filter: { nodeId: String(series.id) } })).items, mine, 'the id as a string answers the same');
  }
  t.same((await findings(t, token, { filter: { nodeId: 987654321 } })).items, [], 'a node without findings');
  assertErrorBody(t, await call(t, 'POST', '/policies/findings', { token, body: { filter: { nodeId: 'x1' } } }), { status: 400, fields: ['filter.nodeId'] }, 'a nodeId that is not an id');
});
