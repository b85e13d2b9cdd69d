// Goal: the one identifier resolver resolves `{id}`, `{externalId}` and both, refuses an
// identifier with neither or with both naming different records (400 naming every such
// item), and sees only the caller's tenant. Method: the node families against a real
// embedded PostgreSQL (temp DATA_DIR, migrated), plus an in-memory family for a
// non-unique externalId (events).
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { openTestRelational } from '../testing/relational-fixture.ts';
import { BadRequestError } from '../errors.ts';
import { lookupNodes } from '../meta/node-lookup.ts';
import { identifierOf, resolveIdentifiers, type RecordFamily, type RecordIdentifier } from './identifiers.ts';

const store = await openTestRelational(t, 'identifiers-test');

t.test('identifierOf keeps what the item gives', async (t) => {
  t.strictSame(identifierOf({ id: 1 }), { id: 1 });
  t.strictSame(identifierOf({ externalId: 'a' }), { externalId: 'a' });
  t.strictSame(identifierOf({ id: 1, externalId: 'a' }), { id: 1, externalId: 'a' }, 'both kept');
  t.strictSame(identifierOf({ id: 1, externalId: 'a', name: 'x' } as { id: number; externalId: string }), { id: 1, externalId: 'a' }, 'nothing else');
  t.strictSame(identifierOf({}), {});
});

// Events: externalId is not unique, ids are UUID strings.
interface EventRow { id: string; externalId: string }
const events: EventRow[] = [{ id: 'u1', externalId: 'k' }, { id: 'u2', externalId: 'k' }, { id: 'u3', externalId: 'm' }];
const eventFamily: RecordFamily<EventRow, string> = {
  fetch: async (_db, _tenant, ids, externalIds) => events.filter((e) => ids.includes(e.id) || externalIds.includes(e.externalId)),
  idOf: (row) => row.id,
  externalIdOf: (row) => row.externalId,
};
const noDb = { query: async () => { throw new Error('unused'); } } as never;

t.test('a family with a non-unique externalId and string ids plugs in', async (t) => {
  const resolve = (items: RecordIdentifier<string>[]) => resolveIdentifiers(eventFamily, noDb, 'tenant', items);
  const got = await resolve([{ externalId: 'k' }, { id: 'u3' }, { id: 'u2', externalId: 'k' }, { externalId: 'nope' }]);
  t.strictSame(got.map((r) => r.rows.map((e) => e.id)), [['u1', 'u2'], ['u3'], ['u2'], []]);
  t.equal(got[3]?.row, undefined, 'a miss');
  await t.rejects(resolve([{ id: 'u3', externalId: 'k' }]), { code: 'BadRequestError', fields: [{ field: 'items.0' }] });
  const field = (i: number) => `items.2.relatedResources.${i}`;
  await t.rejects(resolveIdentifiers(eventFamily, noDb, 't', [{}], { field }), { code: 'BadRequestError', fields: [{ field: 'items.2.relatedResources.0' }] }, 'caller-chosen field path');
});

async function createNode(tenant: string, kind: string, externalId: string): Promise<number> {
  const { rows } = await store.pool.query<{ id: number }>(
    `INSERT INTO nodes (tenant, id, kind, external_id, created_time, last_updated_time) VALUES ($1, nextval('node_id_seq'), $2, $3, 0, 0) RETURNING id`,
    [tenant, kind, externalId],
  );
  return (rows[0] as { id: number }).id;
}

t.test('node lookup against PostgreSQL', async (t) => {
  const tenant = randomUUID();
  const other = randomUUID();
  const a = await createNode(tenant, 'timeseries', 'a');
  const b = await createNode(tenant, 'timeseries', 'b');
  const d = await createNode(tenant, 'dataset', 'd');
  const theirs = await createNode(other, 'timeseries', 'theirs');
  const check = async (identifiers: RecordIdentifier[], expected: (string | undefined)[] | { fields: string[] }, name: string) => {
    const run = lookupNodes(store.pool, tenant, 'timeseries', identifiers);
    if (Array.isArray(expected)) {
      t.strictSame((await run).map((r) => r.row?.external_id), expected, name);
    } else {
      const error = await run.then(() => undefined, (e: unknown) => e);
      t.ok(error instanceof BadRequestError, `${name}: 400`);
      t.strictSame((error as BadRequestError).fields.map((f) => f.field), expected.fields, `${name}: fields`);
    }
  };
  await check([{ id: a }, { externalId: 'b' }], ['a', 'b'], 'by id and by externalId');
  await check([{ id: a, externalId: 'a' }], ['a'], 'both, consistent');
  await check([{ id: b }, { id: a, externalId: 'b' }], { fields: ['items.1'] }, 'both naming two records');
  await check([{ id: a, externalId: 'b' }, { id: b, externalId: 'a' }], { fields: ['items.0', 'items.1'] }, 'every inconsistent item is named');
  await check([{ id: 987654321, externalId: 'a' }], { fields: ['items.0'] }, 'an id naming nothing with an externalId naming a record');
  await check([{ id: a, externalId: 'nope' }], { fields: ['items.0'] }, 'an id naming a record with an externalId naming nothing');
  await check([{ id: 987654321, externalId: 'nope' }], [undefined], 'both naming nothing: a miss');
  await check([{ externalId: 'nope' }, { id: 987654321 }], [undefined, undefined], 'misses');
  await check([{ id: a }, {}], { fields: ['items.1'] }, 'no identifier');
  await check([{ id: d }, { externalId: 'd' }], [undefined, undefined], 'another kind: a miss');
  await check([{ id: theirs }, { externalId: 'theirs' }], [undefined, undefined], "another tenant's records: misses");
  await check([{ id: theirs, externalId: 'theirs' }], [undefined], "another tenant's record named by both: a miss, not a 400");
  const hidden = await lookupNodes(store.pool, tenant, 'timeseries', [{ id: 987654321, externalId: 'b' }], false, { visible: (row) => row.id !== b });
  t.equal(hidden[0]?.row, undefined, 'a record the caller may not see is a miss, also for the both-given check');
  const locked = await store.transaction((tx) => lookupNodes(tx, tenant, 'timeseries', [{ externalId: 'a' }, { externalId: 'b' }], true));
  t.strictSame(locked.map((r) => r.row?.id), [a, b], 'forUpdate inside a transaction');
});
