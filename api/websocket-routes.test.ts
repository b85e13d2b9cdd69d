// Goal: WebSocket routes check the token at the handshake (401 JSON and no upgrade on a bad
// one, SPEC Authentication rule 5), carry caller and access into the session, pass messages
// both ways with back-pressure, close a failing session with 1011 while the service keeps
// serving, and keep sessions alive / close idle ones from config. Method: a real uWS app on
// 127.0.0.1 with test-only routes mounted by the real mountWebSocketRoutes and mountRoutes;
// the `ws` package as the client.
import t from 'tap';
import WebSocket from 'ws';
import type { IncomingMessage } from 'node:http';
import { buildOpenApi } from './openapi.ts';
import { ok, type Route } from './route.ts';
import { startRouteKindsApp, until } from './testing/route-kinds-app.ts';
import { WS_CLOSE, type WebSocketContext, type WebSocketRoute, type SendOutcome } from './websocket-routes.ts';

const opened: string[] = [];
const flood = { outcome: undefined as SendOutcome | undefined, bufferedBytes: 0, sessionDrains: 0, drainedPromise: false };

function echoSession(ctx: WebSocketContext) {
  opened.push(ctx.requestId);
  ctx.send(JSON.stringify({ hello: ctx.caller.tenant, sub: ctx.caller.sub, access: ctx.access.tenant, params: ctx.params, pathTail: ctx.pathTail, q: ctx.query.get('q') }));
  return {
    message(data: string | Uint8Array) {
      if (data === 'throw') throw new Error('a handler bug');
      if (data === 'reject') return Promise.reject(new Error('an async handler bug'));
      if (data === 'flood') return floodUntilBackpressure(ctx);
      if (data === 'bye') return ctx.close(WS_CLOSE.normal, 'bye');
      ctx.send(typeof data === 'string' ? `echo:${data}` : data);
      return undefined;
    },
    drain() {
      flood.sessionDrains++;
    },
  };
}

async function floodUntilBackpressure(ctx: WebSocketContext): Promise<void> {
  const frame = new Uint8Array(256 * 1024);
  for (let i = 0; i < 256 && flood.outcome === undefined; i++) {
    const outcome = ctx.send(frame);
    if (outcome !== 'sent') flood.outcome = outcome;
  }
  flood.bufferedBytes = ctx.bufferedBytes();
  await ctx.drained();
  flood.drainedPromise = true;
  ctx.send('drained');
}

const webSocketRoutes: WebSocketRoute[] = [
  { path: '/test/ws/{room}', operationId: 'testWs', summary: 'echo', tag: 'test', open: echoSession },
  { path: '/test/tail/{ids*}', operationId: 'testTail', summary: 'tail', tag: 'test', open: echoSession },
  { path: '/test/broken-open', operationId: 'testBrokenOpen', summary: 'open throws', tag: 'test', open: () => { throw new Error('open bug'); } },
];
const routes: Route[] = [{ method: 'get', path: '/test/ping', operationId: 'testPing', summary: 'ping', tag: 'test', responses: { 200: { description: 'ok' } }, handle: async () => ok({ pong: true }) }];

const app = await startRouteKindsApp({ routes, webSocketRoutes, policy: { rateLimits: { user: { readsPerMinute: 1000, writesPerMinute: 1000 } } } });
t.teardown(() => app.close());
const wsUrl = `ws://127.0.0.1:${app.port}`;

interface Client {
  ws: WebSocket;
  frames: (string | Buffer)[];
  closed?: { code: number; reason: string };
  pings: number;
}

/** Opens a client and resolves once the handshake succeeded (rejects on a refused one). */
function connect(path: string, opts: WebSocket.ClientOptions & { protocols?: string[] } = {}): Promise<Client> {
  const ws = new WebSocket(wsUrl + path, opts.protocols ?? [], opts);
  const client: Client = { ws, frames: [], pings: 0 };
  ws.on('message', (data, isBinary) => client.frames.push(isBinary ? (data as Buffer) : data.toString()));
  ws.on('close', (code, reason) => { client.closed = { code, reason: reason.toString() }; });
  ws.on('ping', () => { client.pings++; });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(client));
    ws.once('error', reject);
  });
}

/** A refused handshake: the status, headers and JSON body of the answer. */
function refused(path: string, headers: Record<string, string>): Promise<{ status: number; headers: IncomingMessage['headers']; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const ws = new WebSocket(wsUrl + path, { headers });
  return new Promise((resolve, reject) => {
    ws.once('open', () => reject(new Error('the handshake was accepted')));
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => { text += chunk.toString(); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }));
    });
    ws.once('error', () => undefined);
  });
}

t.test('a bad or missing token is answered 401 with no upgrade', async (t) => {
  const before = opened.length;
  const check = async (headers: Record<string, string>, name: string) => {
    const res = await refused('/test/ws/r1', headers);
    t.equal(res.status, 401, name);
    t.equal(res.headers['upgrade'], undefined, `${name}: no upgrade`);
    t.equal(res.headers['www-authenticate'], 'Bearer', `${name}: WWW-Authenticate`);
    t.equal(res.body.error.type, 'UnauthorizedError', `${name}: error body`);
    t.equal(res.body.error.code, 401, `${name}: code`);
  };
  await check({}, 'missing');
  await check({ authorization: 'Bearer not-a-jwt' }, 'malformed');
  await check({ authorization: `Basic ${app.token(app.newTenant())}` }, 'not bearer');
  t.equal(opened.length, before, 'no session was opened');
});

t.test('a good token upgrades; caller, access and path reach the session; messages go both ways', async (t) => {
  const org = app.newTenant();
  const client = await connect('/test/ws/room%201?q=x', { headers: { authorization: `Bearer ${app.token(org, 'ann')}` } });
  await until(() => client.frames.length >= 1, 'the hello frame');
  t.same(JSON.parse(client.frames[0] as string), { hello: org, sub: 'ann', access: org, params: { room: 'room 1' }, pathTail: [], q: 'x' });
  client.ws.send('hi');
  client.ws.send(Buffer.from([1, 2, 3]));
  await until(() => client.frames.length >= 3, 'two echoes');
  t.equal(client.frames[1], 'echo:hi');
  t.same([...(client.frames[2] as Buffer)], [1, 2, 3], 'binary echo');
  client.ws.send('bye');
  await until(() => client.closed !== undefined, 'the close');
  t.same(client.closed, { code: 1000, reason: 'bye' });
});

t.test('browsers: the token in the `bearer, <JWT>` subprotocol pair; the server selects `bearer`', async (t) => {
  const org = app.newTenant();
  const client = await connect('/test/ws/r2', { protocols: ['bearer', app.token(org)] });
  t.equal(client.ws.protocol, 'bearer');
  await until(() => client.frames.length >= 1, 'the hello frame');
  t.equal(JSON.parse(client.frames[0] as string).hello, org);
  client.ws.close();
  const res = await refused('/test/ws/r2', { 'sec-websocket-protocol': 'bearer, not-a-jwt' });
  t.equal(res.status, 401, 'a bad token in the subprotocol');
});

t.test('a trailing {name*} matches the rest of the path, possibly empty', async (t) => {
  const token = app.token(app.newTenant());
  const check = async (path: string, expected: string[]) => {
    const client = await connect(path, { headers: { authorization: `Bearer ${token}` } });
    await until(() => client.frames.length >= 1, 'the hello frame');
    t.same(JSON.parse(client.frames[0] as string).pathTail, expected, path);
    client.ws.close();
  };
  await check('/test/tail', []);
  await check('/test/tail/', []);
  await check('/test/tail/a', ['a']);
  await check('/test/tail/a/b%2Fc/', ['a', 'b/c']);
});

t.test('a failing session closes with 1011 and the service keeps serving', async (t) => {
  const token = app.token(app.newTenant());
  const check = async (path: string, message: string | undefined, name: string) => {
    const client = await connect(path, { headers: { authorization: `Bearer ${token}` } });
    if (message) client.ws.send(message);
    await until(() => client.closed !== undefined, `${name}: the close`);
    t.equal(client.closed?.code, 1011, name);
  };
  await check('/test/ws/r3', 'throw', 'message handler throws');
  await check('/test/ws/r3', 'reject', 'message handler rejects');
  await check('/test/broken-open', undefined, 'open throws');
  const client = await connect('/test/ws/r4', { headers: { authorization: `Bearer ${token}` } });
  client.ws.send('still here?');
  await until(() => client.frames.length >= 2, 'an echo after the failures');
  t.equal(client.frames[1], 'echo:still here?');
  client.ws.close();
  const rest = await fetch(`${app.url}/test/ping`, { headers: { authorization: `Bearer ${token}` } });
  t.equal(rest.status, 200, 'REST routes still answer');
});

t.test('send reports back-pressure; drain and drained() follow once the client reads', async (t) => {
  const client = await connect('/test/ws/r5', { headers: { authorization: `Bearer ${app.token(app.newTenant())}` } });
  await until(() => client.frames.length >= 1, 'the hello frame');
  client.ws.send('flood');
  client.ws.pause(); // the client stops reading: the server's queue fills
  await until(() => flood.outcome !== undefined, 'a send that is not on the wire at once', 60_000);
  t.ok(flood.outcome === 'backpressure' || flood.outcome === 'dropped', `outcome ${flood.outcome}`);
  t.ok(flood.bufferedBytes > 0, `bytes queued: ${flood.bufferedBytes}`);
  client.ws.resume();
  await until(() => client.frames.includes('drained'), 'the frame sent after drained()', 60_000);
  t.ok(flood.drainedPromise, 'drained() resolved');
  t.ok(flood.sessionDrains >= 1, 'the session saw drain');
  client.ws.close();
});

t.test('keepalive: PINGs every pingIntervalMs; a session silent for idleTimeoutMs is closed with 1000', async (t) => {
  const keepalive = await startRouteKindsApp({ webSocketRoutes, policy: { websocket: { pingIntervalMs: 50, idleTimeoutMs: 1000 } } });
  t.teardown(() => keepalive.close());
  const token = keepalive.token(keepalive.newTenant());
  const open = (autoPong: boolean) => new Promise<Client>((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${keepalive.port}/test/ws/k`, { headers: { authorization: `Bearer ${token}` }, autoPong });
    const client: Client = { ws, frames: [], pings: 0 };
    ws.on('ping', () => { client.pings++; });
    ws.on('close', (code, reason) => { client.closed = { code, reason: reason.toString() }; });
    ws.once('open', () => resolve(client));
    ws.once('error', reject);
  });
  const silent = await open(false);
  const answering = await open(true);
  await until(() => silent.closed !== undefined, 'the idle close');
  t.same(silent.closed, { code: 1000, reason: 'idle timeout' }, 'a client that never answers PINGs is closed');
  t.ok(silent.pings >= 1, `the silent client was pinged (${silent.pings})`);
  // 40 PINGs of 50 ms span twice the idle timeout: a client that answers them stays open.
  await until(() => answering.pings >= 40 || answering.closed !== undefined, 'forty PINGs');
  t.equal(answering.closed, undefined, 'a client answering PINGs stays open');
  answering.ws.close();
});

t.test('the handshake is charged as a read (429 over the per-user budget)', async (t) => {
  const limited = await startRouteKindsApp({ webSocketRoutes, policy: { rateLimits: { user: { readsPerMinute: 2, writesPerMinute: 2 } } } });
  t.teardown(() => limited.close());
  const token = limited.token(limited.newTenant());
  for (let i = 0; i < 2; i++) (await connectTo(limited.port, token)).close();
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${limited.port}/test/ws/r`, { headers: { authorization: `Bearer ${token}` } });
    ws.once('open', () => reject(new Error('the handshake was accepted')));
    ws.once('unexpected-response', (_req, response) => resolve(response));
    ws.once('error', () => undefined);
  });
  t.equal(res.statusCode, 429);
  t.ok(Number(res.headers['retry-after']) >= 1, 'Retry-After');
  res.resume();
});

function connectTo(port: number, token: string): Promise<WebSocket> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/test/ws/r`, { headers: { authorization: `Bearer ${token}` } });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

t.test('/openapi.json documents a WebSocket route as a GET answered 101', async (t) => {
  const doc = buildOpenApi(routes, { description: 'test' }, webSocketRoutes) as { paths: Record<string, Record<string, any>> }; // eslint-disable-line @typescript-eslint/no-explicit-any
  const tail = doc.paths['/test/tail/{ids}']?.['get'];
  t.equal(tail?.operationId, 'testTail');
  t.ok(tail?.responses['101'], '101 Switching Protocols');
  t.ok(tail?.responses['401'], '401 on a bad token');
  t.same(tail?.parameters.map((p: { name: string; in: string }) => [p.name, p.in]), [['ids', 'path']]);
  t.match(tail?.description, /Authorization: Bearer/);
  t.ok(doc.paths['/test/ws/{room}']?.['get'], 'the echo route');
});
