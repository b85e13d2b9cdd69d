// Goal: the unmodified @cognite/sdk 10.5 inserts, retrieves, reads the latest of and deletes
// data points through the CDF surface as CDF documents it: numeric and string values by id and
// externalId, CDF's item shape with numbers as JSON numbers, per-item and top-level start, end
// and limit, relative times, includeOutsidePoints, ignoreUnknownIds, per-item cursors (paging
// a 250 000-point series by re-sending nextCursor loses and repeats nothing), latest with
// `before`, delete ranges; unknown and unreadable series are one and the same 400 listing
// `missing` and never leak points; all-or-nothing inserts; a wrong project is a 403 with
// nothing written; errors in CDF's form.
// Method: one real server in this process (roomy rate limits), a fresh tenant per test; the
// series and data sets are made through SPEC's routes, everything else through the SDK, and raw
// requests where the bytes on the wire are the point.
import t, { type Test } from 'tap';
import { ROOMY_POLICY } from '../testing/datapoints-fixture.ts';
import { startTestServer } from '../testing/test-server.ts';
import { cdfClient, sdkFailure, type CdfClient } from './testing/cdf-client.ts';

const srv = await startTestServer({ serviceConfig: ROOMY_POLICY });
t.teardown(() => srv.close());

const T0 = Date.UTC(2024, 0, 1);
const HOUR = 3_600_000;
const DAY = 86_400_000;

interface SdkPoint { timestamp: Date; value: number | string }
interface SdkItem { id: number; externalId: string; isString: boolean; isStep: boolean; datapoints: SdkPoint[]; nextCursor?: string }

function tenant() {
  const org = srv.newTenant();
  return { org, token: srv.token({ org }), client: cdfClient(srv, { org }) as CdfClient };
}

/** Creates series through SPEC's route (the CDF time series routes are their own family); ids by externalId. */
async function createSeries(token: string, specs: { externalId: string; valueType: string; dataSetId?: number }[]): Promise<Record<string, number>> {
  const res = await srv.request('POST', '/timeseries/create', { token, body: { items: specs.map((s) => ({ name: s.externalId, ...s })) } });
  if (res.status !== 201) throw new Error(`creating series: ${res.status} ${res.text}`);
  return Object.fromEntries((res.body.items as { externalId: string; id: number }[]).map((i) => [i.externalId, i.id]));
}

/** What the SDK gave back, with timestamps as epoch ms. */
const plain = (points: SdkPoint[]) => points.map((p) => ({ timestamp: p.timestamp.getTime(), value: p.value }));
const numbers = (count: number, start = T0, stepMs = 1000) => Array.from({ length: count }, (_, i) => ({ timestamp: start + i * stepMs, value: i + 0.5 }));

async function retrieve(client: CdfClient, query: unknown): Promise<SdkItem[]> {
  return client.datapoints.retrieve(query) as Promise<SdkItem[]>;
}

t.test('insert numeric and string values by id and externalId; retrieve answers CDF items with JSON numbers', async (t) => {
  const { org, token, client } = tenant();
  const ids = await createSeries(token, [{ externalId: 'flow', valueType: 'FLOAT' }, { externalId: 'count', valueType: 'BIGINT' }, { externalId: 'state', valueType: 'TEXT' }]);
  const inserted = await client.datapoints.insert([
    { id: ids['flow'], datapoints: [{ timestamp: T0, value: 1.5 }, { timestamp: new Date(T0 + 1000), value: -2e-7 }, { timestamp: T0 + 2000, value: 1e21 }] },
    { externalId: 'count', datapoints: [{ timestamp: T0, value: 42 }, { timestamp: T0 + 1000, value: -7 }] },
    { externalId: 'state', datapoints: [{ timestamp: T0, value: 'open' }, { timestamp: T0 + 1000, value: 'shut "tight"' }] },
  ]);
  t.strictSame(inserted, {}, 'insert resolves {}');
  const items = await retrieve(client, { items: [{ externalId: 'flow' }, { id: ids['count'] }, { externalId: 'state' }], start: T0 - 1, end: T0 + DAY });
  t.strictSame(items.map((i) => [i.id, i.externalId, i.isString, i.isStep]), [[ids['flow'], 'flow', false, false], [ids['count'], 'count', false, false], [ids['state'], 'state', true, false]]);
  t.strictSame(plain(items[0]!.datapoints), [{ timestamp: T0, value: 1.5 }, { timestamp: T0 + 1000, value: -2e-7 }, { timestamp: T0 + 2000, value: 1e21 }]);
  t.strictSame(plain(items[1]!.datapoints), [{ timestamp: T0, value: 42 }, { timestamp: T0 + 1000, value: -7 }]);
  t.strictSame(plain(items[2]!.datapoints), [{ timestamp: T0, value: 'open' }, { timestamp: T0 + 1000, value: 'shut "tight"' }]);
  t.notOk(items.some((i) => 'nextCursor' in i && i.nextCursor !== undefined), 'no cursor when everything fits');

  const wire = await srv.request('POST', `/api/v1/projects/${org}/timeseries/data/list`, { token, body: { items: [{ externalId: 'flow', start: T0, end: T0 + 1500 }] } });
  t.equal(wire.status, 200);
  t.equal(wire.text, `{"items":[{"id":${ids['flow']},"externalId":"flow","isString":false,"isStep":false,"datapoints":[{"timestamp":${T0},"value":1.5},{"timestamp":${T0 + 1000},"value":-2e-7}]}]}`, 'values as JSON numbers on the wire');

  await client.datapoints.insert([{ externalId: 'flow', datapoints: [{ timestamp: T0, value: 9 }] }]);
  const [overwritten] = await retrieve(client, { items: [{ externalId: 'flow', start: T0, end: T0 + 1 }] });
  t.strictSame(plain(overwritten!.datapoints), [{ timestamp: T0, value: 9 }], 'the same timestamp overwrites');
});

t.test('insert is all or nothing: unknown series, the 100 000-point cap, values that do not fit', async (t) => {
  const { org, token, client } = tenant();
  await createSeries(token, [{ externalId: 'a', valueType: 'FLOAT' }, { externalId: 'txt', valueType: 'TEXT' }]);
  const unknown = await sdkFailure(client.datapoints.insert([{ externalId: 'a', datapoints: [{ timestamp: T0, value: 1 }] }, { externalId: 'nope', datapoints: [{ timestamp: T0, value: 1 }] }, { id: 123456789, datapoints: [{ timestamp: T0, value: 1 }] }]));
  t.equal(unknown?.status, 400);
  t.strictSame(unknown?.missing, [{ externalId: 'nope' }, { id: 123456789 }]);
  const tooMany = await sdkFailure(client.datapoints.insert([{ externalId: 'a', datapoints: numbers(60_000) }, { externalId: 'a', datapoints: numbers(40_001, T0 + DAY) }]));
  t.equal(tooMany?.status, 400, 'over 100 000 points in one request');
  t.match(tooMany?.message, /100000/);
  const wrongType = await sdkFailure(client.datapoints.insert([{ externalId: 'a', datapoints: [{ timestamp: T0, value: 1 }] }, { externalId: 'a', datapoints: [{ timestamp: T0 + 1, value: 'not a number' }] }]));
  t.equal(wrongType?.status, 422, 'a string into a numeric series');
  const [a] = await retrieve(client, { items: [{ externalId: 'a' }], limit: 100_000 });
  t.strictSame(a!.datapoints, [], 'nothing of the refused requests was written');

  const raw = await srv.request('POST', `/api/v1/projects/${org}/timeseries/data`, { token, body: { items: [{ externalId: 'gone', datapoints: [{ timestamp: T0, value: 1 }] }] } });
  t.equal(raw.status, 400);
  t.strictSame(raw.body, { error: { code: 400, message: raw.body.error.message, missing: [{ externalId: 'gone' }] } }, 'CDF error body');
  const ok = await srv.request('POST', `/api/v1/projects/${org}/timeseries/data`, { token, body: { items: [{ externalId: 'txt', datapoints: [{ timestamp: T0, value: 'x' }] }] } });
  t.equal(ok.status, 200);
  t.strictSame(ok.body, {}, '200 {}');
});

t.test('retrieve: per-item over top-level options, CDF defaults, relative times, limits', async (t) => {
  const { token, client } = tenant();
  await createSeries(token, [{ externalId: 'a', valueType: 'FLOAT' }, { externalId: 'b', valueType: 'FLOAT' }, { externalId: 'recent', valueType: 'FLOAT' }]);
  await client.datapoints.insert([{ externalId: 'a', datapoints: numbers(300) }, { externalId: 'b', datapoints: numbers(300) }]);
  const [a, b] = await retrieve(client, { items: [{ externalId: 'a', limit: 5 }, { externalId: 'b', start: T0 + 10_000, end: T0 + 13_000 }], start: T0 + 100_000, limit: 50 });
  t.strictSame(plain(a!.datapoints), numbers(5, T0 + 100_000).map((p, i) => ({ ...p, value: 100 + i + 0.5 })), 'top-level start, item limit');
  t.ok(a!.nextCursor, 'more to come: a cursor');
  t.strictSame(plain(b!.datapoints).map((p) => p.timestamp), [T0 + 10_000, T0 + 11_000, T0 + 12_000], 'item start inclusive, end exclusive');
  const [whole] = await retrieve(client, { items: [{ externalId: 'a' }] });
  t.equal(whole!.datapoints.length, 100, 'start 0, end now, limit 100 by default');
  t.equal(whole!.datapoints[0]!.timestamp.getTime(), T0, 'ascending from the first point');

  const now = Date.now();
  await client.datapoints.insert([{ externalId: 'recent', datapoints: [
    { timestamp: now - 3 * DAY, value: 1 }, { timestamp: now - DAY, value: 2 }, { timestamp: now - 10 * 60_000, value: 3 }, { timestamp: now + HOUR, value: 4 },
  ] }]);
  const values = async (query: Record<string, unknown>) => plain((await retrieve(client, { items: [{ externalId: 'recent', ...query }] }))[0]!.datapoints).map((p) => p.value);
  t.strictSame(await values({ start: '2d-ago' }), [2, 3], 'since 2d-ago until now: the future point is left out');
  t.strictSame(await values({ start: '15m-ago', end: 'now' }), [3]);
  t.strictSame(await values({ start: '1w-ago', end: '2h-ahead' }), [1, 2, 3, 4]);
  t.strictSame(await values({ start: '4400m-ago', end: '36h-ago' }), [1], 'minutes and hours');
  t.strictSame(await values({ start: '270000s-ago', end: '2d-ago' }), [1], 'seconds');

  const bad = await sdkFailure(retrieve(client, { items: [{ externalId: 'a', start: 'yesterday' }] }));
  t.equal(bad?.status, 400);
  t.match(bad?.message, /items\.0\.start/);
  const overCap = await sdkFailure(retrieve(client, { items: [{ externalId: 'a', limit: 60_000 }, { externalId: 'b', limit: 40_001 }] }));
  t.equal(overCap?.status, 400, 'over 100 000 raw points over all items');
  t.match(overCap?.message, /100000/);
  const aggregates = await sdkFailure(retrieve(client, { items: [{ externalId: 'a' }], aggregates: ['avg'], granularity: '1h' }));
  t.equal(aggregates?.status, 400, 'SPEC\'s aggregate names are not CDF\'s');
  t.match(aggregates?.message, /aggregates/);
  const instance = await sdkFailure(retrieve(client, { items: [{ instanceId: { space: 's', externalId: 'x' } }] }));
  t.equal(instance?.status, 400);
  t.match(instance?.message, /instanceId/);
});

t.test('includeOutsidePoints: the point before start on the first page, the point at or after end on the last', async (t) => {
  const { token, client } = tenant();
  await createSeries(token, [{ externalId: 'a', valueType: 'FLOAT' }, { externalId: 'edge', valueType: 'FLOAT' }]);
  await client.datapoints.insert([{ externalId: 'a', datapoints: numbers(20, T0, HOUR) }, { externalId: 'edge', datapoints: numbers(3, T0, HOUR) }]);
  const times = (item: SdkItem) => item.datapoints.map((p) => (p.timestamp.getTime() - T0) / HOUR);
  const [whole] = await retrieve(client, { items: [{ externalId: 'a', start: T0 + 5 * HOUR + 1, end: T0 + 8 * HOUR }], includeOutsidePoints: true });
  t.strictSame(times(whole!), [5, 6, 7, 8]);
  const [first] = await retrieve(client, { items: [{ externalId: 'a', start: T0 + 5 * HOUR + 1, end: T0 + 12 * HOUR, limit: 3, includeOutsidePoints: true }] });
  t.strictSame(times(first!), [5, 6, 7, 8], 'first page: the point before, then the page');
  const [last] = await retrieve(client, { items: [{ externalId: 'a', start: T0 + 5 * HOUR + 1, end: T0 + 12 * HOUR, limit: 3, includeOutsidePoints: true, cursor: first!.nextCursor }] });
  t.strictSame(times(last!), [9, 10, 11, 12], 'last page: the page, then the point after');
  t.notOk(last!.nextCursor);
  const [none] = await retrieve(client, { items: [{ externalId: 'edge', start: T0 - DAY, end: T0 + DAY, includeOutsidePoints: true }] });
  t.strictSame(times(none!), [0, 1, 2], 'no points outside: just the range');
  const [off] = await retrieve(client, { items: [{ externalId: 'a', start: T0 + 5 * HOUR + 1, end: T0 + 8 * HOUR }] });
  t.strictSame(times(off!), [6, 7], 'off by default');
});

t.test('unknown and unreadable series: a 400 listing missing, or left out with ignoreUnknownIds; their points never appear', async (t) => {
  const { org, token } = tenant();
  const created = await srv.request('POST', '/datasets/create', { token, body: { items: [{ externalId: 'open', name: 'open' }, { externalId: 'closed', name: 'closed' }] } });
  t.equal(created.status, 201);
  const [open, closed] = created.body.items.map((i: { id: number }) => i.id) as [number, number];
  const ids = await createSeries(token, [{ externalId: 'seen', valueType: 'FLOAT', dataSetId: open }, { externalId: 'hidden', valueType: 'FLOAT', dataSetId: closed }]);
  const admin = cdfClient(srv, { org });
  await admin.datapoints.insert([{ externalId: 'seen', datapoints: [{ timestamp: T0, value: 1 }] }, { externalId: 'hidden', datapoints: [{ timestamp: T0, value: 99 }] }]);
  const limited = cdfClient(srv, { org, read: ['open'], write: ['open'] });

  const list = await sdkFailure(retrieve(limited, { items: [{ externalId: 'seen' }, { externalId: 'hidden' }, { id: ids['hidden'] }, { externalId: 'never' }] }));
  t.equal(list?.status, 400);
  t.strictSame(list?.missing, [{ externalId: 'hidden' }, { id: ids['hidden'] }, { externalId: 'never' }], 'unreadable reported exactly as unknown');
  const ignored = await retrieve(limited, { items: [{ externalId: 'hidden' }, { externalId: 'seen' }, { externalId: 'never' }], ignoreUnknownIds: true });
  t.strictSame(ignored.map((i) => i.externalId), ['seen']);
  t.strictSame(plain(ignored[0]!.datapoints), [{ timestamp: T0, value: 1 }]);

  const latest = await sdkFailure(limited.datapoints.retrieveLatest([{ externalId: 'hidden' }]));
  t.equal(latest?.status, 400);
  t.strictSame(latest?.missing, [{ externalId: 'hidden' }]);
  const latestIgnored = await limited.datapoints.retrieveLatest([{ id: ids['hidden'] }, { externalId: 'seen' }], { ignoreUnknownIds: true }) as SdkItem[];
  t.strictSame(latestIgnored.map((i) => i.externalId), ['seen']);

  const write = await sdkFailure(limited.datapoints.insert([{ externalId: 'seen', datapoints: [{ timestamp: T0 + 1, value: 2 }] }, { externalId: 'hidden', datapoints: [{ timestamp: T0 + 1, value: 2 }] }]));
  t.equal(write?.status, 400);
  t.strictSame(write?.missing, [{ externalId: 'hidden' }]);
  const remove = await sdkFailure(limited.datapoints.delete([{ externalId: 'hidden', inclusiveBegin: T0 }]));
  t.equal(remove?.status, 400);
  t.strictSame(remove?.missing, [{ externalId: 'hidden' }]);
  const raw = await srv.request('POST', `/api/v1/projects/${org}/timeseries/data/list`, { token: srv.token({ org, read: ['open'] }), body: { items: [{ externalId: 'hidden' }] } });
  t.notMatch(raw.text, /99/, 'no point of the unreadable series in the error');
  const [seen, hidden] = await retrieve(admin, { items: [{ externalId: 'seen' }, { externalId: 'hidden' }] });
  t.strictSame(plain(seen!.datapoints), [{ timestamp: T0, value: 1 }], 'the refused insert wrote nothing');
  t.strictSame(plain(hidden!.datapoints), [{ timestamp: T0, value: 99 }], 'the refused delete removed nothing');
});

t.test('retrieveLatest with before, relative times and series without points', async (t) => {
  const { token, client } = tenant();
  await createSeries(token, [{ externalId: 'a', valueType: 'FLOAT' }, { externalId: 'txt', valueType: 'TEXT' }, { externalId: 'empty', valueType: 'FLOAT' }]);
  const now = Date.now();
  await client.datapoints.insert([
    { externalId: 'a', datapoints: [{ timestamp: T0, value: 1 }, { timestamp: T0 + HOUR, value: 2 }, { timestamp: now - DAY, value: 3 }, { timestamp: now + DAY, value: 4 }] },
    { externalId: 'txt', datapoints: [{ timestamp: T0, value: 'first' }, { timestamp: T0 + HOUR, value: 'second' }] },
  ]);
  const latest = async (items: unknown[]) => (await client.datapoints.retrieveLatest(items) as SdkItem[]).map((i) => [i.externalId, plain(i.datapoints)]);
  t.strictSame(await latest([{ externalId: 'a' }]), [['a', [{ timestamp: now - DAY, value: 3 }]]], 'before defaults to now');
  t.strictSame(await latest([{ externalId: 'a', before: now + 2 * DAY }]), [['a', [{ timestamp: now + DAY, value: 4 }]]]);
  t.strictSame(await latest([{ externalId: 'a', before: T0 + HOUR }, { externalId: 'a', before: '2d-ago' }, { externalId: 'txt', before: T0 + HOUR + 1 }]), [
    ['a', [{ timestamp: T0, value: 1 }]], ['a', [{ timestamp: T0 + HOUR, value: 2 }]], ['txt', [{ timestamp: T0 + HOUR, value: 'second' }]],
  ], 'before is exclusive; one item per query, in order');
  t.strictSame(await latest([{ externalId: 'empty' }, { externalId: 'a', before: T0 }]), [['empty', []], ['a', []]], 'no point: empty datapoints');
  const unknown = await sdkFailure(client.datapoints.retrieveLatest([{ externalId: 'nope' }]));
  t.equal(unknown?.status, 400);
  t.strictSame(unknown?.missing, [{ externalId: 'nope' }]);
});

t.test('delete: ranges [inclusiveBegin, exclusiveEnd), and the single point at inclusiveBegin', async (t) => {
  const { token, client } = tenant();
  const ids = await createSeries(token, [{ externalId: 'a', valueType: 'FLOAT' }]);
  await client.datapoints.insert([{ externalId: 'a', datapoints: numbers(10) }]);
  t.strictSame(await client.datapoints.delete([{ id: ids['a'], inclusiveBegin: T0 + 2000, exclusiveEnd: T0 + 5000 }, { externalId: 'a', inclusiveBegin: T0 + 7000 }]), {});
  const [a] = await retrieve(client, { items: [{ externalId: 'a', start: T0, end: T0 + DAY }] });
  t.strictSame(plain(a!.datapoints).map((p) => (p.timestamp - T0) / 1000), [0, 1, 5, 6, 8, 9]);
  const unknown = await sdkFailure(client.datapoints.delete([{ externalId: 'nope', inclusiveBegin: T0 }]));
  t.equal(unknown?.status, 400);
  t.strictSame(unknown?.missing, [{ externalId: 'nope' }]);
});

t.test('a project that is not the token\'s is a 403; nothing is written or read', async (t) => {
  const { org, token, client } = tenant();
  await createSeries(token, [{ externalId: 'a', valueType: 'FLOAT' }]);
  await client.datapoints.insert([{ externalId: 'a', datapoints: [{ timestamp: T0, value: 1 }] }]);
  const other = cdfClient(srv, { org, project: srv.newTenant() });
  // One call at a time: a call made before the loop awaits it could reject with no handler yet.
  for (const [name, call] of [
    ['insert', () => other.datapoints.insert([{ externalId: 'a', datapoints: [{ timestamp: T0 + 1, value: 2 }] }])],
    ['retrieve', () => other.datapoints.retrieve({ items: [{ externalId: 'a' }] })],
    ['latest', () => other.datapoints.retrieveLatest([{ externalId: 'a' }])],
    ['delete', () => other.datapoints.delete([{ externalId: 'a', inclusiveBegin: T0 }])],
  ] as const) t.equal((await sdkFailure(call()))?.status, 403, name);
  const [a] = await retrieve(client, { items: [{ externalId: 'a' }] });
  t.strictSame(plain(a!.datapoints), [{ timestamp: T0, value: 1 }], 'nothing written, nothing deleted');
  const raw = await srv.request('POST', `/api/v1/projects/${srv.newTenant()}/timeseries/data/list`, { token, body: { items: [{ externalId: 'a' }] } });
  t.equal(raw.status, 403);
  t.equal(raw.body.error.code, 403);
  t.notOk('items' in raw.body);
});

t.test('CDF error bodies for bad input', async (t) => {
  const { org, token } = tenant();
  const post = (path: string, body: unknown) => srv.request('POST', `/api/v1/projects/${org}${path}`, { token, body });
  const cases: [string, string, unknown, number][] = [
    ['list without items', '/timeseries/data/list', {}, 400],
    ['list with a limit over 100 000', '/timeseries/data/list', { items: [{ externalId: 'a', limit: 100_001 }] }, 400],
    ['insert without items', '/timeseries/data', { items: [] }, 400],
    ['insert with a bad timestamp', '/timeseries/data', { items: [{ externalId: 'a', datapoints: [{ timestamp: 'x', value: 1 }] }] }, 400],
    ['latest with a bad before', '/timeseries/data/latest', { items: [{ externalId: 'a', before: '2 days ago' }] }, 400],
    ['delete without inclusiveBegin', '/timeseries/data/delete', { items: [{ externalId: 'a' }] }, 400],
  ];
  for (const [name, path, body, status] of cases) {
    const res = await post(path, body);
    t.equal(res.status, status, name);
    t.equal(res.body?.error?.code, status, `${name}: error.code`);
    t.type(res.body?.error?.message, 'string', `${name}: error.message`);
    t.notOk('type' in (res.body?.error ?? {}), `${name}: no SPEC type`);
  }
});

/** Every point of one series through the SDK, re-sending each nextCursor as the item's cursor. */
async function pageAll(t: Test, client: CdfClient, externalId: string, start: number, end: number): Promise<{ points: { timestamp: number; value: number | string }[]; pages: number }> {
  const points: { timestamp: number; value: number | string }[] = [];
  let cursor: string | undefined;
  for (let pages = 1; pages <= 100; pages++) {
    const [item] = await retrieve(client, { items: [{ externalId, start, end, limit: 100_000, ...(cursor ? { cursor } : {}) }] });
    if (!item) throw new Error('no item');
    points.push(...plain(item.datapoints));
    cursor = item.nextCursor;
    if (!cursor) return { points, pages };
  }
  t.fail('more than 100 pages');
  return { points, pages: 100 };
}

t.test('paging through 250 000 points with the SDK by re-sending nextCursor: every point once, as written', async (t) => {
  const { token, client } = tenant();
  await createSeries(token, [{ externalId: 'big', valueType: 'FLOAT' }]);
  const count = 250_000;
  const written = Array.from({ length: count }, (_, i) => ({ timestamp: T0 + i * 1000, value: Math.round(Math.sin(i) * 1e6) / 1e3 }));
  for (let from = 0; from < count; from += 100_000) await client.datapoints.insert([{ externalId: 'big', datapoints: written.slice(from, from + 100_000) }]);
  const { points, pages } = await pageAll(t, client, 'big', T0, T0 + count * 1000);
  t.equal(pages, 3, 'three pages of at most 100 000');
  t.equal(points.length, count);
  let mismatches = 0;
  for (let i = 0; i < count; i++) if (points[i]?.timestamp !== written[i]?.timestamp || points[i]?.value !== written[i]?.value) mismatches++;
  t.equal(mismatches, 0, 'every point as written, in order');
});
