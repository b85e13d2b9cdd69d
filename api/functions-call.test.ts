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
  const aggregates = await call(t, 'POST', '/functions/call', { token, body: { items: [{ externalId: 'in-closed', granularity: '1h', aggregates: ['average'] }] } });
  assertErrorBody(t, aggregates, { status: 400, fields: ['items.0.aggregates'] }, 'aggregates over a function');
  const badCursor = await call(t, 'POST', '/functions/call', { token, body: { items: [{ externalId: 'in-closed', cursor: 'garbage' }] } });
  t.equal(badCursor.status, 400, 'a cursor that does not decode');
});
