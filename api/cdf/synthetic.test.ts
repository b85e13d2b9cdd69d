// Goal: POST /timeseries/synthetic/query answers, through the unmodified @cognite/sdk
// (timeseries.syntheticQuery), what CDF's synthetic time series language means: inputs aligned
// on the union of their timestamps, each linear input interpolated between its points and each
// stepwise one held, constants, + - * / ^, every function, on_error and map, errors as `error`
// points; a bad expression is a 400 naming its character offset; a missing or unreadable input
// is the same 400 listing it; a tenant reads only its own series.
// Method: one real server in this process, a fresh tenant per case. An independent evaluator
// here (plain JavaScript over the points the test wrote, sharing no code with the engine)
// gives the expected answer; fast-check draws series (FLOAT and BIGINT, linear or stepwise),
// irregular points, a window and an expression tree printed as text.
import t from 'tap';
import fc from 'fast-check';
import { ROOMY_POLICY } from '../testing/datapoints-fixture.ts';
import { startTestServer } from '../testing/test-server.ts';
import { cdfClient, sdkFailure, type CdfClient } from './testing/cdf-client.ts';
import { expected, inputsOf, print, sameAnswers, valueAt, type Answer, type Node, type Series } from '../testing/expression-oracle.ts';

const srv = await startTestServer({ serviceConfig: ROOMY_POLICY });
t.teardown(() => srv.close());

const T0 = Date.UTC(2024, 0, 1);


function tenant() {
  const org = srv.newTenant();
  return { org, token: srv.token({ org }), client: cdfClient(srv, { org }) as CdfClient };
}

async function write(token: string, client: CdfClient, series: Series[], dataSetId?: number): Promise<void> {
  const created = await srv.request('POST', '/timeseries/create', {
    token, body: { items: series.map((s) => ({ externalId: s.externalId, name: s.externalId, valueType: s.valueType, ...(dataSetId ? { dataSetId } : {}) })) },
  });
  if (created.status !== 201) throw new Error(`creating series: ${created.status} ${created.text}`);
  // isStep is CDF's field: set through CDF's update.
  const stepwise = series.filter((s) => s.isStep).map((s) => ({ externalId: s.externalId, update: { isStep: { set: true } } }));
  if (stepwise.length > 0) await client.timeseries.update(stepwise);
  const items = series.filter((s) => s.points.length > 0).map((s) => ({ externalId: s.externalId, datapoints: s.points }));
  if (items.length > 0) await client.datapoints.insert(items);
}

async function query(client: CdfClient, expression: string, start: number, end: number, limit = 10_000): Promise<Answer[]> {
  const [item] = await client.timeseries.syntheticQuery([{ expression, start, end, limit }]);
  return (item.datapoints as { timestamp: Date; value?: number; error?: string }[]).map((p) => ({ timestamp: p.timestamp.getTime(), ...(p.error !== undefined ? { error: p.error } : { value: p.value }) }));
}

// ---- arbitraries ----

const INPUTS = 3;

const node: fc.Arbitrary<Node> = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.integer({ min: -5, max: 9 }).map((n) => ({ n })),
    fc.integer({ min: 0, max: INPUTS - 1 }).map((input) => ({ input })),
    fc.integer({ min: 0, max: INPUTS - 1 }).map((input) => ({ input })),
    tie('node').map((a) => ({ neg: a })),
    fc.record({ op: fc.constantFrom('+', '-', '*', '/', '^'), a: tie('node'), b: tie('node') }) as fc.Arbitrary<Node>,
    fc.record({ fn: fc.constantFrom('sin', 'cos', 'sqrt', 'abs', 'ln', 'log10', 'floor', 'ceil'), args: tie('node').map((a) => [a]) }),
    fc.record({ fn: fc.constant('round'), args: tie('node').map((a) => [a]), decimals: fc.integer({ min: -2, max: 3 }) }),
    fc.record({ fn: fc.constant('pow'), args: fc.tuple(tie('node'), tie('node')) }),
    fc.record({ fn: fc.constantFrom('max', 'min', 'sum', 'avg'), args: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ onError: tie('node'), fallback: tie('node') }),
  ),
})).node;

const seriesArbitrary = fc.array(
  fc.record({
    valueType: fc.constantFrom('FLOAT' as const, 'BIGINT' as const),
    isStep: fc.boolean(),
    offsets: fc.uniqueArray(fc.integer({ min: 0, max: 60 }), { maxLength: 12 }),
    values: fc.array(fc.integer({ min: -50, max: 50 }), { minLength: 12, maxLength: 12 }),
  }),
  { minLength: INPUTS, maxLength: INPUTS },
).map((specs) => specs.map((s, k): Series => ({
  externalId: `in-${k}`, valueType: s.valueType, isStep: s.isStep,
  points: s.offsets.map((o, i) => ({ timestamp: T0 + o * 1000, value: s.valueType === 'FLOAT' ? (s.values[i] as number) / 4 : (s.values[i] as number) })),
})));

t.test('expressions over aligned inputs answer what the reference evaluator computes', async (t) => {
  const seed = Number(process.env.FC_SEED ?? Date.now() % 1_000_000);
  t.comment(`fast-check seed ${seed}`);
  await fc.assert(fc.asyncProperty(seriesArbitrary, node, fc.integer({ min: -5, max: 40 }), fc.integer({ min: 1, max: 70 }), fc.integer({ min: 1, max: 30 }), async (series, expression, from, span, limit) => {
    const { token, client } = tenant();
    await write(token, client, series);
    const names = series.map((s) => s.externalId);
    const [start, end] = [T0 + from * 1000, T0 + (from + span) * 1000];
    const got = await query(client, print(expression, names), start, end, limit);
    const mismatch = sameAnswers(got, expected(expression, series, [...new Set(inputsOf(expression))], start, end, limit));
    if (mismatch) throw new Error(`${print(expression, names)} over [${start - T0}, ${end - T0}) s: ${mismatch}`);
  }), { numRuns: 40, seed });
  t.pass('every drawn expression agreed');
});

t.test('CDF\'s examples: unit conversion, the sum of two series, on_error over a division by zero, map over a string series', async (t) => {
  const { token, client } = tenant();
  await write(token, client, [
    { externalId: 'wind-speed', valueType: 'FLOAT', isStep: false, points: [{ timestamp: T0, value: 10 }, { timestamp: T0 + 2000, value: 20 }] },
    { externalId: 'other', valueType: 'FLOAT', isStep: true, points: [{ timestamp: T0 + 1000, value: 0 }, { timestamp: T0 + 3000, value: 2 }] },
    { externalId: 'valve', valueType: 'TEXT', isStep: false, points: [{ timestamp: T0, value: 'OPEN' }, { timestamp: T0 + 1000, value: 'CLOSED' }, { timestamp: T0 + 2000, value: 'STUCK' }] },
  ]);
  t.strictSame(await query(client, "3.6 * TS{externalId='wind-speed'}", T0, T0 + 10_000), [{ timestamp: T0, value: 36 }, { timestamp: T0 + 2000, value: 72 }], 'unit conversion at the input\'s points');
  t.strictSame(await query(client, "ts{externalId='wind-speed'} + ts{externalId=\"other\"}", T0, T0 + 10_000), [
    { timestamp: T0 + 1000, value: 15 }, { timestamp: T0 + 2000, value: 20 },
  ], 'aligned on the union: the linear input interpolated at 1 s, the stepwise one held at 2 s; nothing before the step series starts or after the linear one ends');
  const divided = await query(client, "1 / ts{externalId='other'}", T0, T0 + 10_000);
  t.equal(divided[0]?.timestamp, T0 + 1000);
  t.match(divided[0], { error: /division by zero/ }, 'a division by zero is an error point');
  t.strictSame(divided[1], { timestamp: T0 + 3000, value: 0.5 });
  t.strictSame(await query(client, "on_error(1 / ts{externalId='other'}, -1)", T0, T0 + 10_000), [{ timestamp: T0 + 1000, value: -1 }, { timestamp: T0 + 3000, value: 0.5 }], 'on_error replaces it');
  t.strictSame(await query(client, "map(TS{externalId='valve'}, ['OPEN', 'CLOSED'], [1, 0], -1)", T0, T0 + 10_000), [
    { timestamp: T0, value: 1 }, { timestamp: T0 + 1000, value: 0 }, { timestamp: T0 + 2000, value: -1 },
  ], 'map turns a string series into numbers, the default for the rest');
  t.strictSame(await query(client, 'pi() + 1', T0, T0 + 10_000), [], 'constants alone have no timestamps');
});

t.test('an aggregate input stands as its buckets\' values, one at each bucket\'s start, linear between them', async (t) => {
  const { token, client } = tenant();
  const HOUR = 3_600_000;
  const temp: Series = {
    externalId: 'temp', valueType: 'FLOAT', isStep: false,
    points: Array.from({ length: 60 }, (_, i) => ({ timestamp: T0 + i * 600_000, value: 20 + ((i * 7) % 11) / 2 })),
  };
  await write(token, client, [temp]);
  const [retrieved] = await client.datapoints.retrieve({ items: [{ externalId: 'temp' }], aggregates: ['average'], granularity: '1h', start: T0 - HOUR, end: T0 + 11 * HOUR });
  const buckets: Series = { externalId: 'buckets', valueType: 'FLOAT', isStep: false, points: (retrieved.datapoints as { timestamp: Date; average: number }[]).map((p) => ({ timestamp: p.timestamp.getTime(), value: p.average })) };
  t.equal(buckets.points.length, 10, 'ten hourly buckets');
  const doubled = await query(client, "ts{externalId='temp', aggregate='average', granularity='1h'} * 2", T0, T0 + 10 * HOUR);
  t.strictSame(doubled, buckets.points.map((p) => ({ timestamp: p.timestamp, value: (p.value as number) * 2 })), 'each bucket at its start');
  const [start, end] = [T0 + HOUR / 2, T0 + 5 * HOUR];
  const difference = await query(client, "ts{externalId='temp'} - ts{externalId='temp', aggregate='average', granularity='1h'}", start, end);
  const want = temp.points.map((p) => p.timestamp).concat(buckets.points.map((p) => p.timestamp)).filter((ts, i, all) => ts >= start && ts < end && all.indexOf(ts) === i).sort((a, b) => a - b)
    .map((ts) => ({ timestamp: ts, value: (valueAt(temp, ts) as number) - (valueAt(buckets, ts) as number) }));
  const mismatch = sameAnswers(difference, want);
  t.equal(mismatch, undefined, 'raw points less the hourly average, interpolated between bucket starts');
  const misaligned = await sdkFailure(query(client, "ts{externalId='temp', aggregate='average', granularity='1h', alignment=1800000}", T0, T0 + HOUR));
  t.equal(misaligned?.status, 400, 'an alignment is refused until it is evaluated');
});

t.test('a bad expression is a 400 naming its character offset; unknown, unreadable and other tenants\' series are one 400', async (t) => {
  const { org, token, client } = tenant();
  const created = await srv.request('POST', '/datasets/create', { token, body: { items: [{ externalId: 'open', name: 'open' }, { externalId: 'closed', name: 'closed' }] } });
  const [open, closed] = created.body.items.map((i: { id: number }) => i.id) as [number, number];
  await write(token, client, [{ externalId: 'seen', valueType: 'FLOAT', isStep: false, points: [{ timestamp: T0, value: 1 }] }], open);
  await write(token, client, [{ externalId: 'secret', valueType: 'FLOAT', isStep: false, points: [{ timestamp: T0, value: 987 }] }], closed);
  const cases: [string, RegExp][] = [
    ["ts{externalId='seen'} +", /at character 23: expected a number, ts\{\.\.\.\}, a function call or '\(', found the end of the expression/],
    ["foo(ts{externalId='seen'})", /at character 0: unknown function foo/],
    ["ts{externalId='seen', id=3}", /at character 0: .*one of id or externalId/],
    ['max()', /at character 0: max takes at least 1 argument,/],
    ['1 $ 2', /at character 2: unexpected character/],
  ];
  for (const [expression, message] of cases) {
    const failure = await sdkFailure(query(client, expression, T0, T0 + 1000));
    t.equal(failure?.status, 400, `${expression}: 400`);
    t.match(failure?.message, message, `${expression}: names where and what`);
  }
  const unknown = await sdkFailure(query(client, "ts{externalId='seen'} + ts{externalId='nowhere'}", T0, T0 + 1000));
  t.equal(unknown?.status, 400);
  t.strictSame(unknown?.missing, [{ externalId: 'nowhere' }], 'an unknown input is listed');
  const limited = cdfClient(srv, { org, read: ['open'] }) as CdfClient;
  t.strictSame(await query(limited, "2 * ts{externalId='seen'}", T0, T0 + 1000), [{ timestamp: T0, value: 2 }], 'a readable input is read');
  const unreadable = await sdkFailure(query(limited, "ts{externalId='seen'} + ts{externalId='secret'}", T0, T0 + 1000));
  t.equal(unreadable?.status, 400, 'a series in a data set the caller cannot read is unknown');
  t.strictSame(unreadable?.missing, [{ externalId: 'secret' }]);
  t.notMatch(unreadable?.message ?? '', /987/, 'none of its points in the error');
  const other = tenant();
  const foreign = await sdkFailure(query(other.client, "ts{externalId='seen'}", T0, T0 + 1000));
  t.equal(foreign?.status, 400, 'another tenant\'s series is unknown');
  t.strictSame(foreign?.missing, [{ externalId: 'seen' }]);
});
