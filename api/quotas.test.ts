// Goal: daily ingest quotas answer 429 ingest-quota-exceeded with Retry-After until 00:00 UTC,
// lifetime ceilings answer 403 tenant-limit-reached without Retry-After, each with the limit
// from SERVICE_CONFIG (SPEC Limits). Method: a real server with tiny per-tenant policies.
import t from 'tap';
import { startTestServer } from './testing/test-server.ts';

const srv = await startTestServer({
  serviceConfig: {
    errorsBase: 'https://errors.test',
    tenants: {
      daily: { dailyQuotas: { nodes: 3, datapoints: 5, ingestedBytes: 100_000 } },
      bytes: { dailyQuotas: { ingestedBytes: 400 } },
      ceiling: { ceilings: { objects: 2, datapoints: 4, textDatapoints: 2 } },
    },
  },
});
t.teardown(() => srv.close());

const series = (...ids: string[]) => ({ items: ids.map((externalId) => ({ externalId, name: externalId, valueType: 'FLOAT' })) });
const points = (externalId: string, n: number, start = 0) => ({
  items: [{ externalId, datapoints: Array.from({ length: n }, (_, i) => ({ timestamp: 1_700_000_000_000 + (start + i) * 1000, value: String(i) })) }],
});

t.test('daily quotas: nodes and data points', async (t) => {
  const token = srv.token({ org: 'daily' });
  t.equal((await srv.request('POST', '/timeseries/create', { token, body: series('a', 'b') })).status, 201);
  const over = await srv.request('POST', '/timeseries/create', { token, body: series('c', 'd') });
  t.equal(over.status, 429, 'two more nodes pass the quota of 3');
  t.equal(over.headers.get('content-type'), 'application/problem+json');
  t.match(over.body, { type: 'https://errors.test/ingest-quota-exceeded', status: 429, metric: 'nodes', limit: 3 });
  t.ok(over.body.retryAfter >= 1 && over.body.retryAfter <= 86_400, 'retryAfter until 00:00 UTC');
  t.equal(over.headers.get('retry-after'), String(over.body.retryAfter));
  t.equal((await srv.request('POST', '/timeseries/create', { token, body: series('c') })).status, 201, 'exactly at the quota');
  t.equal((await srv.request('POST', '/timeseries/data', { token, body: points('a', 5) })).status, 204, '5 points: at the quota');
  const dp = await srv.request('POST', '/timeseries/data', { token, body: points('b', 1) });
  t.equal(dp.status, 429);
  t.match(dp.body, { metric: 'datapoints', limit: 5 });
});

t.test('daily quota: ingested bytes of write bodies', async (t) => {
  const token = srv.token({ org: 'bytes' });
  const small = await srv.request('POST', '/timeseries/create', { token, body: series('x') });
  t.equal(small.status, 201);
  const big = await srv.request('POST', '/timeseries/create', { token, body: { items: [{ externalId: 'y', name: 'y'.repeat(400), valueType: 'FLOAT' }] } });
  t.equal(big.status, 429);
  t.match(big.body, { metric: 'ingestedBytes', limit: 400 });
  t.equal((await srv.request('POST', '/timeseries/filter', { token, body: {} })).status, 200, 'reads are not charged');
});

t.test('lifetime ceilings: objects on live rows, data points cumulative', async (t) => {
  const token = srv.token({ org: 'ceiling' });
  t.equal((await srv.request('POST', '/timeseries/create', { token, body: series('p', 'q') })).status, 201);
  const over = await srv.request('POST', '/timeseries/create', { token, body: series('r') });
  t.equal(over.status, 403);
  t.equal(over.headers.get('content-type'), 'application/problem+json');
  t.equal(over.headers.get('retry-after'), null, 'a ceiling has no Retry-After');
  t.match(over.body, { type: /\/tenant-limit-reached$/, status: 403, metric: 'objects', limit: 2 });
  t.equal((await srv.request('POST', '/timeseries/delete', { token, body: { items: [{ externalId: 'q' }] } })).status, 204);
  t.equal((await srv.request('POST', '/timeseries/create', { token, body: series('r') })).status, 201, 'deleting freed room');
  t.equal((await srv.request('POST', '/timeseries/data', { token, body: points('p', 4) })).status, 204);
  const dp = await srv.request('POST', '/timeseries/data', { token, body: points('p', 1, 10) });
  t.equal(dp.status, 403);
  t.match(dp.body, { metric: 'datapoints', limit: 4 });
  const settings = await srv.request('GET', '/settings', { token });
  t.same(settings.body.ceilings, { objects: 2, datapoints: 4, textDatapoints: 2 });
});
