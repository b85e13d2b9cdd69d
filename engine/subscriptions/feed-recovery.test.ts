// Goal: the feed's crash recovery reads back, for every value type, exactly the points above
// a write version (the items a subscriber would have got: same values, exact decimals and
// 64-bit integers, MIXED text and numbers, an overwrite as its newest value), and nothing at or
// below it. Method: a real server (embedded stores); points written through the API and waited
// for with the engine's read barrier; the recovery function run against its ClickHouse; its batches formatted as the stream's items.
import t from 'tap';
import { ROOMY_POLICY } from '../../api/testing/datapoints-fixture.ts';
import { startTestServer } from '../../api/testing/test-server.ts';
import { datapointItemJson } from './datapoint-items.ts';
import { storeRecovery } from './feed-recovery.ts';

const srv = await startTestServer({ serviceConfig: ROOMY_POLICY });
t.teardown(() => srv.close());

t.test('every value type, above the mark only', async (t) => {
  const org = srv.newTenant();
  const token = srv.token({ org });
  const types = ['FLOAT', 'FLOAT32', 'BIGINT', 'NUMERIC', 'DECIMAL32', 'TEXT', 'MIXED'];
  const created = (await srv.request('POST', '/timeseries/create', { token, body: { items: types.map((valueType) => ({ externalId: valueType, name: valueType, valueType })) } })).body.items;
  const values: Record<string, string[]> = {
    FLOAT: ['1.5', '-2'], FLOAT32: ['0.5', '3'], BIGINT: ['9007199254740993', '-1'], NUMERIC: ['123.456789', '0.1'], DECIMAL32: ['-1.25', '7'], TEXT: ['a "quoted" text', ''], MIXED: ['4.5', 'text'],
  };
  const write = async (index: number, valueOf: (type: string) => string) => {
    const res = await srv.request('POST', '/timeseries/data', { token, body: { items: types.map((type) => ({ externalId: type, datapoints: [{ timestamp: 1_000 + index, value: valueOf(type) }] })) } });
    t.equal(res.status, 204);
    // A 2xx means durable in the ingest log; the test reads the store itself, so it waits, as
    // every read does, until the acknowledged points are in the store.
    await srv.server.engine.datapoints.readBarrier(org);
  };
  await write(0, (type) => values[type]![0]!);
  // The mark: the highest version stored so far (the first write's).
  const [stored] = await srv.server.engine.datapoints.store.columnar.query<{ v: string }>(
    "SELECT toString(max(version)) AS v FROM (SELECT version FROM datapoints_float WHERE tenant = {tenant:String} UNION ALL SELECT version FROM datapoints_text WHERE tenant = {tenant:String})", { tenant: org });
  const mark = BigInt(stored!.v);
  t.ok(mark > 0n, 'the first write is stored');
  await write(1, (type) => values[type]![1]!);
  await write(1, (type) => values[type]![1]!); // the same again: one point per timestamp comes back
  const recover = storeRecovery(srv.server.engine.datapoints.store.columnar);
  const batches = await recover(org, created.map((s: { id: number; valueType: string }) => ({ seriesId: s.id, valueType: s.valueType })), mark);
  const items = batches.flatMap((b) => b.series.map((s) => JSON.parse(datapointItemJson(s.seriesId, types.find((ty) => created.find((c: { id: number; externalId: string }) => c.id === s.seriesId)?.externalId === ty) ?? '', s))));
  const got = Object.fromEntries(items.map((i) => [i.externalId, i.datapoints]));
  for (const type of types) t.same(got[type], [{ timestamp: new Date(1_001).toISOString(), value: values[type]![1] }], `${type}: the point above the mark, once, exactly`);
  t.same(await recover(org, created.map((s: { id: number; valueType: string }) => ({ seriesId: s.id, valueType: s.valueType })), BigInt(Date.now() + 60_000) * 1000n), [], 'nothing above a later mark');
});
