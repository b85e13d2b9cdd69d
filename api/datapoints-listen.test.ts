// Goal: the subscription stream exactly as SPEC "Subscription stream" and docs/api.md say, and
// the ad hoc stream: the token checked at the handshake (401, no upgrade); server frames with
// messageId, payload CREATE / DATAPOINTS, tenantId and items of ISO timestamps and string
// values in timestamp order; error frames (not-found, forbidden, subscription-limit-reached)
// with the socket kept open; subscribe/add, unsubscribe/remove, set, ack, nack, unknown ids
// ignored; the ack timeout (shortened through SERVICE_CONFIG) redelivering; a nack and a
// reconnect resuming unacked messages; an acked message never coming back; an overwrite
// delivered as a CREATE of the new value; a data set subscription covering a series created
// later; grants cutting items; the caps (cap frame then 1008); PINGs and the idle close.
// Method: one real server (embedded stores) with short websocket figures; the `ws` package
// as the client over real sockets; points written through POST /timeseries/data.
import t, { type Test } from 'tap';
import { ROOMY_POLICY } from './testing/datapoints-fixture.ts';
import { listen, refusedStatus, type ListenClient } from './testing/listen-client.ts';
import { startTestServer } from './testing/test-server.ts';
import { pollUntil } from '../engine/testing/poll-until.ts';

const CAPPED = `listen-capped-${process.pid}`;
/** A tenant whose ack timeout is long enough that nothing is redelivered during its test. */
const PATIENT = `listen-patient-${process.pid}`;
const srv = await startTestServer({
  serviceConfig: {
    ...ROOMY_POLICY,
    websocket: { ackTimeoutMs: 1_000, pingIntervalMs: 100, idleTimeoutMs: 1_500 },
    tenants: {
      [CAPPED]: { websocket: { connectionsPerOrganization: 3, connectionsPerUser: 2, subscriptionsPerSocket: 2 } },
      [PATIENT]: { websocket: { ackTimeoutMs: 600_000 } },
    },
  },
});
t.teardown(() => srv.close());
const wsBase = srv.url.replace('http', 'ws');
const LISTEN = `${wsBase}/timeseries/datapoints/subscription/listen`;

async function ok(method: string, path: string, token: string, body: unknown, status = 200) {
  const res = await srv.request(method, path, { token, body });
  if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}

const T0 = Date.UTC(2024, 0, 1);
const write = (token: string, items: { externalId: string; datapoints: { timestamp: number; value: number | string }[] }[]) => ok('POST', '/timeseries/data', token, { items }, 204);

async function plant(org = srv.newTenant()) {
  const admin = srv.token({ org, sub: 'admin' });
  const [A, B] = (await ok('POST', '/datasets/create', admin, { items: [{ externalId: 'A', name: 'A' }, { externalId: 'B', name: 'B' }] }, 201)).items;
  await ok('POST', '/timeseries/create', admin, {
    items: [
      { externalId: 'f', name: 'f', valueType: 'FLOAT' }, { externalId: 'n', name: 'n', valueType: 'NUMERIC' },
      { externalId: 'inA', name: 'inA', valueType: 'BIGINT', dataSetId: A.id }, { externalId: 'inB', name: 'inB', valueType: 'TEXT', dataSetId: B.id },
    ],
  }, 201);
  await ok('POST', '/subscriptions/create', admin, {
    items: [
      { externalId: 'named', name: 'named', timeseriesExternalIds: ['f', 'n', 'inA'] },
      { externalId: 'setA', name: 'data set A', dataSetId: A.id },
    ],
  }, 201);
  return { org, admin, A, B };
}

const messagesOf = (client: ListenClient, subscription: string) => client.frames.filter((f) => f.subscriptionExternalId === subscription && f.messages).flatMap((f) => f.messages);

t.test('the handshake checks the token: 401 and no upgrade', async (t) => {
  t.equal(await refusedStatus(`${LISTEN}/x`, {}), 401, 'no token');
  t.equal(await refusedStatus(`${LISTEN}/x`, { authorization: 'Bearer nope' }), 401, 'a bad token');
  t.equal(await refusedStatus(`${wsBase}/timeseries/datapoints/listen`, { authorization: 'Bearer nope' }), 401, 'the ad hoc stream too');
});

t.test('frames: shape, order, values; not-found kept open; ack forgets', async (t) => {
  const p = await plant();
  const client = await listen(`${LISTEN}/named/nope/setA`, p.admin);
  const notFound = await client.next('the not-found frame', (f) => f.error);
  t.same(notFound, { error: true, subscriptionExternalId: 'nope', reason: 'not-found' });
  await write(p.admin, [
    { externalId: 'f', datapoints: [{ timestamp: T0 + 2, value: 2.5 }, { timestamp: T0 + 1, value: 1 }] },
    { externalId: 'n', datapoints: [{ timestamp: T0, value: '123.450' }] },
    { externalId: 'inA', datapoints: [{ timestamp: T0, value: '9007199254740993' }] },
  ]);
  const named = await client.next('a frame of "named"', (f) => f.subscriptionExternalId === 'named');
  t.equal(named.messages.length, 1, 'one committed batch, one message');
  const [message] = named.messages;
  t.type(message.messageId, 'string');
  t.same(message.payload.eventAction, 'CREATE');
  t.same(message.payload.eventObject, 'DATAPOINTS');
  t.same(message.payload.tenantId, p.org);
  const byExternalId = Object.fromEntries(message.payload.items.map((i: { externalId: string }) => [i.externalId, i]));
  t.same(Object.keys(byExternalId).sort(), ['f', 'inA', 'n']);
  t.same(byExternalId.f.datapoints, [{ timestamp: new Date(T0 + 1).toISOString(), value: '1' }, { timestamp: new Date(T0 + 2).toISOString(), value: '2.5' }], 'timestamp order, ISO-8601, values as strings');
  t.same(byExternalId.n, { id: byExternalId.n.id, externalId: 'n', valueType: 'NUMERIC', datapoints: [{ timestamp: new Date(T0).toISOString(), value: '123.45' }] }, 'item shape, exact decimal');
  t.same(byExternalId.inA.datapoints[0].value, '9007199254740993', 'a 64-bit integer exactly');
  const setA = await client.next('a frame of "setA"', (f) => f.subscriptionExternalId === 'setA');
  t.same(setA.messages[0].payload.items.map((i: { externalId: string }) => i.externalId), ['inA'], 'the data set subscription has its series only');
  client.send({ action: 'ack', messageIds: [message.messageId, setA.messages[0].messageId, 'garbage', '999999.1'] });
  // An acked message never returns; the next frame carries only a new write.
  const count = client.frames.length;
  await write(p.admin, [{ externalId: 'f', datapoints: [{ timestamp: T0 + 3, value: 3 }] }]);
  const after = await client.next('the next frame', (f) => f.subscriptionExternalId === 'named', count);
  t.same(after.messages.map((m: any) => m.payload.items[0].datapoints[0].value), ['3'], 'only the new point'); // eslint-disable-line @typescript-eslint/no-explicit-any
  client.send({ action: 'ack', messageIds: [after.messages[0].messageId] });
  t.notOk(client.frames.some((f) => f.error && f !== notFound), 'unknown message ids are silently ignored');
  await client.close();
  // Reconnect: everything was acked, so only a new write arrives.
  const again = await listen(`${LISTEN}/named`, p.admin);
  await write(p.admin, [{ externalId: 'f', datapoints: [{ timestamp: T0 + 4, value: 4 }] }]);
  const resumed = await again.next('a frame after reconnecting', (f) => f.subscriptionExternalId === 'named');
  t.same(resumed.messages.map((m: any) => m.payload.items[0].datapoints[0].value), ['4'], 'acked messages are forgotten by the broker'); // eslint-disable-line @typescript-eslint/no-explicit-any
  await again.close();
});

t.test('the ack timeout redelivers; a nack redelivers; a reconnect resumes unacked messages', async (t) => {
  const p = await plant();
  const client = await listen(`${LISTEN}/named`, p.admin);
  await write(p.admin, [{ externalId: 'f', datapoints: [{ timestamp: T0, value: 1 }] }]);
  const first = (await client.next('the first delivery', (f) => f.messages)).messages[0];
  const redelivered = await client.next('the redelivery after ackTimeoutMs', (f) => f.messages?.some((m: { messageId: string }) => m.messageId === first.messageId), client.frames.length);
  t.ok(redelivered, 'not acked within ackTimeoutMs (1 s here): delivered again with the same messageId');
  client.send({ action: 'nack', messageIds: [first.messageId] });
  await client.next('the redelivery after a nack', (f) => f.messages?.some((m: { messageId: string }) => m.messageId === first.messageId), client.frames.length);
  t.pass('a nack schedules redelivery');
  await client.close();
  const back = await listen(`${LISTEN}/named`, p.admin);
  const resumed = await back.next('the unacked message on a new socket', (f) => f.messages);
  t.same(resumed.messages.map((m: { messageId: string }) => m.messageId), [first.messageId], 'a reconnect resumes where the subscription left off');
  back.send({ action: 'ack', messageIds: [first.messageId] });
  // An overwrite is delivered as a CREATE of the new value.
  await write(p.admin, [{ externalId: 'f', datapoints: [{ timestamp: T0, value: 7 }] }]);
  const overwrite = await back.next('the overwrite', (f) => f.messages?.some((m: any) => m.payload.items[0].datapoints[0].value === '7')); // eslint-disable-line @typescript-eslint/no-explicit-any
  t.equal(overwrite.messages.at(-1).payload.eventAction, 'CREATE');
  await back.close();
});

t.test('two sockets on one subscription share its messages: each message goes to one of them', async (t) => {
  const p = await plant(PATIENT);
  const one = await listen(`${LISTEN}/named`, p.admin);
  const two = await listen(`${LISTEN}/named`, p.admin);
  for (let i = 0; i < 20; i++) await write(p.admin, [{ externalId: 'f', datapoints: [{ timestamp: T0 + i, value: i }] }]);
  const ids = (client: ListenClient) => messagesOf(client, 'named').map((m: { messageId: string }) => m.messageId);
  await pollUntil('all 20 messages delivered', () => new Set([...ids(one), ...ids(two)]).size === 20);
  t.equal(ids(one).length + ids(two).length, 20, 'no message went to both (none is redelivered: this tenant\'s ack timeout is 10 minutes)');
  for (const client of [one, two]) await client.close();
});

t.test('client frames: empty path, subscribe/add, unsubscribe/remove, set, bad frames', async (t) => {
  const p = await plant();
  const client = await listen(`${LISTEN}`, p.admin);
  client.send({ action: 'add', externalIds: ['setA'] });
  await write(p.admin, [{ externalId: 'inA', datapoints: [{ timestamp: T0, value: 1 }] }]);
  await client.next('a frame of setA after add', (f) => f.subscriptionExternalId === 'setA');
  client.send({ action: 'set', externalIds: ['named'] });
  client.send({ action: 'remove', externalIds: ['named'] });
  client.send({ action: 'subscribe', externalIds: ['named'] });
  client.send({ action: 'unsubscribe', externalIds: ['named', 'never-attached'] });
  client.send({ action: 'jump' });
  client.send('not json');
  client.send({ action: 'ack', messageIds: 'x' });
  await pollUntil('three bad-request frames', () => client.frames.filter((f) => f.reason === 'bad-request').length === 3);
  t.match(client.frames.find((f) => f.reason === 'bad-request')?.message, /unknown action "jump"/, 'an unknown action is named');
  t.equal(client.closed, undefined, 'the socket stays open');
  // After set(named) and removing it, nothing is attached: setA's messages wait in the broker.
  const count = client.frames.length;
  await write(p.admin, [{ externalId: 'inA', datapoints: [{ timestamp: T0 + 1, value: 2 }] }]);
  client.send({ action: 'subscribe', externalIds: ['setA'] });
  const frame = await client.next('setA again', (f) => f.subscriptionExternalId === 'setA' && f.messages.some((m: any) => m.payload.items[0].datapoints.some((d: { value: string }) => d.value === '2')), count); // eslint-disable-line @typescript-eslint/no-explicit-any
  t.ok(frame, 'messages waited for a listener');
  await client.close();
});

t.test('a data set subscription covers series created later; grants cut what a listener gets', async (t) => {
  const p = await plant();
  const admin = p.admin;
  const [child] = (await ok('POST', '/datasets/create', admin, { items: [{ externalId: 'A.child', name: 'c', parentId: p.A.id }] }, 201)).items;
  await ok('POST', '/timeseries/create', admin, { items: [{ externalId: 'late', name: 'late', valueType: 'FLOAT', dataSetId: child.id }] }, 201);
  const client = await listen(`${LISTEN}/setA`, admin);
  await pollUntilDelivered(t, client, admin, 'late', 'a series created later in a descendant data set');
  await client.close();
  // A listener reading only B: setA (over A) is forbidden; "named" delivers f and n, not inA.
  const readerOfB = srv.token({ org: p.org, sub: 'reader', read: [p.B.id] });
  const reader = await listen(`${LISTEN}/setA/named`, readerOfB);
  t.same(await reader.next('forbidden', (f) => f.error), { error: true, subscriptionExternalId: 'setA', reason: 'forbidden' });
  await write(admin, [{ externalId: 'inA', datapoints: [{ timestamp: T0 + 10, value: 1 }] }, { externalId: 'f', datapoints: [{ timestamp: T0 + 10, value: 1 }] }]);
  const frame = await reader.next('named for the reader', (f) => f.messages?.some((m: any) => m.payload.items.some((i: { externalId: string }) => i.externalId === 'f'))); // eslint-disable-line @typescript-eslint/no-explicit-any
  t.notOk(frame.messages.some((m: any) => m.payload.items.some((i: { externalId: string }) => i.externalId === 'inA')), 'a series the listener may not read is left out'); // eslint-disable-line @typescript-eslint/no-explicit-any
  await reader.close();
  // Another tenant's subscription is not-found.
  const stranger = await listen(`${LISTEN}/named`, srv.token({ org: srv.newTenant() }));
  t.same(await stranger.next('not-found', (f) => f.error), { error: true, subscriptionExternalId: 'named', reason: 'not-found' });
  await stranger.close();
});

/** Writes one point to `externalId` until the client got a frame with it (a data set's coverage may take a reload). */
async function pollUntilDelivered(t: Test, client: ListenClient, token: string, externalId: string, what: string) {
  let ts = T0 + 100;
  const deadline = Date.now() + 20_000;
  for (;;) {
    await write(token, [{ externalId, datapoints: [{ timestamp: ts++, value: 1 }] }]);
    const seen = client.frames.some((f) => f.messages?.some((m: any) => m.payload.items.some((i: { externalId: string }) => i.externalId === externalId))); // eslint-disable-line @typescript-eslint/no-explicit-any
    if (seen) return t.pass(what);
    if (Date.now() > deadline) return t.fail(what);
    const n = client.frames.length;
    await pollUntil('a new frame', () => client.frames.length > n, 2_000).catch(() => undefined);
  }
}

t.test('caps: subscriptions per socket (frame, stays open); connections per user and organisation (frame, then 1008)', async (t) => {
  const p = await plant(`${CAPPED}`);
  await ok('POST', '/subscriptions/create', p.admin, { items: [{ externalId: 'third', name: 'third' }] }, 201);
  const a = await listen(`${LISTEN}/named/setA/third`, p.admin);
  t.same(await a.next('the cap frame', (f) => f.error), { error: true, subscriptionExternalId: 'third', reason: 'subscription-limit-reached' }, 'two per socket here; the third refused');
  a.send({ action: 'remove', externalIds: ['setA'] });
  a.send({ action: 'add', externalIds: ['third'] });
  await write(p.admin, [{ externalId: 'f', datapoints: [{ timestamp: T0, value: 1 }] }]);
  await a.next('named still delivered', (f) => f.subscriptionExternalId === 'named');
  t.equal(a.frames.filter((f) => f.error).length, 1, 'after a remove, the add fits');
  t.equal(a.closed, undefined, 'the socket stays open');
  const b = await listen(`${LISTEN}`, p.admin);
  const c = await listen(`${LISTEN}`, p.admin);
  await c.untilClosed();
  t.same(c.frames, [{ error: true, reason: 'websocket-limit-reached', scope: 'user', limit: 2, message: 'at most 2 concurrent stream connections per user; close one and connect again' }], 'over the per-user cap: one frame');
  t.equal(c.closed?.code, 1008, 'then 1008');
  const other = srv.token({ org: p.org, sub: 'other' });
  const d = await listen(`${wsBase}/timeseries/datapoints/listen`, other);
  const e = await listen(`${LISTEN}`, other);
  await e.untilClosed();
  t.same(e.frames, [{ error: true, reason: 'websocket-limit-reached', scope: 'tenant', limit: 3, message: 'at most 3 concurrent stream connections per organization; close one and connect again' }], 'over the per-organisation cap, counting both routes');
  t.equal(e.closed?.code, 1008);
  await b.close();
  const f = await listen(`${LISTEN}`, other);
  t.equal(f.closed, undefined, 'a closed socket frees its place');
  for (const client of [a, d, f]) await client.close();
});

t.test('keepalive: PINGs; a silent session is closed after idleTimeoutMs', async (t) => {
  const p = await plant();
  const alive = await listen(`${LISTEN}/named`, p.admin);
  const silent = await listen(`${LISTEN}/named`, p.admin, { autoPong: false });
  await silent.untilClosed();
  t.same(silent.closed, { code: 1000, reason: 'idle timeout' });
  t.ok(alive.pings > 0, 'PINGs were sent');
  t.equal(alive.closed, undefined, 'a client answering PINGs stays open');
  await alive.close();
});

t.test('the ad hoc stream: named series from the moment of connecting', async (t) => {
  const p = await plant();
  await write(p.admin, [{ externalId: 'f', datapoints: [{ timestamp: T0 - 1, value: 0 }] }]);
  const client = await listen(`${wsBase}/timeseries/datapoints/listen`, p.admin);
  client.send({ action: 'subscribe', items: [{ externalId: 'f' }, { externalId: 'nope' }] });
  t.same(await client.next('not-found', (f) => f.error), { error: true, reason: 'not-found', items: [{ externalId: 'nope' }] });
  t.same(await client.next('listening', (f) => f.listening !== undefined), { listening: 1 });
  await write(p.admin, [{ externalId: 'f', datapoints: [{ timestamp: T0, value: 5 }] }, { externalId: 'n', datapoints: [{ timestamp: T0, value: 1 }] }]);
  const frame = await client.next('a frame', (f) => f.messages);
  t.same(frame.messages[0].payload.items.map((i: any) => [i.externalId, i.datapoints]), [['f', [{ timestamp: new Date(T0).toISOString(), value: '5' }]]], 'only the named series, only points written since'); // eslint-disable-line @typescript-eslint/no-explicit-any
  t.notOk('messageId' in frame.messages[0], 'no messageId: nothing to ack');
  await client.close();
});
