// Goal: the web console is served by the service itself: GET / leads to /console/, whose
// page, script and stylesheet come from the console's build with a strict Content-Security-
// Policy, gzip for browsers that accept it, revalidation by ETag, and a first load within its
// 300 KB compressed budget; a service whose console is not built says so (503), never 500.
// GET /token/inspect tells the console who the token speaks for and which data sets it reads.
// Method: the console built by console/build.mjs (as `make test` does first), one real server.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { CONSOLE_CSP, consoleBuildDir, consoleRoutes } from './console.ts';
import { schemaCheckedRequest } from './testing/response-schema.ts';
import { startTestServer } from './testing/test-server.ts';
import { loadConfig } from '../engine/config.ts';

const REPO = path.resolve(import.meta.dirname, '..');
if (!existsSync(path.join(consoleBuildDir(), 'index.html'))) execFileSync(process.execPath, [path.join(REPO, 'console', 'build.mjs')], { stdio: 'inherit' });

/** The first load's budget: page, script and stylesheet, as sent gzip-compressed. */
const FIRST_LOAD_BYTES_MAX = 300 * 1024;

const srv = await startTestServer({ serviceConfig: { oauthClients: { console: { clientSecret: 'console-secret', organization: 'acme' } } } });
t.teardown(() => srv.close());
const call = schemaCheckedRequest(srv);

async function fetchRaw(pathname: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${srv.url}${pathname}`, { headers, redirect: 'manual' });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

t.test('GET / and /console lead to /console/', async (t) => {
  for (const from of ['/', '/console', '/console/no-such-page']) {
    const res = await fetchRaw(from);
    t.equal(res.status, 302, `${from}: 302`);
    t.equal(res.headers.get('location'), '/console/', `${from}: to /console/`);
  }
});

t.test('the page, script and stylesheet: types, CSP, gzip, ETag revalidation', async (t) => {
  const page = await fetchRaw('/console/');
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /^text\/html/);
  const csp = page.headers.get('content-security-policy') ?? '';
  t.equal(csp, CONSOLE_CSP, 'the console\'s policy');
  t.match(csp, /script-src 'self'(;|$)/, 'scripts from the service only');
  t.notMatch(csp, /unsafe-inline|unsafe-eval/, 'no inline code, no eval');
  t.equal(page.headers.get('x-content-type-options'), 'nosniff');
  t.notMatch(page.bytes.toString('utf8'), /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script in the page');
  t.notMatch(page.bytes.toString('utf8'), /\sstyle=|<style/, 'no inline style in the page');
  let firstLoad = 0;
  for (const [name, type] of [['', /^text\/html/], ['console.js', /^text\/javascript/], ['console.css', /^text\/css/]] as const) {
    const plain = await fetchRaw(`/console/${name}`);
    const gzip = await fetchRaw(`/console/${name}`, { 'accept-encoding': 'gzip, deflate, br' });
    t.equal(plain.status, 200, `${name || 'page'}: 200`);
    t.match(plain.headers.get('content-type'), type, `${name || 'page'}: its type`);
    t.equal(gzip.headers.get('content-encoding'), 'gzip', `${name || 'page'}: gzip when accepted`);
    // fetch decodes the gzip body itself; Content-Length is what crossed the wire.
    t.ok(gzip.bytes.equals(plain.bytes), `${name || 'page'}: the same bytes`);
    t.equal(gzip.headers.get('content-security-policy'), CONSOLE_CSP, `${name || 'page'}: CSP on every response`);
    firstLoad += Number(gzip.headers.get('content-length'));
    t.ok(Number(gzip.headers.get('content-length')) < plain.bytes.length, `${name || 'page'}: sent compressed`);
    const etag = plain.headers.get('etag') ?? '';
    t.match(etag, /^"[A-Za-z0-9_-]+"$/, `${name || 'page'}: a strong ETag`);
    const again = await fetchRaw(`/console/${name}`, { 'if-none-match': etag });
    t.equal(again.status, 304, `${name || 'page'}: 304 while current`);
    t.equal(again.bytes.length, 0, `${name || 'page'}: no body with the 304`);
  }
  t.ok(firstLoad <= FIRST_LOAD_BYTES_MAX, `first load ${firstLoad} bytes compressed, at most ${FIRST_LOAD_BYTES_MAX}`);
  const identity = await fetchRaw('/console/console.js', { 'accept-encoding': 'gzip;q=0, identity' });
  t.notOk(identity.headers.get('content-encoding'), 'gzip;q=0 gets the plain bytes');
  const missing = await fetchRaw('/console/missing.js');
  t.equal(missing.status, 404, 'a missing file is a 404');
  t.match(JSON.parse(missing.bytes.toString('utf8')), { error: { message: /No such console file/ } }, 'with a JSON error body');
  t.equal((await fetchRaw('/console/%2e%2e/package.json')).status, 404, 'nothing outside the build');
});

t.test('config.json says whether the dev identity provider has clients', async (t) => {
  const res = await call(t, 'GET', '/console/config.json', {});
  t.same(res.body, { oauth: true }, 'a client is configured');
  const bare = consoleRoutes(loadConfig({})).find((r) => r.path === '/console/config.json');
  t.same((await bare?.handle({} as never))?.body, { oauth: false }, 'none configured');
});

t.test('a console not built is a 503 saying so', async (t) => {
  const empty = mkdtempSync(path.join(tmpdir(), 'console-none-'));
  t.teardown(() => rmSync(empty, { recursive: true, force: true }));
  const route = consoleRoutes(loadConfig({}), empty).find((r) => r.path === '/console/{file}');
  const reply = await route?.handle({ params: { file: '' }, headers: {} } as never);
  t.equal(reply?.status, 503);
  t.match(reply?.body, { error: { message: /not built/ } });
});

t.test('GET /token/inspect: subject, organization, expiry and the data sets the token reads and writes', async (t) => {
  const org = srv.newTenant();
  const admin = srv.token({ org, sub: 'steward' });
  const made = (await call(t, 'POST', '/datasets/create', { token: admin, body: { items: [{ externalId: 'plant', name: 'Plant' }, { externalId: 'line', name: 'Line 1', parentExternalId: 'plant' }, { externalId: 'lab', name: 'Lab' }] } })).body.items as { id: number }[];
  const full = await call(t, 'GET', '/token/inspect', { token: admin });
  t.match(full.body, { subject: 'steward', organization: org, datasets: { read: 'all', write: 'all' } });
  t.ok(Math.abs(full.body.expiresAt - (Date.now() + 3600_000)) < 120_000, 'expiresAt is the token\'s exp in ms');
  const reader = await call(t, 'GET', '/token/inspect', { token: srv.token({ org, sub: 'viewer', read: ['plant'], write: [] }) });
  t.same(reader.body.datasets.read.map((d: { externalId: string }) => d.externalId).sort(), ['line', 'plant'], 'a grant covers its descendants');
  t.same(reader.body.datasets.read.find((d: { externalId: string }) => d.externalId === 'plant'), { id: made[0]?.id, externalId: 'plant', name: 'Plant' }, 'each named by id, externalId and name');
  t.same(reader.body.datasets.write, [], 'no write grant');
  t.equal((await call(t, 'GET', '/token/inspect', {})).status, 401, 'a token is needed');
});
