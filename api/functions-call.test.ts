// Goal: POST /functions/call evaluates each named function over its window as the caller:
// the points CDF's synthetic query answers for the same expression, a page at a time (pages
// joined by nextCursor are the whole answer, nothing lost or repeated), error points where the
// expression has no value; unknown or unreadable functions and unreadable inputs are a 404
// listing them, another tenant's functions are unknown, and the limits' sum is capped.
// Method: one real server in this process, a fresh tenant per case; points written through
// SPEC's insert; the synthetic query (api/cdf/synthetic.test.ts checks it against an
// independent evaluator) is the reference for the call's points. Every 2xx is checked
// against its response schema.
import t from 'tap';
import { RecordBatchReader } from 'apache-arrow';
import { assertErrorBody } from './testing/error-body.ts';
import { schemaCheckedRequest } from './testing/response-schema.ts';
import { startTestServer } from './testing/test-server.ts';
import { ROOMY_POLICY } from './testing/datapoints-fixture.ts';

const srv = await startTestServer({ serviceConfig: ROOMY_POLICY });
t.teardown(() => srv.close());
const call = schemaCheckedRequest(srv);

const T0 = Date.UTC(2024, 0, 1);

function tenant() {
  const org = srv.newTenant();
  return { org, token: srv.token({ org }) };
}

async function ok(res: { status: number; text: string; body: unknown }, status = 200): Promise<void> {
  if (res.status !== status) throw new Error(`${res.status} ${res.text}`);
}

async function setUp(token: string, dataSetId?: number): Promise<void> {
  await ok(await srv.request('POST', '/timeseries/create', { token, body: { items: [
    { externalId: 'flow', name: 'flow', valueType: 'FLOAT', ...(dataSetId ? { dataSetId } : {}) },
    { externalId: 'power', name: 'power', valueType: 'BIGINT' },
  ] } }), 201);
  const flow = Array.from({ length: 500 }, (_, i) => ({ timestamp: T0 + i * 1000, value: i % 7 === 0 ? 0 : i / 4 }));
  const power = Array.from({ length: 300 }, (_, i) => ({ timestamp: T0 + 500 + i * 1700, value: String(1000 + i) }));
  await ok(await srv.request('POST', '/timeseries/data', { token, body: { items: [{ externalId: 'flow', datapoints: flow }, { externalId: 'power', datapoints: power }] } }), 204);
}

t.test('a call answers the synthetic query\'s points, paged by nextCursor without loss or repeats', async (t) => {
  const { org, token } = tenant();
  await setUp(token);
  const expression = "ts{externalId='power'} / ts{externalId='flow'}";
  await ok(await call(t, 'POST', '/functions/create', { token, body: { items: [{ externalId: 'efficiency', name: 'efficiency', expression }] } }), 201);
  const [start, end] = [T0 + 10_000, T0 + 400_000];
  const reference = await srv.request('POST', `/api/v1/projects/${org}/timeseries/synthetic/query`, { token, body: { items: [{ expression, start, end, limit: 10_000 }] } });
  await ok(reference);
  const want = reference.body.items[0].datapoints as { timestamp: number }[];
  t.ok(want.length > 300, `${want.length} points in the window`);
  t.ok(want.some((p) => 'error' in p), 'division by zero gives error points');
  const pages: unknown[] = [];
  let cursor: string | undefined;
  let calls = 0;
  do {
    const res = await call(t, 'POST', '/functions/call', { token, body: { items: [{ externalId: 'efficiency', start, end, limit: 97, ...(cursor ? { cursor } : {}) }] } });
    await ok(res);
    const [item] = res.body.items;
    t.equal(item.externalId, 'efficiency');
    pages.push(...item.datapoints);
    cursor = item.nextCursor;
    calls++;
  } while (cursor && calls < 100);
  t.equal(calls, Math.ceil(want.length / 97), 'pages of 97 until the last');
  t.strictSame(pages, want, 'the pages joined are the synthetic query\'s answer');
  const both = await call(t, 'POST', '/functions/call', { token, body: { items: [{ externalId: 'efficiency', start, end, limit: 5 }, { externalId: 'efficiency', start: end - 20_000, end, limit: 5 }] } });
  await ok(both);
  t.strictSame(both.body.items.map((i: { datapoints: unknown[] }) => i.datapoints.length), [5, 5], 'the same function twice, each with its window');
});

t.test('with Accept: the Arrow stream type, the same points as one record batch per function', async (t) => {
  const { token } = tenant();
  await setUp(token);
  await ok(await call(t, 'POST', '/functions/create', { token, body: { items: [
    { externalId: 'ratio', name: 'ratio', expression: "ts{externalId='power'} / ts{externalId='flow'}" },
    { externalId: 'double', name: 'double', expression: "2 * ts{externalId='flow'}" },
  ] } }), 201);
  const body = { items: [{ externalId: 'ratio', start: T0, end: T0 + 100_000, limit: 40 }, { externalId: 'double', start: T0 + 5000, end: T0 + 9000 }] };
  const json = await call(t, 'POST', '/functions/call', { token, body });
  await ok(json);
  const res = await fetch(`${srv.url}/functions/call`, { method: 'POST', body: JSON.stringify(body), headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/vnd.apache.arrow.stream' } });
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'application/vnd.apache.arrow.stream');
  const reader = RecordBatchReader.from(new Uint8Array(await res.arrayBuffer()));
  const batches = [...reader];
  t.equal(batches.length, 2, 'a batch per function');
  batches.forEach((batch, k) => {
    const want = json.body.items[k] as { id: number; externalId: string; datapoints: { timestamp: number; value?: number; error?: string }[]; nextCursor?: string };
    t.equal(batch.metadata.get('externalId'), want.externalId);
    t.equal(batch.metadata.get('id'), String(want.id));
    t.equal(batch.metadata.get('nextCursor'), want.nextCursor, 'the JSON answer\'s cursor');
    const rows = Array.from({ length: batch.numRows }, (_, i) => {
      const error = batch.getChild('error')?.get(i) as string | null;
      const timestamp = Number(batch.getChild('timestamp')?.get(i));
      return error === null ? { timestamp, value: batch.getChild('value')?.get(i) as number } : { timestamp, error };
    });
    t.strictSame(rows, want.datapoints, `${want.externalId}: the JSON answer's points`);
  });
  t.ok(json.body.items[0].datapoints.some((p: object) => 'error' in p), 'error points included');
});

t.test('aggregates over a function: its points folded into buckets, paged by bucket, the same as Arrow', async (t) => {
  const { token } = tenant();
  await setUp(token);
  await ok(await call(t, 'POST', '/functions/create', { token, body: { items: [{ externalId: 'ratio', name: 'ratio', expression: "ts{externalId='power'} / ts{externalId='flow'}" }] } }), 201);
  const [start, end] = [T0 + 3_500, T0 + 470_000];
  const raw = await call(t, 'POST', '/functions/call', { token, body: { items: [{ externalId: 'ratio', start: T0, end, limit: 10_000 }] } });
  await ok(raw);
  // The reference: the raw answer's values folded here, buckets of 30 s from start rounded down to the unit (a second).
  const first = Math.floor(start / 1000) * 1000;
  const buckets = new Map<number, number[]>();
  for (const p of raw.body.items[0].datapoints as { timestamp: number; value?: number }[]) {
    if (p.value === undefined || p.timestamp < first) continue;
    const b = first + Math.floor((p.timestamp - first) / 30_000) * 30_000;
    buckets.set(b, [...(buckets.get(b) ?? []), p.value]);
  }
  const want = [...buckets].map(([timestamp, values]) => ({
    timestamp, average: values.reduce((a, b) => a + b, 0) / values.length, min: Math.min(...values), max: Math.max(...values), count: values.length, sum: values.reduce((a, b) => a + b, 0),
  }));
  t.ok(want.length > 10, `${want.length} buckets`);
  const pages: { timestamp: number; average: number; min: number; max: number; count: number; sum: number }[] = [];
  let cursor: string | undefined;
  let calls = 0;
  do {
    const res = await call(t, 'POST', '/functions/call', { token, body: { items: [{ externalId: 'ratio', start, end, granularity: '30s', aggregates: ['AVG', 'MIN', 'MAX', 'COUNT', 'SUM'], limit: 4, ...(cursor ? { cursor } : {}) }] } });
    await ok(res);
    pages.push(...res.body.items[0].datapoints);
    cursor = res.body.items[0].nextCursor;
    calls++;
  } while (cursor && calls < 100);
  t.equal(calls, Math.ceil(want.length / 4), 'pages of 4 buckets');
  t.equal(pages.length, want.length, 'every bucket once');
  const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
  const wrong = pages.findIndex((p, i) => {
    const w = want[i] as typeof p;
    return p.timestamp !== w.timestamp || p.count !== w.count || !close(p.sum, w.sum) || !close(p.average, w.average) || p.min !== w.min || p.max !== w.max;
  });
  t.equal(wrong, -1, wrong < 0 ? 'each bucket the reference\'s' : `bucket ${wrong}: ${JSON.stringify(pages[wrong])} vs ${JSON.stringify(want[wrong])}`);
  const body = { items: [{ externalId: 'ratio', start, end, granularity: '30s', aggregates: ['count', 'average'], limit: 1000 }, { externalId: 'ratio', start, end: start + 5000 }] };
  const json = await call(t, 'POST', '/functions/call', { token, body });
  await ok(json);
  t.strictSame(Object.keys(json.body.items[0].datapoints[0]).sort(), ['average', 'count', 'timestamp'], 'the aggregates asked for');
  const res = await fetch(`${srv.url}/functions/call`, { method: 'POST', body: JSON.stringify(body), headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/vnd.apache.arrow.stream' } });
  const batches = [...RecordBatchReader.from(new Uint8Array(await res.arrayBuffer()))];
  t.strictSame(batches[0]?.schema.fields.map((f) => f.name), ['id', 'externalId', 'timestamp', 'value', 'error', 'average', 'count'], 'columns of the aggregates asked for');
  const rows = Array.from({ length: batches[0]?.numRows ?? 0 }, (_, i) => ({
    timestamp: Number(batches[0]?.getChild('timestamp')?.get(i)), average: batches[0]?.getChild('average')?.get(i), count: Number(batches[0]?.getChild('count')?.get(i)),
  }));
  t.strictSame(rows, json.body.items[0].datapoints.map((p: { timestamp: number; average: number; count: number }) => ({ timestamp: p.timestamp, average: p.average, count: p.count })), 'Arrow buckets are the JSON ones');
  t.equal(batches[1]?.getChild('count')?.get(0), null, 'a raw item\'s aggregate columns are null');
});

t.test('misses, grants, tenants and caps', async (t) => {
  const { org, token } = tenant();
  const created = await srv.request('POST', '/datasets/create', { token, body: { items: [{ externalId: 'open', name: 'open' }, { externalId: 'closed', name: 'closed' }] } });
  const [open, closed] = created.body.items.map((i: { id: number }) => i.id) as [number, number];
  await setUp(token, closed);
  await ok(await call(t, 'POST', '/functions/create', { token, body: { items: [
    { externalId: 'reads-closed', name: 'a', expression: "ts{externalId='flow'} + 1", dataSetId: open },
    { externalId: 'in-closed', name: 'b', expression: "ts{externalId='power'} + 1", dataSetId: closed },
  ] } }), 201);
  const limited = srv.token({ org, read: ['open'] });
  const unreadableInput = await call(t, 'POST', '/functions/call', { token: limited, body: { items: [{ externalId: 'reads-closed', start: T0, end: T0 + 10_000 }] } });
  assertErrorBody(t, unreadableInput, { status: 404 }, 'an input the caller cannot read');
  t.strictSame(unreadableInput.body.error.missing, [{ externalId: 'flow' }]);
  const unreadableFunction = await call(t, 'POST', '/functions/call', { token: limited, body: { items: [{ externalId: 'in-closed', start: T0, end: T0 + 10_000 }] } });
  assertErrorBody(t, unreadableFunction, { status: 404 }, 'a function the caller cannot read');
  t.strictSame(unreadableFunction.body.error.missing, [{ externalId: 'in-closed' }]);
  t.notMatch(unreadableFunction.text, /power/, 'nothing of it in the error');
  const skipped = await call(t, 'POST', '/functions/call', { token: limited, body: { items: [{ externalId: 'in-closed' }, { externalId: 'nowhere' }], ignoreUnknownIds: true } });
  await ok(skipped);
  t.strictSame(skipped.body.items, [], 'ignoreUnknownIds leaves them out');
  const other = tenant();
  const foreign = await call(t, 'POST', '/functions/call', { token: other.token, body: { items: [{ externalId: 'in-closed' }] } });
  assertErrorBody(t, foreign, { status: 404 }, 'another tenant\'s function');
  const tooMany = await call(t, 'POST', '/functions/call', { token, body: { items: [{ externalId: 'in-closed', limit: 60_000 }, { externalId: 'in-closed', limit: 60_000 }] } });
  assertErrorBody(t, tooMany, { status: 400, fields: ['items'] }, 'limits over 100,000 together');
  const alone = await call(t, 'POST', '/functions/call', { token, body: { items: [{ externalId: 'in-closed', granularity: '1h' }] } });
  assertErrorBody(t, alone, { status: 400, fields: ['items.0.aggregates'] }, 'granularity without aggregates');
  const unknown = await call(t, 'POST', '/functions/call', { token, body: { items: [{ externalId: 'in-closed', granularity: '1h', aggregates: ['median'] }] } });
  assertErrorBody(t, unknown, { status: 400, fields: ['items.0.aggregates'] }, 'an aggregate functions do not answer');
  const badGranularity = await call(t, 'POST', '/functions/call', { token, body: { items: [{ externalId: 'in-closed', granularity: 'often', aggregates: ['sum'] }] } });
  t.equal(badGranularity.status, 400, 'a granularity that does not parse');
  const badCursor = await call(t, 'POST', '/functions/call', { token, body: { items: [{ externalId: 'in-closed', cursor: 'garbage' }] } });
  t.equal(badCursor.status, 400, 'a cursor that does not decode');
});
