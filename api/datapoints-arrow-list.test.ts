// Goal: POST /timeseries/data/list with `Accept: application/vnd.apache.arrow.stream` answers
// an Arrow IPC stream holding exactly the points and buckets of the JSON answer: one record
// batch per item in request order, columns id / externalId / timestamp / value (text for
// MIXED) / the asked aggregates, the JSON cursors in each batch's custom metadata and in the
// schema's `items`; the JSON list's 400s and 404s as JSON bodies; Accept without the Arrow
// type keeps the JSON answer byte for byte.
// Method: one real server in this process (embedded PostgreSQL, chdb), a fresh tenant per
// test. Property tests (fast-check, fixed seed printed; PROPERTY_SEED picks another) insert
// random points of every value type as JSON, read them back as Arrow and as JSON, and compare
// point by point; paging walks a series with the Arrow cursors and the JSON ones side by side.
// Streams are read with apache-arrow's RecordBatchReader and tableFromIPC.
import t, { type Test } from 'tap';
import fc from 'fast-check';
import { MessageReader, RecordBatchReader, tableFromIPC, type RecordBatch } from 'apache-arrow';
import { assertErrorBody, type ExpectedError } from './testing/error-body.ts';
import { createSeries, startDatapointServer } from './testing/datapoints-fixture.ts';
import { formatScaled } from '../engine/datapoints/read/datapoint-format.ts';

const srv = await startDatapointServer();
t.teardown(() => srv.close());
const { call } = srv;

const ARROW = 'application/vnd.apache.arrow.stream';
const T0 = Date.UTC(2024, 2, 1);
const MINUTE = 60_000;
const HOUR = 3_600_000;
const SEED = Number(process.env.PROPERTY_SEED ?? 20_260_301);
const RUNS = Number(process.env.PROPERTY_RUNS ?? 4);

function tenant(): string {
  return srv.token({ org: srv.newTenant() });
}

interface JsonPoint { timestamp: number; value?: string; average?: string; min?: string; max?: string; sum?: string; count?: number }
interface JsonItem { id: number; externalId: string | null; valueType: string; datapoints: JsonPoint[]; nextCursor?: string }

async function insert(t: Test, token: string, items: unknown[]): Promise<void> {
  const res = await call(t, 'POST', '/timeseries/data', { token, body: { items } });
  if (res.status !== 204) t.fail(`insert: ${res.status} ${res.text.slice(0, 500)}`);
}

async function listJson(t: Test, token: string, body: unknown): Promise<JsonItem[]> {
  const res = await call(t, 'POST', '/timeseries/data/list', { token, body });
  if (res.status !== 200) throw new Error(`JSON list: ${res.status} ${res.text.slice(0, 500)}`);
  return res.body.items as JsonItem[];
}

interface ArrowAnswer { status: number; contentType: string | null; bytes: Uint8Array; text: string }

async function listArrowRaw(token: string, body: unknown, accept = ARROW): Promise<ArrowAnswer> {
  const res = await fetch(`${srv.url}/timeseries/data/list`, {
    method: 'POST', body: JSON.stringify(body), headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept },
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, contentType: res.headers.get('content-type'), bytes, text: Buffer.from(bytes).toString('utf8') };
}

/** The record batches of a 200 Arrow answer, read one by one with their custom metadata. */
async function listArrow(t: Test, token: string, body: unknown): Promise<RecordBatch[]> {
  const res = await listArrowRaw(token, body);
  if (res.status !== 200) throw new Error(`Arrow list: ${res.status} ${res.text.slice(0, 500)}`);
  t.equal(res.contentType, ARROW, 'Content-Type: the Arrow stream type');
  const reader = RecordBatchReader.from(res.bytes);
  return [...reader];
}

/** An Arrow value column entry as the JSON answer's string (null stays null). */
function arrowValueText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return String(value);
}

/** The points of a raw batch, compared value by value with JSON's strings (numbers as the doubles they name). */
function sameRawPoints(t: Test, batch: RecordBatch, json: JsonPoint[], valueType: string, name: string): void {
  t.equal(batch.numRows, json.length, `${name}: ${json.length} points`);
  const timestamps = batch.getChild('timestamp')?.toArray() as BigInt64Array;
  const values = batch.getChild('value');
  const texts = batch.getChild('text');
  const problems: string[] = [];
  for (let i = 0; i < json.length && problems.length < 5; i++) {
    const expected = json[i] as JsonPoint;
    if (Number(timestamps[i]) !== expected.timestamp) problems.push(`point ${i}: timestamp ${timestamps[i]} != ${expected.timestamp}`);
    const value = values?.get(i) as number | bigint | string | null;
    const text = texts?.get(i) as string | null | undefined;
    const got = valueType === 'MIXED' && (value === null) ? text : value;
    let same: boolean;
    if (valueType === 'BIGINT') same = typeof got === 'bigint' && got === BigInt(expected.value as string);
    else if (valueType === 'TEXT') same = got === expected.value;
    else if (valueType === 'MIXED') same = typeof got === 'string' ? got === expected.value && value === null : got === Number(expected.value) && text === null;
    else same = typeof got === 'number' && got === Number(expected.value);
    if (!same) problems.push(`point ${i}: ${arrowValueText(got)} (${typeof got}) != ${expected.value}`);
  }
  t.strictSame(problems, [], `${name}: every point as JSON has it`);
}

function metadataOf(batch: RecordBatch): Record<string, string> {
  return Object.fromEntries(batch.metadata);
}

function expectedMetadata(item: JsonItem): Record<string, string> {
  return {
    id: String(item.id), valueType: item.valueType,
    ...(item.externalId !== null ? { externalId: item.externalId } : {}),
    ...(item.nextCursor !== undefined ? { nextCursor: item.nextCursor } : {}),
  };
}

/** Batches and JSON items line up: ids, externalIds and cursors in the metadata, and every row's id and externalId. */
function sameItems(t: Test, batches: RecordBatch[], items: JsonItem[], name: string): void {
  t.strictSame(batches.map(metadataOf), items.map(expectedMetadata), `${name}: one batch per item, metadata as the JSON items`);
  batches.forEach((batch, k) => {
    const item = items[k] as JsonItem;
    const ids = new Set([...(batch.getChild('id')?.toArray() as BigInt64Array)].map(Number));
    const externalIds = new Set([...(batch.getChild('externalId') ?? [])]);
    t.ok(batch.numRows === 0 || (ids.size === 1 && ids.has(item.id)), `${name}: batch ${k} rows carry id ${item.id}`);
    t.ok(batch.numRows === 0 || (externalIds.size === 1 && externalIds.has(item.externalId)), `${name}: batch ${k} rows carry externalId ${item.externalId}`);
  });
}

// ---- value types, property tested --------------------------------------------------------

/** Points at distinct timestamps from T0, values drawn by `value`. */
function pointsOf<V>(value: fc.Arbitrary<V>, maxLength = 60): fc.Arbitrary<{ timestamp: number; value: V }[]> {
  return fc.uniqueArray(fc.tuple(fc.integer({ min: 0, max: 3 * HOUR }), value), { maxLength, selector: ([offset]) => offset })
    .map((points) => points.map(([offset, v]) => ({ timestamp: T0 + offset, value: v })));
}

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const finiteDouble = fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e300, max: 1e300 });
const decimalText = (digits: bigint, scale: number) => fc.bigInt({ min: -(digits - 1n), max: digits - 1n }).map((scaled) => formatScaled(scaled, scale));
const VALUES: Record<string, fc.Arbitrary<string | number>> = {
  FLOAT: fc.oneof(finiteDouble, fc.integer({ min: -1_000_000, max: 1_000_000 }).map((n) => n / 1000)).map(String),
  FLOAT32: fc.float({ noNaN: true, noDefaultInfinity: true }).map(String),
  // Beyond 2^53 in both directions, the extremes included.
  BIGINT: fc.oneof(fc.bigInt({ min: I64_MIN, max: I64_MAX }), fc.constantFrom(I64_MIN, I64_MAX, 2n ** 53n + 1n, -(2n ** 53n) - 1n)).map(String),
  // Decimal(18, 6) over its whole range (past 2^53 as a scaled integer too), Decimal(9, 3).
  NUMERIC: fc.oneof(decimalText(10n ** 18n, 6), decimalText(10n ** 9n, 6), fc.constantFrom('9007199254.740993', '-999999999999.999999', '0.000001')),
  DECIMAL32: decimalText(10n ** 9n, 3),
  TEXT: fc.string({ unit: 'grapheme', maxLength: 12 }),
  // Numbers and texts (a letter first, so no text reads as a number).
  MIXED: fc.oneof(finiteDouble, fc.string({ maxLength: 10 }).map((s) => `t${s}`)),
};

for (const [valueType, value] of Object.entries(VALUES)) {
  t.test(`raw ${valueType}: the Arrow answer holds the JSON answer's points, value for value`, async (t) => {
    const token = tenant();
    let run = 0;
    t.comment(`seed ${SEED}`);
    await fc.assert(fc.asyncProperty(pointsOf(value), async (points) => {
      const externalId = `${valueType}-${run++}`;
      await createSeries(srv, token, [{ externalId, valueType }]);
      if (points.length > 0) await insert(t, token, [{ externalId, datapoints: points }]);
      const body = { items: [{ externalId, start: T0, end: T0 + 4 * HOUR, limit: 1000 }, { externalId, limit: 7 }] };
      const [json, arrow] = [await listJson(t, token, body), await listArrow(t, token, body)];
      sameItems(t, arrow, json, `${valueType} run ${run}`);
      t.equal(json[0]?.datapoints.length, points.length, `${valueType} run ${run}: every point written is read`);
      json.forEach((item, k) => sameRawPoints(t, arrow[k] as RecordBatch, item.datapoints, valueType, `${valueType} run ${run} item ${k}`));
    }), { numRuns: RUNS, seed: SEED, endOnFailure: true });
  });
}

t.test('column types: the schema as docs/api.md gives it', async (t) => {
  const token = tenant();
  await createSeries(srv, token, [{ externalId: 'f', valueType: 'FLOAT' }, { externalId: 'b', valueType: 'BIGINT' }, { externalId: 'x', valueType: 'TEXT' }, { externalId: 'm', valueType: 'MIXED' }]);
  const check = async (items: unknown[], expected: string[]) => {
    const res = await listArrowRaw(token, { items });
    const table = tableFromIPC(res.bytes);
    t.strictSame(table.schema.fields.map((f) => `${f.name}: ${f.type}${f.nullable ? '?' : ''}`), expected, JSON.stringify(items));
  };
  const head = ['id: Int64', 'externalId: Dictionary<Int32, Utf8>?', 'timestamp: Timestamp<MILLISECOND, UTC>'];
  await check([{ externalId: 'f' }], [...head, 'value: Float64?']);
  await check([{ externalId: 'b' }], [...head, 'value: Int64?']);
  await check([{ externalId: 'x' }], [...head, 'value: Utf8?']);
  await check([{ externalId: 'm' }, { externalId: 'f' }], [...head, 'value: Float64?', 'text: Utf8?']);
  await check([{ externalId: 'f', aggregates: ['SUM', 'COUNT', 'AVG'], granularity: '1h' }], [...head, 'average: Float64?', 'count: Int64?', 'sum: Float64?']);
  await check([{ externalId: 'b' }, { externalId: 'x', aggregates: ['COUNT'], granularity: '1h' }], [...head, 'value: Int64?', 'count: Int64?']);
});

// ---- aggregates ------------------------------------------------------------------------------

t.test('aggregates: every bucket as the JSON answer has it, one column per aggregate asked', async (t) => {
  const token = tenant();
  let run = 0;
  t.comment(`seed ${SEED}`);
  const numbers = fc.integer({ min: -1_000_000, max: 1_000_000 });
  await fc.assert(fc.asyncProperty(pointsOf(numbers, 80), fc.constantFrom('1m', '15m', '1h'), async (points, granularity) => {
    run++;
    const specs = ['FLOAT', 'BIGINT', 'NUMERIC', 'DECIMAL32', 'MIXED'].map((valueType) => ({ externalId: `${valueType}-${run}`, valueType }));
    await createSeries(srv, token, [...specs, { externalId: `TEXT-${run}`, valueType: 'TEXT' }]);
    if (points.length > 0) {
      const scaled = points.map((p) => ({ timestamp: p.timestamp, value: String(p.value / 1000) }));
      await insert(t, token, [...specs.map((s) => ({ externalId: s.externalId, datapoints: s.valueType === 'BIGINT' ? points.map((p) => ({ ...p, value: String(p.value) })) : scaled })),
        { externalId: `TEXT-${run}`, datapoints: points.map((p) => ({ timestamp: p.timestamp, value: `v${p.value}` })) }]);
    }
    const all = ['AVG', 'MIN', 'MAX', 'COUNT', 'SUM'];
    const body = {
      start: T0, end: T0 + 4 * HOUR, granularity,
      items: [...specs.map((s) => ({ externalId: s.externalId, aggregates: all })), { externalId: specs[0]?.externalId, aggregates: ['MAX'], limit: 3 }, { externalId: `TEXT-${run}`, aggregates: ['COUNT'] }],
    };
    const [json, arrow] = [await listJson(t, token, body), await listArrow(t, token, body)];
    sameItems(t, arrow, json, `run ${run} ${granularity}`);
    json.forEach((item, k) => {
      const batch = arrow[k] as RecordBatch;
      const timestamps = [...(batch.getChild('timestamp')?.toArray() as BigInt64Array)].map(Number);
      t.strictSame(timestamps, item.datapoints.map((p) => p.timestamp), `run ${run} item ${k}: bucket timestamps`);
      for (const field of ['average', 'min', 'max', 'sum', 'count'] as const) {
        const column = batch.getChild(field);
        const got = column ? [...column].map((v) => (v === null ? null : Number(v))) : [];
        const expected = item.datapoints.map((p) => (p[field] === undefined ? null : Number(p[field])));
        // Exact types' JSON is exact decimal text; the Arrow double is that value rounded.
        const close = got.length === expected.length && got.every((v, i) => v === expected[i] || (v !== null && Math.abs(v - (expected[i] as number)) <= Math.abs(v) * 1e-15));
        t.ok(close, `run ${run} item ${k} ${field}: ${JSON.stringify(got.slice(0, 4))} ~ ${JSON.stringify(expected.slice(0, 4))}`);
      }
    });
  }), { numRuns: RUNS, seed: SEED, endOnFailure: true });
});

t.test('raw and aggregate items in one request: one schema, the columns an item does not fill null', async (t) => {
  const token = tenant();
  await createSeries(srv, token, [{ externalId: 'f', valueType: 'FLOAT' }, { externalId: 'n', valueType: 'NUMERIC' }]);
  await insert(t, token, [{ externalId: 'f', datapoints: [{ timestamp: T0, value: '1.5' }, { timestamp: T0 + MINUTE, value: '2.5' }] }, { externalId: 'n', datapoints: [{ timestamp: T0, value: '0.25' }] }]);
  const batches = await listArrow(t, token, { start: T0, end: T0 + HOUR, items: [{ externalId: 'f' }, { externalId: 'f', aggregates: ['SUM', 'COUNT'], granularity: '1h' }, { externalId: 'n' }] });
  const rows = batches.map((b) => b.toArray().map((row) => {
    const { id, ...rest } = row.toJSON() as Record<string, unknown>;
    return { ...rest, id: Number(id) };
  }));
  const ids = rows.map((r) => r[0]?.id);
  t.strictSame(rows, [
    [{ externalId: 'f', timestamp: T0, value: 1.5, count: null, sum: null, id: ids[0] }, { externalId: 'f', timestamp: T0 + MINUTE, value: 2.5, count: null, sum: null, id: ids[0] }],
    [{ externalId: 'f', timestamp: T0, value: null, count: 2n, sum: 4, id: ids[0] }],
    [{ externalId: 'n', timestamp: T0, value: 0.25, count: null, sum: null, id: ids[2] }],
  ], 'rows of each batch');
});

// ---- cursors ---------------------------------------------------------------------------------

t.test('paging with the Arrow cursors gives the JSON pages, point for point, cursor for cursor', async (t) => {
  const token = tenant();
  await createSeries(srv, token, [{ externalId: 'p', valueType: 'BIGINT' }]);
  const points = Array.from({ length: 2_500 }, (_, i) => ({ timestamp: T0 + i * 7_000, value: String(2n ** 60n + BigInt(i)) }));
  await insert(t, token, [{ externalId: 'p', datapoints: points }]);
  const walk = async (query: Record<string, unknown>, name: string) => {
    let jsonCursor: string | undefined;
    let arrowCursor: string | undefined;
    const sizes: number[] = [];
    const seen: bigint[] = [];
    for (let page = 0; page < 10; page++) {
      const json = await listJson(t, token, { items: [{ externalId: 'p', ...query, ...(jsonCursor ? { cursor: jsonCursor } : {}) }] });
      const arrow = await listArrow(t, token, { items: [{ externalId: 'p', ...query, ...(arrowCursor ? { cursor: arrowCursor } : {}) }] });
      sameItems(t, arrow, json, `${name} page ${page}`);
      const item = json[0] as JsonItem;
      const batch = arrow[0] as RecordBatch;
      if ('aggregates' in query) t.strictSame([...(batch.getChild('count') ?? [])].map(Number), item.datapoints.map((p) => p.count), `${name} page ${page}: counts`);
      else {
        sameRawPoints(t, batch, item.datapoints, 'BIGINT', `${name} page ${page}`);
        seen.push(...[...(batch.getChild('value')?.toArray() as BigInt64Array)]);
      }
      sizes.push(batch.numRows);
      jsonCursor = item.nextCursor;
      arrowCursor = batch.metadata.get('nextCursor');
      if (!arrowCursor) break;
    }
    return { sizes, seen };
  };
  const ascending = await walk({ start: T0, limit: 1_000 }, 'ascending');
  t.strictSame(ascending.sizes, [1_000, 1_000, 500], 'ascending page sizes');
  t.strictSame(ascending.seen.map(String), points.map((p) => p.value), 'ascending: every point once, exact beyond 2^53');
  const descending = await walk({ limit: 1_000 }, 'no start: newest first, pages walk back');
  t.strictSame(descending.sizes, [1_000, 1_000, 500], 'descending page sizes');
  t.strictSame(new Set(descending.seen.map(String)).size, 2_500, 'descending: every point once');
  const buckets = await walk({ start: T0, end: T0 + 2 * HOUR, aggregates: ['COUNT'], granularity: '1m', limit: 50 }, 'aggregate pages');
  t.strictSame(buckets.sizes, [50, 50, 20], 'aggregate page sizes');
});

t.test('a page past one engine block (70,000 points of FLOAT and of TEXT) is one record batch', async (t) => {
  const token = tenant();
  await createSeries(srv, token, [{ externalId: 'big', valueType: 'FLOAT' }, { externalId: 'words', valueType: 'TEXT' }]);
  const count = 70_000;
  await insert(t, token, [{ externalId: 'big', datapoints: Array.from({ length: count }, (_, i) => ({ timestamp: T0 + i, value: String(i / 8) })) }]);
  for (let from = 0; from < count; from += 10_000) {
    await insert(t, token, [{ externalId: 'words', datapoints: Array.from({ length: 10_000 }, (_, i) => ({ timestamp: T0 + from + i, value: `w${from + i}` })) }]);
  }
  for (const [externalId, valueType] of [['big', 'FLOAT'], ['words', 'TEXT']] as const) {
    const body = { items: [{ externalId, start: T0, limit: count }] };
    const [json, arrow] = [await listJson(t, token, body), await listArrow(t, token, body)];
    sameItems(t, arrow, json, `${valueType} 70,000`);
    sameRawPoints(t, arrow[0] as RecordBatch, (json[0] as JsonItem).datapoints, valueType, `${valueType} 70,000`);
  }
});

// ---- empty, unknown and refused ------------------------------------------------------------

t.test('a series without points still has its batch, empty, without nextCursor', async (t) => {
  const token = tenant();
  const ids = await createSeries(srv, token, [{ externalId: 'empty', valueType: 'TEXT' }, { externalId: 'words', valueType: 'TEXT' }]);
  await insert(t, token, [{ externalId: 'words', datapoints: [{ timestamp: T0, value: 'hello' }] }]);
  const body = { items: [{ externalId: 'empty' }, { id: ids['words'] }, { externalId: 'empty', aggregates: ['COUNT'], granularity: '1h' }] };
  const res = await listArrowRaw(token, body);
  const table = tableFromIPC(res.bytes);
  t.strictSame(table.batches.map((b) => b.numRows), [0, 1, 0], 'one batch per item, empty ones included');
  t.strictSame(table.batches.map(metadataOf), [
    { id: String(ids['empty']), valueType: 'TEXT', externalId: 'empty' }, { id: String(ids['words']), valueType: 'TEXT', externalId: 'words' }, { id: String(ids['empty']), valueType: 'TEXT', externalId: 'empty' },
  ], 'batch metadata, no nextCursor');
  t.strictSame(JSON.parse(table.schema.metadata.get('items') ?? 'null'), [
    { id: ids['empty'], externalId: 'empty', valueType: 'TEXT' }, { id: ids['words'], externalId: 'words', valueType: 'TEXT' }, { id: ids['empty'], externalId: 'empty', valueType: 'TEXT' },
  ], 'the schema metadata lists the items');
  t.strictSame(table.batches[1]?.toArray().map((row) => [row['externalId'], row['value']]), [['words', 'hello']], 'its point');
});

t.test('refusals are the JSON list\'s, as JSON bodies; ignoreUnknownIds leaves unknown series out', async (t) => {
  const token = tenant();
  await createSeries(srv, token, [{ externalId: 'f', valueType: 'FLOAT' }, { externalId: 'b', valueType: 'BIGINT' }, { externalId: 'x', valueType: 'TEXT' }, { externalId: 'm', valueType: 'MIXED' }]);
  await insert(t, token, [{ externalId: 'f', datapoints: [{ timestamp: T0, value: '1' }] }]);
  const check = async (name: string, body: Record<string, unknown>, expected: ExpectedError) => {
    const res = await listArrowRaw(token, body);
    t.match(res.contentType ?? '', /json/, `${name}: a JSON body`);
    assertErrorBody(t, { status: res.status, body: JSON.parse(res.text) }, expected, name);
    return JSON.parse(res.text);
  };
  const missing = await check('unknown series', { items: [{ externalId: 'f' }, { externalId: 'nope' }] }, { status: 404 });
  t.strictSame(missing.error.missing, [{ externalId: 'nope' }], 'missing lists it');
  await check('start after end', { items: [{ externalId: 'f', start: T0 + 2, end: T0 + 1 }] }, { status: 400, fields: ['items.0.start'] });
  await check('granularity without aggregates', { items: [{ externalId: 'f', granularity: '1h' }] }, { status: 400, fields: ['items.0.granularity'] });
  await check('raw limit 100001', { items: [{ externalId: 'f', limit: 100_001 }] }, { status: 400, fields: ['items.0.limit'] });
  await check('TEXT SUM', { items: [{ externalId: 'x', aggregates: ['SUM'], granularity: '1h' }] }, { status: 400, fields: ['items.0.aggregates'] });
  await check('a forged cursor', { items: [{ externalId: 'f', start: T0, cursor: 'forged' }] }, { status: 400, fields: ['cursor'] });
  await check('FLOAT and BIGINT raw items: one schema cannot hold both', { items: [{ externalId: 'f' }, { externalId: 'b' }] }, { status: 400, fields: ['items.1'] });
  await check('TEXT and MIXED raw items', { items: [{ externalId: 'x' }, { externalId: 'f' }, { externalId: 'm' }] }, { status: 400, fields: ['items.1'] });
  const ignored = await listArrow(t, token, { ignoreUnknownIds: true, items: [{ externalId: 'nope' }, { externalId: 'f' }, { id: 9_007_199_254_740_991 }] });
  t.strictSame(ignored.map((b) => b.metadata.get('externalId')), ['f'], 'ignoreUnknownIds: only the known series has a batch');
  t.equal(ignored[0]?.numRows, 1, 'with its point');
  const none = await listArrowRaw(token, { ignoreUnknownIds: true, items: [{ externalId: 'nope' }] });
  // (apache-arrow's reader yields an empty placeholder batch for a stream without one: count the messages.)
  const messages = [...new MessageReader(none.bytes)];
  const fields = RecordBatchReader.from(none.bytes).open().schema.fields.map((f) => f.name);
  t.strictSame([messages.map((m) => m.isSchema() ? 'schema' : m.isRecordBatch() ? 'batch' : 'other'), fields], [['schema'], ['id', 'externalId', 'timestamp']], 'nothing known: a schema and no batch');
});

t.test('Accept without the Arrow type keeps the JSON answer byte for byte', async (t) => {
  const token = tenant();
  await createSeries(srv, token, [{ externalId: 'f', valueType: 'FLOAT' }]);
  await insert(t, token, [{ externalId: 'f', datapoints: [{ timestamp: T0, value: '1.25' }, { timestamp: T0 + 1, value: '2' }] }]);
  const body = { items: [{ externalId: 'f', start: T0, limit: 1 }] };
  const plain = await srv.request('POST', '/timeseries/data/list', { token, body });
  t.equal(plain.status, 200);
  for (const accept of ['application/json', '*/*', 'application/*', 'text/html, application/json;q=0.9', `application/json, ${ARROW};q=0.5`, `${ARROW};q=0`]) {
    const res = await listArrowRaw(token, body, accept);
    t.strictSame([res.status, res.contentType, res.text], [200, 'application/json', plain.text], `Accept: ${accept}`);
  }
  for (const accept of [ARROW, `${ARROW}, application/json;q=0.5`, `application/json;q=0.2, ${ARROW.toUpperCase()}`, `*/*;q=0.1, ${ARROW}; charset=binary`]) {
    const res = await listArrowRaw(token, body, accept);
    t.strictSame([res.status, res.contentType, tableFromIPC(res.bytes).numRows], [200, ARROW, 1], `Accept: ${accept}`);
  }
});
