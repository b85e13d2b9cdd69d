// Goal: the live feed behind /timeseries/datapoints/listen with Kafka hears every batch on the
// topic (all partitions) once a listener is registered and ready() resolved; it stops after the
// last listener left and its idle time; a later listener starts it afresh at the topic's end,
// so batches written while it was stopped are never replayed; after close it starts no more;
// a start that failed (no broker) is tried again while a listener waits, and then hears.
// Method: librdkafka's mock broker (a real Kafka protocol server) with 4 partitions; batches
// appended through the service's own Kafka ingest log.
import { createServer } from 'node:net';
import t, { type Test } from 'tap';
import { logger } from '../log.ts';
import type { CommittedBatch } from '../ingest/ingest-log.ts';
import { copyCommitted } from '../ingest/commit-listeners.ts';
import { KafkaIngestLog } from '../ingest/kafka-log.ts';
import { startKafkaMock, type KafkaMock } from '../testing/kafka-mock.ts';
import { makeSeries, pointRows, pollUntil, uniqueName } from '../testing/kafka-mock-fixtures.ts';
import type { SeriesPoints } from '../datapoints/types.ts';
import { KafkaListenFeed } from './listen-feed.ts';

const testLogger = logger.child({ test: 'listen-feed' }, { level: process.env['LOG_LEVEL'] ?? 'silent' });
const CONSUMER = { sessionTimeoutMs: 6_000, heartbeatIntervalMs: 500, maxWaitTimeMs: 100 };

let mock: KafkaMock;
t.before(async () => {
  mock = await startKafkaMock({ partitions: 4 });
});
t.teardown(() => mock.stop());

async function openLog(t: Test, topic: string): Promise<KafkaIngestLog> {
  const log = await KafkaIngestLog.open({ brokers: mock.brokers, topic, logger: testLogger });
  t.teardown(() => log.close());
  return log;
}

function recorder(): { rows: () => string[]; listener: (batch: CommittedBatch) => void } {
  const kept: CommittedBatch[] = [];
  return { rows: () => kept.flatMap((b) => pointRows(b.tenant, b.series as SeriesPoints[])).sort(), listener: (batch) => void kept.push(copyCommitted(batch)) };
}

t.test('hears every partition while listened to; stopped when idle; restarted at the end of the topic', async (t) => {
  const topic = uniqueName('dp');
  const log = await openLog(t, topic);
  const feed = new KafkaListenFeed({ brokers: mock.brokers, topic, log: testLogger, idleMs: 200, consumer: CONSUMER });
  t.teardown(() => feed.close());
  const before = uniqueName('tenant');
  await log.append({ tenant: before, series: [makeSeries(1, 'FLOAT', 3)] });

  const first = recorder();
  const unsubscribe = feed.onCommitted(first.listener);
  await feed.ready();
  t.ok(feed.running, 'a listener starts the feed');
  const tenants = [uniqueName('tenant'), uniqueName('tenant'), uniqueName('tenant'), uniqueName('tenant')];
  const expected: string[] = [];
  for (const [i, tenant] of tenants.entries()) {
    const series = [makeSeries(i + 1, 'FLOAT', 5), makeSeries(i + 10, 'BIGINT', 2)];
    await log.append({ tenant, series });
    expected.push(...pointRows(tenant, series));
  }
  await pollUntil('every batch heard', () => first.rows().length >= expected.length, 20_000).catch(() => undefined);
  t.strictSame(first.rows(), expected.sort(), 'every batch written after it was ready, whatever its partition, exact');
  t.notOk(first.rows().some((row) => row.startsWith(`${before}|`)), 'nothing written before it started');

  unsubscribe();
  await pollUntil('the feed stopped after its idle time', () => !feed.running, 10_000);
  const whileStopped = uniqueName('tenant');
  await log.append({ tenant: whileStopped, series: [makeSeries(1, 'FLOAT', 4)] });

  const second = recorder();
  feed.onCommitted(second.listener);
  await feed.ready();
  const after = uniqueName('tenant');
  const series = [makeSeries(2, 'FLOAT', 3)];
  await log.append({ tenant: after, series });
  await pollUntil('the later batch heard', () => second.rows().length >= 3, 20_000).catch(() => undefined);
  t.strictSame(second.rows(), pointRows(after, series).sort(), 'a new start hears what is written after it, and replays nothing written while stopped');

  await feed.close();
  t.notOk(feed.running, 'closed');
  feed.onCommitted(() => undefined);
  await feed.ready();
  t.notOk(feed.running, 'a closed feed starts no more');
});

t.test('a listener that comes back within the idle time keeps the running feed', async (t) => {
  const topic = uniqueName('dp');
  const log = await openLog(t, topic);
  const feed = new KafkaListenFeed({ brokers: mock.brokers, topic, log: testLogger, idleMs: 60_000, consumer: CONSUMER });
  t.teardown(() => feed.close());
  const leaving = feed.onCommitted(() => undefined);
  await feed.ready();
  leaving();
  leaving();
  const kept = recorder();
  feed.onCommitted(kept.listener);
  await feed.ready();
  t.ok(feed.running);
  const tenant = uniqueName('tenant');
  const series = [makeSeries(3, 'FLOAT', 2)];
  await log.append({ tenant, series });
  await pollUntil('heard', () => kept.rows().length >= 2, 20_000).catch(() => undefined);
  t.strictSame(kept.rows(), pointRows(tenant, series).sort(), 'heard without a new join');
});

/** A 127.0.0.1 port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

t.test('a start that failed is tried again while a listener waits', async (t) => {
  const topic = uniqueName('dp');
  const log = await openLog(t, topic);
  // The feed reads its brokers at each start: unreachable first, the mock broker later.
  const brokers = [`127.0.0.1:${await closedPort()}`];
  const feed = new KafkaListenFeed({ brokers, topic, log: testLogger, retryMs: 200, consumer: CONSUMER });
  t.teardown(() => feed.close());
  const kept = recorder();
  feed.onCommitted(kept.listener);
  await feed.ready();
  t.notOk(feed.running, 'no broker: not running, and ready() did not reject');
  brokers.splice(0, brokers.length, ...mock.brokers);
  await pollUntil('started by a retry', () => feed.running, 30_000);
  await feed.ready();
  const tenant = uniqueName('tenant');
  const series = [makeSeries(4, 'FLOAT', 3)];
  await log.append({ tenant, series });
  await pollUntil('heard', () => kept.rows().length >= 3, 20_000).catch(() => undefined);
  t.strictSame(kept.rows(), pointRows(tenant, series).sort(), 'and then hears what is written');
});
