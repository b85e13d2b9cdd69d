// Goal: a function with a target keeps that time series equal to its expression over its
// inputs' points (the error points left out) under inserts, overwrites, late points and
// deletes of the inputs, through chains of functions and changes of the function; the target
// is written by the function alone (a hand insert or delete is a 400 naming it); the function
// runs with its writer's grants, checked at every recompute: a target moved out of them stops
// the recompute, `targetStatus` says why, and moving it back resumes it.
// Method: one real server in this process, a fresh tenant per case, every write through the
// API. The expected target comes from the independent evaluator (api/testing/
// expression-oracle.ts) over the points the test wrote; the target is read back through
// /timeseries/data/list until it matches (or 30 s pass). fast-check draws the inputs' points
// and a sequence of writes and deletes.
import t from 'tap';
import fc from 'fast-check';
import { ROOMY_POLICY } from './testing/datapoints-fixture.ts';
import { assertErrorBody } from './testing/error-body.ts';
import { startTestServer, type TestResponse } from './testing/test-server.ts';
import { expected, inputsOf, print, type Node, type Point, type Series } from './testing/expression-oracle.ts';

const srv = await startTestServer({ serviceConfig: ROOMY_POLICY });
t.teardown(() => srv.close());

const T0 = Date.UTC(2024, 0, 1);
const SETTLE_MS = 30_000;

function tenant() {
  const org = srv.newTenant();
  return { org, token: srv.token({ org }) };
}

function ok(res: TestResponse, status: number): TestResponse {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status} ${res.text}`);
  return res;
}

async function createSeries(token: string, items: { externalId: string; valueType?: string; dataSetId?: number }[]): Promise<void> {
  ok(await srv.request('POST', '/timeseries/create', { token, body: { items: items.map((i) => ({ name: i.externalId, valueType: 'FLOAT', ...i })) } }), 201);
}

async function insert(token: string, externalId: string, points: Point[]): Promise<void> {
  ok(await srv.request('POST', '/timeseries/data', { token, body: { items: [{ externalId, datapoints: points }] } }), 204);
}

async function points(token: string, externalId: string): Promise<Point[]> {
  const res = ok(await srv.request('POST', '/timeseries/data/list', { token, body: { items: [{ externalId, start: 0, end: T0 * 2, limit: 100_000 }] } }), 200);
  return (res.body.items[0].datapoints as Point[]).map((p) => ({ timestamp: p.timestamp, value: Number(p.value) }));
}

/** The target's points once they equal `want` (or the last read after SETTLE_MS). */
async function settled(token: string, externalId: string, want: Point[], close = (a: number, b: number) => a === b): Promise<{ got: Point[]; same: boolean }> {
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    const got = await points(token, externalId);
    const same = got.length === want.length && got.every((p, i) => p.timestamp === want[i]!.timestamp && close(Number(p.value), Number(want[i]!.value)));
    if (same || Date.now() > deadline) return { got, same };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const near = (a: number, b: number) => a === b || Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/** The oracle's answer over all time, as the target stores it: error points left out. */
function want(node: Node, series: Series[]): Point[] {
  return expected(node, series, [...new Set(inputsOf(node))], 0, T0 * 2, 1_000_000).flatMap((a) => (a.value !== undefined ? [{ timestamp: a.timestamp, value: a.value }] : []));
}

/** The series' points after a write: later values replace earlier ones at a timestamp. */
function written(series: Series, points: Point[]): void {
  const byTs = new Map(series.points.map((p) => [p.timestamp, p]));
  for (const p of points) byTs.set(p.timestamp, p);
  series.points = [...byTs.values()].sort((a, b) => a.timestamp - b.timestamp);
}

async function createFunction(token: string, item: Record<string, unknown>, status = 201): Promise<TestResponse> {
  return ok(await srv.request('POST', '/functions/create', { token, body: { items: [{ name: String(item.externalId), ...item }] } }), status);
}

t.test('a target follows its inputs through inserts, overwrites, late points, deletes and isStep', async (t) => {
  const { org, token } = tenant();
  const a: Series = { externalId: 'a', valueType: 'FLOAT', isStep: false, points: [] };
  const b: Series = { externalId: 'b', valueType: 'FLOAT', isStep: false, points: [] };
  await createSeries(token, [{ externalId: 'a' }, { externalId: 'b' }, { externalId: 'avg' }]);
  const first = { a: [0, 10, 20, 30].map((s) => ({ timestamp: T0 + s * 1000, value: s })), b: [5, 15, 25].map((s) => ({ timestamp: T0 + s * 1000, value: -s })) };
  await insert(token, 'a', first.a);
  await insert(token, 'b', first.b);
  written(a, first.a);
  written(b, first.b);
  const node: Node = { op: '/', a: { op: '+', a: { input: 0 }, b: { input: 1 } }, b: { n: 2 } };
  const res = await createFunction(token, { externalId: 'f', expression: print(node, ['a', 'b']), target: { externalId: 'avg' } });
  t.same(res.body.items[0].targetStatus, null);
  let check = await settled(token, 'avg', want(node, [a, b]), near);
  t.ok(check.same, `computed over the history there was: ${JSON.stringify(check.got)}`);

  const steps: [string, () => Promise<void>][] = [
    ['a new point after the last', async () => { await insert(token, 'a', [{ timestamp: T0 + 40_000, value: 40 }]); written(a, [{ timestamp: T0 + 40_000, value: 40 }]); }],
    ['a late point between others', async () => { await insert(token, 'b', [{ timestamp: T0 + 11_000, value: 100 }]); written(b, [{ timestamp: T0 + 11_000, value: 100 }]); }],
    ['an overwrite', async () => { await insert(token, 'a', [{ timestamp: T0 + 20_000, value: -7 }]); written(a, [{ timestamp: T0 + 20_000, value: -7 }]); }],
    ['a delete of a range', async () => {
      ok(await srv.request('POST', '/timeseries/data/delete', { token, body: { items: [{ externalId: 'b', inclusiveBegin: T0 + 10_000, exclusiveEnd: T0 + 16_000 }] } }), 204);
      b.points = b.points.filter((p) => p.timestamp < T0 + 10_000 || p.timestamp >= T0 + 16_000);
    }],
    ['an input made stepwise', async () => {
      ok(await srv.request('POST', `/api/v1/projects/${org}/timeseries/update`, { token, body: { items: [{ externalId: 'b', update: { isStep: { set: true } } }] } }), 200);
      b.isStep = true;
    }],
  ];
  for (const [what, step] of steps) {
    await step();
    check = await settled(token, 'avg', want(node, [a, b]), near);
    t.ok(check.same, `${what}: ${JSON.stringify(check.got)} vs ${JSON.stringify(want(node, [a, b]))}`);
  }
});

t.test('the target is the oracle\'s answer after any sequence of writes and deletes', async (t) => {
  const seed = Number(process.env.FC_SEED ?? Date.now() % 1_000_000);
  t.comment(`fast-check seed ${seed}`);
  const op = fc.oneof(
    fc.record({ kind: fc.constant('write' as const), input: fc.integer({ min: 0, max: 1 }), offsets: fc.uniqueArray(fc.integer({ min: 0, max: 80 }), { minLength: 1, maxLength: 8 }), value: fc.integer({ min: -20, max: 20 }) }),
    fc.record({ kind: fc.constant('delete' as const), input: fc.integer({ min: 0, max: 1 }), from: fc.integer({ min: 0, max: 80 }), width: fc.integer({ min: 1, max: 30 }) }),
  );
  const expressions: Node[] = [
    { op: '-', a: { input: 0 }, b: { input: 1 } },
    { op: '/', a: { input: 0 }, b: { input: 1 } },
    { onError: { op: '/', a: { input: 0 }, b: { input: 1 } }, fallback: { n: -1 } },
    { fn: 'max', args: [{ input: 0 }, { op: '*', a: { input: 1 }, b: { n: 2 } }] },
  ];
  await fc.assert(fc.asyncProperty(fc.integer({ min: 0, max: expressions.length - 1 }), fc.boolean(), fc.array(op, { minLength: 1, maxLength: 6 }), async (e, step, ops) => {
    const { org, token } = tenant();
    const series: Series[] = [
      { externalId: 'x', valueType: 'FLOAT', isStep: false, points: [] },
      { externalId: 'y', valueType: 'FLOAT', isStep: step, points: [] },
    ];
    await createSeries(token, [{ externalId: 'x' }, { externalId: 'y' }, { externalId: 'out' }]);
    if (step) ok(await srv.request('POST', `/api/v1/projects/${org}/timeseries/update`, { token, body: { items: [{ externalId: 'y', update: { isStep: { set: true } } }] } }), 200);
    const node = expressions[e] as Node;
    await createFunction(token, { externalId: 'f', expression: print(node, ['x', 'y']), target: { externalId: 'out' } });
    for (const o of ops) {
      const s = series[o.input] as Series;
      if (o.kind === 'write') {
        const pts = o.offsets.map((off, i) => ({ timestamp: T0 + off * 1000, value: o.value + i }));
        await insert(token, s.externalId, pts);
        written(s, pts);
      } else {
        const [from, to] = [T0 + o.from * 1000, T0 + (o.from + o.width) * 1000];
        ok(await srv.request('POST', '/timeseries/data/delete', { token, body: { items: [{ externalId: s.externalId, inclusiveBegin: from, exclusiveEnd: to }] } }), 204);
        s.points = s.points.filter((p) => p.timestamp < from || p.timestamp >= to);
      }
    }
    const expect = want(node, series);
    const check = await settled(token, 'out', expect, near);
    if (!check.same) throw new Error(`target ${JSON.stringify(check.got)}\nexpected ${JSON.stringify(expect)}\nexpression ${print(node, ['x', 'y'])}`);
  }), { numRuns: 8, seed });
  t.pass('every drawn sequence ended with the target the oracle computes');
});

t.test('a target is written by its function alone', async (t) => {
  const { token } = tenant();
  await createSeries(token, [{ externalId: 'in' }, { externalId: 'kept' }]);
  await createFunction(token, { externalId: 'doubler', expression: "ts{externalId='in'} * 2", target: { externalId: 'kept' } });
  const insertRes = await srv.request('POST', '/timeseries/data', { token, body: { items: [{ externalId: 'in', datapoints: [{ timestamp: T0, value: 1 }] }, { externalId: 'kept', datapoints: [{ timestamp: T0, value: 5 }] }] } });
  t.equal(insertRes.status, 400, 'an insert naming the target');
  t.match(insertRes.body.error.message, /doubler/, 'names the function');
  t.same(await points(token, 'in'), [], 'nothing of the batch was written');
  const del = await srv.request('POST', '/timeseries/data/delete', { token, body: { items: [{ externalId: 'kept' }] } });
  t.equal(del.status, 400, 'a delete in the target');
  t.match(del.body.error.message, /doubler/);
  const self = await srv.request('POST', '/functions/create', { token, body: { items: [{ externalId: 'loop', name: 'loop', expression: "ts{externalId='in'} + 1", target: { externalId: 'in' } }] } });
  t.equal(self.status, 400, 'a function reading its own target');
});

t.test('kept targets cannot form a cycle, by create, by update or inside one batch', async (t) => {
  const { token } = tenant();
  await createSeries(token, [{ externalId: 'c-in' }, { externalId: 'c-a' }, { externalId: 'c-b' }, { externalId: 'c-c' }, { externalId: 'c-d' }]);
  await createFunction(token, { externalId: 'fa', expression: "ts{externalId='c-in'} + ts{externalId='c-c'}", target: { externalId: 'c-a' } });
  await createFunction(token, { externalId: 'fb', expression: "ts{externalId='c-a'} * 2", target: { externalId: 'c-b' } });
  const closing = await srv.request('POST', '/functions/create', { token, body: { items: [{ externalId: 'fc', name: 'fc', expression: "ts{externalId='c-b'} - 1", target: { externalId: 'c-c' } }] } });
  assertErrorBody(t, closing, { status: 400, fields: ['items.0'] }, 'a create closing fa -> fb -> fc -> fa');
  t.match(closing.body.error.message, /cycle/);
  t.notMatch(closing.body.error.message, /\bf[ab]\b/, 'the other functions are not named');
  ok(await srv.request('POST', '/functions/create', { token, body: { items: [{ externalId: 'fc', name: 'fc', expression: "ts{externalId='c-b'} - 1", target: { externalId: 'c-d' } }] } }), 201);
  const retarget = await srv.request('POST', '/functions/update', { token, body: { items: [{ externalId: 'fc', update: { target: { set: { externalId: 'c-c' } } } }] } });
  t.equal(retarget.status, 400, 'an update of the target closing it');
  const reexpress = await srv.request('POST', '/functions/update', { token, body: { items: [{ externalId: 'fa', update: { expression: { set: "ts{externalId='c-d'} / 2" } } }] } });
  t.equal(reexpress.status, 400, 'an update of the expression closing it (fa reads fc\'s target)');
  await createSeries(token, [{ externalId: 'g-x' }, { externalId: 'g-y' }]);
  const pair = await srv.request('POST', '/functions/create', { token, body: { items: [
    { externalId: 'g1', name: 'g1', expression: "ts{externalId='g-y'} + 1", target: { externalId: 'g-x' } },
    { externalId: 'g2', name: 'g2', expression: "ts{externalId='g-x'} + 1", target: { externalId: 'g-y' } },
  ] } });
  assertErrorBody(t, pair, { status: 400, fields: ['items.0', 'items.1'] }, 'two items of one batch reading each other\'s targets');
  const listed = ok(await srv.request('GET', '/functions?limit=100', { token }), 200);
  t.same(listed.body.items.map((f: { externalId: string }) => f.externalId).sort(), ['fa', 'fb', 'fc'], 'nothing of a refused batch was written');
  ok(await srv.request('POST', '/functions/update', { token, body: { items: [{ externalId: 'fc', update: { name: { set: 'renamed' } } }] } }), 200);
});

t.test('targets of other value types, inputs created later, chains and changed functions', async (t) => {
  const { token } = tenant();
  await createSeries(token, [{ externalId: 'src' }, { externalId: 'whole', valueType: 'BIGINT' }, { externalId: 'twice' }]);
  // The input is named before it exists: the target fills once it is created and written.
  await createFunction(token, { externalId: 'rounder', expression: "ts{externalId='late'} * 1.5", target: { externalId: 'whole' } });
  await createFunction(token, { externalId: 'chain', expression: "ts{externalId='whole'} * 2", target: { externalId: 'twice' } });
  await createSeries(token, [{ externalId: 'late' }]);
  await insert(token, 'late', [1, 3, -3, 5].map((v, i) => ({ timestamp: T0 + i * 1000, value: v })));
  const rounded = [2, 5, -5, 8].map((v, i) => ({ timestamp: T0 + i * 1000, value: v }));
  let check = await settled(token, 'whole', rounded);
  t.ok(check.same, `1.5, 4.5, -4.5, 7.5 rounded half away from zero into BIGINT: ${JSON.stringify(check.got)}`);
  check = await settled(token, 'twice', rounded.map((p) => ({ ...p, value: (p.value as number) * 2 })));
  t.ok(check.same, `a function reading another's target follows it: ${JSON.stringify(check.got)}`);
  ok(await srv.request('POST', '/timeseries/data/delete', { token, body: { items: [{ externalId: 'late', inclusiveBegin: T0 + 2000, exclusiveEnd: T0 + 4000 }] } }), 204);
  check = await settled(token, 'twice', rounded.slice(0, 2).map((p) => ({ ...p, value: (p.value as number) * 2 })));
  t.ok(check.same, `the points a target loses, the function reading it loses too: ${JSON.stringify(check.got)}`);
  ok(await srv.request('POST', '/functions/update', { token, body: { items: [{ externalId: 'rounder', update: { expression: { set: "ts{externalId='src'} - 1" } } }] } }), 200);
  await insert(token, 'src', [{ timestamp: T0 + 500, value: 10 }]);
  check = await settled(token, 'whole', [{ timestamp: T0 + 500, value: 9 }]);
  t.ok(check.same, `a changed expression recomputes the whole target, its old points gone: ${JSON.stringify(check.got)}`);
});

t.test('a recompute runs with the writer\'s grants and stops, saying why, once they no longer cover the target', async (t) => {
  const { org, token: admin } = tenant();
  const created = ok(await srv.request('POST', '/datasets/create', { token: admin, body: { items: [{ externalId: 'plant', name: 'plant' }, { externalId: 'other', name: 'other' }] } }), 201);
  const [plant, other] = created.body.items.map((d: { id: number }) => d.id) as [number, number];
  await createSeries(admin, [{ externalId: 'p', dataSetId: plant }, { externalId: 'q', dataSetId: plant }]);
  const writer = srv.token({ org, write: [plant] });
  await createFunction(writer, { externalId: 'copy', dataSetId: plant, expression: "ts{externalId='p'} + 0", target: { externalId: 'q' } });
  await insert(admin, 'p', [{ timestamp: T0, value: 1 }]);
  t.ok((await settled(admin, 'q', [{ timestamp: T0, value: 1 }])).same, 'kept with the writer\'s grants');
  ok(await srv.request('POST', '/timeseries/update', { token: admin, body: { items: [{ externalId: 'q', update: { dataSetId: { set: other } } }] } }), 200);
  await insert(admin, 'p', [{ timestamp: T0 + 1000, value: 2 }]);
  let status: { status?: string; reason?: string } | null = null;
  for (const deadline = Date.now() + SETTLE_MS; Date.now() < deadline && status === null;) {
    const res = ok(await srv.request('POST', '/functions/byids', { token: admin, body: { items: [{ externalId: 'copy' }] } }), 200);
    status = res.body.items[0].targetStatus;
    if (status === null) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  t.equal(status?.status, 'stopped', 'the record says the recompute stopped');
  t.match(status?.reason, /write access|not readable|gone/, `and why: ${status?.reason}`);
  t.same(await points(admin, 'q'), [{ timestamp: T0, value: 1 }], 'the target was not written without the grant');
  ok(await srv.request('POST', '/timeseries/update', { token: admin, body: { items: [{ externalId: 'q', update: { dataSetId: { set: plant } } }] } }), 200);
  await insert(admin, 'p', [{ timestamp: T0 + 2000, value: 3 }]);
  const check = await settled(admin, 'q', [1, 2, 3].map((v, i) => ({ timestamp: T0 + i * 1000, value: v })));
  t.ok(check.same, `back in reach, the whole target is caught up: ${JSON.stringify(check.got)}`);
  const res = ok(await srv.request('POST', '/functions/byids', { token: admin, body: { items: [{ externalId: 'copy' }] } }), 200);
  t.equal(res.body.items[0].targetStatus, null, 'and the status is cleared');
});
