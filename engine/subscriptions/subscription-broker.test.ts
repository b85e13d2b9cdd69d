// Goal: the broker's full-queue path loses nothing: past queuePointsMax it drops batches and
// holds its mark, and once the queue has drained it reads the dropped points back from the
// store above the mark. Method: a real server (embedded PostgreSQL and ClickHouse); a second
// broker on its stores with its own feeder name and a queue of 10 points, fed by hand with
// batches that are also inserted into the store directly (so the server's own broker, which
// hears only its ingest log, never sees them); its messages are read from PostgreSQL.
import t from 'tap';
import { ROOMY_POLICY } from '../../api/testing/datapoints-fixture.ts';
import { startTestServer } from '../../api/testing/test-server.ts';
import type { CommitListener, IngestBatch } from '../ingest/ingest-log.ts';
import { logger } from '../log.ts';
import { openSeriesDirectory } from '../meta/series-directory.ts';
import { pollUntil } from '../testing/poll-until.ts';
import { storeRecovery } from './feed-recovery.ts';
import { SubscriptionBroker } from './subscription-broker.ts';

const srv = await startTestServer({ serviceConfig: ROOMY_POLICY });
t.teardown(() => srv.close());

t.test('a full queue drops batches and reads them back from the store', async (t) => {
  const org = srv.newTenant();
  const token = srv.token({ org });
  const [series] = (await srv.request('POST', '/timeseries/create', { token, body: { items: [{ externalId: 'q', name: 'q', valueType: 'FLOAT' }] } })).body.items;
  const [sub] = (await srv.request('POST', '/subscriptions/create', { token, body: { items: [{ externalId: 'q-sub', name: 'q', timeseriesIds: [series.id] }] } })).body.items;
  const { engine } = srv.server;
  const directory = await openSeriesDirectory(engine.relational);
  t.teardown(() => directory.close());
  let hook: CommitListener | undefined;
  const broker = new SubscriptionBroker({
    relational: engine.relational, series: directory.directory,
    onCommitted: (listener) => { hook = listener; return () => { hook = undefined; }; },
    feeder: `test-${org}`, recoverSince: storeRecovery(engine.datapoints.store.columnar), readBarrier: async () => undefined,
    queuePointsMax: 10, log: logger.child({ module: 'broker-test' }),
  });
  await broker.open();
  t.teardown(() => broker.close());
  t.ok(hook, 'hooked: a subscription exists');
  const base = BigInt(Date.now()) * 1000n;
  const batch = (k: number, count: number): IngestBatch => ({
    tenant: org, writeVersion: base + BigInt(k),
    series: [{ seriesId: series.id, valueType: 'FLOAT', timestampMs: Float64Array.from({ length: count }, (_, i) => 1_000 * k + i), float: Float64Array.from({ length: count }, () => k) }],
  });
  const delivered = async () => {
    const { rows } = await engine.relational.pool.query<{ items: string }>('SELECT items FROM subscription_messages WHERE tenant = $1 AND subscription_id = $2', [org, sub.id]);
    const points = new Set<string>();
    for (const row of rows) for (const item of JSON.parse(row.items)) for (const d of item.datapoints) points.add(`${d.timestamp}=${d.value}`);
    return points;
  };
  const expected = (k: number, count: number) => Array.from({ length: count }, (_, i) => `${new Date(1_000 * k + i).toISOString()}=${k}`);

  // The first batch goes through and sets the mark.
  const first = batch(1, 5);
  await engine.datapoints.store.insertMany([first]);
  hook?.(first);
  await pollUntil('the first batch appended', async () => (await delivered()).size === 5);
  // Three more at once: the first of them is queued (an empty queue takes any batch), the
  // other two would take it past 10 points and are dropped.
  const more = [batch(2, 6), batch(3, 6), batch(4, 6)];
  await engine.datapoints.store.insertMany(more);
  for (const b of more) hook?.(b);
  const want = [...expected(1, 5), ...expected(2, 6), ...expected(3, 6), ...expected(4, 6)];
  await pollUntil('every point appended, the dropped ones read back from the store', async () => {
    const got = await delivered();
    return want.every((p) => got.has(p)) && broker.stats().gapsClosed === 1;
  }, 30_000).catch(() => undefined);
  const got = await delivered();
  t.strictSame(want.filter((p) => !got.has(p)), [], 'no point of a dropped batch is lost');
  t.same(broker.stats(), { droppedBatches: 2, gapsClosed: 1, queuedPoints: 0 }, 'two batches were dropped and read back once');
});
