// Goal: what `make run` starts cannot rot while tests and the dev loop run the .ts sources
// through tsx: the compiled JavaScript (engine/install/build-dist.mjs) starts, answers
// GET /health, parses a data point body in its piscina workers (their task module is
// resolved in the compiled tree), applies its migrations (.sql copied beside the compiled
// module) and stops cleanly on SIGTERM. Method: build once into a temp folder (with the
// repo's node_modules linked in and an ES-module package.json, as dist/ has from the repo),
// start `node <out>/api/main.js` on port 0 with its own DATA_DIR, call it over HTTP.
import t from 'tap';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { mintToken } from './auth.ts';
import { pollUntil } from '../engine/testing/poll-until.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SECRET = 'c'.repeat(32);

const work = mkdtempSync(path.join(tmpdir(), 'compiled-start-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
const outDir = path.join(work, 'dist');
execFileSync(process.execPath, [path.join(ROOT, 'engine/install/build-dist.mjs'), outDir], { cwd: ROOT, stdio: 'inherit' });
symlinkSync(path.join(ROOT, 'node_modules'), path.join(outDir, 'node_modules'));
writeFileSync(path.join(outDir, 'package.json'), JSON.stringify({ type: 'module' }));

t.test('the build holds what is read by path at run time', async (t) => {
  t.ok(existsSync(path.join(outDir, 'api/main.js')), 'the entry point');
  t.ok(existsSync(path.join(outDir, 'workers/datapoint-task.js')), 'the workers\' task module');
  t.ok(existsSync(path.join(outDir, 'engine/stores/migrations/001-nodes.sql')), 'the migrations');
  t.ok(existsSync(path.join(outDir, 'engine/meta/units/units-catalogue.json')), 'the unit catalogue');
  t.notOk(existsSync(path.join(outDir, 'api/compiled-start.test.js')), 'no tests');
});

t.test('the compiled service starts, serves, parses in its workers and stops on SIGTERM', async (t) => {
  const dataDir = path.join(work, 'data');
  // Without the test runner's NODE_OPTIONS (its tsx loader): plain node, as `make run` runs it.
  const { NODE_OPTIONS: _testRunnerHooks, ...parentEnv } = process.env;
  const child = spawn(process.execPath, [path.join(outDir, 'api/main.js')], {
    cwd: ROOT,
    env: { ...parentEnv, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, AUTH_JWT_SECRET: SECRET, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr = (stderr + chunk).slice(-3000); });
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  t.teardown(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); });
  const url = await new Promise<string>((resolve, reject) => {
    void exited.then((how) => reject(new Error(`exited (${how}) before listening: ${stderr}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const match = /^listening on (http:\/\/\S+)$/.exec(line);
      if (match) resolve(match[1] as string);
    });
  });

  const health = await pollUntil('GET /health 200', async () => {
    const res = await fetch(`${url}/health`);
    return res.status === 200 ? ((await res.json()) as unknown) : false;
  }, 60_000);
  t.strictSame(health, { status: 'ok' });

  const token = mintToken({ secret: SECRET, organization: 'compiled', sub: 'test' });
  const call = async (route: string, body: unknown) => {
    const res = await fetch(`${url}${route}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: res.status === 204 ? undefined : ((await res.json()) as any) }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  t.equal((await call('/timeseries/create', { items: [{ externalId: 'flow', name: 'flow', valueType: 'FLOAT' }] })).status, 201);
  t.equal((await call('/timeseries/data', { items: [{ externalId: 'flow', datapoints: [{ timestamp: 1_700_000_000_000, value: '2.5' }] }] })).status, 204);
  const read = await call('/timeseries/data/list', { items: [{ externalId: 'flow', start: 0, end: 1_800_000_000_000 }] });
  t.equal(read.status, 200);
  t.strictSame(read.body.items[0].datapoints, [{ timestamp: 1_700_000_000_000, value: '2.5' }]);

  child.kill('SIGTERM');
  t.equal(await exited, 0, `a clean stop: ${stderr}`);
});
