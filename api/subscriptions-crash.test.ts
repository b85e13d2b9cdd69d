// Goal: the crash test for subscriptions: in the embedded default "a kill -9 loses no
// acked write's delivery; unacked ones are redelivered after restart". Method: the service as
// a child process on a temp DATA_DIR with a subscription over two series; a listener acks
// every other message it gets while two senders write requests of 200 points (distinct
// timestamps) one after another; after 40 acknowledged requests the process gets SIGKILL with
// requests in flight. A second process on the same DATA_DIR is then listened to until every
// point of every acknowledged request has been delivered, counting what the first listener
// acked (the broker forgets those) and what the second one gets (unacked messages, and any
// the feed had not appended when the process died, recovered from the store above the mark).
import t from 'tap';
import { ROOMY_POLICY } from './testing/datapoints-fixture.ts';
import { listen, type ListenClient } from './testing/listen-client.ts';
import { serviceHome, startServiceProcess, type ServiceProcess } from './testing/service-process.ts';
import { pollUntil } from '../engine/testing/poll-until.ts';

const home = serviceHome('plantdata-subcrash-', 'subcrash-tenant', { ...ROOMY_POLICY, websocket: { ackTimeoutMs: 2_000 } });
const { env, token } = home;
const running: ServiceProcess[] = [];
const sockets: ListenClient[] = [];
t.teardown(async () => {
  for (const socket of sockets) socket.ws.terminate();
  for (const service of running) await service.stop();
  home.remove();
});

const T0 = Date.UTC(2024, 4, 1);
const POINTS_PER_REQUEST = 200;
const ACKS_BEFORE_KILL = 40;
const SERIES = ['sub-crash-a', 'sub-crash-b'];

async function request(url: string, method: string, p: string, body: unknown): Promise<{ status: number; json: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(url + p, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

const wsUrl = (service: ServiceProcess) => `${service.url.replace('http', 'ws')}/timeseries/datapoints/subscription/listen/crash-sub`;
const key = (externalId: string, timestamp: string) => `${externalId}@${timestamp}`;

/** Points of the messages in `frames` (those at index `from` and after), by messageId. */
function pointsOf(message: any): string[] { // eslint-disable-line @typescript-eslint/no-explicit-any
  return message.payload.items.flatMap((item: { externalId: string; datapoints: { timestamp: string }[] }) => item.datapoints.map((d) => key(item.externalId, d.timestamp)));
}

t.test('no acknowledged write\'s delivery is lost across SIGKILL; unacked messages come back', async (t) => {
  const first = await startServiceProcess(env);
  running.push(first);
  t.equal((await request(first.url, 'POST', '/timeseries/create', { items: SERIES.map((externalId) => ({ externalId, name: externalId, valueType: 'FLOAT' })) })).status, 201);
  t.equal((await request(first.url, 'POST', '/subscriptions/create', { items: [{ externalId: 'crash-sub', name: 'crash', timeseriesExternalIds: SERIES }] })).status, 201);

  // The first listener acks every other message: those are forgotten by the broker.
  const delivered = new Set<string>();
  const before = await listen(wsUrl(first), token);
  sockets.push(before);
  let ackNext = true;
  let seenMessages = 0;
  before.ws.on('message', (data) => {
    const frame = JSON.parse(data.toString());
    for (const message of frame.messages ?? []) {
      seenMessages++;
      if (ackNext) {
        for (const point of pointsOf(message)) delivered.add(point);
        before.send({ action: 'ack', messageIds: [message.messageId] });
      }
      ackNext = !ackNext;
    }
  });

  const acked: number[][] = SERIES.map(() => []);
  let totalAcked = 0;
  let killed = false;
  const send = async (k: number) => {
    const externalId = SERIES[k] as string;
    for (let i = 0; ; i++) {
      const datapoints = Array.from({ length: POINTS_PER_REQUEST }, (_, j) => ({ timestamp: T0 + i * POINTS_PER_REQUEST + j, value: i }));
      let status: number;
      try {
        status = (await request(first.url, 'POST', '/timeseries/data', { items: [{ externalId, datapoints }] })).status;
      } catch {
        return; // died with the process: in flight, unknown
      }
      if (status !== 204) throw new Error(`${externalId} request ${i}: ${status}`);
      (acked[k] as number[]).push(i);
      totalAcked++;
      if (totalAcked >= ACKS_BEFORE_KILL && !killed) {
        killed = true;
        first.child.kill('SIGKILL');
      }
    }
  };
  await Promise.all(SERIES.map((_, k) => send(k)));
  t.equal(await first.exited, 'SIGKILL', 'the service died by SIGKILL');
  t.ok(totalAcked >= ACKS_BEFORE_KILL, `${totalAcked} requests acknowledged before the kill; the first listener saw ${seenMessages} messages and acked ${delivered.size} points`);

  const expected = new Set<string>();
  for (const [k, requests] of acked.entries()) {
    for (const i of requests) for (let j = 0; j < POINTS_PER_REQUEST; j++) expected.add(key(SERIES[k] as string, new Date(T0 + i * POINTS_PER_REQUEST + j).toISOString()));
  }

  const second = await startServiceProcess(env);
  running.push(second);
  const after = await listen(wsUrl(second), token);
  sockets.push(after);
  after.ws.on('message', (data) => {
    const frame = JSON.parse(data.toString());
    for (const message of frame.messages ?? []) {
      for (const point of pointsOf(message)) delivered.add(point);
      after.send({ action: 'ack', messageIds: [message.messageId] });
    }
  });
  const missing = () => [...expected].filter((point) => !delivered.has(point));
  await pollUntil('every acknowledged point delivered', () => missing().length === 0, 90_000).catch(() => undefined);
  t.strictSame(missing().slice(0, 10), [], `every point of the ${totalAcked} acknowledged requests was delivered (${expected.size} points)`);
  after.ws.terminate();
  before.ws.terminate();
  await second.stop();
});
