// Goal: POST /timeseries/filter and /timeseries/search follow SPEC "Time series filter":
// patterns (`*` and `%` wildcards, `_` literal, case-insensitive, exact without wildcard),
// labels, metadata with null values, units, valueType, inclusive time ranges, data sets with
// descendants, sort by every sortable property with the id tie-break and nulls last
// ascending, cursor paging that visits each record once while records are inserted, limit
// rules; fuzzy search ranked by relevance with the id tie-break and the filter applied.
// Method: one real server, a fresh tenant per test with a handful of series; a local check()
// per test runs one request per line and compares externalIds; expected sort orders are
// computed in the test from the records and compared with the service's. Every 2xx is
// checked against its response schema.
import t, { type Test } from 'tap';
import { assertErrorBody } from './testing/error-body.ts';
import { schemaCheckedRequest } from './testing/response-schema.ts';
import { startTestServer } from './testing/test-server.ts';

const srv = await startTestServer();
t.teardown(() => srv.close());
const call = schemaCheckedRequest(srv);

interface Series { id: number; externalId: string; createdTime: number; lastUpdatedTime: number; [field: string]: unknown }

function tenant() {
  const org = srv.newTenant();
  return { org, token: srv.token({ org }) };
}

async function create(t: Test, token: string, items: Record<string, unknown>[]): Promise<Series[]> {
  const res = await call(t, 'POST', '/timeseries/create', { token, body: { items: items.map((i) => ({ name: i['externalId'], valueType: 'FLOAT', ...i })) } });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
  return res.body.items;
}

async function dataSets(t: Test, token: string, items: Record<string, unknown>[]): Promise<{ id: number }[]> {
  const res = await call(t, 'POST', '/datasets/create', { token, body: { items: items.map((i) => ({ name: i['externalId'], ...i })) } });
  if (res.status !== 201) throw new Error(`data sets: ${res.status} ${res.text}`);
  return res.body.items;
}

/** Resolves once the clock has passed `ms`, so the next write gets a later timestamp. */
async function after(ms: number): Promise<void> {
  while (Date.now() <= ms) await new Promise((resolve) => setImmediate(resolve));
}

const externalIds = (res: { body: { items?: { externalId: string }[] } }) => (res.body.items ?? []).map((i) => i.externalId);

/** A filter check: the externalIds found, as a set. */
function filterChecker(t: Test, token: string) {
  return async (filter: unknown, expected: string[]) => {
    const res = await call(t, 'POST', '/timeseries/filter', { token, body: { filter } });
    t.equal(res.status, 200, `${JSON.stringify(filter)}: 200`);
    t.strictSame(externalIds(res).sort(), [...expected].sort(), `${JSON.stringify(filter)} → ${JSON.stringify(expected)}`);
  };
}

t.test('filter: patterns, labels, metadata, units, valueType, ids', async (t) => {
  const { token } = tenant();
  await create(t, token, [
    { externalId: 'a_b', name: 'Pump station', labels: ['x', 'y'], metadata: { site: 'oslo', line: '1' }, unit: 'degC', unitExternalId: 'temperature:deg_c', source: 'Historian-A' },
    { externalId: 'axb', name: 'pump', labels: ['x'], metadata: { site: 'bergen' }, unit: 'bar', unitExternalId: 'pressure:bar', valueType: 'TEXT' },
    { externalId: 'Pump-01', name: 'Valve 100%', metadata: { site: 'oslo' } },
    { externalId: 'PUMP_03', name: 'Valve 1000', source: 'historian-b', valueType: 'BIGINT' },
  ]);
  const check = filterChecker(t, token);
  await check({ externalId: 'a_b' }, ['a_b']);
  await check({ externalId: 'A_B' }, ['a_b']);
  await check({ externalId: 'a*' }, ['a_b', 'axb']);
  await check({ externalId: 'a%' }, ['a_b', 'axb']);
  await check({ externalId: 'a_*' }, ['a_b']);
  await check({ externalId: '*_0*' }, ['PUMP_03']);
  await check({ externalId: 'pump*' }, ['Pump-01', 'PUMP_03']);
  await check({ externalId: 'pump-01' }, ['Pump-01']);
  await check({ externalId: 'pump' }, []);
  await check({ externalId: ['axb', 'pump-01'] }, ['axb', 'Pump-01']);
  await check({ name: 'pump' }, ['axb']);
  await check({ name: 'PUMP*' }, ['a_b', 'axb']);
  await check({ name: 'valve 100%' }, ['Pump-01', 'PUMP_03']);
  await check({ name: '*station' }, ['a_b']);
  await check({ source: 'historian-*' }, ['a_b', 'PUMP_03']);
  await check({ labels: ['x', 'y'] }, ['a_b']);
  await check({ labels: 'x' }, ['a_b', 'axb']);
  await check({ labels: ['x', 'z'] }, []);
  await check({ metadata: { site: null } }, ['a_b', 'axb', 'Pump-01']);
  await check({ metadata: { site: 'oslo' } }, ['a_b', 'Pump-01']);
  await check({ metadata: { site: 'oslo', line: null } }, ['a_b']);
  await check({ metadata: { site: 'oslo', line: '2' } }, []);
  await check({ unit: 'DEGC' }, ['a_b']);
  await check({ unitExternalId: 'temperature:*' }, ['a_b']);
  await check({ unitExternalId: ['*:bar', 'temperature:deg_c'] }, ['a_b', 'axb']);
  await check({ valueType: 'text' }, ['axb']);
  await check({ valueType: 'Float' }, ['a_b', 'Pump-01']);
  await check({ valueType: 'BIGINT', externalId: 'pump*' }, ['PUMP_03']);
  await check({}, ['a_b', 'axb', 'Pump-01', 'PUMP_03']);
  const unknown = await call(t, 'POST', '/timeseries/filter', { token, body: { filter: { valueType: 'DOUBLE' } } });
  assertErrorBody(t, unknown, { status: 400, fields: ['filter.valueType'] }, 'unknown valueType');
  const unknownField = await call(t, 'POST', '/timeseries/filter', { token, body: { filter: { colour: 'red' } } });
  assertErrorBody(t, unknownField, { status: 400 }, 'unknown filter property');
  const farFuture = await call(t, 'POST', '/timeseries/filter', { token, body: { filter: { createdTime: { min: 1e30 } } } });
  assertErrorBody(t, farFuture, { status: 400, fields: ['filter.createdTime.min'] }, 'a time beyond 2^53-1');
  const nul = await call(t, 'POST', '/timeseries/filter', { token, body: { filter: { name: 'a\u0000' } } });
  assertErrorBody(t, nul, { status: 422, fields: ['filter.name'] }, 'a NUL character in a pattern');
  const all = await call(t, 'POST', '/timeseries/filter', { token, body: {} });
  const [first, second] = all.body.items as Series[];
  await check({ id: first?.id }, [first?.externalId as string]);
  await check({ id: [first?.id, second?.id, 987654321] }, [first?.externalId as string, second?.externalId as string]);
});

t.test('filter: data sets with descendants, inclusive time ranges', async (t) => {
  const { token } = tenant();
  const [parent, child, other] = await dataSets(t, token, [{ externalId: 'P' }, { externalId: 'C', parentExternalId: 'P' }, { externalId: 'O' }]);
  const [r1] = await create(t, token, [{ externalId: 'in-p', dataSetId: parent?.id }, { externalId: 'in-c', dataSetId: child?.id }, { externalId: 'in-o', dataSetId: other?.id }, { externalId: 'none' }]);
  await after((r1 as Series).createdTime);
  const [r2] = await create(t, token, [{ externalId: 'later' }]);
  await after((r2 as Series).createdTime);
  const [r3] = await create(t, token, [{ externalId: 'latest' }]);
  await after((r3 as Series).createdTime);
  const updated = await call(t, 'POST', '/timeseries/update', { token, body: { items: [{ externalId: 'none', update: { description: { set: 'touched' } } }] } });
  const touched = updated.body.items[0] as Series;
  const check = filterChecker(t, token);
  await check({ dataSetId: { id: parent?.id } }, ['in-p', 'in-c']);
  await check({ dataSetId: { externalId: 'P' } }, ['in-p', 'in-c']);
  await check({ dataSetId: { externalId: 'C' } }, ['in-c']);
  await check({ dataSetId: [{ id: other?.id }, { externalId: 'C' }] }, ['in-o', 'in-c']);
  await check({ dataSetId: { id: 987654321 } }, []);
  await check({ dataSetId: { externalId: 'no-such' } }, []);
  const c2 = (r2 as Series).createdTime;
  await check({ createdTime: { min: c2, max: c2 } }, ['later']);
  await check({ createdTime: { min: c2 } }, ['later', 'latest']);
  await check({ createdTime: { min: c2 + 1 } }, ['latest']);
  await check({ createdTime: { max: c2 - 1 } }, ['in-p', 'in-c', 'in-o', 'none']);
  await check({ lastUpdatedTime: { min: touched.lastUpdatedTime, max: touched.lastUpdatedTime } }, ['none']);
  await check({ lastUpdatedTime: { max: touched.lastUpdatedTime - 1 }, createdTime: { max: c2 - 1 } }, ['in-p', 'in-c', 'in-o']);
});

const SORTABLE = ['id', 'externalId', 'name', 'source', 'description', 'createdTime', 'lastUpdatedTime', 'dataSetId'] as const;

/** SPEC sort: the property, nulls last ascending (first descending), then id. */
function expectedOrder(records: Series[], property: string, order: 'asc' | 'desc'): number[] {
  const value = (r: Series) => (r[property] ?? null) as string | number | null;
  const ascending = (a: Series, b: Series) => {
    const av = value(a);
    const bv = value(b);
    let c = av === null || bv === null ? Number(av === null) - Number(bv === null) : av < bv ? -1 : av > bv ? 1 : 0;
    if (c === 0) c = a.id - b.id;
    return c;
  };
  return [...records].sort((a, b) => (order === 'asc' ? ascending(a, b) : ascending(b, a))).map((r) => r.id);
}

async function walk(t: Test, token: string, body: Record<string, unknown>, between?: (page: number) => Promise<void>): Promise<number[]> {
  const seen: number[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const res = await call(t, 'POST', '/timeseries/filter', { token, body: { ...body, ...(cursor ? { cursor } : {}) } });
    if (res.status !== 200) throw new Error(`page ${page}: ${res.status} ${res.text}`);
    seen.push(...res.body.items.map((i: Series) => i.id));
    cursor = res.body.nextCursor;
    if (!cursor) return seen;
    await between?.(page);
  }
  throw new Error('more than 100 pages');
}

t.test('filter: sort by each property both ways, id tie-break, paged and unpaged', async (t) => {
  const { token } = tenant();
  const [ds1, ds2] = await dataSets(t, token, [{ externalId: 'ds1' }, { externalId: 'ds2' }]);
  await create(t, token, [
    { externalId: 'e3', name: 'bravo', source: 'sa', description: 'dd', dataSetId: ds1?.id },
    { externalId: 'e1', name: 'alpha', description: 'aa' },
    { externalId: 'e5', name: 'bravo', source: 'sb', dataSetId: ds2?.id },
  ]);
  const second = await create(t, token, [
    { externalId: 'e2', name: 'charlie', source: 'sa', description: 'aa', dataSetId: ds1?.id },
    { externalId: 'e4', name: 'alpha' },
  ]);
  await after((second[0] as Series).createdTime);
  await call(t, 'POST', '/timeseries/update', { token, body: { items: [{ externalId: 'e1', update: { metadata: { add: { k: 'v' } } } }] } });
  const records = (await call(t, 'POST', '/timeseries/filter', { token, body: {} })).body.items as Series[];
  t.equal(records.length, 5);
  t.strictSame(records.map((r) => r.id), expectedOrder(records, 'createdTime', 'desc'), 'default: newest created first, then id descending');
  for (const property of SORTABLE) {
    for (const order of ['asc', 'desc'] as const) {
      const expected = expectedOrder(records, property, order);
      const res = await call(t, 'POST', '/timeseries/filter', { token, body: { sort: { property, order } } });
      t.strictSame(res.body.items.map((i: Series) => i.id), expected, `sort ${property} ${order}`);
      t.strictSame(await walk(t, token, { sort: { property, order }, limit: 2 }), expected, `sort ${property} ${order}, pages of 2`);
    }
  }
  const cdfStyle = await call(t, 'POST', '/timeseries/filter', { token, body: { sort: [{ property: ['name'], order: 'desc' }] } });
  t.strictSame(cdfStyle.body.items.map((i: Series) => i.id), expectedOrder(records, 'name', 'desc'), 'sort as an array with property as an array');
  const noOrder = await call(t, 'POST', '/timeseries/filter', { token, body: { sort: { property: 'name' } } });
  t.strictSame(noOrder.body.items.map((i: Series) => i.id), expectedOrder(records, 'name', 'asc'), 'order defaults to asc');
  const notSortable = await call(t, 'POST', '/timeseries/filter', { token, body: { sort: { property: 'unit' } } });
  assertErrorBody(t, notSortable, { status: 400 }, 'sort by a property that is not sortable');
});

t.test('filter: cursor paging visits every record once while records are inserted', async (t) => {
  const { token } = tenant();
  const original = await create(t, token, ['b', 'd', 'f', 'h', 'j'].map((name) => ({ externalId: `o-${name}`, name })));
  const originalIds = original.map((r) => r.id);
  const inserted: number[] = [];
  const insert = (names: string[]) => async (page: number) => {
    if (page !== 0) return;
    inserted.push(...(await create(t, token, names.map((name) => ({ externalId: `n-${name}`, name })))).map((r) => r.id));
  };
  const byName = await walk(t, token, { sort: { property: 'name', order: 'asc' }, limit: 2 }, insert(['a', 'e', 'z']));
  t.strictSame(byName.filter((id) => originalIds.includes(id)), originalIds, 'by name: every original record once, in order');
  t.strictSame(byName.filter((id) => !originalIds.includes(id)), [inserted[1], inserted[2]], 'by name: records inserted behind the cursor are seen once, those before it never');
  inserted.length = 0;
  const existing = (await call(t, 'POST', '/timeseries/filter', { token, body: {} })).body.items.map((i: Series) => i.id) as number[];
  const byDefault = await walk(t, token, { limit: 2 }, insert(['k', 'l']));
  t.strictSame(byDefault, existing, 'newest first: every record that existed at the first page, once, in order');
  t.notOk(byDefault.some((id) => inserted.includes(id)), 'newest first: records created after the first page are not in the walk');
  inserted.length = 0;
  const byId = await walk(t, token, { sort: { property: 'id', order: 'asc' }, limit: 3 }, insert(['m']));
  t.equal(new Set(byId).size, byId.length, 'by id: no record twice');
  t.strictSame(byId.slice(-1), inserted, 'by id: the inserted record comes last, once');
  const first = await call(t, 'POST', '/timeseries/filter', { token, body: { limit: 1, sort: { property: 'name', order: 'asc' } } });
  t.type(first.body.nextCursor, 'string', 'a full page carries nextCursor');
  const otherSort = await call(t, 'POST', '/timeseries/filter', { token, body: { limit: 1, sort: { property: 'name', order: 'desc' }, cursor: first.body.nextCursor } });
  assertErrorBody(t, otherSort, { status: 400, fields: ['cursor'] }, 'a cursor with another sort');
  const noSort = await call(t, 'POST', '/timeseries/filter', { token, body: { limit: 1, cursor: first.body.nextCursor } });
  assertErrorBody(t, noSort, { status: 400, fields: ['cursor'] }, 'a cursor without its sort');
  const garbage = await call(t, 'POST', '/timeseries/filter', { token, body: { cursor: 'not-a-cursor' } });
  assertErrorBody(t, garbage, { status: 400, fields: ['cursor'] }, 'an undecodable cursor');
  const forged = (state: unknown) => Buffer.from(JSON.stringify(state)).toString('base64url');
  const tampered = async (sort: unknown, state: unknown, name: string) => {
    const res = await call(t, 'POST', '/timeseries/filter', { token, body: { sort, cursor: forged(state) } });
    assertErrorBody(t, res, { status: 400, fields: ['cursor'] }, name);
  };
  await tampered(undefined, { s: 'createdTime:desc', n: false, v: 'abc', i: 1 }, 'a cursor with text for a number');
  await tampered(undefined, { s: 'createdTime:desc', n: false, v: 1, i: 1e30 }, 'a cursor with an id out of range');
  await tampered({ property: 'name' }, { s: 'name:asc', n: false, v: { a: 1 }, i: 1 }, 'a cursor with an object value');
  await tampered({ property: 'name' }, { s: 'name:asc', n: false, v: 'a\u0000', i: 1 }, 'a cursor with a NUL character');
  await tampered(undefined, null, 'a cursor of null');
  const last = await call(t, 'POST', '/timeseries/filter', { token, body: { limit: 1000 } });
  t.notOk('nextCursor' in last.body, 'a short page has no nextCursor');
});

t.test('filter and search: limit rules', async (t) => {
  const { token } = tenant();
  await create(t, token, Array.from({ length: 1001 }, (_, i) => ({ externalId: `s-${i}`, name: `sensor ${i}` })));
  const check = async (path: string, body: Record<string, unknown>, expected: number | 400) => {
    const res = await call(t, 'POST', path, { token, body });
    if (expected === 400) return assertErrorBody(t, res, { status: 400, fields: ['limit'] }, `${path} ${JSON.stringify(body)}`);
    t.equal(res.status, 200, `${path} ${JSON.stringify(body)}: 200`);
    t.equal(res.body.items.length, expected, `${path} ${JSON.stringify(body)}: ${expected} items`);
  };
  await check('/timeseries/filter', {}, 1000);
  await check('/timeseries/filter', { limit: 1 }, 1);
  await check('/timeseries/filter', { limit: 10_000 }, 1001);
  await check('/timeseries/filter', { limit: 0 }, 400);
  await check('/timeseries/filter', { limit: 10_001 }, 400);
  await check('/timeseries/filter', { limit: 'abc' }, 400);
  await check('/timeseries/filter', { limit: 1.5 }, 400);
  await check('/timeseries/search', { search: { query: 'sensor' } }, 100);
  await check('/timeseries/search', { search: { query: 'sensor' }, limit: 1000 }, 1000);
  await check('/timeseries/search', { search: { query: 'sensor' }, limit: 1001 }, 400);
  await check('/timeseries/search', { search: { query: 'sensor' }, limit: 0 }, 400);
  const page = await call(t, 'POST', '/timeseries/filter', { token, body: {} });
  const rest = await call(t, 'POST', '/timeseries/filter', { token, body: { cursor: page.body.nextCursor } });
  t.equal(rest.body.items.length, 1, 'the default page is followed by the last record');
  t.notOk('nextCursor' in rest.body);
});

t.test('search: fuzzy, ranked, id tie-break, filter applied', async (t) => {
  const { token } = tenant();
  const created = await create(t, token, [
    { externalId: 'boiler-1', name: 'Boiler feedwater temperature', unit: 'degC' },
    { externalId: 'station-1', name: 'Pump station pressure' },
    { externalId: 'valve-1', name: 'Valve position', description: 'downstream of the pump' },
    { externalId: 'valve-2', name: 'Valve position', valueType: 'TEXT' },
    { externalId: 'pump-1', name: 'Pump' },
    { externalId: 'compressor-7', name: 'Compressor discharge', description: 'cooling water loop' },
  ]);
  const ids = Object.fromEntries(created.map((r) => [r.externalId, r.id]));
  const check = async (body: Record<string, unknown>, expected: string[], name: string) => {
    const res = await call(t, 'POST', '/timeseries/search', { token, body });
    t.equal(res.status, 200, `${name}: 200`);
    t.strictSame(externalIds(res), expected, name);
  };
  await check({ search: { query: 'feedwatr' } }, ['boiler-1'], 'a typo still finds the series');
  await check({ search: { query: 'BOILER' } }, ['boiler-1'], 'case-insensitive');
  await check({ search: { query: 'pump' } }, ['pump-1', 'station-1', 'valve-1'], 'exact name first, then name, then description');
  await check({ search: { query: 'valve position' } }, ['valve-1', 'valve-2'], 'equal relevance: id ascending');
  t.ok((ids['valve-1'] as number) < (ids['valve-2'] as number));
  await check({ search: { query: 'valve position' }, filter: { valueType: 'TEXT' } }, ['valve-2'], 'the filter is applied');
  await check({ search: { query: 'pump' }, filter: { externalId: 'valve*' } }, ['valve-1'], 'the filter is applied to description matches');
  await check({ search: { query: 'compressor-7' } }, ['compressor-7'], 'externalId is searched');
  await check({ search: { query: 'cooling water' } }, ['compressor-7'], 'description is searched');
  await check({ search: { query: 'zyxwvu' } }, [], 'nothing alike: empty');
  const empty = await call(t, 'POST', '/timeseries/search', { token, body: { search: { query: '' } } });
  assertErrorBody(t, empty, { status: 422, fields: ['search.query'] }, 'empty query');
  const missing = await call(t, 'POST', '/timeseries/search', { token, body: { filter: {} } });
  assertErrorBody(t, missing, { status: 400, fields: ['search'] }, 'no search block');
});
