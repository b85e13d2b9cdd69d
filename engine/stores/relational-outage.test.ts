// Goal: a PostgreSQL that goes away is a StoreUnavailableError (503 with Retry-After), never a
// raw pg error (a 500), and the embedded one comes back by itself. Method: a real embedded
// PostgreSQL in a temp DATA_DIR. The classifier is checked on real failures: a refused
// connection (a closed port), a session terminated by the server (pg_terminate_backend: 57P01)
// both inside a query and while a checked-out client sits idle (which must not throw
// anywhere), and a statement's own error (which must stay what it is). Then the postmaster
// (its pid from postmaster.pid) gets SIGKILL: pings fail with StoreUnavailableError and pass
// again within 15 s, on the same data, with no migration run twice. Last, a postmaster that
// cannot start again (its directory made unreadable) is given up after the tries allowed.
import { mkdtempSync, readFileSync, rmSync, chmodSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import t from 'tap';
import { StoreUnavailableError } from '../errors.ts';
import { toErrorReply } from '../../api/problems.ts';
import { asStoreError, isStoreConnectionFailure } from './relational-errors.ts';
import { openRelational } from './relational.ts';
import { migrate } from './migrations.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'relational-outage-'));
chmodSync(dataDir, 0o755);
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
const gone: Error[] = [];
const store = await openRelational({ dataDir, gone: (error) => gone.push(error), restartAttempts: 4 });
t.teardown(() => store.close().catch(() => undefined));

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function pollUntil(what: string, deadlineMs: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check().catch(() => false)) return Date.now() - started;
    if (Date.now() - started > deadlineMs) throw new Error(`${what}: not within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

t.test('a refused connection is a StoreUnavailableError, answered 503 with Retry-After', async (t) => {
  const pool = new pg.Pool({ host: '127.0.0.1', port: await closedPort(), user: 'x', password: 'x', connectionTimeoutMillis: 2_000 });
  const refused = await pool.query('SELECT 1').then(() => undefined, (error: unknown) => error);
  await pool.end();
  t.ok(isStoreConnectionFailure(refused), `refused: ${(refused as Error).message}`);
  const mapped = asStoreError(refused);
  t.type(mapped, StoreUnavailableError);
  const reply = toErrorReply(mapped, 'https://errors.example');
  t.equal(reply.status, 503);
  t.equal(reply.headers?.['Retry-After'], '1');
  t.match(reply.body, { error: { type: 'StoreUnavailableError', code: 503 } });
  t.notMatch(JSON.stringify(reply.body), /ECONNREFUSED|127\.0\.0\.1/, 'nothing of the connection leaks');
});

t.test('a statement\'s own error stays what it is', async (t) => {
  const error = await store.pool.query('SELECT * FROM no_such_table').then(() => undefined, (e: unknown) => e);
  t.equal((error as { code?: string }).code, '42P01');
  t.notOk(error instanceof StoreUnavailableError);
  t.notOk(isStoreConnectionFailure(error));
  t.notOk(isStoreConnectionFailure(new Error('terminal failure')), 'a plain error is not a store failure');
});

t.test('a server that cannot use its files is unavailable; a role without a grant is the statement\'s error', async (t) => {
  // The error pg hands over when a backend meets a data file it may no longer open (as when
  // the data directory's mode changes under a running server), and other file failures.
  const fileError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: 'ERROR' });
  t.ok(isStoreConnectionFailure(fileError('42501', 'could not open file "base/5/16604_fsm": Permission denied')), 'EACCES on a data file');
  t.ok(isStoreConnectionFailure(fileError('58P01', 'could not open file "base/5/1259": No such file or directory')), 'a data file gone');
  t.ok(isStoreConnectionFailure(fileError('58030', 'could not read block 0 in file "base/5/1259": Input/output error')), 'an I/O error');
  t.ok(isStoreConnectionFailure(fileError('53100', 'could not extend file "base/5/16384": No space left on device')), 'a full disk');
  t.type(asStoreError(fileError('42501', 'could not read file "pg_xact/0000": Permission denied')), StoreUnavailableError);
  // A real privilege error from the server: a role without a grant on the table.
  await store.pool.query('CREATE TABLE IF NOT EXISTS grant_probe (x int)');
  await store.pool.query("DO $$ BEGIN CREATE ROLE grant_probe_role NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$");
  const client = await store.pool.connect();
  try {
    const denied = await client.query('SET ROLE grant_probe_role; SELECT * FROM grant_probe').then(() => undefined, (e: unknown) => e);
    t.equal((denied as { code?: string }).code, '42501');
    t.match((denied as Error).message, /permission denied for table grant_probe/);
    t.notOk(isStoreConnectionFailure(denied), 'a missing grant is not an outage');
  } finally {
    await client.query('RESET ROLE');
    client.release();
  }
});

t.test('a session the server terminates: the query rejects with StoreUnavailableError', async (t) => {
  const client = await store.pool.connect();
  const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
  const running = client.query('SELECT pg_sleep(30)').then(() => undefined, (e: unknown) => e);
  await pollUntil('the sleep running', 5_000, async () => (await store.pool.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND query LIKE 'SELECT pg_sleep%'`, [pid])).rows.length === 1);
  await store.pool.query('SELECT pg_terminate_backend($1)', [pid]);
  const error = await running;
  client.release(error as Error);
  t.type(error, StoreUnavailableError, `mapped: ${((error as Error).cause as Error)?.message}`);
});

t.test('a checked-out client whose session ends while idle: no uncaught error, the next query rejects 503', async (t) => {
  const uncaught: unknown[] = [];
  const record = (error: unknown) => uncaught.push(error);
  process.on('uncaughtException', record);
  t.teardown(() => process.removeListener('uncaughtException', record));
  const client = await store.pool.connect();
  const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
  await store.pool.query('SELECT pg_terminate_backend($1)', [pid]);
  const error = await pollUntil('the next query fails', 5_000, async () => {
    const failed = await client.query('SELECT 1').then(() => undefined, (e: unknown) => e);
    return failed instanceof StoreUnavailableError;
  }).then(() => undefined, (e: unknown) => e);
  client.release(new Error('the session ended'));
  t.equal(error, undefined, 'the next query rejects with StoreUnavailableError');
  t.strictSame(uncaught, [], 'nothing reached the process');
});

t.test('the embedded postmaster killed with SIGKILL is started again on the same data', async (t) => {
  await store.pool.query('CREATE TABLE outage_probe (n int)');
  await store.pool.query('INSERT INTO outage_probe VALUES (42)');
  await migrate(store);
  const pid = Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
  t.equal(pid, store.embeddedPid(), 'postmaster.pid names the postmaster the store started');
  // Idle connections of both pools, and a transaction in flight when the postmaster dies.
  await Promise.all([store.pool.query('SELECT 1'), store.counterPool.query('SELECT 1')]);
  const inFlight = store.transaction(async (tx) => {
    await tx.query('INSERT INTO outage_probe VALUES (7)');
    await tx.query('SELECT pg_sleep(30)');
  }).then(() => undefined, (e: unknown) => e);
  await pollUntil('the transaction running', 5_000, async () => (await store.pool.query(`SELECT 1 FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(30)%'`)).rows.length === 1);
  process.kill(pid, 'SIGKILL');
  t.type(await inFlight, StoreUnavailableError, 'the transaction in flight rejects with StoreUnavailableError');
  const down = await store.ping().then(() => undefined, (e: unknown) => e);
  // The restart may already be done when this ping runs; what it must never be is a raw error.
  if (down !== undefined) t.type(down, StoreUnavailableError, 'a ping while it is down');
  const counted = await store.counterPool.query('SELECT 1').then(() => undefined, (e: unknown) => e);
  if (counted !== undefined) t.type(counted, StoreUnavailableError, 'the counter pool too');
  const tookMs = await pollUntil('healthy again', 15_000, async () => {
    await store.ping();
    return true;
  });
  t.ok(tookMs <= 15_000, 'answers again within 15 s');
  t.not(store.embeddedPid(), pid, 'a new postmaster');
  t.strictSame((await store.pool.query('SELECT n FROM outage_probe ORDER BY n')).rows, [{ n: 42 }], 'committed rows kept, the aborted transaction\'s gone');
  await pollUntil('the counter pool connects again', 5_000, async () => (await store.counterPool.query('SELECT 1 AS one')).rows.length === 1);
  t.strictSame(await migrate(store), [], 'nothing to migrate again');
  t.strictSame(gone, [], 'never given up');
});

t.test('a postmaster that cannot start again is given up after the tries allowed', async (t) => {
  const pgDir = path.join(dataDir, 'postgres');
  const mode = statSync(pgDir).mode & 0o7777;
  chmodSync(pgDir, 0);
  t.teardown(() => chmodSync(pgDir, mode));
  process.kill(store.embeddedPid() as number, 'SIGKILL');
  await pollUntil('given up', 30_000, async () => gone.length === 1);
  t.type(gone[0], StoreUnavailableError);
  t.match(gone[0]?.message, /did not start again in 4 attempts/);
  t.type(await store.ping().then(() => undefined, (e: unknown) => e), StoreUnavailableError, 'a ping after: StoreUnavailableError');
});
