// Goal: CONTRACT's scale-out shape holds on real parts: with KAFKA_BROKERS, DATABASE_URL and
// CLICKHOUSE_URL, two ROLE=api instances and one ROLE=ingester serve one tenant's data as
// one service. Every acknowledged (2xx) write is readable from either instance within "a
// second or two"; a subscription listening on one instance gets points written through the
// other, and so does the live stream (/timeseries/datapoints/listen); a SIGKILL of an instance or of the ingester during writes loses nothing acknowledged;
// rate limits and daily quotas hold across the instances together.
// Method: the deployment of `make scaleout-up` (engine/testing/scaleout.ts: librdkafka's mock
// broker, Debian's PostgreSQL, the ClickHouse HTTP fixture over chdb, the service as child
// processes) in a state folder of its own; each scenario makes its own tenant. Teardown stops
// every process by its recorded pid, whatever failed.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { LEASE_FRACTION } from '../engine/quotas/quota-lease.ts';
import { RATE_LEASE_FRACTION } from '../engine/quotas/rate-windows.ts';
import { isRunning } from '../engine/testing/detached-process.ts';
import { pollUntil } from '../engine/testing/poll-until.ts';
import { restartService, startScaleout, stopScaleout, type ScaleoutState } from '../engine/testing/scaleout.ts';
import { mintToken } from './auth.ts';
import { ROOMY_POLICY } from './testing/datapoints-fixture.ts';
import { listen, type ListenClient } from './testing/listen-client.ts';

/** CONTRACT: with Kafka "points are readable within a second or two"; the poll's deadline leaves room for a busy machine. */
const READ_DEADLINE_MS = 5_000;
/** After the ingester's restart its group rejoins (the old member's 6 s session lapses first) and catches up. */
const CATCH_UP_DEADLINE_MS = 60_000;
const ORG_WRITES_PER_MINUTE = 200;
/**
 * Rate limits shared across instances are counted in leases (engine/quotas/rate-windows.ts):
 * each instance takes slices of the limit from PostgreSQL, so the organization is never over
 * its limit and under it by at most one slice per other instance.
 */
const RATE_LEASE_SLICE = Math.floor(ORG_WRITES_PER_MINUTE * RATE_LEASE_FRACTION);
const DAILY_DATAPOINTS = 1_000;
/** Each instance may hold one unspent slice of a daily quota (engine/quotas/quota-lease.ts). */
const QUOTA_LEASE_SLICE = Math.floor(DAILY_DATAPOINTS * LEASE_FRACTION);
const API_COUNT = 2;
const T0 = Date.UTC(2024, 7, 1);

const run = randomBytes(4).toString('hex');
const tenant = (name: string) => `scaleout-${run}-${name}`;
const rateTenants = [0, 1, 2].map((i) => tenant(`rate${i}`));
const policy = {
  ...ROOMY_POLICY,
  websocket: { ackTimeoutMs: 60_000 },
  tenants: {
    ...Object.fromEntries(rateTenants.map((org) => [org, { rateLimits: { organization: { writesPerMinute: ORG_WRITES_PER_MINUTE }, user: { writesPerMinute: 1_000_000 } } }])),
    [tenant('quota')]: { dailyQuotas: { datapoints: DAILY_DATAPOINTS } },
  },
};

const stateDir = mkdtempSync(path.join(tmpdir(), 'plantdata-scaleout-'));
chmodSync(stateDir, 0o755); // PostgreSQL runs as `postgres` in a folder below
const sockets: ListenClient[] = [];
t.teardown(async () => {
  for (const socket of sockets) socket.ws.terminate();
  const stopped = await stopScaleout(stateDir);
  t.comment(`stopped ${stopped.map((p) => `${p.name} (pid ${p.pid}): ${p.outcome}`).join(', ')}`);
  rmSync(stateDir, { recursive: true, force: true });
});
const startedAt = Date.now();
// The processes are detached: should this file end without its teardown (killed at its
// timeout), the watchdog stops them.
const state: ScaleoutState = await startScaleout({ stateDir, serviceConfig: policy, logLevel: 'warn', apiCount: API_COUNT, stopWithOwner: true });
t.comment(`deployment started in ${Date.now() - startedAt} ms`);

const urlOf = (name: string) => state.processes.find((p) => p.name === name)?.url as string;
const apis = () => Array.from({ length: API_COUNT }, (_, i) => urlOf(`api-${i + 1}`));
const tokenOf = (organization: string) => mintToken({ secret: state.secret, organization, sub: `${organization}-user` });

interface Answer { status: number; json: any } // eslint-disable-line @typescript-eslint/no-explicit-any

/** One request; a connection that fails (an instance killed) is status 0: not acknowledged. */
async function call(url: string, token: string, p: string, body: unknown): Promise<Answer> {
  try {
    const res = await fetch(url + p, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined };
  } catch {
    return { status: 0, json: undefined };
  }
}

const points = (first: number, count: number) => Array.from({ length: count }, (_, j) => ({ timestamp: first + j, value: j }));

/** Timestamps of `externalId` in [start, end) as one instance answers. */
async function timestampsOn(url: string, token: string, externalId: string, start: number, end: number): Promise<Set<number>> {
  const res = await call(url, token, '/timeseries/data/list', { items: [{ externalId, start, end, limit: 100_000 }] });
  if (res.status !== 200) throw new Error(`reading ${externalId} from ${url}: ${res.status} ${JSON.stringify(res.json)}`);
  return new Set((res.json.items[0]?.datapoints ?? []).map((d: { timestamp: number }) => d.timestamp));
}

/** Polls every instance until each has every timestamp; the missing ones at the deadline. */
async function missingAfterPoll(token: string, externalId: string, expected: number[], deadlineMs: number): Promise<number[]> {
  const start = Math.min(...expected);
  const end = Math.max(...expected) + 1;
  let missing: number[] = expected;
  await pollUntil(`${expected.length} points of ${externalId} on every instance`, async () => {
    const seen = await Promise.all(apis().map((url) => timestampsOn(url, token, externalId, start, end)));
    missing = expected.filter((ts) => seen.some((set) => !set.has(ts)));
    return missing.length === 0;
  }, deadlineMs).catch(() => undefined);
  return missing;
}

t.test('every acknowledged write is readable from either instance within seconds', async (t) => {
  const token = tokenOf(tenant('rw'));
  const [a, b] = apis() as [string, string];
  t.equal((await call(a, token, '/timeseries/create', { items: [{ externalId: 'via-a', name: 'a', valueType: 'FLOAT' }] })).status, 201, 'series created through api-1');
  t.equal((await call(b, token, '/timeseries/create', { items: [{ externalId: 'via-b', name: 'b', valueType: 'FLOAT' }] })).status, 201, 'series created through api-2');
  const delays: number[] = [];
  const failures: string[] = [];
  // One writer per instance, each waiting until its write is readable on both before the
  // next: the measure is the ingest path's, not a queue of readers polling (20 writes with a
  // poller each, all at once, kept both cores busy and read 2.9 s at the median).
  await Promise.all([a, b].map(async (url, lane) => {
    for (let i = lane; i < 20; i += 2) {
      const externalId = i % 4 < 2 ? 'via-b' : 'via-a'; // each series written through both instances
      const first = T0 + i * 10;
      const status = (await call(url, token, '/timeseries/data', { items: [{ externalId, datapoints: points(first, 10) }] })).status;
      if (status !== 204) {
        failures.push(`write ${i} through ${url}: ${status}`);
        continue;
      }
      const ackedAt = Date.now();
      const missing = await missingAfterPoll(token, externalId, points(first, 10).map((d) => d.timestamp), READ_DEADLINE_MS);
      if (missing.length > 0) failures.push(`write ${i}: ${missing.length} points not readable on every instance after ${READ_DEADLINE_MS} ms`);
      else delays.push(Date.now() - ackedAt);
    }
  }));
  t.strictSame(failures, [], 'every write acknowledged and readable from both instances');
  t.comment(`acknowledgement to readable on both instances: worst ${Math.max(...delays)} ms, median ${delays.sort((x, y) => x - y)[delays.length >> 1]} ms over ${delays.length} writes`);
});

t.test('a subscription listening on one instance gets points written through the other', async (t) => {
  const token = tokenOf(tenant('sub'));
  const [a, b] = apis() as [string, string];
  const series = ['s1', 's2'];
  t.equal((await call(a, token, '/timeseries/create', { items: series.map((externalId) => ({ externalId, name: externalId, valueType: 'FLOAT' })) })).status, 201);
  t.equal((await call(b, token, '/subscriptions/create', { items: [{ externalId: 'feed', name: 'feed', timeseriesExternalIds: series }] })).status, 201, 'created through api-2');
  const received = new Set<string>();
  const socket = await listen(`${a.replace('http', 'ws')}/timeseries/datapoints/subscription/listen/feed`, token);
  sockets.push(socket);
  socket.ws.on('message', (data) => {
    for (const message of JSON.parse(data.toString()).messages ?? []) {
      for (const item of message.payload.items) for (const d of item.datapoints) received.add(`${item.externalId}@${new Date(d.timestamp).getTime()}`);
      socket.send({ action: 'ack', messageIds: [message.messageId] });
    }
  });
  const expected: string[] = [];
  for (let i = 0; i < 6; i++) {
    const externalId = series[i % 2] as string;
    const written = points(T0 + i * 10, 10);
    t.equal((await call(b, token, '/timeseries/data', { items: [{ externalId, datapoints: written }] })).status, 204, `write ${i} through api-2`);
    expected.push(...written.map((d) => `${externalId}@${d.timestamp}`));
  }
  const missing = () => expected.filter((key) => !received.has(key));
  await pollUntil('every point on the socket of api-1', () => missing().length === 0, 30_000).catch(() => undefined);
  t.strictSame(missing().slice(0, 10), [], `all ${expected.length} points written through api-2 arrive on api-1's socket`);
  await socket.close();
});

t.test('the live stream of one instance gets points written through the other, and through itself', async (t) => {
  const token = tokenOf(tenant('live'));
  const [a, b] = apis() as [string, string];
  t.equal((await call(a, token, '/timeseries/create', { items: ['l1', 'l2', 'quiet'].map((externalId) => ({ externalId, name: externalId, valueType: 'FLOAT' })) })).status, 201);
  const socket = await listen(`${a.replace('http', 'ws')}/timeseries/datapoints/listen`, token);
  sockets.push(socket);
  socket.send({ action: 'subscribe', items: [{ externalId: 'l1' }, { externalId: 'l2' }] });
  // Answered once the instance's feed of the topic has joined: what is written from now on is heard.
  await socket.next('the listening answer', (frame) => frame.listening === 2);
  const received = new Set<string>();
  const expected: string[] = [];
  for (let i = 0; i < 6; i++) {
    const externalId = i % 2 === 0 ? 'l1' : 'l2';
    const written = points(T0 + i * 10, 10);
    const through = i < 4 ? b : a;
    t.equal((await call(through, token, '/timeseries/data', { items: [{ externalId, datapoints: written }, { externalId: 'quiet', datapoints: written }] })).status, 204, `write ${i} through api-${through === a ? 1 : 2}`);
    expected.push(...written.map((d) => `${externalId}@${d.timestamp}`));
  }
  const heard = () => {
    received.clear();
    for (const frame of socket.frames) for (const message of frame.messages ?? []) {
      for (const item of message.payload.items) for (const d of item.datapoints) received.add(`${item.externalId}@${new Date(d.timestamp).getTime()}`);
    }
    return received;
  };
  const missing = () => expected.filter((key) => !heard().has(key));
  await pollUntil('every point on the live socket of api-1', () => missing().length === 0, 30_000).catch(() => undefined);
  t.strictSame(missing().slice(0, 10), [], `all ${expected.length} points arrive on api-1's live socket, written through either instance`);
  t.notOk([...heard()].some((key) => key.startsWith('quiet@')), 'and nothing of a series it does not listen to');
  await socket.close();
});

t.test('a function created through one instance keeps its target from inputs written through the other', async (t) => {
  const token = tokenOf(tenant('fn'));
  const [a, b] = apis() as [string, string];
  t.equal((await call(b, token, '/timeseries/create', { items: ['in', 'kept'].map((externalId) => ({ externalId, name: externalId, valueType: 'FLOAT' })) })).status, 201);
  t.equal((await call(b, token, '/timeseries/data', { items: [{ externalId: 'in', datapoints: points(T0, 3) }] })).status, 204, 'inputs written before the function, through api-2');
  const created = await call(a, token, '/functions/create', { items: [{ externalId: 'double', name: 'double', expression: "ts{externalId='in'} * 2", target: { externalId: 'kept' } }] });
  t.equal(created.status, 201, 'function created through api-1');
  t.equal((await call(b, token, '/timeseries/data', { items: [{ externalId: 'in', datapoints: points(T0 + 3, 2) }] })).status, 204, 'more inputs through api-2');
  // The ingester keeps targets: it learns of the function from PostgreSQL, not from api-1.
  const target = async () => (await call(b, token, '/timeseries/data/list', { items: [{ externalId: 'kept', start: T0, end: T0 + 10 }] })).json?.items?.[0]?.datapoints ?? [];
  await pollUntil('the target over every input point', async () => (await target()).length === 5, 30_000).catch(() => undefined);
  t.strictSame((await target()).map((d: { value: string }) => Number(d.value)), [0, 2, 4, 0, 2], 'the target is twice each input point');
});

t.test('SIGKILL of an api instance and of the ingester during writes loses nothing acknowledged', async (t) => {
  const token = tokenOf(tenant('kill'));
  t.equal((await call(apis()[0] as string, token, '/timeseries/create', { items: [{ externalId: 'k', name: 'k', valueType: 'FLOAT' }] })).status, 201);
  const acked: number[] = [];
  let refused = 0;
  const kills: Record<number, string> = { 20: 'api-1', 40: 'ingester' };
  // Two writers, each taking the next request and sending it round-robin over the instances.
  let next = 0;
  const writer = async () => {
    for (let i = next++; i < 60; i = next++) {
      const victim = kills[i];
      if (victim) {
        const pid = state.processes.find((p) => p.name === victim)?.pid as number;
        process.kill(pid, 'SIGKILL');
        await pollUntil(`${victim} gone`, () => !isRunning(pid), 10_000);
      }
      const first = T0 + i * 5;
      const status = (await call(apis()[i % API_COUNT] as string, token, '/timeseries/data', { items: [{ externalId: 'k', datapoints: points(first, 5) }] })).status;
      if (status === 204) acked.push(...points(first, 5).map((d) => d.timestamp));
      else refused++;
    }
  };
  await Promise.all([writer(), writer()]);
  t.comment(`${acked.length / 5} writes acknowledged, ${refused} refused or cut off by the kills`);
  t.ok(refused > 0 && acked.length > 0, 'writes went on through the surviving instance while api-1 was down');
  const restartedAt = Date.now();
  await Promise.all([restartService(state, 'api-1'), restartService(state, 'ingester')]);
  t.comment(`api-1 and the ingester started again in ${Date.now() - restartedAt} ms`);
  for (let i = 60; i < 64; i++) {
    const first = T0 + i * 5;
    t.equal((await call(apis()[i % API_COUNT] as string, token, '/timeseries/data', { items: [{ externalId: 'k', datapoints: points(first, 5) }] })).status, 204, `write ${i} after the restarts`);
    acked.push(...points(first, 5).map((d) => d.timestamp));
  }
  const missing = await missingAfterPoll(token, 'k', acked, CATCH_UP_DEADLINE_MS);
  t.strictSame(missing.slice(0, 10), [], `all ${acked.length} acknowledged points readable from both instances`);
});

/**
 * Runs `scenario` with each tenant in turn until one run falls within one rate window (the
 * limit is per minute); resolves with that run's result.
 */
async function inOneMinute<T>(tenants: string[], scenario: (org: string) => Promise<T>): Promise<T> {
  for (const org of tenants) {
    const window = Math.floor(Date.now() / 60_000);
    const result = await scenario(org);
    if (Math.floor(Date.now() / 60_000) === window) return result;
  }
  throw new Error(`${tenants.length} runs in a row crossed a minute boundary`);
}

/** Sends `count` requests made by `request(i)`, `concurrency` at a time; their statuses. */
async function burst(count: number, concurrency: number, request: (i: number) => Promise<Answer>): Promise<number[]> {
  const statuses: number[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    for (let i = next++; i < count; i = next++) statuses[i] = (await request(i)).status;
  }));
  return statuses;
}

t.test('the organization write rate limit holds across both instances', async (t) => {
  const { accepted, limited, other } = await inOneMinute(rateTenants, async (org) => {
    const token = tokenOf(org);
    const created = await call(apis()[0] as string, token, '/timeseries/create', { items: [{ externalId: 'r', name: 'r', valueType: 'FLOAT' }] });
    const statuses = [created.status, ...await burst(2 * ORG_WRITES_PER_MINUTE, 16, (i) => call(apis()[i % API_COUNT] as string, token, '/timeseries/data', { items: [{ externalId: 'r', datapoints: points(T0 + i, 1) }] }))];
    return { accepted: statuses.filter((s) => s >= 200 && s < 300).length, limited: statuses.filter((s) => s === 429).length, other: statuses.filter((s) => (s < 200 || s >= 300) && s !== 429) };
  });
  t.comment(`${accepted} writes accepted, ${limited} refused with 429, of ${2 * ORG_WRITES_PER_MINUTE + 1}; limit ${ORG_WRITES_PER_MINUTE}/min`);
  t.strictSame(other, [], 'every write answered 2xx or 429');
  t.ok(accepted <= ORG_WRITES_PER_MINUTE, `never over the limit: ${accepted} <= ${ORG_WRITES_PER_MINUTE}`);
  const floor = ORG_WRITES_PER_MINUTE - RATE_LEASE_SLICE * (API_COUNT - 1);
  t.ok(accepted >= floor, `under it by at most one lease slice per other instance: ${accepted} >= ${floor}`);
});

t.test('a daily datapoints quota holds across both instances', async (t) => {
  const token = tokenOf(tenant('quota'));
  const perRequest = 10;
  t.equal((await call(apis()[0] as string, token, '/timeseries/create', { items: [{ externalId: 'q', name: 'q', valueType: 'FLOAT' }] })).status, 201);
  const statuses = await burst(Math.ceil((1.5 * DAILY_DATAPOINTS) / perRequest), 8, (i) => call(apis()[i % API_COUNT] as string, token, '/timeseries/data', { items: [{ externalId: 'q', datapoints: points(T0 + i * perRequest, perRequest) }] }));
  const acceptedPoints = statuses.filter((s) => s === 204).length * perRequest;
  t.strictSame(statuses.filter((s) => s !== 204 && s !== 429), [], 'every write answered 204 or 429');
  t.comment(`${acceptedPoints} points accepted of ${statuses.length * perRequest} sent; quota ${DAILY_DATAPOINTS}/day`);
  t.ok(acceptedPoints <= DAILY_DATAPOINTS, `never over the quota: ${acceptedPoints} <= ${DAILY_DATAPOINTS}`);
  // Each instance may keep one unspent slice; a request that does not fit whole is refused whole.
  const floor = DAILY_DATAPOINTS - QUOTA_LEASE_SLICE * API_COUNT - perRequest;
  t.ok(acceptedPoints >= floor, `under it by at most one slice per instance and one request: ${acceptedPoints} >= ${floor}`);
});
