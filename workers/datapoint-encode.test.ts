// Goal: encodeScannedBody parses every value against its series' valueType (valid and
// invalid, at each limit and one past), and its SeriesPoints follow engine/datapoints/types.ts:
// sorted, last point per timestamp wins, exactly the columns of the valueType. Method: one
// line per value through the real scanner, then caps, ordering (with a seeded comparison to
// a Map-based reference) and the error list.
import t, { type Test } from 'tap';
import { type SeriesPoints, type ValueType, VALUE_TYPES } from '../engine/datapoints/types.ts';
import {
  DATAPOINT_ERRORS_MAX,
  DATAPOINT_VALUE_CHARS_MAX,
  NUMERIC_POINTS_PER_COLLECTION_MAX,
  TEXT_POINTS_PER_COLLECTION_MAX,
} from '../engine/limits.ts';
import { encodeOutputBytes, encodeScannedBody, type EncodedBody, type PointValueErrorReason } from './datapoint-encode.ts';
import { scanDatapointBody } from './datapoint-scan.ts';
import { plainEncoded } from './testing/plain-encoded.ts';

const encode = (text: string) => new TextEncoder().encode(text);

/** Scans and encodes items of raw JSON value tokens (timestamps 1, 2, ... unless given). */
function encodeItems(items: { valueType: ValueType | null; values: string[]; timestamps?: number[] }[]): EncodedBody {
  const text = `{"items":[${items
    .map((item, i) => `{"id":${i + 1},"datapoints":[${item.values.map((v, j) => `{"timestamp":${item.timestamps?.[j] ?? j + 1},"value":${v}}`).join(',')}]}`)
    .join(',')}]}`;
  const body = encode(text);
  const scanned = scanDatapointBody(body);
  if (scanned.errors.length > 0) throw new Error(`scan failed: ${JSON.stringify(scanned.errors)}`);
  return encodeScannedBody(
    body,
    scanned,
    items.map((item) => item.valueType),
    items.map((item, i) => (item.valueType === null ? null : 100 + i)),
  );
}

function pointValue(series: SeriesPoints): unknown {
  switch (series.valueType) {
    case 'FLOAT':
    case 'FLOAT32':
      return series.float![0];
    case 'BIGINT':
      return series.bigint![0];
    case 'NUMERIC':
    case 'DECIMAL32':
      return series.scaled![0];
    case 'TEXT':
      return series.text![0];
    case 'MIXED':
      return series.isText![0] === 1 ? series.text![0] : series.float![0];
  }
}

function accepts(t: Test, valueType: ValueType, raw: string, expected: number | bigint | string): void {
  const { series, errors } = encodeItems([{ valueType, values: [raw] }]);
  const got = series[0] ? pointValue(series[0]) : errors[0]?.reason;
  t.ok(Object.is(got, expected), `${valueType} ${raw.slice(0, 80)} -> ${String(expected).slice(0, 80)} (got ${String(got).slice(0, 80)})`);
}

function rejects(t: Test, valueType: ValueType, raw: string, reason: PointValueErrorReason): void {
  const { series, errors } = encodeItems([{ valueType, values: [raw] }]);
  t.same([series[0], errors.map((e) => e.reason)], [null, [reason]], `${valueType} ${raw.slice(0, 80)} rejected: ${reason}`);
}

const s = (text: string) => JSON.stringify(text);

t.test('FLOAT', async (t) => {
  accepts(t, 'FLOAT', '"1.5"', 1.5);
  accepts(t, 'FLOAT', '1.5', 1.5);
  accepts(t, 'FLOAT', '"-2e-3"', -0.002);
  accepts(t, 'FLOAT', '-2E-3', -0.002);
  accepts(t, 'FLOAT', '".5"', 0.5);
  accepts(t, 'FLOAT', '"5."', 5);
  accepts(t, 'FLOAT', '"+7"', 7);
  accepts(t, 'FLOAT', '"-0"', -0);
  accepts(t, 'FLOAT', '"\\u0031.5"', 1.5); // escaped digits are still digits
  accepts(t, 'FLOAT', '"1.7976931348623157e308"', Number.MAX_VALUE);
  accepts(t, 'FLOAT', '"9007199254740993"', 9007199254740992);
  accepts(t, 'FLOAT', s('1'.repeat(DATAPOINT_VALUE_CHARS_MAX)), Number('1'.repeat(DATAPOINT_VALUE_CHARS_MAX)));
  rejects(t, 'FLOAT', s('1'.repeat(DATAPOINT_VALUE_CHARS_MAX + 1)), 'value-too-long');
  rejects(t, 'FLOAT', '1' + '0'.repeat(DATAPOINT_VALUE_CHARS_MAX), 'value-too-long');
  rejects(t, 'FLOAT', '"1e309"', 'value-out-of-range');
  rejects(t, 'FLOAT', '1e309', 'value-out-of-range');
  rejects(t, 'FLOAT', '"abc"', 'value-type-mismatch');
  rejects(t, 'FLOAT', '""', 'value-type-mismatch');
  rejects(t, 'FLOAT', '"NaN"', 'value-type-mismatch');
  rejects(t, 'FLOAT', '"Infinity"', 'value-type-mismatch');
  rejects(t, 'FLOAT', '" 1"', 'value-type-mismatch');
  rejects(t, 'FLOAT', '"0x10"', 'value-type-mismatch');
  rejects(t, 'FLOAT', '"1,5"', 'value-type-mismatch');
  rejects(t, 'FLOAT', '"１"', 'value-type-mismatch'); // a full-width digit
});

t.test('FLOAT32: rounded with Math.fround, within its range', async (t) => {
  accepts(t, 'FLOAT32', '"0.1"', Math.fround(0.1));
  accepts(t, 'FLOAT32', '16777217', 16777216);
  accepts(t, 'FLOAT32', '"3.4028234663852886e38"', 3.4028234663852886e38);
  accepts(t, 'FLOAT32', '"3.4028235e38"', 3.4028234663852886e38); // rounds down to the largest float32
  accepts(t, 'FLOAT32', '"1e-50"', 0); // underflows to zero
  rejects(t, 'FLOAT32', '"3.5e38"', 'value-out-of-range');
  rejects(t, 'FLOAT32', '-3.5e38', 'value-out-of-range');
  rejects(t, 'FLOAT32', '"x"', 'value-type-mismatch');
});

t.test('BIGINT: exact signed 64-bit, never through a double', async (t) => {
  accepts(t, 'BIGINT', '"9223372036854775807"', 9223372036854775807n);
  accepts(t, 'BIGINT', '9223372036854775807', 9223372036854775807n);
  accepts(t, 'BIGINT', '"-9223372036854775808"', -9223372036854775808n);
  accepts(t, 'BIGINT', '-9223372036854775808', -9223372036854775808n);
  accepts(t, 'BIGINT', '"9007199254740993"', 9007199254740993n);
  accepts(t, 'BIGINT', '9007199254740993', 9007199254740993n);
  accepts(t, 'BIGINT', '"+42"', 42n);
  accepts(t, 'BIGINT', '"007"', 7n);
  accepts(t, 'BIGINT', '0', 0n);
  rejects(t, 'BIGINT', '"9223372036854775808"', 'value-out-of-range');
  rejects(t, 'BIGINT', '9223372036854775808', 'value-out-of-range');
  rejects(t, 'BIGINT', '"-9223372036854775809"', 'value-out-of-range');
  rejects(t, 'BIGINT', '-9223372036854775809', 'value-out-of-range');
  rejects(t, 'BIGINT', '"1.5"', 'value-type-mismatch');
  rejects(t, 'BIGINT', '1.0', 'value-type-mismatch');
  rejects(t, 'BIGINT', '1e3', 'value-type-mismatch');
  rejects(t, 'BIGINT', '"abc"', 'value-type-mismatch');
  rejects(t, 'BIGINT', '""', 'value-type-mismatch');
  rejects(t, 'BIGINT', '"é"', 'value-type-mismatch');
});

t.test('NUMERIC (18, 6) and DECIMAL32 (9, 3): exact, rounded half to even past the scale', async (t) => {
  accepts(t, 'NUMERIC', '"999999999999.999999"', 999999999999999999n);
  accepts(t, 'NUMERIC', '"-999999999999.999999"', -999999999999999999n);
  rejects(t, 'NUMERIC', '"1000000000000"', 'value-out-of-range');
  rejects(t, 'NUMERIC', '"-1000000000000"', 'value-out-of-range');
  rejects(t, 'NUMERIC', '"999999999999.9999995"', 'value-out-of-range');
  accepts(t, 'NUMERIC', '"999999999999.9999994"', 999999999999999999n);
  accepts(t, 'NUMERIC', '"1.2345675"', 1234568n);
  accepts(t, 'NUMERIC', '"1.2345665"', 1234566n);
  accepts(t, 'NUMERIC', '"0.0000005"', 0n);
  accepts(t, 'NUMERIC', '123.456', 123456000n);
  accepts(t, 'NUMERIC', '0.30000000000000004', 300000n);
  accepts(t, 'NUMERIC', '1e3', 1000000000n);
  rejects(t, 'NUMERIC', '1e12', 'value-out-of-range');
  rejects(t, 'NUMERIC', '"abc"', 'value-type-mismatch');
  rejects(t, 'NUMERIC', '"NaN"', 'value-type-mismatch');
  accepts(t, 'DECIMAL32', '"999999.999"', 999999999n);
  accepts(t, 'DECIMAL32', '"-999999.999"', -999999999n);
  rejects(t, 'DECIMAL32', '"1000000"', 'value-out-of-range');
  rejects(t, 'DECIMAL32', '"999999.9995"', 'value-out-of-range');
  accepts(t, 'DECIMAL32', '"0.0015"', 2n);
  accepts(t, 'DECIMAL32', '"0.0025"', 2n);
  accepts(t, 'DECIMAL32', '12.5', 12500n);
  rejects(t, 'DECIMAL32', '"1.2.3"', 'value-type-mismatch');
});

t.test('TEXT: any JSON string up to 64 characters', async (t) => {
  accepts(t, 'TEXT', '"hello"', 'hello');
  accepts(t, 'TEXT', '""', '');
  accepts(t, 'TEXT', '"1.5"', '1.5');
  accepts(t, 'TEXT', '"a\\nb\\"c\\\\d\\/e"', 'a\nb"c\\d/e');
  accepts(t, 'TEXT', '"é温度😀"', 'é温度😀');
  accepts(t, 'TEXT', '"\\ud83d\\ude00"', '😀');
  accepts(t, 'TEXT', '"\\ud800"', '\ud800');
  accepts(t, 'TEXT', s('x'.repeat(64)), 'x'.repeat(64));
  rejects(t, 'TEXT', s('x'.repeat(65)), 'value-too-long');
  accepts(t, 'TEXT', s('😀'.repeat(64)), '😀'.repeat(64)); // 64 characters, 128 UTF-16 units
  rejects(t, 'TEXT', s('😀'.repeat(65)), 'value-too-long');
  accepts(t, 'TEXT', '"' + '\\u00e9'.repeat(64) + '"', 'é'.repeat(64));
  rejects(t, 'TEXT', '"' + '\\u00e9'.repeat(65) + '"', 'value-too-long');
  rejects(t, 'TEXT', '1.5', 'value-type-mismatch');
  rejects(t, 'TEXT', '0', 'value-type-mismatch');
});

t.test('MIXED: JSON numbers and numeric strings are numbers, other strings text', async (t) => {
  accepts(t, 'MIXED', '1.5', 1.5);
  accepts(t, 'MIXED', '"1.5"', 1.5);
  accepts(t, 'MIXED', '"-2e3"', -2000);
  accepts(t, 'MIXED', '"\\u0032"', 2);
  accepts(t, 'MIXED', '"abc"', 'abc');
  accepts(t, 'MIXED', '""', '');
  accepts(t, 'MIXED', '"NaN"', 'NaN');
  accepts(t, 'MIXED', '"1e400"', '1e400');
  accepts(t, 'MIXED', '" 1"', ' 1');
  accepts(t, 'MIXED', '"温度"', '温度');
  accepts(t, 'MIXED', s('y'.repeat(64)), 'y'.repeat(64));
  rejects(t, 'MIXED', s('y'.repeat(65)), 'value-too-long');
  rejects(t, 'MIXED', '1e400', 'value-out-of-range');
  const { series } = encodeItems([{ valueType: 'MIXED', values: ['"a"', '2', '"3"'] }]);
  t.same(
    [Array.from(series[0]!.float!), series[0]!.text, Array.from(series[0]!.isText!)],
    [
      [0, 2, 3],
      ['a', '', ''],
      [1, 0, 0],
    ],
  );
});

t.test('each valueType gets exactly its columns; a missing series is null', async (t) => {
  const columns: Record<ValueType, string[]> = {
    BIGINT: ['bigint'],
    FLOAT: ['float'],
    FLOAT32: ['float'],
    NUMERIC: ['scaled'],
    DECIMAL32: ['scaled'],
    TEXT: ['text'],
    MIXED: ['float', 'isText', 'text'],
  };
  for (const valueType of VALUE_TYPES) {
    const { series, errors } = encodeItems([{ valueType, values: ['"1"', '"2"'] }, { valueType: null, values: ['"x"'] }]);
    t.same(errors, [], `${valueType}: no errors`);
    t.equal(series[1], null, `${valueType}: the missing series is null`);
    const points = series[0]!;
    t.same([points.seriesId, points.valueType, Array.from(points.timestampMs)], [100, valueType, [1, 2]], `${valueType}: id, type, timestamps`);
    t.same(
      Object.keys(points).filter((k) => !['seriesId', 'valueType', 'timestampMs'].includes(k)).sort(),
      columns[valueType],
      `${valueType}: columns`,
    );
  }
});

t.test('ordering: sorted ascending, a later point at the same timestamp replaces an earlier one', async (t) => {
  const text = encodeItems([{ valueType: 'TEXT', values: ['"a"', '"b"', '"c"', '"d"', '"e"'], timestamps: [3, 1, 3, 2, 1] }]).series[0]!;
  t.same([Array.from(text.timestampMs), text.text], [[1, 2, 3], ['e', 'd', 'c']]);
  const big = encodeItems([{ valueType: 'BIGINT', values: ['"9223372036854775807"', '"1"', '"2"'], timestamps: [5, 5, 4] }]).series[0]!;
  t.same([Array.from(big.timestampMs), Array.from(big.bigint!)], [[4, 5], [2n, 1n]]);
  const mixed = encodeItems([{ valueType: 'MIXED', values: ['"x"', '1', '"y"', '2'], timestamps: [2, 2, 1, 0] }]).series[0]!;
  t.same(
    [Array.from(mixed.timestampMs), Array.from(mixed.float!), mixed.text, Array.from(mixed.isText!)],
    [[0, 1, 2], [2, 0, 1], ['', 'y', ''], [0, 1, 0]],
  );
  const ascending = encodeItems([{ valueType: 'FLOAT', values: ['1', '2', '3'], timestamps: [-5, 0, 7] }]).series[0]!;
  t.same([Array.from(ascending.timestampMs), Array.from(ascending.float!)], [[-5, 0, 7], [1, 2, 3]]);
});

t.test('property: ordering matches a Map-based reference', async (t) => {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let run = 0; run < 300; run++) {
    const count = Math.floor(next() * 40);
    const timestamps = Array.from({ length: count }, () => Math.floor(next() * (next() < 0.5 ? 10 : 1e6)) - 3);
    const values = timestamps.map((_, i) => String(i));
    const reference = new Map<number, number>();
    timestamps.forEach((ts, i) => reference.set(ts, i));
    const expected = [...reference.entries()].sort((a, b) => a[0] - b[0]);
    const points = encodeItems([{ valueType: 'FLOAT', values, timestamps }]).series[0]!;
    const got = Array.from(points.timestampMs, (ts, i) => [ts, points.float![i]]);
    if (JSON.stringify(got) !== JSON.stringify(expected)) return t.fail(`timestamps ${timestamps}: ${JSON.stringify(got)} vs ${JSON.stringify(expected)}`);
  }
  t.pass('300 random items ordered like the reference');
});

t.test('points per collection: at the cap and one past, by valueType', async (t) => {
  const check = (valueType: ValueType, count: number, ok: boolean) => {
    const { series, errors } = encodeItems([{ valueType, values: new Array<string>(count).fill('"1"') }]);
    if (ok) return t.same([series[0]?.timestampMs.length, errors.length], [count, 0], `${valueType} ${count} points accepted`);
    t.same(
      [series[0], errors.map((e) => [e.reason, e.field, e.pointIndex, e.limit])],
      [null, [['points-cap', 'items[0].datapoints', count - 1, count - 1]]],
      `${valueType} ${count} points refused`,
    );
  };
  check('FLOAT', NUMERIC_POINTS_PER_COLLECTION_MAX, true);
  check('FLOAT', NUMERIC_POINTS_PER_COLLECTION_MAX + 1, false);
  check('TEXT', TEXT_POINTS_PER_COLLECTION_MAX, true);
  check('TEXT', TEXT_POINTS_PER_COLLECTION_MAX + 1, false);
  check('MIXED', TEXT_POINTS_PER_COLLECTION_MAX, true);
  check('MIXED', TEXT_POINTS_PER_COLLECTION_MAX + 1, false);
  check('BIGINT', TEXT_POINTS_PER_COLLECTION_MAX + 1, true);
});

t.test('error list: fields, truncated values, other items unaffected, bounded', async (t) => {
  const long = 'z'.repeat(100);
  const { series, errors } = encodeItems([
    { valueType: 'FLOAT', values: ['"1"', '"2"'] },
    { valueType: 'TEXT', values: ['"ok"', s(long), '3'] },
  ]);
  t.ok(series[0] !== null && series[1] === null, 'the good item is encoded, the bad one is null');
  t.same(errors, [
    {
      itemIndex: 1,
      pointIndex: 1,
      field: 'items[1].datapoints[1].value',
      value: 'z'.repeat(64) + '…',
      valueType: 'TEXT',
      reason: 'value-too-long',
      limit: 64,
      message: errors[0]?.message,
    },
    {
      itemIndex: 1,
      pointIndex: 2,
      field: 'items[1].datapoints[2].value',
      value: '3',
      valueType: 'TEXT',
      reason: 'value-type-mismatch',
      message: errors[1]?.message,
    },
  ]);
  t.match(errors[0]!.message, /items\[1\]\.datapoints\[1\]\.value is longer than 64 characters for a TEXT series/);
  t.match(errors[1]!.message, /does not parse as a TEXT series: "3"\. A TEXT value is a JSON string/);
  const many = encodeItems([{ valueType: 'FLOAT', values: new Array<string>(DATAPOINT_ERRORS_MAX + 500).fill('"x"') }]);
  t.equal(many.errors.length, DATAPOINT_ERRORS_MAX, 'errors are capped');
});

t.test('encode refuses a body that scanned with errors (a programmer error)', async (t) => {
  const body = encode('{}');
  t.throws(() => encodeScannedBody(body, scanDatapointBody(body), [], []), /scanned with errors/);
});

// ---- output: the encoded columns in a caller's SharedArrayBuffer (a pooled slab) ----

type OutputItem = { valueType: ValueType | null; values: string[]; timestamps?: number[] };

/** Scans items of raw JSON value tokens and encodes them, into `output` when given. */
function encodeInto(items: OutputItem[], output?: SharedArrayBuffer): EncodedBody {
  const text = `{"items":[${items
    .map((item, i) => `{"id":${i + 1},"datapoints":[${item.values.map((v, j) => `{"timestamp":${item.timestamps?.[j] ?? j + 1},"value":${v}}`).join(',')}]}`)
    .join(',')}]}`;
  const body = encode(text);
  const scanned = scanDatapointBody(body);
  if (scanned.errors.length > 0) throw new Error(`scan failed: ${JSON.stringify(scanned.errors)}`);
  const valueTypes = items.map((item) => item.valueType);
  const seriesIds = items.map((item, i) => (item.valueType === null ? null : 100 + i));
  return encodeScannedBody(body, scanned, valueTypes, seriesIds, output);
}

/** An output slab of encodeOutputBytes for these items, dirty as a reused slab is. */
function dirtyOutput(items: OutputItem[]): SharedArrayBuffer {
  const pointCount = items.reduce((sum, item) => sum + item.values.length, 0);
  const output = new SharedArrayBuffer(encodeOutputBytes(pointCount, items.length));
  new Uint8Array(output).fill(0xff);
  return output;
}


function typedColumns(series: SeriesPoints): ArrayBufferView[] {
  return [series.timestampMs, series.float, series.bigint, series.scaled, series.isText].filter((c) => c !== undefined);
}

const OUTPUT_ITEMS: OutputItem[] = [
  { valueType: 'FLOAT', values: ['"1.5"', '2', '"-0"', '3.25'] },
  { valueType: 'BIGINT', values: ['"9223372036854775807"', '"-9223372036854775808"', '5'] },
  { valueType: 'NUMERIC', values: ['"123.456"', '"0.0000005"', '7', '"-999999999999.999999"'] },
  { valueType: 'MIXED', values: ['"abc"', '2', '"3"', '""', '"x"'] },
  { valueType: null, values: ['"gone"'] },
  { valueType: 'TEXT', values: ['"hello"'] },
  { valueType: 'FLOAT32', values: ['"1.1"'] },
  { valueType: 'DECIMAL32', values: ['"1.0005"', '"-2"', '3'] },
];

t.test('output: same series as without for every valueType, the columns views over the output', async (t) => {
  const output = dirtyOutput(OUTPUT_ITEMS);
  const encoded = encodeInto(OUTPUT_ITEMS, output);
  const plain = encodeInto(OUTPUT_ITEMS);
  t.same(encoded.errors, []);
  t.same(plainEncoded(encoded), plainEncoded(plain), 'identical to the encoding without output');
  t.same(Array.from(encoded.series[1]!.bigint!), [9223372036854775807n, -9223372036854775808n, 5n], 'BIGINT exact');
  t.same(Array.from(encoded.series[2]!.scaled!), [123456000n, 0n, 7000000n, -999999999999999999n], 'NUMERIC exact');
  t.equal(encoded.series[4], null);
  for (const series of encoded.series) {
    if (series === null) continue;
    for (const column of typedColumns(series)) t.equal(column.buffer, output, `${series.valueType}: a ${column.constructor.name} over the output`);
  }
});

t.test('output: MIXED text points have float 0 even over garbage', async (t) => {
  const items: OutputItem[] = [{ valueType: 'MIXED', values: ['"abc"', '2', '"3"', '""', '"x"', '-1.5', '"NaN"'] }];
  const output = dirtyOutput(items);
  const mixed = encodeInto(items, output).series[0]!;
  t.equal(mixed.float!.buffer, output);
  t.same(Array.from(mixed.isText!), [1, 0, 0, 1, 1, 0, 1]);
  t.same(Array.from(mixed.float!), [0, 2, 3, 0, 0, -1.5, 0], 'text points are 0, not the slab\'s old bytes');
  t.same(mixed.text, ['abc', '', '', '', 'x', '', 'NaN']);
  t.same(plainEncoded(encodeInto(items, output)), plainEncoded(encodeInto(items)), 'and again over the now-used output');
});

t.test('output: a reused dirty output slab encodes the next body as without', async (t) => {
  const before: OutputItem[] = [
    { valueType: 'FLOAT', values: new Array<string>(30).fill('"123456.789"') },
    { valueType: 'BIGINT', values: new Array<string>(20).fill('"-1"') },
  ];
  const output = dirtyOutput(before);
  encodeInto(before, output);
  const next: OutputItem[] = [
    { valueType: 'MIXED', values: ['"a"', '"b"', '4', '"c"'] },
    { valueType: 'NUMERIC', values: ['"1"', '"2.5"'] },
    { valueType: 'BIGINT', values: ['"3"'] },
    { valueType: 'FLOAT', values: ['"0"', '"1e-3"'] },
  ];
  const encoded = encodeInto(next, output);
  t.same(plainEncoded(encoded), plainEncoded(encodeInto(next)));
  t.ok(
    encoded.series.every((series) => series !== null && typedColumns(series).every((column) => column.buffer === output)),
    'every column in the reused output',
  );
});

t.test('output: encodeOutputBytes holds many small items of odd point counts', async (t) => {
  const items: OutputItem[] = [1, 3, 5, 1, 7, 1].flatMap((count) => [
    { valueType: 'MIXED' as const, values: Array.from({ length: count }, (_, j) => (j % 2 === 0 ? '"t"' : String(j))) },
    { valueType: 'FLOAT' as const, values: new Array<string>(count).fill('"1"') },
  ]);
  const output = dirtyOutput(items);
  const encoded = encodeInto(items, output);
  t.same(plainEncoded(encoded), plainEncoded(encodeInto(items)));
  t.ok(
    encoded.series.every((series) => series !== null && typedColumns(series).every((column) => column.buffer === output)),
    'every column in the output',
  );
});

t.test('output: unsorted items and items with errors encode as without', async (t) => {
  const items: OutputItem[] = [
    { valueType: 'FLOAT', values: ['"1"', '"2"', '"3"', '"4"'], timestamps: [4, 2, 4, 1] },
    { valueType: 'BIGINT', values: ['"1"', '"x"'] },
    { valueType: 'MIXED', values: ['"a"', '1', '"b"'], timestamps: [3, 3, 1] },
    { valueType: 'NUMERIC', values: ['"1"'] },
  ];
  const encoded = encodeInto(items, dirtyOutput(items));
  t.same(plainEncoded(encoded), plainEncoded(encodeInto(items)));
  t.same(
    encoded.errors.map((e) => [e.field, e.reason]),
    [['items[1].datapoints[1].value', 'value-type-mismatch']],
  );
  t.same(Array.from(encoded.series[0]!.float!), [4, 2, 3]);
  t.same([Array.from(encoded.series[2]!.float!), encoded.series[2]!.text], [[0, 1], ['b', '']]);
});
