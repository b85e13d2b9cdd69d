// Goal: the start-up rules for `make run`: a second instance on a port in use, or a
// DATA_DIR that cannot be written, fails with a one-line reason and a non-zero exit; a bad
// SERVICE_CONFIG names its bad keys. Method: the real entry point (api/main.ts) as a child
// process next to a running server.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestServer } from './testing/test-server.ts';

const srv = await startTestServer();
t.teardown(() => srv.close());

function start(env: Record<string, string>) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'api/main.ts'], {
    env: { ...process.env, LOG_LEVEL: 'silent', AUTH_JWT_SECRET: 'x'.repeat(32), ...env },
    timeout: 60_000,
  });
  return { status: run.status, stderr: run.stderr.toString().trim() };
}

t.test('a port in use', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'startup-test-'));
  const run = start({ PORT: String(srv.server.port), DATA_DIR: dataDir });
  t.equal(run.status, 1);
  t.equal(run.stderr.split('\n').length, 1, 'one line');
  t.match(run.stderr, `cannot listen on 127.0.0.1:${srv.server.port}`);
});

t.test('a DATA_DIR that cannot be written', async (t) => {
  const run = start({ PORT: '0', DATA_DIR: '/proc/plantdata-cannot-write' });
  t.equal(run.status, 1);
  t.equal(run.stderr.split('\n').length, 1, 'one line');
  t.match(run.stderr, /DATA_DIR \/proc\/plantdata-cannot-write is not writable/);
});

t.test('a bad SERVICE_CONFIG', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'startup-test-'));
  const file = path.join(dir, 'config.json');
  writeFileSync(file, JSON.stringify({ rateLimits: { user: { readsPerMinute: -5 } }, nope: 1 }));
  const run = start({ PORT: '0', DATA_DIR: dir, SERVICE_CONFIG: file });
  t.equal(run.status, 2);
  t.match(run.stderr, /\/rateLimits\/user\/readsPerMinute/);
  t.match(run.stderr, /nope/);
});
