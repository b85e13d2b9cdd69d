// Goal: events/create answers, for rows it inserted, exactly what a read of them returns
// (the answer is built from the input, not read back), and for ids stored before, the stored
// event; an id named twice in one request stores and answers its first item. Method: the
// engine against a real embedded PostgreSQL; create answers compared with eventsByIds.
import t from 'tap';
import { v7 as uuidv7 } from 'uuid';
import { fullAccess } from '../grants/access.ts';
import { openTestRelational } from '../testing/relational-fixture.ts';
import { eventsByIds } from './event-read.ts';
import { createEvents } from './event-write.ts';

const store = await openTestRelational(t, 'event-create');
const db = store.pool;
const tenant = `create-${uuidv7()}`;
const access = fullAccess(tenant);
const now = Date.now();
for (const [id, kind, externalId] of [[201, 'dataset', 'ds-1'], [202, 'resource', 'pump-1'], [203, 'timeseries', 'ts-1']] as const) {
  await db.query('INSERT INTO nodes (tenant, id, kind, external_id, created_time, last_updated_time) VALUES ($1, $2, $3, $4, $5, $5)', [tenant, id, kind, externalId, now]);
}

t.test('answers equal the stored events', async (t) => {
  const twice = uuidv7();
  const given = uuidv7();
  const items = [
    { externalId: 'line-1', eventTime: '2026-01-01T00:00:00Z', type: 'alarm', subType: 'high', status: 'open', source: 'scada', description: 'first', metadata: { b: '2', a: '1', '': 'dropped' }, dataSetId: 201, relatedResources: [{ externalId: 'pump-1' }, { id: 203 }, { id: '202', externalId: 'pump-1' }] },
    { id: twice, externalId: 'line-1', eventTime: 5 },
    { id: twice, externalId: 'line-2', eventTime: 6, description: 'second item with the same id' },
    { id: given.toUpperCase(), externalId: 'line-3', eventTime: 7, description: '' },
  ];
  const created = await createEvents(store, access, items);
  t.equal(created.length, 4, 'one answer per item');
  t.same(created[2], created[1], 'an id named twice answers its first item both times');
  t.equal(created[3]?.id, given, 'a given id is kept, in lower case');
  t.same(created[0]?.metadata, { a: '1', b: '2' }, 'the empty metadata key is dropped');
  t.same(created[0]?.relatedResources, [{ id: '202', externalId: 'pump-1' }, { id: '203', externalId: 'ts-1' }], 'related resources resolved and each once');
  const stored = await eventsByIds(db, access, created.map((e) => ({ id: e.id })));
  t.same(stored, [created[0], created[1], created[3]], 'the answers are the stored events');

  const retried = await createEvents(store, access, [{ id: twice, externalId: 'other', eventTime: 9, description: 'retry' }, { externalId: 'line-4', eventTime: 10 }]);
  t.same(retried[0], created[1], 'a retried id answers the stored event');
  t.same(await eventsByIds(db, access, [{ id: retried[1]?.id as string }]), [retried[1]], 'a new event beside it answers as stored');
});
