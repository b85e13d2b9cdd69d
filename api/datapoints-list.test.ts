// Goal: POST /timeseries/data/list answers as SPEC "Data point retrieval details" and
// say: raw points in [start, end) (start inclusive, end exclusive), the most recent `limit`
// points when start is omitted, per-item cursor paging without loss or duplicates, top-level
// defaults; AVG/MIN/MAX/COUNT/SUM in UTC-aligned 1m/1h/1d buckets where overwritten and
// deleted points never count; exact BIGINT and decimal aggregates; TEXT COUNT only; MIXED
// numeric points only; the 400s and 404s; small answers with Content-Length, large ones chunked.
// Method: one real server in this process, a fresh tenant per test. The aggregate test keeps
// an independent model (a Map per series) of seeded random writes, overwrites and deletes,
// computes every bucket in plain JS and compares whole answers after each phase, before and
// after the rollup fold is forced (so both the rollup path and the dirty-hour path are read).
import t, { type Test } from 'tap';
import { assertErrorBody, type ExpectedError } from './testing/error-body.ts';
import { createSeries, readAllPoints, startDatapointServer, type Point } from './testing/datapoints-fixture.ts';
import { mulberry32 } from '../engine/testing/prng.ts';

const srv = await startDatapointServer();
t.teardown(() => srv.close());
const { call } = srv;
const store = srv.server.datapoints.store;

const T0 = Date.UTC(2023, 5, 1);
const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const GRANULARITY_MS = { '1m': MINUTE, '1h': HOUR, '1d': DAY } as const;
type Granularity = keyof typeof GRANULARITY_MS;

function tenant() {
  const org = srv.newTenant();
  return { org, token: srv.token({ org }) };
}

async function insert(t: Test, token: string, items: unknown[]): Promise<void> {
  const res = await call(t, 'POST', '/timeseries/data', { token, body: { items } });
  if (res.status !== 204) t.fail(`insert: ${res.status} ${res.text.slice(0, 500)}`);
}

async function list(t: Test, token: string, body: unknown) {
  return call(t, 'POST', '/timeseries/data/list', { token, body });
}

const pts = (count: number, start = T0, stepMs = 1000) => Array.from({ length: count }, (_, i) => ({ timestamp: start + i * stepMs, value: String(i) }));

t.test('raw: start inclusive, end exclusive; omitted start gives the most recent points, ascending', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, [{ externalId: 's', valueType: 'FLOAT' }, { externalId: 'empty', valueType: 'FLOAT' }]);
  const all = pts(150);
  await insert(t, token, [{ externalId: 's', datapoints: all }]);
  const check = async (name: string, query: Record<string, unknown>, expected: Point[], nextCursor = false) => {
    const res = await list(t, token, { items: [{ externalId: 's', ...query }] });
    t.equal(res.status, 200, `${name}: 200`);
    t.strictSame(res.body.items[0].datapoints, expected, `${name}: points`);
    t.equal(typeof res.body.items[0].nextCursor === 'string', nextCursor, `${name}: nextCursor ${nextCursor ? 'present' : 'absent'}`);
  };
  await check('start and end', { start: T0 + 2000, end: T0 + 5000 }, all.slice(2, 5));
  await check('start and end one ms off', { start: T0 + 1999, end: T0 + 5001 }, all.slice(2, 6));
  await check('start = end', { start: T0 + 2000, end: T0 + 2000 }, []);
  await check('ISO-8601 bounds', { start: new Date(T0 + 2000).toISOString(), end: new Date(T0 + 4000).toISOString() }, all.slice(2, 4));
  await check('epoch ms as a digit string', { start: String(T0 + 10_000), end: String(T0 + 12_000) }, all.slice(10, 12));
  await check('start only, limit', { start: T0 + 140_000, limit: 20 }, all.slice(140));
  await check('start only: default limit 100 and a cursor', { start: T0 }, all.slice(0, 100), true);
  await check('no bounds: the most recent 100 (default limit)', {}, all.slice(50), true);
  await check('no bounds, limit 3', { limit: 3 }, all.slice(147), true);
  await check('end only, limit 3', { end: T0 + 10_000, limit: 3 }, all.slice(7, 10), true);
  await check('no bounds, limit above the count', { limit: 1000 }, all);
  await check('a range before every point', { start: T0 - 10_000, end: T0 }, []);
  const empty = await list(t, token, { items: [{ externalId: 'empty' }] });
  t.strictSame(empty.body.items, [{ id: empty.body.items[0].id, externalId: 'empty', valueType: 'FLOAT', datapoints: [] }], 'a series without points: empty datapoints, no cursor');
});

t.test('a small answer goes with Content-Length in one piece, a large page chunked', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, [{ externalId: 's', valueType: 'FLOAT' }]);
  const all = pts(20_000);
  await insert(t, token, [{ externalId: 's', datapoints: all }]);
  const small = await list(t, token, { items: [{ externalId: 's', start: T0, end: T0 + 10_000 }] });
  t.equal(small.status, 200);
  t.equal(small.headers.get('content-length'), String(Buffer.byteLength(small.text)), 'Content-Length: the whole body');
  t.equal(small.headers.get('transfer-encoding'), null, 'not chunked');
  t.strictSame(small.body.items[0].datapoints, all.slice(0, 10));
  // 20,000 points are ~800 KB: past the joined answer's bound, sent as the chunks they are.
  const large = await list(t, token, { items: [{ externalId: 's', start: T0, limit: 20_000 }] });
  t.equal(large.status, 200);
  t.equal(large.headers.get('transfer-encoding'), 'chunked', 'chunked');
  t.strictSame(large.body.items[0].datapoints, all, 'every point');
});

t.test('raw paging: 2,500 points with limit 1000, no loss, no duplicates, per item', async (t) => {
  const { token } = tenant();
  const ids = await createSeries(srv, token, [{ externalId: 'p', valueType: 'BIGINT' }, { externalId: 'q', valueType: 'TEXT' }]);
  const all = pts(2500, T0, 7);
  const text = all.slice(0, 1200).map((p) => ({ timestamp: p.timestamp, value: `t${p.value}` }));
  await insert(t, token, [{ externalId: 'p', datapoints: all }, { externalId: 'q', datapoints: text }]);
  const walk = async (query: Record<string, unknown>) => {
    const got: Record<string, Point[]> = { p: [], q: [] };
    const sizes: Record<string, number[]> = { p: [], q: [] };
    const cursors: Record<string, string | undefined> = {};
    let pending = ['p', 'q'];
    for (let round = 0; pending.length > 0 && round < 10; round++) {
      const res = await list(t, token, { items: pending.map((externalId) => ({ externalId, limit: 1000, ...query, ...(cursors[externalId] ? { cursor: cursors[externalId] } : {}) })) });
      t.equal(res.status, 200, `page ${round}: 200`);
      for (const item of res.body.items as { externalId: string; datapoints: Point[]; nextCursor?: string }[]) {
        got[item.externalId]?.push(...item.datapoints);
        sizes[item.externalId]?.push(item.datapoints.length);
        cursors[item.externalId] = item.nextCursor;
      }
      pending = pending.filter((externalId) => cursors[externalId] !== undefined);
    }
    return { got, sizes };
  };
  const ranged = await walk({ start: T0, end: T0 + 2500 * 7 });
  t.strictSame(ranged.sizes, { p: [1000, 1000, 500], q: [1000, 200] }, 'page sizes');
  t.strictSame(ranged.got['p'], all, 'BIGINT: every point once, in order');
  t.strictSame(ranged.got['q'], text, 'TEXT: every point once, in order');
  const startOnly = await walk({ start: T0 + 7 });
  t.strictSame(startOnly.got['p'], all.slice(1), 'start only: paged to the end');
  // A cursor is bound to its walk: a raw cursor sent with an aggregate query is refused.
  const first = await list(t, token, { items: [{ id: ids['p'], start: T0, limit: 10 }] });
  const cursor = first.body.items[0].nextCursor as string;
  const wrongKind = await list(t, token, { items: [{ id: ids['p'], start: T0, aggregates: ['COUNT'], granularity: '1m', cursor }] });
  t.equal(wrongKind.status, 400, 'a raw cursor on an aggregate query: 400');
  const forged = await list(t, token, { items: [{ id: ids['p'], start: T0, cursor: 'not-a-cursor' }] });
  t.equal(forged.status, 400, 'a forged cursor: 400');
});

t.test('top-level start, end, limit, aggregates and granularity are defaults for every item', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, [{ externalId: 'a', valueType: 'FLOAT' }, { externalId: 'b', valueType: 'FLOAT' }]);
  const all = pts(10);
  await insert(t, token, [{ externalId: 'a', datapoints: all }, { externalId: 'b', datapoints: all }]);
  const res = await list(t, token, { start: T0 + 1000, end: T0 + 8000, limit: 3, items: [{ externalId: 'a' }, { externalId: 'b', limit: 10, end: T0 + 5000 }] });
  t.equal(res.status, 200);
  t.strictSame(res.body.items.map((i: { datapoints: Point[] }) => i.datapoints), [all.slice(1, 4), all.slice(1, 5)], 'item fields override the top level');
  const agg = await list(t, token, { aggregates: ['COUNT', 'SUM'], granularity: '1m', start: T0, end: T0 + MINUTE, items: [{ externalId: 'a' }, { externalId: 'b', aggregates: ['MAX'] }] });
  t.strictSame(agg.body.items.map((i: { datapoints: unknown[] }) => i.datapoints), [[{ timestamp: T0, count: 10, sum: '45' }], [{ timestamp: T0, max: '9' }]], 'top-level aggregates; only the requested fields appear');
});

t.test('400s and 404s, one case per line', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, [{ externalId: 's', valueType: 'FLOAT' }, { externalId: 'txt', valueType: 'TEXT' }]);
  await insert(t, token, [{ externalId: 's', datapoints: pts(3) }, { externalId: 'txt', datapoints: [{ timestamp: T0, value: 'a' }, { timestamp: T0 + 1, value: 'b' }] }]);
  const check = async (name: string, body: Record<string, unknown>, expected: ExpectedError | 200) => {
    const res = await list(t, token, body);
    if (expected === 200) t.equal(res.status, 200, `${name}: 200`);
    else assertErrorBody(t, res, expected, name);
    return res;
  };
  const s = { externalId: 's' };
  await check('granularity without aggregates', { items: [{ ...s, granularity: '1h' }] }, { status: 400, fields: ['items.0.granularity'] });
  await check('aggregates without granularity', { items: [{ ...s, aggregates: ['AVG'] }] }, { status: 400, fields: ['items.0.aggregates'] });
  await check('top-level granularity without aggregates', { granularity: '1h', items: [s] }, { status: 400, fields: ['items.0.granularity'] });
  await check('start after end', { items: [{ ...s, start: T0 + 2, end: T0 + 1 }] }, { status: 400, fields: ['items.0.start'] });
  await check('start after end on aggregates', { items: [{ ...s, start: T0 + 2, end: T0 + 1, aggregates: ['COUNT'], granularity: '1m' }] }, { status: 400, fields: ['items.0.start'] });
  await check('start after end, second item', { items: [s, { ...s, start: '2024-01-02T00:00:00Z', end: '2024-01-01T00:00:00Z' }] }, { status: 400, fields: ['items.1.start'] });
  await check('bad start bound', { items: [{ ...s, start: 'yesterday' }] }, { status: 400, fields: ['items.0.start'] });
  await check('bad end bound', { items: [{ ...s, end: '2024-13-45' }] }, { status: 400, fields: ['items.0.end'] });
  await check('unknown granularity', { items: [{ ...s, aggregates: ['AVG'], granularity: '2x' }] }, { status: 400, fields: ['items.0.granularity'] });
  await check('granularity over its unit\'s limit', { items: [{ ...s, aggregates: ['AVG'], granularity: '121m' }] }, { status: 400, fields: ['items.0.granularity'] });
  await check('unknown time zone', { items: [{ ...s, aggregates: ['AVG'], granularity: '1d', timeZone: 'Mars/Base' }] }, { status: 400, fields: ['items.0.timeZone'] });
  await check('offset off 15 minutes', { items: [{ ...s, aggregates: ['AVG'], granularity: '1d', timeZone: '+05:20' }] }, { status: 400, fields: ['items.0.timeZone'] });
  await check('timeZone without aggregates', { items: [{ ...s, timeZone: 'UTC' }] }, { status: 400, fields: ['items.0.timeZone'] });
  await check('unknown aggregate', { items: [{ ...s, aggregates: ['MEDIAN'], granularity: '1h' }] }, { status: 400, fields: ['items.0.aggregates.0'] });
  await check('limit 0', { items: [{ ...s, limit: 0 }] }, { status: 400, fields: ['items.0.limit'] });
  await check('raw limit 100000', { items: [{ ...s, limit: 100_000 }] }, 200);
  await check('raw limit 100001', { items: [{ ...s, limit: 100_001 }] }, { status: 400, fields: ['items.0.limit'] });
  await check('aggregate limit 10000', { items: [{ ...s, limit: 10_000, aggregates: ['COUNT'], granularity: '1m' }] }, 200);
  await check('aggregate limit 10001', { items: [{ ...s, limit: 10_001, aggregates: ['COUNT'], granularity: '1m' }] }, { status: 400, fields: ['items.0.limit'] });
  await check('no items', { items: [] }, { status: 400, fields: ['items'] });
  await check('TEXT COUNT', { items: [{ externalId: 'txt', aggregates: ['COUNT'], granularity: '1h', start: T0 }] }, 200);
  for (const aggregate of ['AVG', 'MIN', 'MAX', 'SUM']) {
    await check(`TEXT ${aggregate}`, { items: [{ externalId: 'txt', aggregates: ['COUNT', aggregate], granularity: '1h' }] }, { status: 400, fields: ['items.0.aggregates'] });
  }
  const missing = await check('unknown series', { items: [s, { externalId: 'nope' }, { id: 9_007_199_254_740_991 }] }, { status: 404 });
  t.strictSame(missing.body.error.missing, [{ externalId: 'nope' }, { id: 9_007_199_254_740_991 }], 'missing lists them');
  const ignored = await check('ignoreUnknownIds', { ignoreUnknownIds: true, items: [{ externalId: 'nope' }, s] }, 200);
  t.strictSame(ignored.body.items.map((i: { externalId: string }) => i.externalId), ['s'], 'unknown ones left out');
  const textCount = await list(t, token, { items: [{ externalId: 'txt', aggregates: ['COUNT'], granularity: '1h', start: T0 }] });
  t.strictSame(textCount.body.items[0].datapoints, [{ timestamp: T0, count: 2 }], 'TEXT COUNT counts the text points');
});

t.test('the timestamp window edges, points before 1970, bounds far outside the window', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, [{ externalId: 'edge', valueType: 'FLOAT' }]);
  const MIN = -2_208_988_800_000;
  const MAX = 4_102_444_799_999;
  const edges = [MIN, -DAY - 1, -1, 0, MAX].map((timestamp, i) => ({ timestamp, value: String(i + 1) }));
  await insert(t, token, [{ externalId: 'edge', datapoints: edges }]);
  const check = async (phase: string) => {
    const raw = await list(t, token, { items: [{ externalId: 'edge', start: MIN, end: MAX + 1 }, { externalId: 'edge' }, { externalId: 'edge', start: -9_007_199_254_740_991, end: 9_007_199_254_740_991 }] });
    t.equal(raw.status, 200, `${phase}: raw 200`);
    t.strictSame(raw.body.items.map((i: { datapoints: Point[] }) => i.datapoints), [edges, edges, edges], `${phase}: raw over the whole window, without bounds, and with bounds far outside it`);
    const agg = await list(t, token, { aggregates: ['COUNT', 'SUM'], items: [
      { externalId: 'edge', granularity: '1d', start: -9_007_199_254_740_991, end: 9_007_199_254_740_991 },
      { externalId: 'edge', granularity: '1h', start: -2 * DAY, end: HOUR },
      { externalId: 'edge', granularity: '1m', start: -2 * DAY, end: MINUTE },
    ] });
    t.equal(agg.status, 200, `${phase}: aggregates 200`);
    t.strictSame(agg.body.items.map((i: { datapoints: unknown[] }) => i.datapoints), [
      [{ timestamp: MIN, count: 1, sum: '1' }, { timestamp: -2 * DAY, count: 1, sum: '2' }, { timestamp: -DAY, count: 1, sum: '3' }, { timestamp: 0, count: 1, sum: '4' }, { timestamp: MAX + 1 - DAY, count: 1, sum: '5' }],
      [{ timestamp: -DAY - HOUR, count: 1, sum: '2' }, { timestamp: -HOUR, count: 1, sum: '3' }, { timestamp: 0, count: 1, sum: '4' }],
      [{ timestamp: -DAY - MINUTE, count: 1, sum: '2' }, { timestamp: -MINUTE, count: 1, sum: '3' }, { timestamp: 0, count: 1, sum: '4' }],
    ], `${phase}: buckets before 1970 are floored, not truncated toward zero`);
  };
  await check('raw');
  await store.runMaintenance({ includeHot: true });
  await check('folded');
});

t.test('one series in several items, each with its own query; 100 items at most', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, [{ externalId: 's', valueType: 'FLOAT' }]);
  await insert(t, token, [{ externalId: 's', datapoints: Array.from({ length: 48 }, (_, i) => ({ timestamp: T0 + i * HOUR / 2, value: String(i) })) }]);
  const res = await list(t, token, { items: [
    { externalId: 's', start: T0, end: T0 + 2 * HOUR, granularity: '1h', aggregates: ['COUNT', 'SUM'] },
    { externalId: 's', start: T0 + 10 * HOUR, end: T0 + 11 * HOUR, granularity: '1m', aggregates: ['COUNT'] },
    { externalId: 's', start: T0, end: T0 + DAY, granularity: '1d', aggregates: ['MAX'] },
    { externalId: 's', start: T0 + 5 * HOUR, end: T0 + 6 * HOUR },
    { externalId: 's', start: T0 + 20 * HOUR, end: T0 + 22 * HOUR, granularity: '1h', aggregates: ['SUM'], limit: 1 },
  ] });
  t.strictSame(res.body.items.map((i: { datapoints: unknown[] }) => i.datapoints), [
    [{ timestamp: T0, count: 2, sum: '1' }, { timestamp: T0 + HOUR, count: 2, sum: '5' }],
    [{ timestamp: T0 + 10 * HOUR, count: 1 }, { timestamp: T0 + 10 * HOUR + 30 * MINUTE, count: 1 }],
    [{ timestamp: T0, max: '47' }],
    [{ timestamp: T0 + 5 * HOUR, value: '10' }, { timestamp: T0 + 5 * HOUR + 30 * MINUTE, value: '11' }],
    [{ timestamp: T0 + 20 * HOUR, sum: '81' }],
  ], 'each item answers its own query');
  t.type(res.body.items[4].nextCursor, 'string', 'the limited item pages on');
  t.notOk('nextCursor' in res.body.items[0], 'the others do not');
  t.equal((await list(t, token, { items: Array.from({ length: 100 }, () => ({ externalId: 's', limit: 1 })) })).status, 200, '100 items: 200');
  assertErrorBody(t, await list(t, token, { items: Array.from({ length: 101 }, () => ({ externalId: 's' })) }), { status: 400, fields: ['items'] }, '101 items');
});

// ---- the aggregate model ------------------------------------------------------------------


/** A stored value as the model keeps it: FLOAT/MIXED numbers, BIGINT bigints, NUMERIC micro-units, MIXED text. */
type ModelValue = { kind: 'float'; value: number } | { kind: 'int'; value: bigint } | { kind: 'scaled'; value: bigint } | { kind: 'text'; value: string };
type Model = Map<number, ModelValue>;

const MODEL_SERIES = [
  { externalId: 'f', valueType: 'FLOAT' },
  { externalId: 'i', valueType: 'BIGINT' },
  { externalId: 'n', valueType: 'NUMERIC' },
  { externalId: 'm', valueType: 'MIXED' },
] as const;

function formatScaled6(v: bigint): string {
  const negative = v < 0n;
  const digits = (negative ? -v : v).toString().padStart(7, '0');
  const fraction = digits.slice(-6).replace(/0+$/, '');
  return `${negative ? '-' : ''}${digits.slice(0, -6)}${fraction ? `.${fraction}` : ''}`;
}

function textOf(v: ModelValue): string {
  if (v.kind === 'scaled') return formatScaled6(v.value);
  return String(v.value);
}

function randomValue(valueType: string, random: () => number): ModelValue {
  const k = Math.floor(random() * 800_001) - 400_000;
  if (valueType === 'FLOAT') return { kind: 'float', value: k / 4 };
  if (valueType === 'BIGINT') return { kind: 'int', value: BigInt(k) * 1000n + BigInt(Math.floor(random() * 1000)) };
  if (valueType === 'NUMERIC') return { kind: 'scaled', value: BigInt(k) * 1_000_000n + BigInt(Math.floor(random() * 1_000_000)) };
  return random() < 0.3 ? { kind: 'text', value: `t${k}` } : { kind: 'float', value: k / 4 };
}

interface Bucket { timestamp: number; count?: number; sum?: string; min?: string; max?: string; average?: string }

/** Buckets starting in [floor(start), end), each over all its live numeric points (types.ts AggregateOptions). */
function modelBuckets(model: Model, valueType: string, granularityMs: number, start: number, end: number): Bucket[] {
  const from = Math.floor(start / granularityMs) * granularityMs;
  const groups = new Map<number, ModelValue[]>();
  for (const [ts, v] of model) {
    if (v.kind === 'text') continue;
    const b = Math.floor(ts / granularityMs) * granularityMs;
    if (b < from || b >= end) continue;
    groups.set(b, [...(groups.get(b) ?? []), v]);
  }
  return [...groups.entries()].sort((a, b) => a[0] - b[0]).map(([timestamp, values]) => {
    const count = values.length;
    if (valueType === 'FLOAT' || valueType === 'MIXED') {
      const numbers = values.map((v) => v.value as number);
      const sum = numbers.reduce((a, b) => a + b, 0);
      return { timestamp, count, sum: String(sum), min: String(Math.min(...numbers)), max: String(Math.max(...numbers)), average: String(sum / count) };
    }
    const ints = values.map((v) => v.value as bigint);
    const sum = ints.reduce((a, b) => a + b, 0n);
    const min = ints.reduce((a, b) => (b < a ? b : a));
    const max = ints.reduce((a, b) => (b > a ? b : a));
    if (valueType === 'BIGINT') return { timestamp, count, sum: String(sum), min: String(min), max: String(max), average: String(Number(sum) / count) };
    const magnitude = sum < 0n ? -sum : sum;
    const rounded = (magnitude * 2n + BigInt(count)) / (BigInt(count) * 2n);
    return { timestamp, count, sum: formatScaled6(sum), min: formatScaled6(min), max: formatScaled6(max), average: formatScaled6(sum < 0n ? -rounded : rounded) };
  });
}

t.test('aggregates match an independent computation over random writes, overwrites and deletes', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, MODEL_SERIES.map((s) => ({ ...s })));
  const random = mulberry32(20_240_601);
  const models: Record<string, Model> = Object.fromEntries(MODEL_SERIES.map((s) => [s.externalId, new Map()]));
  const SPAN = 3 * DAY;
  const randomTs = () => {
    const r = random();
    // A share of the points sit on bucket edges: the first and last ms of a minute, hour, day.
    if (r < 0.05) return T0 + Math.floor(random() * 72) * HOUR;
    if (r < 0.1) return T0 + Math.floor(random() * 72) * HOUR - 1;
    if (r < 0.15) return T0 + Math.floor(random() * 3 * 1440) * MINUTE + MINUTE - 1;
    return T0 + Math.floor(random() * SPAN);
  };

  /** Sends `count` points per series (new or at existing timestamps) and applies them to the model in order. */
  const write = async (count: number, pickTs: (model: Model) => number) => {
    const items = MODEL_SERIES.map(({ externalId, valueType }) => {
      const model = models[externalId] as Model;
      const datapoints = Array.from({ length: count }, () => {
        const ts = pickTs(model);
        const v = randomValue(valueType, random);
        model.set(ts, v);
        return { timestamp: ts, value: v.kind === 'float' && random() < 0.5 ? v.value : textOf(v) };
      });
      return { externalId, datapoints };
    });
    await insert(t, token, items);
  };
  const existing = (model: Model) => {
    const keys = [...model.keys()];
    return keys[Math.floor(random() * keys.length)] as number;
  };
  const deleteRange = async (externalId: string, begin: number, end: number, iso = false) => {
    const res = await call(t, 'POST', '/timeseries/data/delete', {
      token, body: { items: [{ externalId, inclusiveBegin: iso ? new Date(begin).toISOString() : begin, exclusiveEnd: iso ? new Date(end).toISOString() : end }] },
    });
    t.equal(res.status, 204, `delete ${externalId} [${begin - T0}, ${end - T0}): 204`);
    const model = models[externalId] as Model;
    for (const ts of [...model.keys()]) if (ts >= begin && ts < end) model.delete(ts);
  };

  const ranges: [string, number, number][] = [
    ['whole span', T0 - DAY, T0 + 4 * DAY],
    ['unaligned', T0 + 5 * HOUR + 17 * MINUTE + 3_001, T0 + 2 * DAY + 7 * HOUR + 1],
    ['one ms', T0 + 30 * HOUR, T0 + 30 * HOUR + 1],
  ];
  const compare = async (phase: string) => {
    for (const [name, start, end] of ranges) {
      for (const granularity of Object.keys(GRANULARITY_MS) as Granularity[]) {
        const res = await list(t, token, {
          start, end, granularity, aggregates: ['AVG', 'MIN', 'MAX', 'COUNT', 'SUM'], limit: 10_000,
          items: MODEL_SERIES.map(({ externalId }) => ({ externalId })),
        });
        t.equal(res.status, 200, `${phase}, ${name}, ${granularity}: 200`);
        for (const [k, { externalId, valueType }] of MODEL_SERIES.entries()) {
          const expected = modelBuckets(models[externalId] as Model, valueType, GRANULARITY_MS[granularity], start, end);
          t.strictSame(res.body.items[k]?.datapoints, expected, `${phase}, ${name}, ${granularity}, ${valueType}: ${expected.length} buckets`);
        }
      }
    }
    for (const { externalId } of MODEL_SERIES) {
      const expected = [...(models[externalId] as Model).entries()].sort((a, b) => a[0] - b[0]).map(([timestamp, v]) => ({ timestamp, value: textOf(v) }));
      t.strictSame(await readAllPoints(t, call, token, { externalId }), expected, `${phase}, raw ${externalId}: ${expected.length} points`);
    }
    const latest = await call(t, 'POST', '/timeseries/data/latest', { token, body: { items: MODEL_SERIES.map(({ externalId }) => ({ externalId })) } });
    const expectedLatest = MODEL_SERIES.flatMap(({ externalId }) => {
      const model = models[externalId] as Model;
      if (model.size === 0) return [];
      const ts = Math.max(...model.keys());
      return [{ externalId, datapoints: [{ timestamp: ts, value: textOf(model.get(ts) as ModelValue) }] }];
    });
    t.strictSame(latest.body.items.map((i: { externalId: string; datapoints: Point[] }) => ({ externalId: i.externalId, datapoints: i.datapoints })), expectedLatest, `${phase}: latest`);
  };
  const fold = async () => {
    await store.runMaintenance({ includeHot: true });
  };

  for (let batch = 0; batch < 3; batch++) await write(400, () => randomTs());
  await compare('after inserts');
  await fold();
  await compare('after inserts, folded');
  await write(250, existing);
  await write(100, () => randomTs());
  await compare('after overwrites on folded hours');
  await deleteRange('f', T0 + 3 * HOUR, T0 + 9 * HOUR);
  await deleteRange('i', T0 + 25 * HOUR + 12 * MINUTE + 7, T0 + 26 * HOUR + 44_444, true);
  await deleteRange('n', T0 + DAY, T0 + 2 * DAY);
  await deleteRange('m', T0 + 30 * HOUR, T0 + 30 * HOUR + 1);
  await deleteRange('m', T0 + 40 * HOUR + 1, T0 + 50 * HOUR - 1, true);
  await compare('after deletes');
  await write(150, () => (random() < 0.5 ? T0 + DAY + Math.floor(random() * DAY) : randomTs()));
  await compare('after writes into deleted ranges');
  await fold();
  await compare('after deletes and rewrites, folded');
  await write(80, existing);
  await deleteRange('f', T0 + 60 * HOUR, T0 + 61 * HOUR);
  await compare('after overwrites and a delete on folded hours');
  await fold();
  await compare('final, folded');

  // Aggregate paging: 1m buckets 250 at a time give the one-shot answer.
  const oneShot = await list(t, token, { items: [{ externalId: 'f', start: T0, end: T0 + SPAN, granularity: '1m', aggregates: ['SUM', 'COUNT'], limit: 10_000 }] });
  const pages: Bucket[] = [];
  let cursor: string | undefined;
  let pageCount = 0;
  do {
    const res = await list(t, token, { items: [{ externalId: 'f', start: T0, end: T0 + SPAN, granularity: '1m', aggregates: ['SUM', 'COUNT'], limit: 250, ...(cursor ? { cursor } : {}) }] });
    pages.push(...res.body.items[0].datapoints);
    cursor = res.body.items[0].nextCursor;
    pageCount++;
  } while (cursor && pageCount < 100);
  t.ok(pageCount > 2, `paged in ${pageCount} pages`);
  t.strictSame(pages, oneShot.body.items[0].datapoints, 'aggregate pages: no loss, no duplicates');
});

t.test('BIGINT MIN, MAX and SUM are exact beyond 2^53 (SUM beyond 2^63 too), raw and folded', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, [{ externalId: 'big', valueType: 'BIGINT' }, { externalId: 'dec', valueType: 'NUMERIC' }, { externalId: 'd32', valueType: 'DECIMAL32' }]);
  const MAX = 2n ** 63n - 1n;
  const MIN = -(2n ** 63n);
  const values = [MAX, MAX, MAX - 2n, 9_007_199_254_740_993n];
  const negative = [MIN, MIN + 1n, -9_007_199_254_740_993n];
  await insert(t, token, [
    { externalId: 'big', datapoints: [...values.map((v, i) => ({ timestamp: T0 + i, value: String(v) })), ...negative.map((v, i) => ({ timestamp: T0 + DAY + i, value: String(v) }))] },
    { externalId: 'dec', datapoints: ['999999999999.999999', '999999999999.999999', '0.000001', '-0.000003'].map((value, i) => ({ timestamp: T0 + i, value })) },
    { externalId: 'd32', datapoints: ['999999.999', '999999.999', '0.001', '0.002'].map((value, i) => ({ timestamp: T0 + i, value })) },
  ]);
  const sum = (list: bigint[]) => list.reduce((a, b) => a + b, 0n);
  const check = async (phase: string) => {
    for (const granularity of ['1m', '1h', '1d'] as const) {
      const res = await list(t, token, { items: [{ externalId: 'big' }, { externalId: 'dec' }, { externalId: 'd32' }], start: T0, end: T0 + 2 * DAY, granularity, aggregates: ['MIN', 'MAX', 'SUM', 'COUNT', 'AVG'] });
      const [big, dec, d32] = res.body.items as { datapoints: Bucket[] }[];
      const [positive, negativeBucket] = big?.datapoints ?? [];
      t.match(positive, { timestamp: T0, count: 4, min: '9007199254740993', max: String(MAX), sum: String(sum(values)) }, `${phase} ${granularity}: positive bucket exact`);
      t.match(negativeBucket, { timestamp: T0 + DAY, count: 3, min: String(MIN), max: '-9007199254740993', sum: String(sum(negative)) }, `${phase} ${granularity}: negative bucket exact`);
      t.equal(Number(positive?.average), Number(sum(values)) / 4, `${phase} ${granularity}: AVG as a double`);
      t.strictSame(dec?.datapoints, [{ timestamp: T0, count: 4, min: '-0.000003', max: '999999999999.999999', sum: '1999999999999.999996', average: '499999999999.999999' }], `${phase} ${granularity}: NUMERIC exact (AVG rounded half away from zero)`);
      t.strictSame(d32?.datapoints, [{ timestamp: T0, count: 4, min: '0.001', max: '999999.999', sum: '2000000.001', average: '500000' }], `${phase} ${granularity}: DECIMAL32 exact`);
    }
  };
  await check('raw');
  await store.runMaintenance({ includeHot: true });
  await check('folded');
});

t.test('MIXED aggregates its numeric points only', async (t) => {
  const { token } = tenant();
  await createSeries(srv, token, [{ externalId: 'mix', valueType: 'MIXED' }]);
  await insert(t, token, [{ externalId: 'mix', datapoints: [
    { timestamp: T0, value: 'on' }, { timestamp: T0 + 1, value: '2.5' }, { timestamp: T0 + 2, value: 7 }, { timestamp: T0 + 3, value: '12' },
    { timestamp: T0 + MINUTE, value: 'only text' },
  ] }]);
  for (const granularity of ['1m', '1h'] as const) {
    const res = await list(t, token, { items: [{ externalId: 'mix', start: T0, end: T0 + HOUR, granularity, aggregates: ['COUNT', 'SUM', 'MIN', 'MAX', 'AVG'] }] });
    t.strictSame(res.body.items[0].datapoints, [{ timestamp: T0, count: 3, sum: '21.5', min: '2.5', max: '12', average: String(21.5 / 3) }], `${granularity}: text points never count; a text-only bucket is absent`);
  }
});
