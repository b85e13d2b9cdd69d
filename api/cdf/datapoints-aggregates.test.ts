// Goal: the unmodified @cognite/sdk 10.5 reads CDF's aggregates through the CDF surface with
// CDF's names and meanings: buckets of 15m, 2h and 1mo in Europe/Oslo across the daylight-saving
// change of 2024-03-31 (months start at local midnight, so March's bucket begins at 23:00 UTC
// the day before and April's at 22:00 UTC), labelled by their start; `average` is time-weighted
// and follows the series' `isStep` (set through the SDK's timeseries.create); `interpolation`
// and `stepInterpolation` are the values at each bucket's start; per-item cursors page the
// buckets. The engine's own property test checks every aggregate against CDF's definitions
// over random data; this one checks the wire end to end on data whose answers are plain.
// Method: one real server, a fresh tenant; two series with the same points (value k at
// T0 + 5 k minutes), one linear and one stepwise; expected answers computed here by hand.
import t from 'tap';
import { ROOMY_POLICY } from '../testing/datapoints-fixture.ts';
import { startTestServer } from '../testing/test-server.ts';
import { cdfClient, sdkFailure, type CdfClient } from './testing/cdf-client.ts';

const srv = await startTestServer({ serviceConfig: ROOMY_POLICY });
t.teardown(() => srv.close());

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const T0 = Date.UTC(2024, 2, 30, 0, 0); // 01:00 in Oslo, the day before clocks go forward
const POINTS = 3 * 24 * 12; // three days at 5 minutes
const valueAt = (k: number) => k;
const timeOf = (k: number) => T0 + k * 5 * MINUTE;

interface Bucket { timestamp: Date; count?: number; average?: number; min?: number; max?: number; sum?: number; interpolation?: number; stepInterpolation?: number }
interface AggregateItem { externalId: string; isStep: boolean; datapoints: Bucket[]; nextCursor?: string }

const org = srv.newTenant();
const client: CdfClient = cdfClient(srv, { org });
await client.timeseries.create([{ externalId: 'linear', name: 'linear' }, { externalId: 'stepwise', name: 'stepwise', isStep: true }]);
const points = Array.from({ length: POINTS }, (_, k) => ({ timestamp: timeOf(k), value: valueAt(k) }));
for (const externalId of ['linear', 'stepwise']) {
  for (let i = 0; i < points.length; i += 10_000) await client.datapoints.insert([{ externalId, datapoints: points.slice(i, i + 10_000) }]);
}

const retrieve = async (query: unknown) => (await client.datapoints.retrieve(query)) as AggregateItem[];
const at = (bucket: Bucket) => bucket.timestamp.getTime();
const countIn = (from: number, to: number) => points.filter((p) => p.timestamp >= from && p.timestamp < to).length;

t.test('1mo in Europe/Oslo: months start at local midnight on both sides of the DST change', async (t) => {
  const [item] = await retrieve({ items: [{ externalId: 'linear' }], start: T0, end: timeOf(POINTS), aggregates: ['count', 'min', 'max', 'sum'], granularity: '1mo', timeZone: 'Europe/Oslo' });
  const march = Date.UTC(2024, 1, 29, 23); // 1 March 00:00 CET
  const april = Date.UTC(2024, 2, 31, 22); // 1 April 00:00 CEST
  t.strictSame(item!.datapoints.map(at), [march, april], 'buckets labelled by their local month start');
  const inMarch = countIn(march, april);
  t.strictSame(item!.datapoints.map((b) => b.count), [inMarch, POINTS - inMarch]);
  t.strictSame(item!.datapoints.map((b) => [b.min, b.max]), [[0, inMarch - 1], [inMarch, POINTS - 1]]);
  t.equal(item!.datapoints[0]!.sum, (inMarch * (inMarch - 1)) / 2, 'sum as a JSON number');
});

t.test('2h and 15m in Europe/Oslo: buckets start at the unit, counts and the two averages by isStep', async (t) => {
  const start = T0 + 43 * MINUTE; // a 2h query starting at hh:43 begins at hh:00
  const [twoHours] = await retrieve({ items: [{ externalId: 'linear' }], start, end: T0 + 30 * HOUR, aggregates: ['count'], granularity: '2h', timeZone: 'Europe/Oslo' });
  t.equal(at(twoHours!.datapoints[0]!), T0, 'aligned to the hour');
  t.ok(twoHours!.datapoints.every((b, i) => at(b) === T0 + 2 * i * HOUR), 'every two hours of absolute time across the change (Oslo moves by whole hours)');
  t.ok(twoHours!.datapoints.every((b) => b.count === 24), '24 points of 5 minutes in each');

  const query = { start: T0 + HOUR, end: T0 + 2 * HOUR, aggregates: ['average', 'interpolation', 'stepInterpolation', 'count'], granularity: '15m', timeZone: 'Europe/Oslo' };
  const [linear, stepwise] = await retrieve({ items: [{ externalId: 'linear' }, { externalId: 'stepwise' }], ...query });
  t.strictSame([linear!.isStep, stepwise!.isStep], [false, true]);
  // Bucket j covers points k = 12 + 3j, 12 + 3j + 1, 12 + 3j + 2 (value k at T0 + 5k min).
  const first = (j: number) => 12 + 3 * j;
  t.strictSame(linear!.datapoints.map((b) => b.average), [0, 1, 2, 3].map((j) => first(j) + 1.5), 'linear: the line\'s mean over the bucket');
  t.strictSame(stepwise!.datapoints.map((b) => b.average), [0, 1, 2, 3].map((j) => first(j) + 1), 'stepwise: each value held for its 5 minutes');
  t.strictSame(linear!.datapoints.map((b) => [b.interpolation, b.stepInterpolation, b.count]), [0, 1, 2, 3].map((j) => [first(j), first(j), 3]), 'values at the bucket start');
});

t.test('aggregates page with the item cursor; bad names and zones are 400s in CDF form', async (t) => {
  const seen: number[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const [item] = await retrieve({ items: [{ externalId: 'stepwise', ...(cursor ? { cursor } : {}) }], start: T0, end: timeOf(POINTS), aggregates: ['count'], granularity: '1h', limit: 7 });
    seen.push(...item!.datapoints.map(at));
    cursor = item!.nextCursor;
    if (!cursor) break;
  }
  t.strictSame(seen, Array.from({ length: 72 }, (_, i) => T0 + i * HOUR), 'every hour once, in order');
  const badZone = await sdkFailure(retrieve({ items: [{ externalId: 'linear' }], aggregates: ['count'], granularity: '1d', timeZone: 'Mars/Olympus' }));
  t.equal(badZone?.status, 400);
  t.match(badZone?.message, /timeZone/);
  const text = await sdkFailure(client.timeseries.create([{ externalId: 'words', isString: true }]).then(() => client.datapoints.insert([{ externalId: 'words', datapoints: [{ timestamp: T0, value: 'a' }] }])).then(() => retrieve({ items: [{ externalId: 'words' }], aggregates: ['average'], granularity: '1h' })));
  t.equal(text?.status, 400, 'a string series has no aggregates');
});
