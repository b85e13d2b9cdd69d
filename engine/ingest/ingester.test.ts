// Goal: the ingester turns what KafkaIngestLog wrote into store inserts with the producer's
// writeVersion, commits a partition's offset only after the store resolved, retries a
// failing store without committing, and after a crash (SIGKILL between insert and commit)
// the next ingester of the group gets the batch again, so nothing is lost; a replay carries
// the same versions (what lets the store drop duplicates and keep deletes). Method: the
// librdkafka mock broker, a recording sink of the store's interface, polling with deadlines.
// Commit listeners hear of each batch only once it is stored and its offsets committed.
import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { pino } from 'pino';
import { logger } from '../log.ts';
import { startKafkaMock, type KafkaMock } from '../testing/kafka-mock.ts';
import { makeSeries, pointRows, pollUntil, RecordingSink, uniqueName } from '../testing/kafka-mock-fixtures.ts';
import type { SeriesPoints } from '../datapoints/types.ts';
import type { CommittedBatch, IngestBatch } from './ingest-log.ts';
import { copyCommitted } from './commit-listeners.ts';
import { startIngester, type Ingester, type IngesterOptions } from './ingester.ts';
import { KafkaIngestLog } from './kafka-log.ts';

const testLogger = logger.child({ test: 'ingester' }, { level: process.env['LOG_LEVEL'] ?? 'silent' });

let mock: KafkaMock;
t.before(async () => {
  mock = await startKafkaMock({ partitions: 4 });
});
t.teardown(() => mock.stop());

async function openLog(t: Test, topic: string): Promise<KafkaIngestLog> {
  const log = await KafkaIngestLog.open({ brokers: mock.brokers, topic, logger: testLogger, messageBytesMax: 4 * 1024 });
  t.teardown(() => log.close());
  return log;
}

async function ingester(t: Test, options: Omit<IngesterOptions, 'brokers' | 'logger'>): Promise<Ingester> {
  const started = await startIngester({ brokers: mock.brokers, logger: testLogger, insertRetryInitialMs: 20, insertRetryMaxMs: 200, ...options });
  t.teardown(() => started.stop());
  return started;
}

/** Offsets the group committed, summed over partitions (-1 counts as 0). */
async function committedMessages(topic: string, groupId: string): Promise<number> {
  const admin = new Kafka({ clientId: 'probe', brokers: mock.brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
    return (offsets?.partitions ?? []).reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0);
  } finally {
    await admin.disconnect();
  }
}

/** Two tenants, every valueType, one series large enough to be cut into chunks. */
async function writeSample(log: KafkaIngestLog, tenants: [string, string]): Promise<string[]> {
  const writes: Array<[string, SeriesPoints[]]> = [
    [tenants[0], [makeSeries(1, 'FLOAT', 20), makeSeries(2, 'BIGINT', 10), makeSeries(3, 'NUMERIC', 1500)]],
    [tenants[1], [makeSeries(1, 'TEXT', 12), makeSeries(5, 'MIXED', 9), makeSeries(6, 'DECIMAL32', 4)]],
    [tenants[0], [makeSeries(1, 'FLOAT', 5, 1_800_000_000_000), makeSeries(7, 'FLOAT32', 3)]],
  ];
  for (const [tenant, series] of writes) await log.append({ tenant, series });
  return writes.flatMap(([tenant, series]) => pointRows(tenant, series)).sort();
}

t.test('points appended through Kafka reach the store once, then the offsets are committed', async (t) => {
  const topic = uniqueName('dp');
  const groupId = uniqueName('group');
  const log = await openLog(t, topic);
  const expected = await writeSample(log, [uniqueName('tenant'), uniqueName('tenant')]);
  const sink = new RecordingSink();
  const startedAt = Date.now();
  const running = await ingester(t, { topic, groupId, store: sink });
  await pollUntil('every point in the sink', () => sink.rows().length >= expected.length);
  t.comment(`first points stored ${Date.now() - startedAt} ms after start (includes the group join)`);
  t.same(sink.rows().sort(), expected, 'exactly the appended points, chunks joined');
  const sent = log.stats().messagesSent;
  await pollUntil('offsets committed for every message', async () => (await committedMessages(topic, groupId)) === sent);
  t.ok(sink.inserts.length < sent, `${sent} messages merged into ${sink.inserts.length} inserts`);
  t.equal(new Set(sink.inserts.map((b) => b.writeVersion)).size, 3, 'each insert keeps its append\'s writeVersion');
  t.equal(running.stats().insertFailures, 0);

  // A later append on the running group arrives too.
  const tenant = uniqueName('tenant');
  await log.append({ tenant, series: [makeSeries(9, 'FLOAT', 2)] });
  await pollUntil('the later append', () => sink.rows().some((row) => row.startsWith(`${tenant}|9|`)));
  t.pass('later append stored');
});

t.test('a store with insertMany gets one call per fetched batch', async (t) => {
  const topic = uniqueName('dp');
  const log = await openLog(t, topic);
  const tenant = uniqueName('tenant');
  // Five appends of one series (one key, one partition) at once: the first goes out alone,
  // the other four share the next produce request, so one fetch holds four writeVersions.
  const writes = [0, 1, 2, 3, 4].map((i) => [makeSeries(1, 'FLOAT', 3, 1_700_000_000_000 + i * 10_000)]);
  await Promise.all(writes.map((series) => log.append({ tenant, series })));
  const expected = writes.flatMap((series) => pointRows(tenant, series)).sort();
  const sink = new RecordingSink();
  const calls: number[] = [];
  const store = {
    insert: (batch: IngestBatch) => sink.insert(batch),
    insertMany: async (batches: readonly IngestBatch[]) => {
      calls.push(batches.length);
      for (const batch of batches) await sink.insert(batch);
    },
  };
  await ingester(t, { topic, groupId: uniqueName('group'), store });
  await pollUntil('every point in the sink', () => sink.rows().length >= expected.length);
  t.same(sink.rows().sort(), expected);
  t.ok(calls.length > 0 && calls.every((n) => n > 1), `insertMany called with ${calls.join(', ')} batches`);
});

t.test('a failing store is retried and nothing is committed before it succeeds', async (t) => {
  const topic = uniqueName('dp');
  const groupId = uniqueName('group');
  const log = await openLog(t, topic);
  const tenant = uniqueName('tenant');
  await log.append({ tenant, series: [makeSeries(1, 'FLOAT', 5)] });
  const sink = new RecordingSink();
  sink.failuresLeft = 1_000_000;
  const running = await ingester(t, { topic, groupId, store: sink });
  await pollUntil('several failed inserts', () => running.stats().insertFailures >= 3);
  t.equal(await committedMessages(topic, groupId), 0, 'no offset committed while the store fails');
  sink.failuresLeft = 0;
  await pollUntil('the insert to succeed', () => sink.inserts.length > 0);
  await pollUntil('the commit after it', async () => (await committedMessages(topic, groupId)) === 1);
  t.same(sink.rows(), pointRows(tenant, [makeSeries(1, 'FLOAT', 5)]));
});

t.test('an ingester stopped while the store fails leaves the batch to the next one', async (t) => {
  const topic = uniqueName('dp');
  const groupId = uniqueName('group');
  const log = await openLog(t, topic);
  const tenant = uniqueName('tenant');
  await log.append({ tenant, series: [makeSeries(1, 'BIGINT', 4)] });
  const failing = new RecordingSink();
  failing.failuresLeft = 1_000_000;
  const first = await startIngester({ brokers: mock.brokers, topic, groupId, store: failing, logger: testLogger, insertRetryInitialMs: 20, insertRetryMaxMs: 200 });
  await pollUntil('a failed insert', () => first.stats().insertFailures >= 1);
  await first.stop();
  t.equal(await committedMessages(topic, groupId), 0, 'nothing committed');
  const sink = new RecordingSink();
  await ingester(t, { topic, groupId, store: sink });
  await pollUntil('redelivery to the next ingester', () => sink.inserts.length > 0);
  t.same(sink.rows(), pointRows(tenant, [makeSeries(1, 'BIGINT', 4)]));
});

t.test('a crash between insert and commit means redelivery, not loss', async (t) => {
  const topic = uniqueName('dp');
  const groupId = uniqueName('group');
  const log = await openLog(t, topic);
  const tenant = uniqueName('tenant');
  const series = [makeSeries(1, 'FLOAT', 6), makeSeries(2, 'TEXT', 3)];
  await log.append({ tenant, series });
  const fixture = fileURLToPath(new URL('./ingester.crash-fixture.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', fixture], {
    env: { ...process.env, KAFKA_BROKERS: mock.brokers.join(','), TOPIC: topic, GROUP_ID: groupId },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const lines: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
  await pollUntil('the child to insert', () => lines.some((line) => line.startsWith('INSERTED')));
  child.kill('SIGKILL');
  await exited;
  t.equal(await committedMessages(topic, groupId), 0, 'the crashed ingester committed nothing');

  const sink = new RecordingSink();
  const restartedAt = Date.now();
  await ingester(t, { topic, groupId, store: sink });
  await pollUntil('redelivery after the crash', () => sink.rows().length >= 9);
  t.comment(`redelivered ${Date.now() - restartedAt} ms after the restart (session timeout of the dead member + join)`);
  t.same(sink.rows().sort(), pointRows(tenant, series).sort(), 'every point, once');
  await pollUntil('the commit', async () => (await committedMessages(topic, groupId)) === log.stats().messagesSent);
});

t.test('a replay delivers the same points with the same write versions', async (t) => {
  const topic = uniqueName('dp');
  const log = await openLog(t, topic);
  const expected = await writeSample(log, [uniqueName('tenant'), uniqueName('tenant')]);
  const first = new RecordingSink();
  const replay = new RecordingSink();
  // A second group reads the topic from the beginning: the same as resetting the offsets.
  await ingester(t, { topic, groupId: uniqueName('group'), store: first });
  await ingester(t, { topic, groupId: uniqueName('group'), store: replay });
  await pollUntil('both groups to read everything', () => first.rows().length >= expected.length && replay.rows().length >= expected.length);
  t.same(replay.versionedRows().sort(), first.versionedRows().sort(), 'identical (point, writeVersion) pairs');
});

t.test('a message that is not a batch is skipped and logged; the partition moves on', async (t) => {
  const topic = uniqueName('dp');
  const groupId = uniqueName('group');
  const tenant = uniqueName('tenant');
  const producer = new Kafka({ clientId: 'raw', brokers: mock.brokers, logLevel: logLevel.NOTHING }).producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  t.teardown(() => producer.disconnect());
  // Same key as the good batch below, so both sit on one partition, garbage first.
  await producer.send({ topic, acks: -1, messages: [{ key: `${tenant}:1`, value: Buffer.from('not a batch') }] });
  const log = await openLog(t, topic);
  await log.append({ tenant, series: [makeSeries(1, 'FLOAT', 3)] });
  const sink = new RecordingSink();
  const running = await ingester(t, { topic, groupId, store: sink });
  await pollUntil('the good batch', () => sink.inserts.length > 0);
  t.equal(running.stats().corruptMessagesSkipped, 1);
  await pollUntil('both messages committed', async () => (await committedMessages(topic, groupId)) === 2);
});

t.test('a crash kafkajs does not restart from (an error on the group join) is followed by a join of our own', async (t) => {
  const topic = uniqueName('dp');
  const groupId = uniqueName('group');
  const log = await openLog(t, topic);
  const expected = await writeSample(log, [uniqueName('tenant'), uniqueName('tenant')]);
  const lines: string[] = [];
  const recording = pino({ level: 'info' }, { write: (line: string) => { lines.push(line); } });
  // SyncGroup (API key 14) answered INVALID_REQUEST (42), as the mock once answered three members joining at once.
  await mock.failRequests(14, 42, 1);
  const sink = new RecordingSink();
  const started = await startIngester({ brokers: mock.brokers, logger: recording, topic, groupId, store: sink });
  t.teardown(() => started.stop());
  await pollUntil('every point in the sink', () => sink.rows().length >= expected.length, 30_000);
  t.same(sink.rows().sort(), expected, 'the points reach the store after the crash');
  const messages = lines.map((line) => JSON.parse(line).msg as string);
  t.ok(messages.includes('ingester consumer crashed'), 'the consumer crashed');
  t.ok(messages.includes('ingester consumer runs again after a crash'), 'and ran again');
});

t.test('commit listeners get each batch once it is stored and its offsets committed', async (t) => {
  const topic = uniqueName('dp');
  const groupId = uniqueName('group');
  const log = await openLog(t, topic);
  const expected = await writeSample(log, [uniqueName('tenant'), uniqueName('tenant')]);
  const sink = new RecordingSink();
  const running = await ingester(t, { topic, groupId, store: sink });
  const heard: CommittedBatch[] = [];
  const storedWhenHeard: boolean[] = [];
  running.onCommitted(() => {
    throw new Error('listener bug (test)'); // logged; the ingester goes on
  });
  const unsubscribe = running.onCommitted((batch) => {
    const stored = new Set(sink.versionedRows());
    storedWhenHeard.push(pointRows(batch.tenant, batch.series as SeriesPoints[]).every((row) => stored.has(`${row}|v${batch.writeVersion}`)));
    heard.push(copyCommitted(batch)); // lent for the call only
  });
  const rows = () => heard.flatMap((b) => pointRows(b.tenant, b.series as SeriesPoints[]));
  await pollUntil('every point heard', () => rows().length >= expected.length);
  t.same(rows().sort(), expected, 'exactly the appended points, every value type exact, chunks joined');
  t.ok(storedWhenHeard.every(Boolean), 'each batch was in the store before its listeners heard of it');
  t.equal(await committedMessages(topic, groupId), log.stats().messagesSent, 'and its offsets committed');
  t.equal(new Set(heard.map((b) => b.writeVersion)).size, 3, 'with the write versions of the appends');
  t.equal(running.stats().insertFailures, 0, 'a throwing listener fails nothing');

  unsubscribe();
  const tenant = uniqueName('tenant');
  await log.append({ tenant, series: [makeSeries(9, 'FLOAT', 2)] });
  await pollUntil('the later append stored', () => sink.rows().some((row) => row.startsWith(`${tenant}|9|`)));
  await pollUntil('its commit', async () => (await committedMessages(topic, groupId)) === log.stats().messagesSent);
  t.notOk(rows().some((row) => row.startsWith(`${tenant}|`)), 'nothing heard after unsubscribing');
});
