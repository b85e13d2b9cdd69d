// Goal: the front end no request can knock over. Malformed path parameters and
// query strings are 4xx with JSON bodies; an answer given while the client is still sending
// its body (413 on Content-Length or mid-stream, 401, 429) is read by Node's fetch, with
// `Connection: close` and `limitBytes`, and the rest of the body is dropped up to a bound;
// an error thrown inside a handler or a uWS callback is a 500 without stack (or a log line)
// and the server keeps serving. Method: the real server on port 0 and real clients (fetch,
// raw sockets); a bare uWS app with mountRoutes for the injected faults; a child process for
// the process guard.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import t from 'tap';
import uws from 'uWebSockets.js';
import { pino } from 'pino';
import { loadConfig } from '../engine/config.ts';
import { createMetrics } from '../engine/metrics.ts';
import type { SlabPool } from '../engine/memory/slab-pool.ts';
import { BODY_BYTES_MAX, DATAPOINT_BODY_BYTES_MAX } from '../engine/limits.ts';
import { createAuthenticator } from './auth.ts';
import { LINGER_BYTES_MAX } from './body.ts';
import { mountRoutes } from './http-server.ts';
import type { Route } from './route.ts';
import { startTestServer } from './testing/test-server.ts';

const srv = await startTestServer({
  serviceConfig: { rateLimits: { organization: { writesPerMinute: 3, readsPerMinute: 1_000 }, user: { writesPerMinute: 3, readsPerMinute: 1_000 } } },
});
t.teardown(() => srv.close());

const MiB = 1024 * 1024;

interface Answer { status: number; headers: Headers; body: any } // eslint-disable-line @typescript-eslint/no-explicit-any

/** fetch as a client would call it; the body is parsed as JSON whatever the status. */
async function call(method: string, path: string, init: { token?: string; body?: BodyInit; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...init.headers };
  if (init.token) headers['authorization'] = `Bearer ${init.token}`;
  const streamed = init.body !== undefined && typeof init.body === 'object' && Symbol.asyncIterator in init.body;
  const res = await fetch(srv.url + path, { method, headers, body: init.body, ...(streamed ? { duplex: 'half' } : {}) } as RequestInit);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

async function healthy(): Promise<void> {
  const res = await fetch(`${srv.url}/health`);
  t.equal(res.status, 200, 'GET /health is 200 afterwards');
}

/** A chunked body of `chunks` MiB (no Content-Length), as a client streams it. */
async function* mebibytes(chunks: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < chunks; i++) yield new Uint8Array(MiB).fill(0x20);
}

t.test('malformed path parameters and query strings are 4xx, never a crash', async (t) => {
  const token = srv.token({ org: srv.newTenant() });
  for (const bad of ['%C0%AF', '%', '%zz', '%E2%82', '%ED%A0%80']) {
    const res = await call('GET', `/timeseries/${bad}`, { token });
    t.equal(res.status, 400, `GET /timeseries/${bad}: 400`);
    t.equal(res.body.error.fields[0].field, 'id', `GET /timeseries/${bad}: names the parameter`);
  }
  const unit = await call('GET', '/timeseries/recommend-value-type/%FF', { token });
  t.equal(unit.status, 400, 'a string parameter too');
  t.equal(unit.body.error.fields[0].field, 'unitExternalId', 'named');
  for (const query of ['limit=%zz', 'limit=%', '%%%=&&==', 'dataSetId=%C0%AF', `limit=${'9'.repeat(5000)}`]) {
    const res = await fetch(`${srv.url}/timeseries?${query}`, { headers: { authorization: `Bearer ${token}` } });
    t.ok(res.status < 500, `GET /timeseries?${query.slice(0, 20)}: ${res.status}`);
  }
  const unknown = await call('GET', '/no/such/%C0%AF/route?%%', { token });
  t.equal(unknown.status, 404, 'an unknown route with bad escapes: 404');
  t.equal(unknown.body.error.type, 'NotFoundError', 'as JSON');
  await healthy();
});

t.test('413 is read by fetch, with Connection: close and limitBytes', async (t) => {
  const token = srv.token({ org: srv.newTenant() });
  const announced = await call('POST', '/timeseries/byids', { token, body: new Uint8Array(BODY_BYTES_MAX + 1).fill(0x20) });
  t.equal(announced.status, 413, 'Content-Length over the cap: 413');
  t.equal(announced.headers.get('connection'), 'close', 'Connection: close');
  t.equal(announced.body.limitBytes, BODY_BYTES_MAX, 'limitBytes');
  const streamed = await call('POST', '/timeseries/byids', { token, body: mebibytes(12) as unknown as BodyInit });
  t.equal(streamed.status, 413, 'chunked past the cap mid-stream: 413');
  t.equal(streamed.body.limitBytes, BODY_BYTES_MAX, 'limitBytes');
  const ingest = await call('POST', '/timeseries/data', { token, body: new Uint8Array(DATAPOINT_BODY_BYTES_MAX + MiB).fill(0x20) });
  t.equal(ingest.status, 413, 'POST /timeseries/data over 16 MiB: 413');
  t.equal(ingest.body.limitBytes, DATAPOINT_BODY_BYTES_MAX, 'its own limitBytes');
  const nowhere = await call('POST', '/no/such/route', { body: new Uint8Array(8 * MiB) });
  t.equal(nowhere.status, 404, 'an unknown route with a big body: the 404 is read');
  await healthy();
});

t.test('401 and 429 answered before the body is read are read by fetch', async (t) => {
  const body = new Uint8Array(3 * MiB).fill(0x20);
  const anonymous = await call('POST', '/timeseries/create', { body });
  t.equal(anonymous.status, 401, 'no token, 3 MiB body: 401');
  t.equal(anonymous.body.error.type, 'UnauthorizedError', 'as JSON');
  const token = srv.token({ org: srv.newTenant() });
  let limited: Answer | undefined;
  for (let i = 0; i < 10 && !limited; i++) {
    const res = await call('POST', '/timeseries/delete', { token, body: i < 3 ? JSON.stringify({ items: [{ externalId: 'x' }] }) : body });
    if (res.status === 429) limited = res;
  }
  t.equal(limited?.status, 429, 'over the write budget with a 3 MiB body: 429');
  t.ok(limited?.headers.get('retry-after'), 'Retry-After');
  t.type(limited?.body.retryAfter, 'number', 'retryAfter in the problem document');
  await healthy();
});

/**
 * Announced by the client below: uWS 20.30 itself resets a connection announcing a
 * Content-Length of 10 digits or more (1e9 bytes) before any handler sees a byte of it.
 */
const ANNOUNCED_BYTES = 999_999_999;

t.test('a client sending past the linger bound has its connection closed', async (t) => {
  const url = new URL(srv.url);
  const socket = net.connect(Number(url.port), url.hostname);
  let answered = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => { answered += chunk; });
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => undefined); // the reset is the expected end
  const token = srv.token({ org: srv.newTenant() });
  socket.write(`POST /timeseries/byids HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${ANNOUNCED_BYTES}\r\n\r\n`);
  const chunk = new Uint8Array(MiB).fill(0x20);
  let sent = 0;
  let open = true;
  void closed.then(() => { open = false; });
  while (open && sent < 4 * LINGER_BYTES_MAX) {
    sent += chunk.byteLength;
    if (!socket.write(chunk)) await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), closed]);
  }
  await closed;
  t.match(answered, /^HTTP\/1\.1 413 /, 'the 413 was sent first');
  t.match(answered, /"limitBytes":4194304/, 'with limitBytes');
  t.ok(sent < 4 * LINGER_BYTES_MAX, `closed after ${Math.round(sent / MiB)} MiB of ${Math.round(ANNOUNCED_BYTES / MiB)} MiB announced (bound ${LINGER_BYTES_MAX / MiB} MiB)`);
  await healthy();
});

/** A bare uWS app with mountRoutes and a captured log, for faults injected into a route. */
async function faultApp(routes: Route[]): Promise<{ url: string; logLines: () => Record<string, unknown>[]; close: () => void }> {
  const lines: string[] = [];
  const log = pino({ level: 'info' }, new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done(); } }));
  const app = uws.App();
  mountRoutes(app, routes, {
    config: loadConfig({ DATA_DIR: srv.dataDir, AUTH_JWT_SECRET: srv.secret }), auth: createAuthenticator({ secret: srv.secret }),
    metrics: createMetrics(), log, errorsBase: 'https://errors.test', access: () => Promise.reject(new Error('no access in this app')),
  });
  const socket = await new Promise<uws.us_listen_socket>((resolve, reject) => app.listen('127.0.0.1', 0, (s) => (s ? resolve(s) : reject(new Error('cannot listen')))));
  return {
    url: `http://127.0.0.1:${uws.us_socket_local_port(socket)}`,
    logLines: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
    close: () => uws.us_listen_socket_close(socket),
  };
}

t.test('an error thrown inside a handler or a uWS callback: a 500 without stack, and serving goes on', async (t) => {
  const throwingPool = { acquire() { throw new Error('injected: thrown synchronously in the uWS request callback'); } } as unknown as SlabPool;
  const route = (path: string, extra: Partial<Route>): Route => ({
    method: 'post', path, operationId: path, summary: path, tag: 'Test', public: true, responses: {}, handle: async () => ({ status: 200, body: { ok: true } }), ...extra,
  });
  const app = await faultApp([
    route('/sync-throw', { rawBody: true, rawBodyPool: throwingPool }),
    route('/async-throw', { rawBody: true, handle: async () => { throw new Error('injected: a handler failed with a secret detail'); } }),
    route('/fine', { rawBody: true }),
  ]);
  t.teardown(app.close);
  for (const path of ['/sync-throw', '/async-throw']) {
    const res = await fetch(app.url + path, { method: 'POST', body: '{}', headers: { 'x-request-id': `req-${path.slice(1)}` } });
    const text = await res.text();
    t.equal(res.status, 500, `${path}: 500`);
    t.equal(JSON.parse(text).error.type, 'InternalError', `${path}: a JSON error body`);
    t.notMatch(text, /injected|secret|at .*\.ts/, `${path}: no message or stack in the body`);
    const after = await fetch(`${app.url}/fine`, { method: 'POST', body: '{}' });
    t.equal(after.status, 200, `${path}: the next request is served`);
  }
  const logged = app.logLines().filter((line) => line['level'] === 50);
  t.ok(logged.some((line) => String((line['err'] as { stack?: string })?.stack).includes('thrown synchronously')), 'the synchronous throw is logged with its stack');
  t.ok(logged.some((line) => line['requestId'] === 'req-sync-throw'), 'and the 500 it got with its request id');
  t.ok(logged.some((line) => line['requestId'] === 'req-async-throw' && String((line['err'] as { stack?: string })?.stack).includes('secret detail')), 'the handler failure is logged with its request id');
});

t.test('the process guard keeps serving after a throw from an unguarded uWS callback', async (t) => {
  const fixture = fileURLToPath(new URL('./testing/throwing-callback-app.ts', import.meta.url));
  const { NODE_OPTIONS: _testRunnerHooks, ...env } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', fixture], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => { child.kill('SIGKILL'); });
  const output: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the fixture exited (${code}): ${output.join('\n')}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      output.push(line);
      const match = /^listening on (\S+)$/.exec(line);
      if (match) resolve(match[1] as string);
    });
  });
  const thrown = await fetch(`${url}/throw`, { method: 'POST', body: 'x' });
  t.equal(await thrown.text(), 'answered', 'the request whose onData threw is still answered');
  const ok = await fetch(`${url}/ok`);
  t.equal(await ok.text(), 'ok', 'and the process serves the next one');
  t.equal(child.exitCode, null, 'the process is alive');
  t.ok(output.some((line) => line.includes('thrown from an onData callback') && line.includes('"level":50')), 'the throw is logged at error level');
});
