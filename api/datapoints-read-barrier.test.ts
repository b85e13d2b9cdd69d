// Goal: a read sees every point acknowledged before it was sent (a 204 means readable), now
// that a read waits only for the acknowledged points of the series it reads: right after a
// 204 while the group commit still waits for more requests, and under concurrent writers to
// other series of the same tenant, for raw lists, several series in one list, and latest.
// Method: one real server in this process (embedded PostgreSQL, chdb, group commit with its
// write-ahead log). The first test announces a request on the engine's ingest log, as a body
// still being parsed does, so the commit of the acknowledged write waits for it. The second
// runs seeded writers and a reader at once and checks each answer against the points whose
// 204 came before its request was sent (seed printed).
import t, { type Test } from 'tap';
import { createSeries, startDatapointServer, type Point } from './testing/datapoints-fixture.ts';
import { mulberry32 } from '../engine/testing/prng.ts';

const srv = await startDatapointServer();
t.teardown(() => srv.close());
const { call } = srv;
const T0 = Date.UTC(2024, 2, 1);

function tenant() {
  const org = srv.newTenant();
  return { org, token: srv.token({ org }) };
}

async function insert(t: Test, token: string, items: unknown[]): Promise<void> {
  const res = await call(t, 'POST', '/timeseries/data', { token, body: { items } });
  if (res.status !== 204) t.fail(`insert: ${res.status} ${res.text.slice(0, 500)}`);
}

async function listed(t: Test, token: string, externalIds: string[]): Promise<Map<string, Point[]>> {
  const res = await call(t, 'POST', '/timeseries/data/list', { token, body: { items: externalIds.map((externalId) => ({ externalId, start: T0, limit: 100_000 })) } });
  if (res.status !== 200) throw new Error(`list: ${res.status} ${res.text.slice(0, 500)}`);
  return new Map((res.body.items as { externalId: string; datapoints: Point[] }[]).map((item) => [item.externalId, item.datapoints]));
}

async function latest(t: Test, token: string, externalIds: string[]): Promise<Map<string, Point>> {
  const res = await call(t, 'POST', '/timeseries/data/latest', { token, body: { items: externalIds.map((externalId) => ({ externalId })) } });
  if (res.status !== 200) throw new Error(`latest: ${res.status} ${res.text.slice(0, 500)}`);
  return new Map((res.body.items as { externalId: string; datapoints: Point[] }[]).map((item) => [item.externalId, item.datapoints[0] as Point]));
}

const points = (from: number, count: number, value: number): Point[] => Array.from({ length: count }, (_, i) => ({ timestamp: T0 + from + i, value: String(value) }));

t.test('a read right after a 204 sees its points while the commit still waits for more requests', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, [{ externalId: 'written', valueType: 'FLOAT' }, { externalId: 'idle', valueType: 'FLOAT' }]);
  const idle = points(0, 5, 1);
  await insert(t, token, [{ externalId: 'idle', datapoints: idle }]);
  const announced = srv.server.datapoints.ingestLog.expectAppend?.();
  t.teardown(() => announced?.());
  const written = points(0, 50, 2);
  await insert(t, token, [{ externalId: 'written', datapoints: written }]);
  t.strictSame((await listed(t, token, ['idle'])).get('idle'), idle, 'another series of the tenant: its own points');
  t.strictSame((await listed(t, token, ['written'])).get('written'), written, 'the written series: every acknowledged point');
  const more = points(50, 10, 3);
  await insert(t, token, [{ externalId: 'written', datapoints: more }]);
  t.strictSame((await latest(t, token, ['idle', 'written'])).get('written'), more.at(-1), 'latest: the point acknowledged last');
  const both = await listed(t, token, ['idle', 'written']);
  t.strictSame([both.get('idle'), both.get('written')], [idle, [...written, ...more]], 'one list of both series');
  announced?.();
});

t.test('under concurrent writers to other series of the tenant, each read sees every point acknowledged before it', async (t) => {
  const SEED = 0x5eed_2611;
  t.comment(`seed ${SEED}`);
  const { token } = tenant();
  const names = ['a', 'b', 'c', 'd'];
  await createSeries(srv, token, names.map((externalId) => ({ externalId, valueType: 'FLOAT' })));
  // Points acknowledged so far, by series; each write has its own timestamps and value.
  const acknowledged = new Map<string, Point[]>(names.map((name) => [name, []]));
  let writes = 0;
  const writer = async (seed: number, count: number) => {
    const random = mulberry32(seed);
    for (let k = 0; k < count; k++) {
      const name = names[Math.floor(random() * names.length)] as string;
      const write = writes++;
      const datapoints = points(write * 1000, 20, write);
      await insert(t, token, [{ externalId: name, datapoints }]);
      acknowledged.get(name)?.push(...datapoints);
    }
  };
  let writing = true;
  let reads = 0;
  const reader = async (seed: number) => {
    const random = mulberry32(seed);
    while (writing) {
      const read = names.filter(() => random() < 0.5);
      if (read.length === 0) read.push(names[0] as string);
      const expected = new Map(read.map((name) => [name, [...(acknowledged.get(name) ?? [])]]));
      const useLatest = random() < 0.3;
      if (useLatest) {
        const answer = await latest(t, token, read);
        for (const [name, seen] of expected) {
          const newest = seen.reduce((max, p) => Math.max(max, p.timestamp), -Infinity);
          const got = answer.get(name);
          if (seen.length > 0 && (!got || got.timestamp < newest)) t.fail(`latest of ${name}: ${JSON.stringify(got)} is older than the acknowledged ${newest}`);
        }
      } else {
        const answer = await listed(t, token, read);
        for (const [name, seen] of expected) {
          const got = new Set((answer.get(name) ?? []).map((p) => `${p.timestamp}:${p.value}`));
          const missing = seen.filter((p) => !got.has(`${p.timestamp}:${p.value}`));
          if (missing.length > 0) t.fail(`list of ${name}: ${missing.length} acknowledged points missing, the first ${JSON.stringify(missing[0])}`);
        }
      }
      reads++;
    }
  };
  // Each writer and reader draws from its own stream (seed + its number), whatever the interleaving.
  const readers = [reader(SEED + 10), reader(SEED + 11)];
  await Promise.all([writer(SEED, 15), writer(SEED + 1, 15), writer(SEED + 2, 15)]);
  writing = false;
  await Promise.all(readers);
  t.ok(reads > 0, `${reads} reads checked`);
  const all = await listed(t, token, names);
  for (const name of names) {
    const want = [...(acknowledged.get(name) ?? [])].sort((x, y) => x.timestamp - y.timestamp);
    t.strictSame(all.get(name), want, `${name}: every acknowledged point, once`);
  }
});
