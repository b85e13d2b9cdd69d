// Goal: an Arrow IPC stream body ends in exactly the columns the same points sent as JSON end
// in (one parse per point, one encode for both), for every valueType and identifier form, and
// a malformed or unreadable stream is refused with an error naming the column and the row.
// Method: fast-check draws series, points and a row order (interleaved, or grouped by series); the points are written once as an
// Arrow stream (apache-arrow, plain or dictionary identifiers, int64 or timestamp[ms]
// timestamps) and once as the JSON body of the same items; both are scanned and encoded here
// and their SeriesPoints compared column by column.
import t from 'tap';
import fc from 'fast-check';
import {
  Dictionary, Float64, Int32, Int64, LargeUtf8, Table, TimestampMicrosecond, TimestampMillisecond, TimestampNanosecond, Utf8,
  makeData, makeVector, tableToIPC, vectorFromArray, type Vector,
} from 'apache-arrow';
import type { SeriesPoints, ValueType } from '../engine/datapoints/types.ts';
import { INT64_MAX, INT64_MIN } from './number-text.ts';
import { scanArrowBody, scanArrowScratchBytes } from './datapoint-scan-arrow.ts';
import { scanDatapointBody } from './datapoint-scan.ts';
import { encodeScannedBody } from './datapoint-encode.ts';
import { scannedFromWire, scannedToWire } from './datapoint-wire.ts';

const T0 = Date.UTC(2025, 0, 1);

type Value = number | bigint | string;

interface Row {
  series: number;
  timestamp: number;
  value: Value;
}

/** The column a valueType's values travel in, and how JSON writes the same value. */
const FORMS: Record<ValueType, { arrow: 'float64' | 'int64' | 'utf8'; value: fc.Arbitrary<Value>; json: (v: Value) => unknown }> = {
  FLOAT: { arrow: 'float64', value: fc.double({ noNaN: true, noDefaultInfinity: true }), json: (v) => v },
  FLOAT32: { arrow: 'float64', value: fc.float({ noNaN: true, noDefaultInfinity: true }).map((v) => v), json: (v) => v },
  BIGINT: { arrow: 'int64', value: fc.bigInt({ min: INT64_MIN, max: INT64_MAX }), json: (v) => String(v) },
  NUMERIC: { arrow: 'utf8', value: fc.tuple(fc.integer({ min: -999_999_999, max: 999_999_999 }), fc.integer({ min: 0, max: 999_999 })).map(([a, b]) => `${a}.${String(b).padStart(6, '0')}`), json: (v) => v },
  DECIMAL32: { arrow: 'float64', value: fc.integer({ min: -999_999_999, max: 999_999_999 }).map((v) => v / 1000), json: (v) => v },
  TEXT: { arrow: 'utf8', value: fc.string({ unit: 'binary', maxLength: 40 }).filter((s) => s.isWellFormed() && !s.includes('\u0000')), json: (v) => v },
  MIXED: { arrow: 'utf8', value: fc.oneof(fc.string({ maxLength: 20 }).filter((s) => !s.includes('\u0000')), fc.double({ noNaN: true, noDefaultInfinity: true }).map(String)), json: (v) => v },
};

function valueVector(type: ValueType, values: Value[]): Vector {
  switch (FORMS[type].arrow) {
    case 'float64': return makeVector(Float64Array.from(values as number[]));
    case 'int64': return makeVector(BigInt64Array.from(values as bigint[]));
    case 'utf8': return vectorFromArray(values as string[], new Utf8());
  }
}

function identifierVector(names: string[], form: 'plain' | 'dictionary' | 'large'): Vector {
  if (form === 'dictionary') return vectorFromArray(names, new Dictionary(new Utf8(), new Int32()));
  return vectorFromArray(names, form === 'large' ? new LargeUtf8() : new Utf8());
}

function arrowBody(columns: Record<string, Vector>): Uint8Array {
  return tableToIPC(new Table(columns), 'stream');
}

/** The JSON body of the same rows: items in order of each series' first row, points in row order. */
function jsonBody(rows: Row[], name: (series: number) => Record<string, unknown>, type: ValueType): Uint8Array {
  const items = new Map<number, { datapoints: unknown[] }>();
  for (const row of rows) {
    let item = items.get(row.series);
    if (!item) items.set(row.series, (item = { ...name(row.series), datapoints: [] }));
    item.datapoints.push({ timestamp: row.timestamp, value: FORMS[type].json(row.value) });
  }
  return new TextEncoder().encode(JSON.stringify({ items: [...items.values()] }, (_, v) => (typeof v === 'bigint' ? String(v) : v)));
}

function columnsOf(s: SeriesPoints | null): unknown {
  if (s === null) return null;
  return {
    seriesId: s.seriesId, valueType: s.valueType, timestampMs: Array.from(s.timestampMs),
    float: s.float && Array.from(s.float), bigint: s.bigint && Array.from(s.bigint, String), scaled: s.scaled && Array.from(s.scaled, String),
    text: s.text, isText: s.isText && Array.from(s.isText),
  };
}

function encodeBoth(arrow: Uint8Array, json: Uint8Array, type: ValueType) {
  const a = scanArrowBody(arrow);
  const j = scanDatapointBody(json);
  const types = a.items.map(() => type);
  const ids = a.items.map((_, k) => k + 1);
  return { a, j, ea: encodeScannedBody(arrow, a, types, ids), ej: encodeScannedBody(json, j, types, ids) };
}

const rowsArbitrary = (type: ValueType) =>
  fc.array(fc.record({ series: fc.integer({ min: 0, max: 4 }), timestamp: fc.integer({ min: 0, max: 50 }).map((s) => T0 + s * 1000), value: FORMS[type].value }), { minLength: 1, maxLength: 60 });

for (const type of Object.keys(FORMS) as ValueType[]) {
  t.test(`${type}: Arrow rows encode to the columns of the same points as JSON`, async (t) => {
    fc.assert(
      fc.property(rowsArbitrary(type), fc.constantFrom('plain', 'dictionary', 'large', 'id'), fc.boolean(), fc.boolean(), (drawn, idForm, timestampType, grouped) => {
        // Rows grouped by series (stable: each series' rows keep their order), as a client's table usually comes, or interleaved.
        const rows = grouped ? [...drawn].sort((a, b) => a.series - b.series) : drawn;
        const externalId = (k: number) => `series-${k}-é`;
        const identifier: Record<string, Vector> = idForm === 'id'
          ? { id: makeVector(BigInt64Array.from(rows, (r) => BigInt(r.series + 1))) }
          : { externalId: identifierVector(rows.map((r) => externalId(r.series)), idForm) };
        const timestamps = timestampType
          ? vectorFromArray(rows.map((r) => r.timestamp), new TimestampMillisecond())
          : makeVector(BigInt64Array.from(rows, (r) => BigInt(r.timestamp)));
        const arrow = arrowBody({ ...identifier, timestamp: timestamps, value: valueVector(type, rows.map((r) => r.value)) });
        const json = jsonBody(rows, (k) => (idForm === 'id' ? { id: k + 1 } : { externalId: externalId(k) }), type);
        const { a, j, ea, ej } = encodeBoth(arrow, json, type);
        t.strictSame(a.errors, [], 'the stream scans');
        t.strictSame(a.items.map((i) => [i.id, i.externalId, i.pointCount]), j.items.map((i) => [i.id, i.externalId, i.pointCount]), 'the same items');
        t.strictSame(ea.errors.map((e) => e.reason), ej.errors.map((e) => e.reason), 'the same value errors');
        t.strictSame(ea.series.map(columnsOf), ej.series.map(columnsOf), 'the same columns');
      }),
      { numRuns: 60 },
    );
  });
}

t.test('BIGINT beyond 2^53 stays exact, and an int64 column reaches FLOAT as the nearest double', async (t) => {
  const values = [2n ** 53n + 1n, INT64_MAX, INT64_MIN, -(2n ** 60n) - 7n];
  const body = arrowBody({
    externalId: vectorFromArray(values.map(() => 'big'), new Utf8()),
    timestamp: makeVector(BigInt64Array.from(values, (_, i) => BigInt(T0 + i))),
    value: makeVector(BigInt64Array.from(values)),
  });
  const scanned = scanArrowBody(body);
  const big = encodeScannedBody(body, scanned, ['BIGINT'], [1]).series[0];
  t.strictSame(Array.from(big?.bigint ?? []), values);
  const float = encodeScannedBody(body, scanned, ['FLOAT'], [1]).series[0];
  t.strictSame(Array.from(float?.float ?? []), values.map((v) => Number(v)));
  const numeric = encodeScannedBody(body, scanned, ['NUMERIC'], [1]);
  t.strictSame(numeric.errors.map((e) => [e.field, e.reason]), values.map((_, i) => [`rows[${i}].value`, 'value-out-of-range']), 'NUMERIC holds 18 digits: each row named');
});

t.test('a float32 value column widens exactly, and a null value is named by its row, rows grouped or not', async (t) => {
  const floats = Float32Array.from([0.1, -3.75, 1e30, 23.456, 2 ** -20, 7]);
  for (const names of [['a', 'a', 'a', 'b', 'b', 'b'], ['a', 'b', 'a', 'b', 'a', 'b']]) {
    const body = (value: Vector) => arrowBody({
      externalId: vectorFromArray(names, new Dictionary(new Utf8(), new Int32())),
      timestamp: makeVector(BigInt64Array.from(names, (_, i) => BigInt(T0 + i))),
      value,
    });
    const scanned = scanArrowBody(body(makeVector(floats)));
    t.strictSame(scanned.errors, [], `${names.join('')}: scans`);
    const series = encodeScannedBody(body(makeVector(floats)), scanned, ['FLOAT', 'FLOAT'], [1, 2]).series;
    const want = (name: string) => names.flatMap((n, i) => (n === name ? [floats[i] as number] : []));
    t.strictSame(series.map((s) => Array.from(s?.float ?? [])), [want('a'), want('b')], `${names.join('')}: each series' doubles, in row order`);
    const nullAt4 = scanArrowBody(body(vectorFromArray([1, 2, 3, 4, null, 6], new Float64())));
    t.strictSame(nullAt4.errors.map((e) => e.field), ['rows[4].value'], `${names.join('')}: the null row named`);
  }
});

t.test('timestamps in s, us and ns are taken when they hold whole milliseconds', async (t) => {
  const ms = [T0, T0 + 1, T0 - 86_400_000 * 40_000];
  const at = (type: TimestampMicrosecond | TimestampNanosecond, scale: bigint, extra = 0n) =>
    makeVector(makeData({ type, length: ms.length, data: BigInt64Array.from(ms, (m) => BigInt(m) * scale + extra) }));
  const body = (timestamp: Vector) => arrowBody({ id: makeVector(BigInt64Array.from(ms, () => 1n)), timestamp, value: makeVector(Float64Array.from(ms, (_, i) => i)) });
  t.strictSame(Array.from(scanArrowBody(body(at(new TimestampMicrosecond(), 1000n))).timestampMs), ms);
  t.strictSame(Array.from(scanArrowBody(body(at(new TimestampNanosecond(), 1_000_000n))).timestampMs), ms);
  const fractional = scanArrowBody(body(at(new TimestampNanosecond(), 1_000_000n, 1n)));
  t.strictSame(fractional.errors.map((e) => e.field), ['rows[0].timestamp', 'rows[1].timestamp', 'rows[2].timestamp'], 'a part of a millisecond is refused');
  const outOfRange = scanArrowBody(body(makeVector(BigInt64Array.from(ms, () => 1n << 62n))));
  t.match(outOfRange.errors[0], { field: 'rows[0].timestamp', message: /epoch milliseconds/ });
});

t.test('empty, malformed and misshapen streams are refused, naming what is wrong', async (t) => {
  const good = { externalId: vectorFromArray(['a'], new Utf8()), timestamp: makeVector(BigInt64Array.of(BigInt(T0))), value: makeVector(Float64Array.of(1)) };
  const cases: [string, Uint8Array, RegExp, string][] = [
    ['empty body', new Uint8Array(0), /empty/, 'body'],
    ['not Arrow', new TextEncoder().encode('{"items":[]}'), /Arrow/, 'body'],
    ['a stream with no rows', arrowBody({ ...good, externalId: vectorFromArray([], new Utf8()), timestamp: makeVector(new BigInt64Array(0)), value: makeVector(new Float64Array(0)) }), /no rows/, 'body'],
    ['no value column', arrowBody({ externalId: good.externalId, timestamp: good.timestamp }), /no value column/, 'value'],
    ['no identifier', arrowBody({ timestamp: good.timestamp, value: good.value }), /no externalId or id/, 'externalId'],
    ['both identifiers', arrowBody({ ...good, id: makeVector(BigInt64Array.of(1n)) }), /both/, 'id'],
    ['a float timestamp', arrowBody({ ...good, timestamp: makeVector(Float64Array.of(T0)) }), /timestamp is Float64/, 'timestamp'],
    ['a null value', arrowBody({ ...good, value: vectorFromArray([null], new Float64()) }), /is null/, 'rows[0].value'],
    ['an empty externalId', arrowBody({ ...good, externalId: vectorFromArray([''], new Utf8()) }), /empty/, 'rows[0].externalId'],
    ['an id of 0', arrowBody({ timestamp: good.timestamp, value: good.value, id: makeVector(BigInt64Array.of(0n)) }), /from 1/, 'rows[0].id'],
    ['cut short', arrowBody(good).subarray(0, 200), /./, 'body'],
  ];
  for (const [name, body, message, field] of cases) {
    const scanned = scanArrowBody(body);
    t.equal(scanned.pointCount, 0, `${name}: nothing scanned`);
    t.match(scanned.errors[0], { field, message }, name);
  }
});

t.test('truncated and changed streams are scanned or refused at once, never thrown or run away', async (t) => {
  // Any byte, the schema's and the metadata's counts included: arrow-metadata.ts refuses a
  // count beyond its bytes before apache-arrow allocates by it.
  const body = arrowBody({ externalId: vectorFromArray(['a', 'b', 'a'], new Dictionary(new Utf8(), new Int32())), timestamp: makeVector(BigInt64Array.of(1n, 2n, 3n)), value: vectorFromArray(['x', 'y', 'z'], new Utf8()) });
  let slowest = 0;
  fc.assert(fc.property(fc.integer({ min: 0, max: body.length }), fc.integer({ min: 0, max: body.length - 1 }), fc.integer({ min: 0, max: 255 }), (cut, at, byte) => {
    const changed = body.slice(0, cut);
    if (at < changed.length) changed[at] = byte;
    const started = performance.now();
    const scanned = scanArrowBody(changed);
    slowest = Math.max(slowest, performance.now() - started);
    return scanned.errors.length > 0 || scanned.pointCount <= 3;
  }), { numRuns: 2000 });
  t.ok(slowest < 1000, `the slowest of 2,000 took ${slowest.toFixed(1)} ms`);
});

t.test('a stream of several record batches with a replaced dictionary groups rows across batches', async (t) => {
  // One dictionary id for both batches: the second batch's dictionary replaces the first's.
  const dictionary = new Dictionary(new Utf8(), new Int32(), 7);
  const batch = (names: string[], start: number) => new Table({
    externalId: vectorFromArray(names, dictionary),
    timestamp: makeVector(BigInt64Array.from(names, (_, i) => BigInt(T0 + start + i))),
    value: makeVector(Float64Array.from(names, (_, i) => start + i)),
  });
  const body = tableToIPC(batch(['a', 'b'], 0).concat(batch(['b', 'c', 'a'], 10)), 'stream');
  const scanned = scanArrowBody(body);
  t.strictSame(scanned.errors, []);
  t.strictSame(scanned.items.map((i) => [i.externalId, i.pointCount]), [['a', 2], ['b', 2], ['c', 1]]);
  t.strictSame(Array.from(scanned.rowIndex ?? []), [0, 4, 1, 2, 3], 'each point keeps its row');
  t.strictSame(Array.from(scanned.timestampMs), [T0, T0 + 12, T0 + 1, T0 + 10, T0 + 11]);
});

t.test('the scanned columns lie in the lent scratch and cross the wire with their rows', async (t) => {
  const body = arrowBody({ externalId: vectorFromArray(['a', 'b'], new Utf8()), timestamp: makeVector(BigInt64Array.of(BigInt(T0), BigInt(T0))), value: makeVector(Float64Array.of(1, 2)) });
  const scratch = new SharedArrayBuffer(scanArrowScratchBytes(body.length));
  const scanned = scanArrowBody(body, scratch);
  t.equal(scanned.timestampMs.buffer, scratch);
  t.equal(scanned.rowIndex?.buffer, scratch);
  const wire = scannedToWire(scanned, scratch);
  t.equal(wire.kind, 'slab');
  const back = scannedFromWire(wire, scratch);
  t.strictSame(Array.from(back.rowIndex ?? []), [0, 1]);
  t.strictSame(Array.from(back.numberValue), [1, 2]);
});

t.test('a value error names its row; a TEXT value in a numeric column is a mismatch', async (t) => {
  const body = arrowBody({
    externalId: vectorFromArray(['a', 'b', 'a'], new Utf8()),
    timestamp: makeVector(BigInt64Array.of(BigInt(T0), BigInt(T0), BigInt(T0 + 1))),
    value: makeVector(Float64Array.of(1, Number.POSITIVE_INFINITY, Number.NaN)),
  });
  const scanned = scanArrowBody(body);
  const encoded = encodeScannedBody(body, scanned, ['FLOAT', 'TEXT'], [1, 2]);
  t.strictSame(encoded.errors.map((e) => [e.field, e.reason]), [['rows[2].value', 'value-type-mismatch'], ['rows[1].value', 'value-type-mismatch']]);
  const floats = encodeScannedBody(body, scanned, ['FLOAT', 'FLOAT'], [1, 2]);
  t.strictSame(floats.errors.map((e) => [e.field, e.reason, e.value]), [['rows[2].value', 'value-type-mismatch', 'NaN'], ['rows[1].value', 'value-out-of-range', 'Infinity']]);
});
