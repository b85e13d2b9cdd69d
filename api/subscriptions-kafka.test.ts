// Goal: the Kafka path: with KAFKA_BROKERS, two service instances on one PostgreSQL
// and one broker serve the same subscription; a socket on the first acks half of the stream,
// a socket on the second gets the rest (and nothing the first acked). Method: librdkafka's
// mock cluster (engine/testing/kafka-mock.ts); instance A as a child process with its embedded
// PostgreSQL, instance B as a child process on A's PostgreSQL (DATABASE_URL) with a data
// directory of its own (chdb: one process per data path), both ROLE=all in one consumer group,
// so each consumes some partitions and feeds the shared broker state. Writes go to both.
// Design note: Kafka carries the stream into the broker (a consumer group of its own whose
// offsets move once the messages are appended); unacked messages and leases are in the shared
// PostgreSQL (docs/architecture.md, "Subscriptions").
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startKafkaMock, type KafkaMock } from '../engine/testing/kafka-mock.ts';
import { pollUntil } from '../engine/testing/poll-until.ts';
import { mintToken } from './auth.ts';
import { ROOMY_POLICY } from './testing/datapoints-fixture.ts';
import { listen, type ListenClient } from './testing/listen-client.ts';
import { startServiceProcess, stopOrphanedPostgres, type ServiceProcess } from './testing/service-process.ts';

const dirs = ['a', 'b'].map((name) => {
  const dir = mkdtempSync(path.join(tmpdir(), `plantdata-subkafka-${name}-`));
  chmodSync(dir, 0o755);
  return dir;
});
const policyFile = path.join(dirs[0] as string, 'service-config.json');
writeFileSync(policyFile, JSON.stringify({ ...ROOMY_POLICY, websocket: { ackTimeoutMs: 60_000 } }));
const secret = randomBytes(24).toString('base64url');
const token = mintToken({ secret, organization: 'subkafka-tenant', sub: 'kafka-test' });
const running: ServiceProcess[] = [];
const sockets: ListenClient[] = [];
let mock: KafkaMock | undefined;
t.teardown(async () => {
  for (const socket of sockets) socket.ws.terminate();
  for (const service of running.reverse()) await service.stop();
  await mock?.stop();
  for (const dir of dirs) {
    stopOrphanedPostgres(dir);
    rmSync(dir, { recursive: true, force: true });
  }
});

const T0 = Date.UTC(2024, 7, 1);
const REQUESTS = 20;
const POINTS_PER_REQUEST = 50;

async function request(url: string, method: string, p: string, body: unknown): Promise<{ status: number; json: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(url + p, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

const wsUrl = (service: ServiceProcess) => `${service.url.replace('http', 'ws')}/timeseries/datapoints/subscription/listen/kafka-sub`;
const pointsOf = (message: any): string[] => message.payload.items.flatMap((item: { externalId: string; datapoints: { timestamp: string }[] }) => item.datapoints.map((d) => `${item.externalId}@${d.timestamp}`)); // eslint-disable-line @typescript-eslint/no-explicit-any

t.test('two instances, one PostgreSQL, one Kafka: a reconnect on the second gets what the first did not ack', async (t) => {
  mock = await startKafkaMock({ partitions: 4 });
  const common = { AUTH_JWT_SECRET: secret, SERVICE_CONFIG: policyFile, KAFKA_BROKERS: mock.brokers.join(','), ROLE: 'all' };
  const a = await startServiceProcess({ ...common, DATA_DIR: dirs[0] as string });
  running.push(a);
  const pgPort = readFileSync(path.join(dirs[0] as string, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[3]?.trim();
  const b = await startServiceProcess({ ...common, DATA_DIR: dirs[1] as string, DATABASE_URL: `postgres://postgres:embedded@127.0.0.1:${pgPort}/postgres` });
  running.push(b);

  const series = ['k1', 'k2'];
  t.equal((await request(a.url, 'POST', '/timeseries/create', { items: series.map((externalId) => ({ externalId, name: externalId, valueType: 'FLOAT' })) })).status, 201);
  t.equal((await request(b.url, 'POST', '/subscriptions/create', { items: [{ externalId: 'kafka-sub', name: 'k', timeseriesExternalIds: series }] })).status, 201, 'created on B, seen by A');

  const expected = new Set<string>();
  for (let i = 0; i < REQUESTS; i++) {
    const externalId = series[i % 2] as string;
    const datapoints = Array.from({ length: POINTS_PER_REQUEST }, (_, j) => ({ timestamp: T0 + i * POINTS_PER_REQUEST + j, value: i }));
    for (const d of datapoints) expected.add(`${externalId}@${new Date(d.timestamp).toISOString()}`);
    const status = (await request(i % 2 ? b.url : a.url, 'POST', '/timeseries/data', { items: [{ externalId, datapoints }] })).status;
    t.equal(status, 204, `request ${i}: Kafka acknowledged it`);
  }

  // On A: ack messages until half of the points are acked, then close.
  const acked = new Set<string>();
  const ackedIds = new Set<string>();
  const first = await listen(wsUrl(a), token);
  sockets.push(first);
  first.ws.on('message', (data) => {
    for (const message of JSON.parse(data.toString()).messages ?? []) {
      if (acked.size >= expected.size / 2) continue;
      for (const point of pointsOf(message)) acked.add(point);
      ackedIds.add(message.messageId);
      first.send({ action: 'ack', messageIds: [message.messageId] });
    }
  });
  await pollUntil('half of the points acked on A', () => acked.size >= expected.size / 2, 90_000);
  // An ack is a frame the server handles in order: a last subscribe answers after them.
  first.send({ action: 'subscribe', externalIds: ['no-such-subscription'] });
  await first.next('the answer after the acks', (f) => f.error && f.subscriptionExternalId === 'no-such-subscription');
  await first.close();
  t.ok(acked.size < expected.size, `A acked ${acked.size} of ${expected.size} points in ${ackedIds.size} messages`);

  // On B: the rest, and nothing A acked.
  const rest = new Set<string>();
  const redelivered: string[] = [];
  const second = await listen(wsUrl(b), token);
  sockets.push(second);
  second.ws.on('message', (data) => {
    for (const message of JSON.parse(data.toString()).messages ?? []) {
      if (ackedIds.has(message.messageId)) redelivered.push(message.messageId);
      for (const point of pointsOf(message)) rest.add(point);
      second.send({ action: 'ack', messageIds: [message.messageId] });
    }
  });
  const missing = () => [...expected].filter((p) => !acked.has(p) && !rest.has(p));
  await pollUntil('the rest on B', () => missing().length === 0, 90_000).catch(() => undefined);
  t.strictSame(missing().slice(0, 10), [], 'every point not acked on A arrives on B');
  t.strictSame(redelivered, [], 'no message acked on A comes again on B');
  await second.close();
});
