// Goal: the graph guard against the real embedded PostgreSQL: a write that would strand a
// resource is refused with the 400 naming it and leaves nothing behind; a change made outside
// the guard (another process, a data set re-parented) is seen by the next guarded write; two
// writes racing to strand one resource never both succeed; tenants do not share structures.
// Method: rows written with plain SQL inside guarded transactions (the resource and edge
// modules build on this seam), checked by reading the tables back.
import t from 'tap';
import { openTestRelational } from '../testing/relational-fixture.ts';
import type { Queryable } from '../stores/queryable.ts';
import { fullAccess } from '../grants/access.ts';
import { createGraphGuard, StrandedResourcesError, type GraphEdge } from './graph-guard.ts';

const store = await openTestRelational(t, 'graph-guard');
const guard = createGraphGuard(store);
let nextId = 1;

async function addResource(tx: Queryable, tenant: string, isRoot: boolean, dataSetId: number | null = null): Promise<number> {
  const id = nextId++;
  await tx.query(`INSERT INTO nodes (tenant, id, kind, external_id, name, is_root, data_set_id, created_time, last_updated_time) VALUES ($1, $2, 'resource', $3, 'r', $4, $5, 0, 0)`, [tenant, id, `r${id}`, isRoot, dataSetId]);
  return id;
}

async function addDataSet(tx: Queryable, tenant: string): Promise<number> {
  const id = nextId++;
  await tx.query(`INSERT INTO nodes (tenant, id, kind, external_id, name, created_time, last_updated_time) VALUES ($1, $2, 'dataset', $3, 'd', 0, 0)`, [tenant, id, `d${id}`]);
  return id;
}

async function addEdge(tx: Queryable, tenant: string, start: number, end: number, type = 1): Promise<GraphEdge> {
  const id = nextId++;
  await tx.query('INSERT INTO edges (tenant, id, start_id, end_id, type_id, created_time, last_updated_time) VALUES ($1, $2, $3, $4, $5, 0, 0)', [tenant, id, start, end, type]);
  return { id, start, end };
}

async function removeEdge(tx: Queryable, tenant: string, edge: GraphEdge): Promise<void> {
  await tx.query('DELETE FROM edges WHERE tenant = $1 AND id = $2', [tenant, edge.id]);
}

/** A root with one child reached by two edges of different types. */
async function rootAndChild(tenant: string) {
  return guard.write(fullAccess(tenant), async (tx) => {
    const root = await addResource(tx, tenant, true);
    const child = await addResource(tx, tenant, false);
    const a = await addEdge(tx, tenant, root, child, 1);
    const b = await addEdge(tx, tenant, root, child, 2);
    return { result: { root, child, a, b }, change: { addedNodes: [{ id: root, isRoot: true }, { id: child, isRoot: false }], addedEdges: [a, b] } };
  });
}

/** The StrandedResourcesError a write is refused with (fails the test otherwise). */
async function strandedBy(write: Promise<unknown>): Promise<StrandedResourcesError> {
  const error = await write.then(() => undefined, (e: unknown) => e);
  if (!(error instanceof StrandedResourcesError)) throw new Error(`expected the stranding 400, got ${String(error)}`);
  return error;
}

const count = async (sql: string, values: unknown[]) => Number((await store.pool.query<{ n: string }>(sql, values)).rows[0]?.n);

t.test('a stranding write is refused with the resources named, and nothing is written', async (t) => {
  const tenant = 'guard-refuse';
  const { child, a, b } = await rootAndChild(tenant);
  let orphan = 0;
  const error = await strandedBy(guard.write(fullAccess(tenant), async (tx) => {
    await removeEdge(tx, tenant, a);
    await removeEdge(tx, tenant, b);
    orphan = await addResource(tx, tenant, false);
    return { result: orphan, change: { removedEdges: [a, b], addedNodes: [{ id: orphan, isRoot: false }] } };
  }));
  t.same(error.stranded.map((s) => s.id), [child, orphan], 'the child and the new orphan are named');
  t.match(error.fields[0], { field: 'items', id: child, externalId: `r${child}` });
  t.equal(await count('SELECT count(*) AS n FROM edges WHERE tenant = $1', [tenant]), 2, 'both edges still there');
  t.equal(await count('SELECT count(*) AS n FROM nodes WHERE tenant = $1', [tenant]), 2, 'the orphan was not created');
  await guard.write(fullAccess(tenant), async (tx) => {
    await removeEdge(tx, tenant, a);
    return { result: undefined, change: { removedEdges: [a] } };
  });
  t.equal(await count('SELECT count(*) AS n FROM edges WHERE tenant = $1', [tenant]), 1, 'one of two paths may go');
});

t.test('a change made outside the guard is seen by the next guarded write', async (t) => {
  const tenant = 'guard-outside';
  const { root, child, a, b } = await rootAndChild(tenant);
  // Another process (or a data set re-parent) adds a third path and removes one, unguarded.
  const c = await addEdge(store.pool, tenant, root, child, 3);
  await removeEdge(store.pool, tenant, a);
  await guard.write(fullAccess(tenant), async (tx) => {
    await removeEdge(tx, tenant, b);
    return { result: undefined, change: { removedEdges: [b] } };
  });
  t.pass('the path added outside keeps the child reachable');
  await strandedBy(guard.write(fullAccess(tenant), async (tx) => {
    await removeEdge(tx, tenant, c);
    return { result: undefined, change: { removedEdges: [c] } };
  }));
  t.pass('and removing it now strands the child');
});

t.test('two writes racing to strand one resource never both succeed', async (t) => {
  let refusals = 0;
  for (let round = 0; round < 20; round++) {
    const tenant = `guard-race-${round}`;
    const { a, b } = await rootAndChild(tenant);
    const outcomes = await Promise.allSettled([a, b].map((edge) => guard.write(fullAccess(tenant), async (tx) => {
      await removeEdge(tx, tenant, edge);
      return { result: undefined, change: { removedEdges: [edge] } };
    })));
    t.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1, `round ${round}: exactly one removal lands`);
    const rejected = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    t.ok(rejected.reason instanceof StrandedResourcesError, `round ${round}: the other is the stranding 400`);
    refusals += 1;
    t.equal(await count('SELECT count(*) AS n FROM edges WHERE tenant = $1', [tenant]), 1, `round ${round}: one path remains`);
  }
  t.equal(refusals, 20);
});

t.test('a stranding write names only the resources the caller may read', async (t) => {
  const tenant = 'guard-grants';
  const { root, a, b } = await rootAndChild(tenant);
  const hidden = await guard.write(fullAccess(tenant), async (tx) => {
    const dataSet = await addDataSet(tx, tenant);
    const id = await addResource(tx, tenant, false, dataSet);
    const edge = await addEdge(tx, tenant, root, id);
    return { result: { id, edge, dataSet }, change: { addedNodes: [{ id, isRoot: false }], addedEdges: [edge] } };
  });
  const limited = { tenant, readable: new Set<number>(), writable: null };
  const error = await strandedBy(guard.write(limited, async (tx) => {
    for (const edge of [a, b, hidden.edge]) await removeEdge(tx, tenant, edge);
    return { result: undefined, change: { removedEdges: [a, b, hidden.edge] } };
  }));
  t.notOk(error.stranded.some((s) => s.id === hidden.id), 'the unreadable resource is not named');
  t.notOk(JSON.stringify(error.fields).includes(`r${hidden.id}`), 'nor its externalId in the fields');
  t.match(error.message, /strand 1 resource, and resources outside this token's data sets/, 'only that others exist');
  const alone = await strandedBy(guard.write(limited, async (tx) => {
    await removeEdge(tx, tenant, hidden.edge);
    return { result: undefined, change: { removedEdges: [hidden.edge] } };
  }));
  t.strictSame(alone.stranded, [], 'nothing named');
  t.notMatch(alone.message, /\d+ resource/, 'no count of what the caller cannot read');
});

t.test('tenants hold separate structures', async (t) => {
  const one = await rootAndChild('guard-tenant-1');
  await rootAndChild('guard-tenant-2');
  // Removing tenant 1's edges strands its child, whatever tenant 2 holds.
  await strandedBy(guard.write(fullAccess('guard-tenant-1'), async (tx) => {
    await removeEdge(tx, 'guard-tenant-1', one.a);
    await removeEdge(tx, 'guard-tenant-1', one.b);
    return { result: undefined, change: { removedEdges: [one.a, one.b] } };
  }));
  const tight = createGraphGuard(store, 1);
  await tight.write(fullAccess('guard-tenant-2'), async () => ({ result: undefined, change: {} }));
  await tight.write(fullAccess('guard-tenant-1'), async () => ({ result: undefined, change: {} }));
  await strandedBy(tight.write(fullAccess('guard-tenant-1'), async (tx) => {
    await removeEdge(tx, 'guard-tenant-1', one.a);
    await removeEdge(tx, 'guard-tenant-1', one.b);
    return { result: undefined, change: { removedEdges: [one.a, one.b] } };
  }));
  t.pass('a structure dropped for room is loaded again');
});
