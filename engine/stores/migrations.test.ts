// Goal: migrations apply what is missing as one transaction: at version nothing runs; two
// migrators at once apply each migration once; a batch with a failing migration applies none
// of it and names what it held; a file whose last line is a comment without a semicolon still
// ends its statement. Method: a real embedded PostgreSQL (relational-fixture.ts), migrated
// with the repo's files, then extra probe migrations numbered past them.
import t from 'tap';
import { openTestRelational } from '../testing/relational-fixture.ts';
import { listMigrations, migrate, type Migration } from './migrations.ts';

const store = await openTestRelational(t, 'migrations-test');
const repo = listMigrations();
const versions = async () => (await store.pool.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')).rows.map((r) => r.version);
const tableExists = async (name: string) => (await store.pool.query<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [name])).rows[0]?.found;
const probe = (version: number, name: string, sql: string): Migration => ({ version, name, sql });

t.test('at version: every repo migration recorded, nothing applied again', async (t) => {
  t.strictSame(await versions(), repo.map((m) => m.version));
  t.strictSame(await migrate(store), []);
});

t.test('two migrators at once apply a migration once', async (t) => {
  const withProbe = [...repo, probe(900, 'probe-a', 'CREATE TABLE probe_a (n int);')];
  const applied = await Promise.all([migrate(store, withProbe), migrate(store, withProbe)]);
  t.strictSame(applied.map((a) => a.length).sort(), [0, 1]);
  t.ok(await tableExists('probe_a'));
});

t.test('a failing migration: none of the batch applied, the error names the batch', async (t) => {
  const batch = [...repo, probe(901, 'ok-one', 'CREATE TABLE probe_b (n int);'), probe(902, 'broken', 'SELECT * FROM no_such_table;')];
  await t.rejects(migrate(store, batch), /migrations 901-ok-one, 902-broken failed \(none applied\)/);
  t.notOk(await tableExists('probe_b'), 'the good one before it rolled back too');
  t.notOk((await versions()).includes(901));
  t.strictSame(await migrate(store, repo), [], 'the connection and the lock are free again');
});

t.test('a last line that is a comment, no semicolon', async (t) => {
  t.strictSame(await migrate(store, [...repo, probe(903, 'comment-end', 'CREATE TABLE probe_c (n int)\n-- the end'), probe(904, 'next', 'CREATE TABLE probe_d (n int)')]), [903, 904]);
  t.ok(await tableExists('probe_c'));
  t.ok(await tableExists('probe_d'));
});
