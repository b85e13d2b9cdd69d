// Goal: the series directory answers held series without PostgreSQL, and never serves keys
// that changed: a change by this process is forgotten at once, one by any other path through
// the trigger's notification, and while notifications cannot arrive nothing is served from
// memory, unless this process is PostgreSQL's sole client (the embedded one): then it serves
// what it holds and drops it once notifications arrive again. Method: a real embedded
// PostgreSQL (migrated); other processes' changes are plain SQL on the pool (the trigger fires
// as for any writer); statements counted by a pool wrapper.
import t from 'tap';
import { openTestRelational } from '../testing/relational-fixture.ts';
import { pollUntil } from '../testing/poll-until.ts';
import { openSeriesDirectory, SeriesDirectory } from './series-directory.ts';

const relational = await openTestRelational(t, 'series-directory-test');

let statements = 0;
const countedPool = new Proxy(relational.pool, {
  get(target, key, receiver) {
    if (key === 'query') return (...args: unknown[]) => { statements++; return (target.query as (...a: unknown[]) => unknown)(...args); };
    return Reflect.get(target, key, receiver);
  },
});
const { directory, close } = await openSeriesDirectory({ pool: countedPool, listen: relational.listen });
t.teardown(close);

async function createSeries(tenant: string, id: number, externalId: string, dataSetId: number | null = null): Promise<void> {
  await relational.pool.query(
    `INSERT INTO nodes (tenant, id, kind, external_id, value_type, data_set_id, created_time, last_updated_time) VALUES ($1, $2, 'timeseries', $3, 'FLOAT', $4, 0, 0)`,
    [tenant, id, externalId, dataSetId],
  );
}

await createSeries('dir-a', 1, 'a-1');
await createSeries('dir-a', 2, 'a-2');
await createSeries('dir-b', 3, 'b-3');

t.test('held series are answered from memory; misses always ask PostgreSQL', async (t) => {
  statements = 0;
  t.same((await directory.fetch('dir-a', [1], ['a-2'])).map((r) => r.id).sort(), [1, 2]);
  t.equal(statements, 1, 'the first lookup asks');
  t.same((await directory.fetch('dir-a', [2], ['a-1'])).map((r) => r.id).sort(), [1, 2]);
  t.equal(statements, 1, 'the second is answered from memory');
  t.same(await directory.fetch('dir-a', [], ['a-9']), [], 'a miss');
  t.same(await directory.fetch('dir-a', [], ['a-9']), [], 'a miss again');
  t.equal(statements, 3, 'misses are not held: each asks');
  await createSeries('dir-a', 9, 'a-9');
  t.same((await directory.fetch('dir-a', [], ['a-9'])).map((r) => r.id), [9], 'a series created meanwhile is found at once');
  t.same(await directory.fetch('dir-b', [1], ['a-1']), [], 'another tenant never sees them');
});

t.test('isStep is carried, false by default, and a change of it is forgotten through the notification', async (t) => {
  await createSeries('dir-step', 31, 'step-31');
  t.equal((await directory.fetch('dir-step', [31], []))[0]?.isStep, false, 'false unless set');
  await relational.pool.query(`UPDATE nodes SET is_step = true WHERE tenant = 'dir-step' AND id = 31`);
  await pollUntil('the stepwise series', async () => (await directory.fetch('dir-step', [31], []))[0]?.isStep === true);
  t.pass('the change is seen');
});

t.test('a change by another writer is forgotten through the notification', async (t) => {
  await directory.fetch('dir-a', [1], []);
  await relational.pool.query(`UPDATE nodes SET external_id = 'a-1-renamed', data_set_id = 42 WHERE tenant = 'dir-a' AND id = 1`);
  await pollUntil('the renamed series', async () => (await directory.fetch('dir-a', [], ['a-1-renamed']))[0]?.id === 1);
  t.same(await directory.fetch('dir-a', [], ['a-1']), [], 'the old externalId is gone');
  t.equal((await directory.fetch('dir-a', [1], []))[0]?.data_set_id, 42, 'the new data set is seen');
  await relational.pool.query(`DELETE FROM nodes WHERE tenant = 'dir-a' AND id = 2`);
  await pollUntil('the deleted series gone', async () => (await directory.fetch('dir-a', [2], [])).length === 0);
  t.pass('a deleted series is gone');
});

t.test('a change unrelated to the kept keys does not notify', async (t) => {
  await directory.fetch('dir-b', [3], []);
  await relational.pool.query(`UPDATE nodes SET name = 'renamed' WHERE tenant = 'dir-b' AND id = 3`);
  await relational.pool.query('SELECT pg_sleep(0.2)');
  // Counted for this tenant only: the earlier tests' notifications for dir-a may arrive now.
  statements = 0;
  await directory.fetch('dir-b', [3], []);
  t.equal(statements, 0, 'still held: answered from memory');
});

t.test('forgetTenant drops at once (the writing process, before any notification)', async (t) => {
  await directory.fetch('dir-b', [3], []);
  statements = 0;
  directory.forgetTenant('dir-b');
  await directory.fetch('dir-b', [3], []);
  t.equal(statements, 1, 'asked again');
});

t.test('while the LISTEN connection is down nothing is served from memory', async (t) => {
  await directory.fetch('dir-b', [3], []);
  await relational.pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN series_changed'`);
  await pollUntil('distrusted', () => directory.size() === 0);
  statements = 0;
  await directory.fetch('dir-b', [3], []);
  await pollUntil('listening again', async () => {
    statements = 0;
    await directory.fetch('dir-b', [3], []);
    await directory.fetch('dir-b', [3], []);
    return statements === 1;
  });
  t.pass('held again once listening');
  await relational.pool.query(`UPDATE nodes SET external_id = 'b-3-renamed' WHERE tenant = 'dir-b' AND id = 3`);
  await pollUntil('the change seen on the new connection', async () => (await directory.fetch('dir-b', [], ['b-3-renamed'])).length === 1);
});

t.test('a sole client keeps serving what it holds while the LISTEN connection is down, and drops it once back', async (t) => {
  let soleStatements = 0;
  const soleCounted = new Proxy(relational.pool, {
    get(target, key, receiver) {
      if (key === 'query') return (...args: unknown[]) => { soleStatements++; return (target.query as (...a: unknown[]) => unknown)(...args); };
      return Reflect.get(target, key, receiver);
    },
  });
  const sole = await openSeriesDirectory({ pool: soleCounted, listen: relational.listen, soleClient: true });
  t.teardown(sole.close);
  await createSeries('dir-c', 5, 'c-5');
  await sole.directory.fetch('dir-c', [5], []);
  t.equal(sole.directory.size(), 1, 'held');
  const listeners = async () => Number((await relational.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = 'LISTEN series_changed'`)).rows[0]?.n);
  const before = await listeners();
  await relational.pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN series_changed'`);
  await pollUntil('both directories listening again', async () => (await listeners()) >= before);
  // While it was down (and until the new connection listened) the held key was served from memory;
  // once listening again, what was held has been dropped: the next lookup asks.
  await pollUntil('dropped once listening again', () => sole.directory.size() === 0);
  soleStatements = 0;
  await sole.directory.fetch('dir-c', [5], []);
  await sole.directory.fetch('dir-c', [5], []);
  t.equal(soleStatements, 1, 'asked once, then held again');
});

t.test('a sole client answers held series from memory while it cannot listen', async (t) => {
  const sole = new SeriesDirectory(relational.pool, { listening: true, soleClient: true });
  await createSeries('dir-d', 6, 'd-6');
  await sole.fetch('dir-d', [6], []);
  sole.lost();
  t.same((await sole.fetch('dir-d', [6], [])).map((r) => r.external_id), ['d-6'], 'served while lost');
  t.equal(sole.size(), 1, 'still held while lost');
  sole.listening();
  t.equal(sole.size(), 0, 'dropped once listening again');
  const shared = new SeriesDirectory(relational.pool, { listening: true });
  await shared.fetch('dir-d', [6], []);
  shared.lost();
  t.equal(shared.size(), 0, 'not a sole client: dropped at once');
});
