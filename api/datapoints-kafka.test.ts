// Goal: the data point API in Kafka mode (CONTRACT `KAFKA_BROKERS`) end to end: a 204
// means Kafka acknowledged the batch, the ingester (ROLE=all) makes the points readable, every
// valueType round-trips exactly, overwrites win, the 404/422 rules hold, deletes are visible at
// once, and a replay of the topic can neither duplicate a point nor bring a deleted one back
// nor undo a newer write. Then the split roles: ROLE=api only produces, ROLE=ingester consumes.
// Method: librdkafka's mock cluster (engine/testing/kafka-mock.ts). The first part runs the
// server in this process with ROLE=all and polls /timeseries/data/list against a deadline. A
// replay cannot be forced through the API (the ingester's group commits its offsets and
// keeps its id across restarts), so the test consumes the topic itself from the start with a
// fresh group, decodes every message and hands the batches to the running store's
// insertMany, as an ingester replaying them would, then reads back through the API.
// The split roles cannot run side by side on the embedded store (chdb: one process per data
// path), so they run one after the other on one DATA_DIR as child processes: ROLE=api takes
// the writes, ROLE=ingester consumes until the group's offsets reach the end of the topic,
// then ROLE=all (on a fresh mock cluster, so nothing is left to consume) serves the reads.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { Kafka, logLevel } from 'kafkajs';
import { decodeIngestBatch } from '../engine/ingest/batch-codec.ts';
import type { IngestBatch } from '../engine/ingest/ingest-log.ts';
import { startKafkaMock, type KafkaMock } from '../engine/testing/kafka-mock.ts';
import { mintToken } from './auth.ts';
import { assertErrorBody } from './testing/error-body.ts';
import { assertDatapointResponse, createSeries, pollUntil, readAllPoints, ROOMY_POLICY, startDatapointServer, type DatapointTestServer, type Point } from './testing/datapoints-fixture.ts';
import { startServiceProcess, stopOrphanedPostgres, type ServiceProcess } from './testing/service-process.ts';

const DEADLINE_MS = 45_000;
const T0 = Date.UTC(2024, 6, 1);
const TOPIC = 'datapoints';

let mock: KafkaMock;
let srv: DatapointTestServer;
t.before(async () => {
  mock = await startKafkaMock({ partitions: 4 });
  srv = await startDatapointServer({ KAFKA_BROKERS: mock.brokers.join(','), ROLE: 'all' });
});
t.teardown(async () => {
  await srv?.close();
  await mock?.stop();
});

function tenant() {
  const org = srv.newTenant();
  return { org, token: srv.token({ org }) };
}

async function insert(t: Test, token: string, items: unknown[]): Promise<void> {
  const res = await srv.call(t, 'POST', '/timeseries/data', { token, body: { items } });
  t.equal(res.status, 204, 'insert: 204 (Kafka acknowledged)');
}

/** Polls a series until `done` holds for its points, then returns them. */
async function pollPoints(t: Test, token: string, externalId: string, what: string, done: (points: Point[]) => boolean): Promise<Point[]> {
  return pollUntil(`${externalId}: ${what}`, async () => {
    const points = await readAllPoints(t, srv.call, token, { externalId });
    return done(points) ? points : undefined;
  }, DEADLINE_MS);
}

const pts = (count: number, value: (i: number) => string, start = T0) => Array.from({ length: count }, (_, i) => ({ timestamp: start + i * 1000, value: value(i) }));

t.test('inserts reach the store through Kafka; values exact; overwrites win; 404 and 422 rules', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, ['BIGINT', 'FLOAT', 'FLOAT32', 'NUMERIC', 'DECIMAL32', 'TEXT', 'MIXED'].map((valueType) => ({ externalId: valueType, valueType })));
  const sent: Record<string, Point[]> = {
    BIGINT: [{ timestamp: T0, value: '9223372036854775807' }, { timestamp: T0 + 1, value: '-9223372036854775808' }, { timestamp: T0 + 2, value: '9007199254740993' }],
    FLOAT: pts(300, (i) => String(i / 4)),
    FLOAT32: [{ timestamp: T0, value: String(Math.fround(0.1)) }],
    NUMERIC: [{ timestamp: T0, value: '999999999999.999999' }, { timestamp: T0 + 1, value: '-0.000001' }],
    DECIMAL32: [{ timestamp: T0, value: '999999.999' }],
    TEXT: [{ timestamp: T0, value: 'state ✓ "quoted"' }, { timestamp: T0 + 1, value: '' }],
    MIXED: [{ timestamp: T0, value: 'on' }, { timestamp: T0 + 1, value: '2.5' }],
  };
  await insert(t, token, Object.entries(sent).map(([externalId, datapoints]) => ({ externalId, datapoints })));
  for (const [externalId, expected] of Object.entries(sent)) {
    const points = await pollPoints(t, token, externalId, 'every point', (p) => p.length >= expected.length);
    t.strictSame(points, expected, `${externalId}: read back exactly`);
  }

  await insert(t, token, [{ externalId: 'FLOAT', datapoints: pts(100, (i) => String(-i), T0 + 50_000) }]);
  const expectedFloat = [...sent['FLOAT']!.slice(0, 50), ...pts(100, (i) => String(-i), T0 + 50_000), ...sent['FLOAT']!.slice(150)];
  const overwritten = await pollPoints(t, token, 'FLOAT', 'the overwrite', (p) => p[50]?.value === '0' && p[149]?.value === '-99');
  t.strictSame(overwritten, expectedFloat, 'overwrites replace the old values, no duplicates');

  const missing = await srv.call(t, 'POST', '/timeseries/data', { token, body: { items: [{ externalId: 'nope', datapoints: pts(1, String) }, { externalId: 'TEXT', datapoints: [{ timestamp: T0 + 10, value: 'after 404' }] }] } });
  assertErrorBody(t, missing, { status: 404 }, 'a missing series in Kafka mode');
  t.strictSame(missing.body.error.missing, [{ externalId: 'nope' }]);
  await pollPoints(t, token, 'TEXT', 'the item next to the missing one', (p) => p.some((x) => x.value === 'after 404'));
  t.pass('the other item was inserted');

  const bad = await srv.call(t, 'POST', '/timeseries/data', { token, body: { items: [{ externalId: 'BIGINT', datapoints: [{ timestamp: T0 + 20, value: '5' }, { timestamp: T0 + 21, value: '9223372036854775808' }] }] } });
  assertErrorBody(t, bad, { status: 422, fields: ['items.0.datapoints.1.value'] }, 'a value out of range in Kafka mode');
  // The same series keeps one partition, in order: once a later write is visible, the refused one would be too.
  await insert(t, token, [{ externalId: 'BIGINT', datapoints: [{ timestamp: T0 + 30, value: '30' }] }]);
  const bigint = await pollPoints(t, token, 'BIGINT', 'the write after the 422', (p) => p.some((x) => x.timestamp === T0 + 30));
  t.notOk(bigint.some((p) => p.timestamp === T0 + 20), 'nothing of the refused request');
});

/** Every batch on the topic so far, decoded, read with a fresh consumer group from the start. */
async function replayTopic(tenantName: string, minimumBatches: number): Promise<IngestBatch[]> {
  const kafka = new Kafka({ clientId: 'replay-probe', brokers: mock.brokers, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `replay-${randomBytes(5).toString('hex')}` });
  await consumer.connect();
  const batches: IngestBatch[] = [];
  try {
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        if (!message.value) return;
        const batch = decodeIngestBatch(message.value);
        if (batch.tenant === tenantName) batches.push(batch);
      },
    });
    await pollUntil('the replay consumer to read the test\'s messages', async () => batches.length >= minimumBatches || undefined, DEADLINE_MS);
  } finally {
    await consumer.disconnect();
  }
  return batches;
}

t.test('a replayed topic brings back no deleted point, adds no duplicate, undoes no newer write', async (t) => {
  const { org, token } = tenant();
  await createSeries(srv, token, [{ externalId: 'r', valueType: 'FLOAT' }, { externalId: 'cleared', valueType: 'BIGINT' }]);
  await insert(t, token, [{ externalId: 'r', datapoints: pts(100, (i) => `${i}`) }, { externalId: 'cleared', datapoints: pts(10, (i) => `${i}`) }]);
  await insert(t, token, [{ externalId: 'r', datapoints: pts(10, (i) => `${1000 + i}`, T0 + 90_000) }]);
  await pollPoints(t, token, 'r', 'both writes', (p) => p.length === 100 && p[99]?.value === '1009');
  await pollPoints(t, token, 'cleared', 'its points', (p) => p.length === 10);

  const del = await srv.call(t, 'DELETE', '/timeseries/data/delete', { token, body: { items: [{ externalId: 'r', inclusiveBegin: T0 + 20_000, exclusiveEnd: T0 + 40_000 }, { externalId: 'cleared' }] } });
  t.equal(del.status, 204);
  const afterDelete = [...pts(20, (i) => `${i}`), ...pts(70, (i) => `${40 + i}`, T0 + 40_000).slice(0, 50), ...pts(10, (i) => `${1000 + i}`, T0 + 90_000)];
  t.strictSame(await readAllPoints(t, srv.call, token, { externalId: 'r' }), afterDelete, 'the deleted range is gone at once');
  t.strictSame(await readAllPoints(t, srv.call, token, { externalId: 'cleared' }), [], 'the cleared series is empty at once');
  // A write after the delete, inside the deleted range: newer than the tombstone, so it stays.
  await insert(t, token, [{ externalId: 'r', datapoints: [{ timestamp: T0 + 25_000, value: '2525' }] }]);
  const expected = [...afterDelete.slice(0, 20), { timestamp: T0 + 25_000, value: '2525' }, ...afterDelete.slice(20)];
  await pollPoints(t, token, 'r', 'the write into the deleted range', (p) => p.some((x) => x.timestamp === T0 + 25_000));
  t.strictSame(await readAllPoints(t, srv.call, token, { externalId: 'r' }), expected, 'before the replay');

  const batches = await replayTopic(org, 4);
  t.ok(batches.length >= 4, `${batches.length} batches of this tenant read back from the topic`);
  await srv.server.datapoints.store.insertMany(batches);
  t.strictSame(await readAllPoints(t, srv.call, token, { externalId: 'r' }), expected, 'after the replay: no deleted point back, no duplicate, the overwrite kept');
  t.strictSame(await readAllPoints(t, srv.call, token, { externalId: 'cleared' }), [], 'after the replay: the cleared series stays empty');
  const agg = await srv.call(t, 'POST', '/timeseries/data/list', { token, body: { items: [{ externalId: 'r', start: T0, end: T0 + 200_000, granularity: '1h', aggregates: ['COUNT'] }] } });
  t.strictSame(agg.body.items[0].datapoints, [{ timestamp: T0, count: expected.length }], 'COUNT after the replay counts each live point once');
  await srv.server.datapoints.store.runMaintenance({ includeHot: true });
  await srv.server.datapoints.store.insertMany(batches);
  t.strictSame(await readAllPoints(t, srv.call, token, { externalId: 'r' }), expected, 'a second replay after the fold: the same');
  const folded = await srv.call(t, 'POST', '/timeseries/data/list', { token, body: { items: [{ externalId: 'r', start: T0, end: T0 + 200_000, granularity: '1h', aggregates: ['COUNT'] }] } });
  t.strictSame(folded.body.items[0].datapoints, [{ timestamp: T0, count: expected.length }], 'and COUNT agrees');
  const latest = await srv.call(t, 'POST', '/timeseries/data/latest', { token, body: { items: [{ externalId: 'r' }, { externalId: 'cleared' }] } });
  t.strictSame(latest.body.items.map((i: { externalId: string; datapoints: Point[] }) => [i.externalId, i.datapoints]), [['r', [{ timestamp: T0 + 99_000, value: '1009' }]]], 'latest: the newest write; the cleared series omitted');
});

t.test('a delete right after the acknowledgement (the ingester may lag) wins over the earlier write', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, [{ externalId: 'race', valueType: 'NUMERIC' }]);
  await insert(t, token, [{ externalId: 'race', datapoints: pts(200, (i) => `${i}.5`) }]);
  // No wait for the ingester: the delete's version is newer than the acknowledged write's.
  t.equal((await srv.call(t, 'POST', '/timeseries/data/delete', { token, body: { items: [{ externalId: 'race', inclusiveBegin: T0, exclusiveEnd: T0 + 150_000 }] } })).status, 204);
  await insert(t, token, [{ externalId: 'race', datapoints: [{ timestamp: T0 + 500_000, value: '1' }] }]);
  // One series, one partition, in order: once the marker is there, the first write was ingested too.
  const points = await pollPoints(t, token, 'race', 'the marker after the delete', (p) => p.some((x) => x.timestamp === T0 + 500_000));
  t.strictSame(points, [...pts(50, (i) => `${150 + i}.5`, T0 + 150_000), { timestamp: T0 + 500_000, value: '1' }], 'the deleted range stays deleted although its points were ingested after the delete');
});

t.test('ROLE=api produces, ROLE=ingester consumes, one after the other on one DATA_DIR', async (t) => {
  const splitMock = await startKafkaMock({ partitions: 2 });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'plantdata-roles-'));
  chmodSync(dataDir, 0o755);
  const policyFile = path.join(dataDir, 'service-config.json');
  writeFileSync(policyFile, JSON.stringify(ROOMY_POLICY));
  const secret = randomBytes(24).toString('base64url');
  const token = mintToken({ secret, organization: 'roles', sub: 'roles-test' });
  const base = { DATA_DIR: dataDir, AUTH_JWT_SECRET: secret, SERVICE_CONFIG: policyFile, KAFKA_BROKERS: splitMock.brokers.join(',') };
  let current: ServiceProcess | undefined;
  t.teardown(async () => {
    await current?.stop();
    stopOrphanedPostgres(dataDir);
    await splitMock.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const call = async (method: string, p: string, body: unknown) => {
    const res = await fetch((current as ServiceProcess).url + p, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined };
  };
  const points = pts(500, (i) => String(i * 3));

  current = await startServiceProcess({ ...base, ROLE: 'api' });
  t.equal((await call('POST', '/timeseries/create', { items: [{ externalId: 'split', name: 'split', valueType: 'BIGINT' }] })).status, 201);
  t.equal((await call('POST', '/timeseries/data', { items: [{ externalId: 'split', datapoints: points }] })).status, 204, 'ROLE=api: 204 once Kafka has the batch');
  const unread = await call('POST', '/timeseries/data/list', { items: [{ externalId: 'split', start: T0 }] });
  assertDatapointResponse(t, 'list', unread.json);
  t.strictSame(unread.json?.items?.[0]?.datapoints, [], 'ROLE=api alone does not ingest');
  await current.stop();
  t.equal(await current.exited, 0, 'ROLE=api stopped');

  current = await startServiceProcess({ ...base, ROLE: 'ingester' });
  const dataRoute = await fetch(`${current.url}/timeseries/data/list`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{"items":[{"externalId":"split"}]}' });
  t.equal(dataRoute.status, 404, 'ROLE=ingester serves no data routes');
  const admin = new Kafka({ clientId: 'roles-probe', brokers: splitMock.brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    await pollUntil('the ingester group to commit every message', async () => {
      const ends = await admin.fetchTopicOffsets(TOPIC);
      const [committed] = await admin.fetchOffsets({ groupId: 'plantdata-ingester', topics: [TOPIC] });
      const total = ends.reduce((n, p) => n + Number(p.high), 0);
      const done = (committed?.partitions ?? []).reduce((n, p) => n + Math.max(0, Number(p.offset)), 0);
      return total > 0 && done === total ? true : undefined;
    }, DEADLINE_MS);
  } finally {
    await admin.disconnect();
  }
  t.pass('ROLE=ingester consumed the topic and committed');
  await current.stop();
  t.equal(await current.exited, 0, 'ROLE=ingester stopped');

  // Reads on the same DATA_DIR, against a fresh cluster so no ingester can add anything now.
  const readMock = await startKafkaMock({ partitions: 1 });
  try {
    current = await startServiceProcess({ ...base, KAFKA_BROKERS: readMock.brokers.join(','), ROLE: 'api' });
    const read = await call('POST', '/timeseries/data/list', { items: [{ externalId: 'split', start: T0, limit: 1000 }] });
    assertDatapointResponse(t, 'list', read.json);
    t.strictSame(read.json?.items?.[0]?.datapoints, points, 'every point the ingester wrote, exactly');
    await current.stop();
  } finally {
    await readMock.stop();
  }
});
