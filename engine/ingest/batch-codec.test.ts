// Goal: encodeIngestBatch/decodeIngestBatch round-trip every valueType exactly (BIGINT and
// scaled decimals as exact 64-bit integers, floats bit for bit, text as UTF-8) and reject
// what is not a batch. Method: seeded random batches (property test), then edge cases.
import t, { type Test } from 'tap';

type Tap = Test;
import { VALUE_TYPES, type SeriesPoints, type ValueType } from '../datapoints/types.ts';
import type { IngestBatch } from './ingest-log.ts';
import { BatchCodecError, BatchCodecVersionError, decodeIngestBatch, encodeIngestBatch } from './batch-codec.ts';
import { mulberry32 as prng } from '../testing/prng.ts';


const SPECIAL_FLOATS = [0, -0, NaN, Infinity, -Infinity, Number.MIN_VALUE, Number.MAX_VALUE, 1e-300, -123.456];
const SPECIAL_BIGINTS = [0n, -1n, 1n, (1n << 63n) - 1n, -(1n << 63n), 9007199254740993n];
const TEXTS = ['', 'a', 'æøå', '温度', '🙂 pump 3', 'x'.repeat(64), 'tab\tnew\nline', '\u0000'];

function randomSeries(next: () => number, seriesId: number, valueType: ValueType, count: number): SeriesPoints {
  const timestampMs = new Float64Array(count);
  let ts = -2_208_988_800_000 + Math.floor(next() * 6e12);
  for (let i = 0; i < count; i++) {
    ts += 1 + Math.floor(next() * (next() < 0.1 ? 1e10 : 1000));
    timestampMs[i] = ts;
  }
  const series: SeriesPoints = { seriesId, valueType, timestampMs };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  const float = () => (next() < 0.2 ? pick(SPECIAL_FLOATS) : (next() - 0.5) * 10 ** Math.floor(next() * 30 - 10));
  const int64 = () => (next() < 0.2 ? pick(SPECIAL_BIGINTS) : BigInt.asIntN(64, BigInt(Math.floor(next() * 2 ** 53)) * BigInt(Math.floor(next() * 4096) - 2048)));
  if (valueType === 'FLOAT' || valueType === 'FLOAT32') series.float = Float64Array.from({ length: count }, () => (valueType === 'FLOAT32' ? Math.fround(float()) : float()));
  if (valueType === 'BIGINT') series.bigint = BigInt64Array.from({ length: count }, int64);
  if (valueType === 'NUMERIC' || valueType === 'DECIMAL32') series.scaled = BigInt64Array.from({ length: count }, int64);
  if (valueType === 'TEXT') series.text = Array.from({ length: count }, () => pick(TEXTS));
  if (valueType === 'MIXED') {
    series.isText = Uint8Array.from({ length: count }, () => (next() < 0.5 ? 1 : 0));
    series.float = Float64Array.from(series.isText, (isText) => (isText ? 0 : float()));
    series.text = Array.from(series.isText, (isText) => (isText ? pick(TEXTS) : ''));
  }
  return series;
}

function randomBatch(seed: number): IngestBatch {
  const next = prng(seed);
  const seriesCount = Math.floor(next() * 8);
  const series = Array.from({ length: seriesCount }, (_, i) =>
    randomSeries(next, next() < 0.1 ? Number.MAX_SAFE_INTEGER - i : i * 1_000_003, VALUE_TYPES[Math.floor(next() * VALUE_TYPES.length)] as ValueType, Math.floor(next() * (next() < 0.2 ? 2000 : 20))),
  );
  const tenant = next() < 0.5 ? `t-${seed}` : `tenant:ÆØ-${seed}`;
  return { tenant, series, writeVersion: BigInt(Math.floor(next() * 2 ** 53)) * 2048n };
}

/** Byte-level equality of columns so NaN payloads and -0 count. */
function sameBytes(a: ArrayBufferView | undefined, b: ArrayBufferView | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return Buffer.compare(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), new Uint8Array(b.buffer, b.byteOffset, b.byteLength)) === 0;
}

function check(t: Tap, batch: IngestBatch): void {
  const decoded = decodeIngestBatch(encodeIngestBatch(batch));
  t.equal(decoded.tenant, batch.tenant);
  t.equal(decoded.writeVersion, batch.writeVersion);
  t.equal(decoded.series.length, batch.series.length);
  batch.series.forEach((want, i) => {
    const got = decoded.series[i] as SeriesPoints;
    const ok = got.seriesId === want.seriesId && got.valueType === want.valueType &&
      sameBytes(got.timestampMs, want.timestampMs) && sameBytes(got.float, want.float) &&
      sameBytes(got.bigint, want.bigint) && sameBytes(got.scaled, want.scaled) && sameBytes(got.isText, want.isText);
    t.ok(ok, `series ${i} (${want.valueType}, ${want.timestampMs.length} points) columns round-trip`);
    t.same(got.text, want.text, `series ${i} text`);
    t.same(Object.keys(got).sort(), Object.keys(want).sort(), `series ${i} has exactly its valueType's columns`);
  });
}

t.test('random batches round-trip exactly', async (t) => {
  for (let seed = 1; seed <= 60; seed++) {
    t.test(`seed ${seed}`, async (t) => check(t, randomBatch(seed)));
  }
});

t.test('edge cases round-trip', async (t) => {
  check(t, { tenant: 'x', series: [], writeVersion: 0n });
  check(t, { tenant: 'x', series: [], writeVersion: (1n << 64n) - 1n });
  check(t, { tenant: 'x', series: [{ seriesId: 0, valueType: 'FLOAT', timestampMs: new Float64Array(0), float: new Float64Array(0) }], writeVersion: 1n });
  check(t, { tenant: 'x', series: [{ seriesId: 1, valueType: 'BIGINT', timestampMs: Float64Array.of(-2_208_988_800_000, 4_102_444_799_999), bigint: BigInt64Array.of(-(1n << 63n), (1n << 63n) - 1n) }], writeVersion: 7n });
  // A view into a larger buffer encodes only its own elements.
  const wide = new Float64Array([9, 1, 2, 9]);
  check(t, { tenant: 'x', series: [{ seriesId: 2, valueType: 'FLOAT', timestampMs: wide.subarray(1, 3), float: wide.subarray(1, 3) }], writeVersion: 1n });
});

t.test('numeric points are compact', async (t) => {
  const count = 10_000;
  const timestampMs = Float64Array.from({ length: count }, (_, i) => 1_700_000_000_000 + i * 1000);
  const bytes = encodeIngestBatch({ tenant: 'acme', series: [{ seriesId: 5, valueType: 'FLOAT', timestampMs, float: new Float64Array(count) }], writeVersion: 1n });
  t.ok(bytes.length < count * 11, `${bytes.length} bytes for ${count} regular FLOAT points`);
});

t.test('encode refuses batches that break the SeriesPoints invariants', async (t) => {
  const bad = (series: SeriesPoints, why: string) =>
    t.throws(() => encodeIngestBatch({ tenant: 'x', series: [series], writeVersion: 1n }), { name: 'AssertionError' }, why);
  bad({ seriesId: 1, valueType: 'FLOAT', timestampMs: Float64Array.of(2, 1), float: Float64Array.of(1, 2) }, 'descending');
  bad({ seriesId: 1, valueType: 'FLOAT', timestampMs: Float64Array.of(1, 1), float: Float64Array.of(1, 2) }, 'duplicate timestamp');
  bad({ seriesId: 1, valueType: 'FLOAT', timestampMs: Float64Array.of(1.5), float: Float64Array.of(1) }, 'fractional timestamp');
  bad({ seriesId: 1, valueType: 'FLOAT', timestampMs: Float64Array.of(1, 2), float: Float64Array.of(1) }, 'short column');
  bad({ seriesId: 1, valueType: 'BIGINT', timestampMs: Float64Array.of(1), float: Float64Array.of(1) }, 'missing bigint column');
  bad({ seriesId: 1.5, valueType: 'TEXT', timestampMs: Float64Array.of(1), text: ['a'] }, 'fractional id');
  t.throws(() => encodeIngestBatch({ tenant: '', series: [], writeVersion: 1n }), { name: 'AssertionError' }, 'no tenant');
  t.throws(() => encodeIngestBatch({ tenant: 'x', series: [], writeVersion: -1n }), { name: 'AssertionError' }, 'negative version');
});

t.test('decode refuses what is not a batch', async (t) => {
  const good = encodeIngestBatch(randomBatch(7));
  t.throws(() => decodeIngestBatch(Buffer.from('hello world')), BatchCodecError, 'foreign bytes');
  t.throws(() => decodeIngestBatch(Buffer.alloc(0)), BatchCodecError, 'empty');
  for (const cut of [3, 5, 12, good.length - 1]) {
    t.throws(() => decodeIngestBatch(good.subarray(0, cut)), BatchCodecError, `truncated at ${cut}`);
  }
  const longer = Buffer.alloc(good.length + 1);
  longer.set(good);
  t.throws(() => decodeIngestBatch(longer), BatchCodecError, 'trailing byte');
  const future = Buffer.alloc(good.length);
  future.set(good);
  future[3] = 2;
  t.throws(() => decodeIngestBatch(future), BatchCodecVersionError, 'newer format version');
});
