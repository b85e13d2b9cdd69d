// Goal: GET /events/count answers from the per-data-set count deltas (migration 010) exactly
// what counting the readable events would: after creates, a retried create whose ids collapse,
// events appended by the policy path (appendEvents), an update moving events between data
// sets, deletes (an unknown id and an id deleted twice), and after the deltas are folded; and
// the distinct lists (a loose index scan) answer what SELECT DISTINCT does, limited and
// filtered. Method: the engine against a real embedded PostgreSQL; after every step the
// answer is compared with a count(*) / SELECT DISTINCT over the events table itself.
import t, { type Test } from 'tap';
import { v7 as uuidv7 } from 'uuid';
import { fullAccess, type Access } from '../grants/access.ts';
import { openTestRelational } from '../testing/relational-fixture.ts';
import { appendEvents } from './event-append.ts';
import { countEvents, distinctValues, EVENT_COUNT_ROWS_FOLD } from './event-read.ts';
import { createEvents, deleteEvents, updateEvents } from './event-write.ts';

const store = await openTestRelational(t, 'event-count');
const db = store.pool;
const tenant = `count-${uuidv7()}`;
const admin = fullAccess(tenant);
const now = Date.now();

const [dsA, dsB] = [101, 102];
for (const id of [dsA, dsB]) {
  await db.query(`INSERT INTO nodes (tenant, id, kind, external_id, created_time, last_updated_time) VALUES ($1, $2, 'dataset', $3, $4, $4)`, [tenant, id, `ds-${id}`, now]);
}
const onlyA: Access = { tenant, readable: new Set([dsA]), writable: new Set([dsA]) };

async function truth(access: Access): Promise<number> {
  const readable = access.readable === null ? null : [...access.readable];
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE tenant = $1 AND ($2::bigint[] IS NULL OR data_set_id IS NULL OR data_set_id = ANY($2))', [tenant, readable]);
  return rows[0]?.n ?? -1;
}

async function check(t: Test, what: string) {
  for (const [who, access] of [['admin', admin], ['reader of A', onlyA]] as const) {
    t.equal(await countEvents(db, access), await truth(access), `${what}: count for ${who}`);
  }
}

const item = (k: number, extra: Record<string, unknown> = {}) => ({ externalId: `key-${k % 3}`, eventTime: 1_000 + k, type: `type-${k % 4}`, source: `src-${k % 5}`, ...extra });

t.test('the count after every kind of write, and after a fold', async (t) => {
  await check(t, 'empty');
  const ids = Array.from({ length: 6 }, () => uuidv7());
  await createEvents(store, admin, ids.map((id, k) => ({ ...item(k), id, ...(k % 3 === 1 ? { dataSetId: dsA } : k % 3 === 2 ? { dataSetId: dsB } : {}) })));
  await check(t, 'six events over no data set, A and B');
  t.equal(await countEvents(db, admin), 6);
  await createEvents(store, admin, [{ ...item(0), id: ids[0] as string }, { ...item(9), id: uuidv7() }]);
  await check(t, 'a retried id collapses, one new event');
  t.equal(await countEvents(db, admin), 7);
  await store.transaction((tx) => appendEvents(tx, tenant, [{ id: uuidv7(), externalId: 'policy_finding_1_x', eventTime: 5, type: 'policy_finding', subType: null, status: 'OPEN', source: null, description: null, dataSetId: dsB, relatedResources: [], metadata: {} }]));
  await check(t, 'an event appended by the policy path');
  await updateEvents(store, admin, [{ id: ids[2] as string, update: { dataSetId: { set: dsA } } }, { id: ids[1] as string, update: { dataSetId: { setNull: true } } }, { id: ids[0] as string, update: { type: { set: 'changed' } } }]);
  await check(t, 'B to A, A to none, a type changed');
  await deleteEvents(store, admin, [{ id: ids[3] as string }, { id: uuidv7() }, { externalId: 'key-1' }]);
  await check(t, 'deletes by id, an unknown id, by externalId');
  await deleteEvents(store, admin, [{ id: ids[3] as string }]);
  await check(t, 'a delete repeated');

  // Past EVENT_COUNT_ROWS_FOLD deltas a count folds them into one row per data set.
  await db.query('INSERT INTO event_counts (tenant, data_set_id, n) SELECT $1, NULL, (CASE WHEN g % 2 = 0 THEN 1 ELSE -1 END) FROM generate_series(1, $2::int) AS g', [tenant, EVENT_COUNT_ROWS_FOLD + 2]);
  await check(t, 'many deltas summing to nothing');
  const { rows: folded } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM event_counts WHERE tenant = $1', [tenant]);
  t.ok((folded[0]?.n ?? 0) <= 3, `folded into one row per data set (${folded[0]?.n} rows)`);
  await check(t, 'after the fold');
});

// Distinct lists: byte order, the limit, the search filter, unreadable events' values left out.
async function distinctTruth(column: string, access: Access, limit: number, contains?: string): Promise<string[]> {
  const readable = access.readable === null ? null : [...access.readable];
  const { rows } = await db.query<{ v: string }>(`SELECT DISTINCT ${column} COLLATE "C" AS v FROM events WHERE tenant = $1 AND ${column} IS NOT NULL
     AND ($2::bigint[] IS NULL OR data_set_id IS NULL OR data_set_id = ANY($2)) AND ($3::text IS NULL OR strpos(lower(${column}), lower($3)) > 0) ORDER BY v LIMIT $4`, [tenant, readable, contains ?? null, limit]);
  return rows.map((r) => r.v);
}
t.test('distinct lists', async (t) => {
  await createEvents(store, admin, [{ ...item(20), type: 'Zeta' }, { ...item(21), type: 'alpha', dataSetId: dsB }, { ...item(22), type: 'ALPHA' }]);
  for (const [column, access, limit, contains] of [
    ['type', admin, 1000, undefined], ['type', onlyA, 1000, undefined], ['type', admin, 2, undefined], ['source', admin, 1000, undefined],
    ['status', admin, 10, undefined], ['sub_type', admin, 10, undefined], ['type', admin, 1000, 'ALP'], ['type', onlyA, 1000, 'alp'], ['type', admin, 1, 'type'],
  ] as const) {
    t.same(await distinctValues(db, access, column, limit, contains), await distinctTruth(column, access, limit, contains), `distinct ${column}, limit ${limit}${contains ? `, containing ${contains}` : ''}${access === onlyA ? ', reader of A' : ''}`);
  }
});
