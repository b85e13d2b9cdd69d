// Goal: KafkaIngestLog writes one message per series keyed `<tenant>:<seriesId>` (a series
// always lands on one partition), resolves only after Kafka acknowledged, gives every append
// a larger writeVersion, refuses past its in-flight bound, and fails (does not hang) when
// Kafka is gone. Method: the librdkafka mock broker (a real Kafka protocol peer), read back
// with a plain kafkajs consumer; polls against deadlines, no sleeps.
import t from 'tap';
import { Kafka, logLevel, type KafkaMessage } from 'kafkajs';
import { logger } from '../log.ts';
import { OverloadedError } from '../errors.ts';
import { startKafkaMock, type KafkaMock } from '../testing/kafka-mock.ts';
import { makeSeries, pointRows, pollUntil, uniqueName } from '../testing/kafka-mock-fixtures.ts';
import { decodeIngestBatch } from './batch-codec.ts';
import { createLocalWriteVersionClock, KafkaIngestLog, sendRetriesWithin } from './kafka-log.ts';

const testLogger = logger.child({ test: 'kafka-log' }, { level: process.env['LOG_LEVEL'] ?? 'silent' });

let mock: KafkaMock;
t.before(async () => {
  mock = await startKafkaMock({ partitions: 4 });
});
t.teardown(() => mock.stop());

/** Reads every message of a topic (from the beginning) until `count` arrived. */
async function readTopic(topic: string, count: number): Promise<Array<{ partition: number; message: KafkaMessage }>> {
  const kafka = new Kafka({ clientId: 'reader', brokers: mock.brokers, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: uniqueName('reader'), sessionTimeout: 6000, heartbeatInterval: 1000, maxWaitTimeInMs: 250 });
  const seen: Array<{ partition: number; message: KafkaMessage }> = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ partition, message }) => void seen.push({ partition, message }) });
    await pollUntil(`${count} messages on ${topic}`, () => seen.length >= count);
  } finally {
    await consumer.disconnect();
  }
  return seen;
}

t.test('append writes one keyed message per series and resolves after the ack', async (t) => {
  const topic = uniqueName('dp');
  const tenant = uniqueName('tenant');
  // A small message bound, so series 3 (2000 points) is cut into chunks under one key.
  const log = await KafkaIngestLog.open({ brokers: mock.brokers, topic, logger: testLogger, messageBytesMax: 8 * 1024 });
  t.teardown(() => log.close());
  const first = [makeSeries(1, 'FLOAT', 10), makeSeries(2, 'BIGINT', 5), makeSeries(3, 'NUMERIC', 2000)];
  const second = [makeSeries(1, 'FLOAT', 3, 1_800_000_000_000), makeSeries(4, 'TEXT', 7)];
  await log.append({ tenant, series: first });
  await log.append({ tenant, series: second });
  t.equal(log.stats().appendsAcknowledged, 2);
  t.equal(log.stats().appendsInFlight, 0);

  const chunksOf3 = log.stats().messagesSent - 4;
  t.ok(chunksOf3 > 1, `the 2000-point series went out in ${chunksOf3} chunks`);
  const seen = await readTopic(topic, log.stats().messagesSent);
  const partitionByKey = new Map<string, Set<number>>();
  const versions = new Set<bigint>();
  const rows: string[] = [];
  for (const { partition, message } of seen) {
    const batch = decodeIngestBatch(message.value as Buffer);
    t.equal(batch.series.length, 1, 'one series per message');
    const key = String(message.key);
    t.equal(key, `${tenant}:${batch.series[0]?.seriesId}`, 'keyed <tenant>:<seriesId>');
    partitionByKey.set(key, (partitionByKey.get(key) ?? new Set()).add(partition));
    versions.add(batch.writeVersion);
    rows.push(...pointRows(batch.tenant, batch.series));
  }
  for (const [key, partitions] of partitionByKey) t.equal(partitions.size, 1, `${key} stays on one partition`);
  t.equal(versions.size, 2, 'one writeVersion per append');
  t.same(rows.sort(), [...pointRows(tenant, first), ...pointRows(tenant, second)].sort(), 'every point arrives exactly once');
});

t.test('write versions grow with every append, even when the clock steps back', async (t) => {
  const clock = [5, 5, 4, 6];
  const next = createLocalWriteVersionClock(() => clock.shift() ?? 0);
  t.same([next(), next(), next(), next()], [5000n, 5001n, 5002n, 6000n]);
});

t.test('a given write-version clock stamps the messages', async (t) => {
  const topic = uniqueName('dp');
  let version = 1_000_000n;
  const log = await KafkaIngestLog.open({ brokers: mock.brokers, topic, logger: testLogger, writeVersionClock: { next: () => ++version } });
  t.teardown(() => log.close());
  await log.append({ tenant: uniqueName('tenant'), series: [makeSeries(1, 'FLOAT', 2)] });
  const [only] = await readTopic(topic, 1);
  t.equal(decodeIngestBatch(only?.message.value as Buffer).writeVersion, 1_000_001n);
});

t.test('the send retry budget follows appendTimeoutMs', async (t) => {
  t.equal(sendRetriesWithin(3_000), 5);
  t.equal(sendRetriesWithin(30_000), 11);
  t.ok(sendRetriesWithin(1e9) <= 30);
});

t.test('appends past the in-flight bound are refused with OverloadedError', async (t) => {
  const log = await KafkaIngestLog.open({ brokers: mock.brokers, topic: uniqueName('dp'), logger: testLogger, appendsInFlightMax: 2 });
  t.teardown(() => log.close());
  const tenant = uniqueName('tenant');
  const results = await Promise.allSettled([1, 2, 3, 4].map((id) => log.append({ tenant, series: [makeSeries(id, 'FLOAT', 3)] })));
  t.same(results.map((r) => r.status), ['fulfilled', 'fulfilled', 'rejected', 'rejected']);
  const refusal = (results[2] as PromiseRejectedResult).reason;
  t.type(refusal, OverloadedError);
  t.match(refusal.message, /appendsInFlightMax=2/);
  t.equal(log.stats().appendsRefused, 2);
  await t.rejects(log.append({ tenant, series: [{ ...makeSeries(6, 'FLOAT', 2), timestampMs: Float64Array.of(2, 1) }] }), { name: 'AssertionError' }, 'a batch breaking an invariant is refused, not sent');
  await log.append({ tenant, series: [makeSeries(5, 'FLOAT', 3)] });
  t.pass('accepts again once the in-flight appends were acknowledged');
});

t.test('an append fails with StoreUnavailableError when Kafka is gone; close() refuses more', async (t) => {
  const ownMock = await startKafkaMock({ partitions: 1 });
  const log = await KafkaIngestLog.open({ brokers: ownMock.brokers, topic: uniqueName('dp'), logger: testLogger, appendTimeoutMs: 3_000 });
  const tenant = uniqueName('tenant');
  await log.append({ tenant, series: [makeSeries(1, 'FLOAT', 3)] });
  await ownMock.stop();
  const started = Date.now();
  await t.rejects(log.append({ tenant, series: [makeSeries(1, 'FLOAT', 3)] }), { code: 'StoreUnavailableError' });
  t.comment(`append failed after ${Date.now() - started} ms`);
  const closing = Date.now();
  await log.close();
  t.comment(`close took ${Date.now() - closing} ms`);
  await t.rejects(log.append({ tenant, series: [makeSeries(1, 'FLOAT', 3)] }), { code: 'StoreUnavailableError' });
});
