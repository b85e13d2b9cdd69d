// Goal: the resource use cases below the HTTP layer, where the API cannot reach them: the
// resource with its edges that /mcp's resource_get answers (both directions, edges to time
// series and data sets included, an edge whose other end is unreadable left out, unknown or
// unreadable resources a NotFoundError), and byids / filter / search answering only the
// caller's tenant and readable resources. Method: the real use cases (resource-write.ts,
// resource-read.ts) with the real graph guard and policy evaluator on an embedded PostgreSQL.
import t from 'tap';
import type { Access } from '../grants/access.ts';
import { appendEvents } from '../events/event-append.ts';
import { createPolicyEvaluator } from '../policies/policy-evaluation.ts';
import { openTestRelational } from '../testing/relational-fixture.ts';
import { createGraphGuard } from './graph-guard.ts';
import { filterResourcesJson, getResourceWithEdges, resourcesByIds, searchResources } from './resource-read.ts';
import { createResources } from './resource-write.ts';

const store = await openTestRelational(t, 'resource-read');
const db = store.pool;
const deps = {
  graph: createGraphGuard(store),
  policies: createPolicyEvaluator(async (tx, tenant, findings) => { await appendEvents(tx, tenant, findings); }),
};
const full = (tenant: string): Access => ({ tenant, readable: null, writable: null });

const contains = (from: string, to: string, type = 'CONTAINS') => ({ fromExternalId: from, toExternalId: to, relationshipType: type });

/** A data set, a time series in it, and site → pump → (motor, series); pump → hidden (in the data set). */
async function plant(tenant: string) {
  const { rows: [ds] } = await db.query<{ id: number }>(
    `INSERT INTO nodes (tenant, id, kind, external_id, name, created_time, last_updated_time) VALUES ($1, nextval('node_id_seq'), 'dataset', 'secret', 'secret', 0, 0) RETURNING id`, [tenant]);
  await db.query(
    `INSERT INTO nodes (tenant, id, kind, external_id, name, value_type, created_time, last_updated_time) VALUES ($1, nextval('node_id_seq'), 'timeseries', 'flow', 'flow', 'FLOAT', 0, 0)`, [tenant]);
  const made = await createResources(deps, full(tenant), [
    { externalId: 'site', name: 'Site', isRoot: true },
    { externalId: 'pump', name: 'Pump', description: 'centrifugal' },
    { externalId: 'motor', name: 'Motor' },
    { externalId: 'hidden', name: 'Hidden', dataSetId: ds?.id },
  ], [contains('site', 'pump'), contains('pump', 'motor'), contains('pump', 'hidden'), contains('pump', 'flow', 'MEASURED_BY')]);
  return { dataSetId: ds?.id as number, made };
}

t.test('a resource with its edges, both directions, readable ones only', async (t) => {
  const tenant = 'with-edges';
  const { dataSetId, made } = await plant(tenant);
  const [site, pump, motor, hidden] = made.items;
  const { item, relations } = await getResourceWithEdges(db, full(tenant), { externalId: 'pump' });
  t.same(item, pump, 'the resource as create answered it');
  t.same(relations.map((e) => `${e.start}-${e.type}-${e.end}`).sort(), [
    `${pump?.id}-CONTAINS-${hidden?.id}`, `${pump?.id}-CONTAINS-${motor?.id}`, `${pump?.id}-MEASURED_BY-${relations.find((e) => e.type === 'MEASURED_BY')?.end}`, `${site?.id}-CONTAINS-${pump?.id}`,
  ].sort(), 'incoming and outgoing, to resources and time series');
  const outsider: Access = { tenant, readable: new Set([dataSetId + 1_000_000]), writable: new Set() };
  const seen = await getResourceWithEdges(db, outsider, { id: pump?.id as number });
  t.notOk(seen.relations.some((e) => e.end === hidden?.id), 'an edge to an unreadable resource is left out');
  t.equal(seen.relations.length, 3);
  await t.rejects(getResourceWithEdges(db, outsider, { externalId: 'hidden' }), { code: 'NotFoundError' }, 'an unreadable resource is not found');
  await t.rejects(getResourceWithEdges(db, full(tenant), { externalId: 'nope' }), { code: 'NotFoundError' }, 'an unknown resource');
  await t.rejects(getResourceWithEdges(db, full(tenant), { externalId: 'flow' }), { code: 'NotFoundError' }, 'a time series is not a resource');
  await t.rejects(getResourceWithEdges(db, full('another-tenant'), { id: pump?.id as number }), { code: 'NotFoundError' }, 'another tenant');
});

t.test('byids, filter and search answer the caller\'s tenant and readable resources only', async (t) => {
  const tenant = 'reads';
  const { dataSetId } = await plant(tenant);
  await plant('reads-neighbour');
  const outsider: Access = { tenant, readable: new Set([dataSetId + 1_000_000]), writable: new Set() };
  const names = (items: { externalId: string }[]) => items.map((i) => i.externalId).sort();
  t.same(names(await resourcesByIds(db, full(tenant), [{ externalId: 'hidden' }, { externalId: 'site' }, { externalId: 'flow' }])), ['hidden', 'site']);
  t.same(names(await resourcesByIds(db, outsider, [{ externalId: 'hidden' }, { externalId: 'site' }])), ['site']);
  const page = await filterResourcesJson(db, outsider, { limit: 10 });
  t.same(names(page.items.map((j) => JSON.parse(j))), ['motor', 'pump', 'site'], 'filter: no time series, no unreadable, no neighbour');
  t.same(names(await searchResources(db, full(tenant), { search: 'centrifugal', limit: 10 })), ['pump']);
  t.same(await searchResources(db, outsider, { search: 'hidden', limit: 10 }), [], 'search leaves out the unreadable');
});
