// Goal: POST /timeseries/create and /timeseries/update answer exactly as SPEC "Time series"
// and "Errors" say: all-or-nothing batches, 400 / 409 / 422 with the fields that name the
// wrong input, field caps at the limit and one past it, on create and after update.
// Method: one real server (embedded PostgreSQL) in this process, a fresh tenant per test; a
// local check() runs one case per line, asserts status and error body, then reads back to
// prove that a refused batch changed nothing. Every 2xx is checked against its schema.
import t from 'tap';
import { assertErrorBody, type ExpectedError as Expected } from './testing/error-body.ts';
import { startTestServer } from './testing/test-server.ts';
import { schemaCheckedRequest } from './testing/response-schema.ts';

const srv = await startTestServer();
t.teardown(() => srv.close());
const call = schemaCheckedRequest(srv);

const x = (n: number) => 'x'.repeat(n);
const entries = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
const labels = (n: number, prefix = 'l') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const ts = (externalId: string, extra: Record<string, unknown> = {}) => ({ externalId, name: `name of ${externalId}`, valueType: 'FLOAT', ...extra });

function tenant() {
  const org = srv.newTenant();
  return { org, token: srv.token({ org }) };
}

/** Creates one data set (a root: the token has no datasets claim). */
async function dataSet(token: string, externalId: string): Promise<{ id: number }> {
  const res = await srv.request('POST', '/datasets/create', { token, body: { items: [{ externalId, name: externalId }] } });
  if (res.status !== 201) throw new Error(`data set: ${res.status} ${res.text}`);
  return res.body.items[0];
}

t.test('create: one line per case, valid and invalid, at each cap and one past it', async (t) => {
  const { token } = tenant();
  const ds = await dataSet(token, 'c-ds');
  await call(t, 'POST', '/timeseries/create', { token, body: { items: [ts('c-taken')] } });
  const check = async (name: string, items: unknown[], expected: Expected) => {
    const res = await call(t, 'POST', '/timeseries/create', { token, body: { items } });
    if (expected.status === 201) {
      t.equal(res.status, 201, `${name}: 201`);
      t.equal(res.body.items?.length, items.length, `${name}: every item created`);
      return;
    }
    assertErrorBody(t, res, expected, name);
    // All-or-nothing: none of the batch's new externalIds exists afterwards.
    const fresh = (items as { externalId?: unknown }[]).flatMap((i) => (typeof i.externalId === 'string' && i.externalId !== 'c-taken' && !i.externalId.includes('\u0000') ? [{ externalId: i.externalId }] : []));
    if (fresh.length === 0) return;
    const read = await srv.request('POST', '/timeseries/byids', { token, body: { items: fresh } });
    t.strictSame(read.body.items, [], `${name}: nothing created`);
  };
  await check('minimal', [ts('c-min')], { status: 201 });
  await check('missing name', [ts('c-1a'), { externalId: 'c-1b', valueType: 'FLOAT' }], { status: 400, fields: ['items.1.name'] });
  await check('missing externalId', [{ name: 'n', valueType: 'FLOAT' }], { status: 400, fields: ['items.0.externalId'] });
  await check('missing valueType', [{ externalId: 'c-2', name: 'n' }], { status: 400, fields: ['items.0.valueType'] });
  await check('invalid valueType', [ts('c-3', { valueType: 'DOUBLE' })], { status: 400, fields: ['items.0.valueType'] });
  await check('valueType is exact on create', [ts('c-3b', { valueType: 'float' })], { status: 400, fields: ['items.0.valueType'] });
  await check('unknown dataSetId', [ts('c-4a'), ts('c-4b', { dataSetId: 987654321 })], { status: 400, fields: ['items.1.dataSetId'] });
  await check('unknown unit', [ts('c-5', { unit: 'furlongs per fortnight' })], { status: 400, fields: ['items.0.unit'] });
  await check('unknown unitExternalId', [ts('c-6', { unitExternalId: 'no:such_unit' })], { status: 400, fields: ['items.0.unitExternalId'] });
  await check('known unit and unitExternalId', [ts('c-7', { unit: 'degC', unitExternalId: 'temperature:deg_c', dataSetId: ds.id })], { status: 201 });
  await check('description 10000', [ts('c-8', { description: x(10_000) })], { status: 201 });
  await check('description 10001', [ts('c-9', { description: x(10_001) })], { status: 422, fields: ['items.0.description'] });
  await check('metadata 256 entries', [ts('c-10', { metadata: entries(256) })], { status: 201 });
  await check('metadata 257 entries', [ts('c-11', { metadata: entries(257) })], { status: 422, fields: ['items.0.metadata'] });
  await check('metadata key 128', [ts('c-12', { metadata: { [x(128)]: 'v' } })], { status: 201 });
  await check('metadata key 129', [ts('c-13', { metadata: { [x(129)]: 'v' } })], { status: 422, fields: ['items.0.metadata'] });
  await check('metadata value 1024', [ts('c-14', { metadata: { k: x(1024) } })], { status: 201 });
  await check('metadata value 1025', [ts('c-15', { metadata: { k: x(1025) } })], { status: 422, fields: ['items.0.metadata.k'] });
  await check('64 labels', [ts('c-16', { labels: labels(64) })], { status: 201 });
  await check('65 labels', [ts('c-17', { labels: labels(65) })], { status: 422, fields: ['items.0.labels'] });
  await check('label 512', [ts('c-18', { labels: [x(512)] })], { status: 201 });
  await check('label 513', [ts('c-19', { labels: [x(513)] })], { status: 422, fields: ['items.0.labels.0'] });
  await check('no items', [], { status: 400, fields: ['items'] });
  await check('NUL in a string', [ts('c-nul\u0000', { name: 'n' })], { status: 422, fields: ['items.0.externalId'] });
  await check('NUL in a metadata key', [ts('c-nul', { metadata: { 'a\u0000': 'b' } })], { status: 422, fields: ['items.0.metadata'] });
  await check('existing externalId', [ts('c-20'), ts('c-taken')], { status: 409, duplicated: ['c-taken'] });
  await check('externalId twice in one batch', [ts('c-21'), ts('c-21')], { status: 409, duplicated: ['c-21'] });
  await check("a data set's externalId", [ts('c-22'), ts('c-ds')], { status: 409, duplicated: ['c-ds'] });
  await check('one bad item among good ones', [ts('c-23a'), ts('c-23b'), ts('c-23c', { description: x(10_001) })], { status: 422, fields: ['items.2.description'] });
});

t.test('create: the record returned, integer ids, new labels', async (t) => {
  const { token } = tenant();
  const ds = await dataSet(token, 'r-ds');
  const item = ts('r-1', {
    description: 'd', unit: 'bar', unitExternalId: 'pressure:bar', dataSetId: ds.id, source: 'historian',
    labels: ['pump', 'critical', 'pump'], metadata: { site: 'oslo' },
  });
  const res = await call(t, 'POST', '/timeseries/create', { token, body: { items: [item, ts('r-2', { valueType: 'TEXT' })] } });
  t.equal(res.status, 201);
  const [one, two] = res.body.items;
  t.match(one, { externalId: 'r-1', name: 'name of r-1', description: 'd', valueType: 'FLOAT', unit: 'bar', unitExternalId: 'pressure:bar', dataSetId: ds.id, source: 'historian', metadata: { site: 'oslo' } });
  t.strictSame(one.labels, ['pump', 'critical'], 'a repeated label is kept once');
  t.strictSame(Object.keys(two).sort(), ['createdTime', 'externalId', 'id', 'labels', 'lastUpdatedTime', 'metadata', 'name', 'valueType'], 'absent optional fields are omitted');
  for (const record of res.body.items) {
    t.ok(Number.isSafeInteger(record.id) && record.id > 0 && record.id <= 2 ** 53 - 1, `id ${record.id} is an integer <= 2^53-1`);
    t.equal(record.createdTime, record.lastUpdatedTime, 'createdTime = lastUpdatedTime on create');
  }
  t.not(one.id, two.id);
  const labelList = await call(t, 'GET', '/labels', { token });
  t.strictSame(labelList.body.items.map((l: { externalId: string }) => l.externalId), ['critical', 'pump'], 'new labels exist');
  const read = await call(t, 'GET', `/timeseries/${one.id}`, { token });
  t.strictSame(read.body.items, [one], 'read back as created');
});

t.test('create: 10000 items is the batch cap, 10001 is a 400', async (t) => {
  const { token } = tenant();
  const batch = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ externalId: `${prefix}${i}`, name: 'b', valueType: 'BIGINT' }));
  const over = await call(t, 'POST', '/timeseries/create', { token, body: { items: batch(10_001, 'o') } });
  assertErrorBody(t, over, { status: 400, fields: ['items'] }, '10001 items');
  const full = await call(t, 'POST', '/timeseries/create', { token, body: { items: batch(10_000, 'f') } });
  t.equal(full.status, 201, '10000 items: 201');
  t.equal(full.body.items.length, 10_000);
  t.equal(new Set(full.body.items.map((i: { id: number }) => i.id)).size, 10_000, 'distinct ids');
  const probe = await srv.request('POST', '/timeseries/byids', { token, body: { items: [{ externalId: 'o0' }, { externalId: 'f9999' }] } });
  t.strictSame(probe.body.items.map((i: { externalId: string }) => i.externalId), ['f9999'], 'nothing of the refused batch exists');
});

t.test('update: set, setNull, add and remove; lastUpdatedTime moves', async (t) => {
  const { token } = tenant();
  const ds = await dataSet(token, 'u-ds');
  const created = await call(t, 'POST', '/timeseries/create', {
    token,
    body: { items: [ts('u-a', { description: 'd', unit: 'degC', unitExternalId: 'temperature:deg_c', dataSetId: ds.id, source: 's', metadata: { a: '1', b: '2' }, labels: ['l1', 'l2'] })] },
  });
  const a = created.body.items[0];
  while (Date.now() <= a.lastUpdatedTime) await new Promise((resolve) => setImmediate(resolve));
  const check = async (name: string, item: unknown, expected: Record<string, unknown>, absent: string[] = []) => {
    const res = await call(t, 'POST', '/timeseries/update', { token, body: { items: [item] } });
    t.equal(res.status, 200, `${name}: 200`);
    const record = res.body.items?.[0];
    t.match(record, expected, `${name}: fields`);
    for (const field of absent) t.notOk(field in (record ?? {}), `${name}: ${field} cleared`);
    return record;
  };
  const renamed = await check('set name, description, source', { id: a.id, update: { name: { set: 'N' }, description: { set: 'D' }, source: { set: 'S' } } }, { id: a.id, name: 'N', description: 'D', source: 'S' });
  t.ok(renamed.lastUpdatedTime > a.lastUpdatedTime, 'lastUpdatedTime moves');
  t.equal(renamed.createdTime, a.createdTime, 'createdTime stays');
  await check('set unit and unitExternalId', { id: a.id, update: { unit: { set: 'bar' }, unitExternalId: { set: 'pressure:bar' } } }, { unit: 'bar', unitExternalId: 'pressure:bar' });
  await check('metadata add and remove', { id: a.id, update: { metadata: { add: { c: '3', b: '22' }, remove: ['a'] } } }, { metadata: { b: '22', c: '3' } });
  const exact = await check('metadata set replaces', { externalId: 'u-a', update: { metadata: { set: { x: '1' } } } }, {});
  t.strictSame(exact.metadata, { x: '1' });
  const relabelled = await check('labels add and remove', { id: a.id, update: { labels: { add: ['l3'], remove: ['l1'] } } }, {});
  t.strictSame(relabelled.labels, ['l2', 'l3']);
  await check('setNull on optional fields', { id: a.id, update: { description: { setNull: true }, unit: { setNull: true }, unitExternalId: { setNull: true }, dataSetId: { setNull: true }, source: { setNull: true } } }, {}, ['description', 'unit', 'unitExternalId', 'dataSetId', 'source']);
  await check('set dataSetId', { id: a.id, update: { dataSetId: { set: ds.id } } }, { dataSetId: ds.id });
  await check('valueType set to its own value is no change', { id: a.id, update: { valueType: { set: 'FLOAT' } } }, { valueType: 'FLOAT' });
  await check('set externalId', { id: a.id, update: { externalId: { set: 'u-a2' } } }, { externalId: 'u-a2' });
  const old = await call(t, 'POST', '/timeseries/byids', { token, body: { items: [{ externalId: 'u-a' }] } });
  t.strictSame(old.body.items, [], 'the old externalId is free');
  const labelList = await call(t, 'GET', '/labels', { token });
  t.ok(labelList.body.items.some((l: { externalId: string }) => l.externalId === 'l3'), 'a label added by update exists');
});

t.test('update: refusals change nothing', async (t) => {
  const { token } = tenant();
  await dataSet(token, 'v-ds');
  const created = await call(t, 'POST', '/timeseries/create', { token, body: { items: [ts('v-a', { metadata: entries(255), labels: labels(63) }), ts('v-b')] } });
  const [a, b] = created.body.items;
  const check = async (name: string, items: unknown[], expected: Expected) => {
    const res = await call(t, 'POST', '/timeseries/update', { token, body: { items } });
    assertErrorBody(t, res, expected, name);
    const after = await srv.request('POST', '/timeseries/byids', { token, body: { items: [{ id: a.id }, { id: b.id }] } });
    t.strictSame(after.body.items, [a, b], `${name}: nothing changed`);
  };
  const name = { name: { set: 'changed' } };
  await check('no identifier', [{ update: name }], { status: 400, fields: ['items.0'] });
  await check('unknown id', [{ id: a.id, update: name }, { id: 987654321, update: name }], { status: 400, fields: ['items.1'] });
  await check('unknown externalId', [{ externalId: 'v-none', update: name }], { status: 400, fields: ['items.0'] });
  await check('set with setNull', [{ id: a.id, update: { description: { set: 'd', setNull: true } } }], { status: 400, fields: ['items.0.update.description'] });
  await check('setNull on name', [{ id: a.id, update: { name: { setNull: true } } }], { status: 400, fields: ['items.0.update.name'] });
  await check('setNull on externalId', [{ id: a.id, update: { externalId: { setNull: true } } }], { status: 400, fields: ['items.0.update.externalId'] });
  await check('valueType change', [{ id: a.id, update: { valueType: { set: 'TEXT' } } }], { status: 400, fields: ['items.0.update.valueType'] });
  await check('valueType setNull', [{ id: a.id, update: { valueType: { setNull: true } } }], { status: 400, fields: ['items.0.update.valueType'] });
  await check('unknown dataSetId', [{ id: a.id, update: { dataSetId: { set: 987654321 } } }], { status: 400, fields: ['items.0.update.dataSetId'] });
  await check('unknown unit', [{ id: a.id, update: { unit: { set: 'parsecs per jiffy' } } }], { status: 400, fields: ['items.0.update.unit'] });
  await check('unknown unitExternalId', [{ id: a.id, update: { unitExternalId: { set: 'no:such_unit' } } }], { status: 400, fields: ['items.0.update.unitExternalId'] });
  await check('new externalId taken by a series', [{ id: a.id, update: { externalId: { set: 'v-b' } } }], { status: 409, duplicated: ['v-b'] });
  await check('new externalId taken by a data set', [{ id: a.id, update: { externalId: { set: 'v-ds' } } }], { status: 409, duplicated: ['v-ds'] });
  await check('description 10001', [{ id: a.id, update: { description: { set: x(10_001) } } }], { status: 422, fields: ['items.0.update.description.set'] });
  await check('metadata add to 257 entries', [{ id: a.id, update: { metadata: { add: { n1: 'v', n2: 'v' } } } }], { status: 422, fields: ['items.0.update.metadata'] });
  await check('metadata set 257 entries', [{ id: a.id, update: { metadata: { set: entries(257) } } }], { status: 422, fields: ['items.0.update.metadata.set'] });
  await check('metadata key 129', [{ id: b.id, update: { metadata: { add: { [x(129)]: 'v' } } } }], { status: 422, fields: ['items.0.update.metadata.add'] });
  await check('metadata value 1025', [{ id: b.id, update: { metadata: { add: { k: x(1025) } } } }], { status: 422, fields: ['items.0.update.metadata.add.k'] });
  await check('labels add to 65', [{ id: a.id, update: { labels: { add: ['n1', 'n2'] } } }], { status: 422, fields: ['items.0.update.labels'] });
  await check('labels set 65', [{ id: b.id, update: { labels: { set: labels(65) } } }], { status: 422, fields: ['items.0.update.labels.set'] });
  await check('label 513', [{ id: b.id, update: { labels: { add: [x(513)] } } }], { status: 422, fields: ['items.0.update.labels.add.0'] });
  await check('a good item with a bad one (400)', [{ id: b.id, update: name }, { id: a.id, update: { valueType: { set: 'TEXT' } } }], { status: 400, fields: ['items.1.update.valueType'] });
  await check('a good item with a bad one (422)', [{ id: b.id, update: name }, { id: a.id, update: { labels: { add: ['n1', 'n2'] } } }], { status: 422, fields: ['items.1.update.labels'] });
  await check('a good item with a bad one (409)', [{ id: b.id, update: name }, { id: a.id, update: { externalId: { set: 'v-ds' } } }], { status: 409, duplicated: ['v-ds'] });
  const atCap = await call(t, 'POST', '/timeseries/update', { token, body: { items: [{ id: a.id, update: { metadata: { add: { n1: 'v' } }, labels: { add: ['n1'] } } }] } });
  t.equal(atCap.status, 200, 'metadata 256 and labels 64 after update: 200');
  t.equal(Object.keys(atCap.body.items[0].metadata).length, 256);
  t.equal(atCap.body.items[0].labels.length, 64);
});
