// Goal: POST /timeseries/data/list takes any CDF granularity (15m, 2h, 1w, 1mo, 1q, 1y, long
// forms) and a `timeZone` (IANA name or fixed offset), with buckets aligned to the unit in the
// zone, days and months following daylight saving, and SPEC's five aggregate names keeping their
// meaning; 400s name the bad item field. Method: one real server, a fresh tenant per test; points
// every 10 minutes across the Europe/Oslo spring change (2024-03-31) written, one overwritten and a
// range deleted, then whole answers compared with buckets computed by hand in plain JS from the
// live points, before and after the rollup fold is forced.
import t, { type Test } from 'tap';
import { createSeries, startDatapointServer } from './testing/datapoints-fixture.ts';

const srv = await startDatapointServer();
t.teardown(() => srv.close());
const { call } = srv;
const store = srv.server.datapoints.store;

const MINUTE = 60_000;
const HOUR = 3_600_000;
const utc = (iso: string) => Date.parse(iso);

async function list(t: Test, token: string, body: unknown) {
  return call(t, 'POST', '/timeseries/data/list', { token, body });
}

/** COUNT and SUM per bucket of the live points, the buckets' starts given. */
function buckets(points: Map<number, number>, edges: number[]) {
  const out: { timestamp: number; count: number; sum: string }[] = [];
  for (let i = 0; i + 1 < edges.length; i++) {
    const vs = [...points].filter(([ts]) => ts >= (edges[i] as number) && ts < (edges[i + 1] as number)).map(([, v]) => v);
    if (vs.length > 0) out.push({ timestamp: edges[i] as number, count: vs.length, sum: String(vs.reduce((a, b) => a + b, 0)) });
  }
  return out;
}

t.test('granularities and time zones on SPEC\'s route', async (t) => {
  const org = srv.newTenant();
  const token = srv.token({ org });
  await createSeries(srv, token, [{ externalId: 'g', valueType: 'BIGINT' }]);
  const from = utc('2024-03-29T20:00:00Z');
  const points = new Map<number, number>();
  for (let ts = from; ts < utc('2024-04-02T04:00:00Z'); ts += 10 * MINUTE) points.set(ts + 7_000, (ts / MINUTE) % 97);
  const write = async (ps: [number, number][]) => {
    const res = await call(t, 'POST', '/timeseries/data', { token, body: { items: [{ externalId: 'g', datapoints: ps.map(([timestamp, v]) => ({ timestamp, value: String(v) })) }] } });
    t.equal(res.status, 204, 'insert');
  };
  await write([...points]);
  await store.runMaintenance({ includeHot: true });
  // An overwrite and a delete after the fold: dirty minutes read raw beside the rollups.
  const overwritten = utc('2024-03-31T00:30:07Z');
  points.set(overwritten, 1000);
  await write([[overwritten, 1000]]);
  const [delFrom, delTo] = [utc('2024-03-30T22:40:00Z'), utc('2024-03-30T23:20:00Z')];
  const del = await call(t, 'POST', '/timeseries/data/delete', { token, body: { items: [{ externalId: 'g', inclusiveBegin: delFrom, exclusiveEnd: delTo }] } });
  t.equal(del.status, 204, 'delete');
  for (const ts of [...points.keys()]) if (ts >= delFrom && ts < delTo) points.delete(ts);

  const start = utc('2024-03-30T03:43:25Z');
  const end = utc('2024-04-01T12:00:00Z');
  const steps = (first: number, step: number, last: number) => Array.from({ length: Math.ceil((last - first) / step) + 1 }, (_, i) => first + i * step);
  const cases: [string, Record<string, unknown>, number[]][] = [
    ['15m (aligned to the minute)', { granularity: '15m' }, steps(utc('2024-03-30T03:43:00Z'), 15 * MINUTE, end)],
    ['2h (aligned to the hour)', { granularity: '2h' }, steps(utc('2024-03-30T03:00:00Z'), 2 * HOUR, end)],
    ['2hours', { granularity: '2hours' }, steps(utc('2024-03-30T03:00:00Z'), 2 * HOUR, end)],
    ['1d UTC', { granularity: '1d' }, steps(utc('2024-03-30T00:00:00Z'), 24 * HOUR, end)],
    ['1d Europe/Oslo (a 23-hour day)', { granularity: '1d', timeZone: 'Europe/Oslo' },
      [utc('2024-03-29T23:00:00Z'), utc('2024-03-30T23:00:00Z'), utc('2024-03-31T22:00:00Z'), utc('2024-04-01T22:00:00Z')]],
    ['1d +05:30', { granularity: 'day', timeZone: '+05:30' }, steps(utc('2024-03-29T18:30:00Z'), 24 * HOUR, end)],
    ['1h +05:30 (on the half hour)', { granularity: '1h', timeZone: 'UTC+05:30' }, steps(utc('2024-03-30T03:30:00Z'), HOUR, end)],
    ['1w Europe/Oslo', { granularity: '1w', timeZone: 'Europe/Oslo' }, [utc('2024-03-29T23:00:00Z'), utc('2024-04-05T22:00:00Z')]],
    ['1mo Europe/Oslo', { granularity: '1mo', timeZone: 'Europe/Oslo' }, [utc('2024-02-29T23:00:00Z'), utc('2024-03-31T22:00:00Z'), utc('2024-04-30T22:00:00Z')]],
    ['1q', { granularity: '1q' }, [utc('2024-03-01T00:00:00Z'), utc('2024-06-01T00:00:00Z')]],
    ['1y', { granularity: '1y' }, [utc('2024-03-01T00:00:00Z'), utc('2025-03-01T00:00:00Z')]],
  ];
  for (const phase of ['dirty', 'folded']) {
    if (phase === 'folded') await store.runMaintenance({ includeHot: true });
    const res = await list(t, token, { start, end, limit: 10_000, aggregates: ['COUNT', 'SUM'], items: cases.map(([, q]) => ({ externalId: 'g', ...q })) });
    t.equal(res.status, 200, `${phase}: 200`);
    cases.forEach(([name, , edges], i) => {
      t.strictSame(res.body.items[i].datapoints, buckets(points, edges), `${phase}: ${name}`);
    });
  }
  // Paging a calendar grid with its cursor gives the same buckets.
  const pages: unknown[] = [];
  let cursor: string | undefined;
  do {
    const res = await list(t, token, { items: [{ externalId: 'g', start, end, granularity: '1d', timeZone: 'Europe/Oslo', aggregates: ['COUNT', 'SUM'], limit: 1, cursor }] });
    pages.push(...res.body.items[0].datapoints);
    cursor = res.body.items[0].nextCursor;
  } while (cursor !== undefined);
  t.strictSame(pages, buckets(points, [utc('2024-03-29T23:00:00Z'), utc('2024-03-30T23:00:00Z'), utc('2024-03-31T22:00:00Z'), utc('2024-04-01T22:00:00Z')]), 'paged by cursor');
  // SPEC's AVG keeps its meaning: the arithmetic mean of the bucket's points.
  const avg = await list(t, token, { items: [{ externalId: 'g', start: utc('2024-03-31T00:00:00Z'), end: utc('2024-03-31T01:00:00Z'), granularity: '1h', timeZone: 'Europe/Oslo', aggregates: ['AVG'] }] });
  const vs = [...points].filter(([ts]) => ts >= utc('2024-03-31T00:00:00Z') && ts < utc('2024-03-31T01:00:00Z')).map(([, v]) => v);
  t.strictSame(avg.body.items[0].datapoints, [{ timestamp: utc('2024-03-31T00:00:00Z'), average: String(vs.reduce((a, b) => a + b, 0) / vs.length) }], 'AVG is the mean of the points');
});
