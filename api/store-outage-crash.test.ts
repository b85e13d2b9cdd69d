// Goal: the embedded PostgreSQL killed as the kernel's OOM killer would (SIGKILL of the
// postmaster) while writers send data points and events costs no request a 500, loses nothing
// acknowledged, and the service is healthy again within 15 s by itself; data point writes and
// reads of series it already knows go on meanwhile (their hot path needs no PostgreSQL).
// Method: the service runs as a child process (api/testing/service-process.ts, as in the kill
// -9 test), port 0, a temp DATA_DIR. Two data point writers (one FLOAT series each, 100
// disjoint points a request, value = request number), one event writer (one event a request)
// and one reader of a known series run throughout. Once 20 data point requests are
// acknowledged, the postmaster named by DATA_DIR/postgres/postmaster.pid gets SIGKILL, twice:
// first with its data directory made unreadable to it (mode 000), so that the outage lasts
// (each start again fails) until the test has seen /health answer 503, data point writes
// acknowledged, reads answered and events refused meanwhile; then the mode is put back and
// /health must be 200 within 15 s. The second kill is plain: /health must be 200 within 15 s
// of it. Every answer throughout must be a 2xx, or a 503 with Retry-After and a JSON error
// body. Afterwards every acknowledged point is read back with its value and every
// acknowledged event by its id, and the service, the same process all along, stops cleanly.
import { chmodSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { assertDatapointResponse, ROOMY_POLICY } from './testing/datapoints-fixture.ts';
import { serviceHome, startServiceProcess, type ServiceProcess } from './testing/service-process.ts';

const home = serviceHome('plantdata-pg-outage-', 'outage-tenant', ROOMY_POLICY);
const { dataDir, env, token } = home;
let service: ServiceProcess | undefined;
t.teardown(async () => {
  await service?.stop();
  home.remove();
});

const T0 = Date.UTC(2024, 4, 1);
const POINTS_PER_REQUEST = 100;
const ACKS_BEFORE_KILL = 20;
const HEALTHY_AGAIN_MS = 15_000;
const SERIES = ['outage-a', 'outage-b'];

interface Answer { status: number; retryAfter: string | null; json: any } // eslint-disable-line @typescript-eslint/no-explicit-any

async function request(method: string, p: string, body?: unknown): Promise<Answer> {
  const res = await fetch((service as ServiceProcess).url + p, {
    method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = { unparsed: text.slice(0, 200) };
  }
  return { status: res.status, retryAfter: res.headers.get('retry-after'), json };
}

const pointsOf = (i: number) => Array.from({ length: POINTS_PER_REQUEST }, (_, j) => ({ timestamp: T0 + (i * POINTS_PER_REQUEST + j) * 1000, value: i }));

function postmasterPid(): number {
  const pid = Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) throw new Error('no postmaster pid');
  return pid;
}

function postmasterPidIfAny(): number | undefined {
  try {
    return postmasterPid();
  } catch {
    return undefined;
  }
}

async function pollUntil(what: string, deadlineMs: number, check: () => boolean | Promise<boolean>): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > deadlineMs) throw new Error(`${what}: not within ${deadlineMs} ms; service output: ${service?.outputTail()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

t.test('the embedded PostgreSQL killed under load: no 500, nothing acknowledged lost, healthy again within 15 s', async (t) => {
  service = await startServiceProcess(env);
  const created = await request('POST', '/timeseries/create', { items: SERIES.map((externalId) => ({ externalId, name: externalId, valueType: 'FLOAT' })) });
  t.equal(created.status, 201, 'series created');

  const wrong: string[] = [];
  /** True for the expected 2xx; a 503 must carry Retry-After and a JSON error body; anything else is wrong. */
  const judge = (what: string, answer: Answer, expected: number) => {
    if (answer.status === expected) return true;
    if (answer.status === 503) {
      if (!answer.retryAfter) wrong.push(`${what}: 503 without Retry-After`);
      else if (answer.json?.error?.code !== 503 || typeof answer.json?.error?.type !== 'string') wrong.push(`${what}: 503 body ${JSON.stringify(answer.json)}`);
      return false;
    }
    wrong.push(`${what}: ${answer.status} ${JSON.stringify(answer.json).slice(0, 300)}`);
    return false;
  };

  let stop = false;
  const writesAcked = SERIES.map(() => [] as { i: number; at: number }[]);
  const readsOk: number[] = [];
  const eventsAcked: { id: string; at: number }[] = [];
  const eventsRefused: number[] = [];
  const ackedSince = (at: number) => writesAcked.flat().filter((a) => a.at > at).length;

  const writer = async (k: number) => {
    const externalId = SERIES[k] as string;
    for (let i = 0; !stop; i++) {
      const answer = await request('POST', '/timeseries/data', { items: [{ externalId, datapoints: pointsOf(i) }] });
      if (judge(`${externalId} write ${i}`, answer, 204)) writesAcked[k]?.push({ i, at: Date.now() });
    }
  };
  const eventWriter = async () => {
    for (let i = 0; !stop; i++) {
      const answer = await request('POST', '/events/create', { items: [{ externalId: `outage-event-${i}`, eventTime: T0 + i, type: 'outage-test' }] });
      if (judge(`event ${i}`, answer, 201)) eventsAcked.push({ id: answer.json.items[0].id as string, at: Date.now() });
      else eventsRefused.push(Date.now());
    }
  };
  const reader = async () => {
    while (!stop) {
      const answer = await request('POST', '/timeseries/data/list', { items: [{ externalId: SERIES[0], limit: 10 }] });
      if (judge('read', answer, 200)) readsOk.push(Date.now());
    }
  };
  const healthIs = async (status: number) => {
    const answer = await request('GET', '/health');
    if (answer.status !== 200 && answer.status !== 503) wrong.push(`/health: ${answer.status}`);
    return answer.status === status;
  };

  const conductor = async () => {
    await pollUntil('the first acknowledged writes', 60_000, () => ackedSince(0) >= ACKS_BEFORE_KILL);

    // An outage held open: the postmaster cannot start again while its directory is unreadable.
    const pgDir = path.join(dataDir, 'postgres');
    const mode = statSync(pgDir).mode & 0o7777;
    chmodSync(pgDir, 0);
    const firstPid = postmasterPid();
    const killedAt = Date.now();
    process.kill(firstPid, 'SIGKILL');
    try {
      await pollUntil('/health 503 after the kill', 5_000, () => healthIs(503));
      t.pass('/health answers 503 once PostgreSQL is gone');
      await pollUntil('data point writes, reads and refused events while PostgreSQL is down', 10_000,
        () => ackedSince(killedAt) >= 5 && readsOk.some((at) => at > killedAt) && eventsRefused.some((at) => at > killedAt));
      t.ok(await healthIs(503), 'still down while its directory is unreadable');
    } finally {
      chmodSync(pgDir, mode);
    }
    const downFor = Date.now() - killedAt;
    t.pass(`while PostgreSQL was down (${downFor} ms): ${ackedSince(killedAt)} data point writes acknowledged, ${readsOk.filter((at) => at > killedAt).length} reads answered, ${eventsRefused.filter((at) => at > killedAt).length} events refused with 503`);
    const releasedAt = Date.now();
    const backIn = await pollUntil('/health 200 once the directory is readable', HEALTHY_AGAIN_MS, () => healthIs(200));
    t.pass(`/health 200 ${backIn} ms after PostgreSQL could start again`);
    t.not(postmasterPid(), firstPid, 'a new postmaster');
    await pollUntil('events acknowledged again', 15_000, () => eventsAcked.some((e) => e.at > releasedAt));
    await pollUntil('data point writes after the recovery', 15_000, () => ackedSince(releasedAt) >= 5);

    // A plain kill: back by itself within 15 s.
    const secondPid = postmasterPid();
    const secondKilledAt = Date.now();
    process.kill(secondPid, 'SIGKILL');
    // Healthy on a new postmaster (a backend of the dead one may answer for a moment).
    const healthyIn = await pollUntil('/health 200 after a plain kill', HEALTHY_AGAIN_MS, async () => postmasterPidIfAny() !== secondPid && await healthIs(200));
    t.pass(`/health 200 ${healthyIn} ms after the second kill`);
    await pollUntil('every worker answered 2xx after the recovery', 15_000, () => ackedSince(secondKilledAt + healthyIn) >= 5
      && eventsAcked.some((e) => e.at > secondKilledAt + healthyIn) && readsOk.some((at) => at > secondKilledAt + healthyIn));
  };
  await Promise.all([...SERIES.map((_, k) => writer(k)), eventWriter(), reader(), conductor().finally(() => { stop = true; })]);

  t.strictSame(wrong.slice(0, 10), [], 'every answer a 2xx or a 503 with Retry-After and a JSON error body');
  t.equal(service.child.exitCode, null, 'the same process serves on');

  for (const [k, externalId] of SERIES.entries()) {
    const stored = new Map<number, string>();
    let cursor: string | undefined;
    do {
      const res = await request('POST', '/timeseries/data/list', { items: [{ externalId, start: T0 - 1000, end: T0 + 10_000_000_000, limit: 100_000, ...(cursor ? { cursor } : {}) }] });
      t.equal(res.status, 200, `${externalId}: read back`);
      assertDatapointResponse(t, 'list', res.json);
      for (const p of res.json.items[0].datapoints as { timestamp: number; value: number | string }[]) stored.set(p.timestamp, String(p.value));
      cursor = res.json.items[0].nextCursor;
    } while (cursor);
    const missing: string[] = [];
    for (const { i } of writesAcked[k] ?? []) {
      for (const p of pointsOf(i)) if (stored.get(p.timestamp) !== String(i)) missing.push(`request ${i} point ${p.timestamp}: ${stored.get(p.timestamp)}`);
    }
    t.strictSame(missing.slice(0, 10), [], `${externalId}: every point of the ${writesAcked[k]?.length} acknowledged requests`);
  }
  const found = new Set<string>();
  for (let from = 0; from < eventsAcked.length; from += 100) {
    const res = await request('POST', '/events/byids', { items: eventsAcked.slice(from, from + 100).map((e) => ({ id: e.id })) });
    t.equal(res.status, 200, 'events read back');
    for (const item of res.json.items as { id: string }[]) found.add(item.id);
  }
  t.equal(eventsAcked.filter((e) => !found.has(e.id)).length, 0, `all ${eventsAcked.length} acknowledged events present`);

  await service.stop();
  t.equal(await service.exited, 0, 'stops cleanly on SIGTERM after the outages');
});
