// Goal: a packed batch reads back every series exactly as it was given (ids, valueTypes, each
// column's entries, text), whether the columns lie in one shared slab at offsets (as the parse
// workers write them), in one buffer each (as a log record decodes) or both, and it copies
// nothing: its views lie on the batch's own memory. Method: fast-check draws batches of every
// valueType laid out either way, packs them, and compares series(i), the per-column accessors
// and unpack() with the input.
import fc from 'fast-check';
import t from 'tap';
import { PACKED_BIGINT, PACKED_FLOAT, PACKED_IS_TEXT, PACKED_SCALED, PACKED_TS, PackedBatch, packed } from './packed-batch.ts';
import type { SeriesPoints, ValueType } from '../types.ts';
import type { IngestBatch } from '../../ingest/ingest-log.ts';

const drawnSeries = fc.record({
  seriesId: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  valueType: fc.constantFrom<ValueType>('FLOAT', 'FLOAT32', 'BIGINT', 'NUMERIC', 'DECIMAL32', 'TEXT', 'MIXED'),
  values: fc.array(fc.tuple(fc.double(), fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }), fc.string({ maxLength: 4 }), fc.boolean()), { maxLength: 12 }),
});

/** The series with their columns in one slab, 8-aligned, one after another (the workers' layout), or each in its own buffer. */
interface Drawn { seriesId: number; valueType: ValueType; values: [number, bigint, string, boolean][] }

function lay(drawn: Drawn[], inSlab: boolean): SeriesPoints[] {
  const slab = new SharedArrayBuffer(drawn.reduce((n, d) => n + 8 + d.values.length * 32 + 8, 64));
  let at = 8; // not at 0: offsets must be honoured
  const place = <T extends Float64Array | BigInt64Array | Uint8Array>(make: (buffer: ArrayBufferLike, offset: number, n: number) => T, width: number, n: number): T => {
    if (!inSlab) return make(new ArrayBuffer(n * width), 0, n);
    const column = make(slab, at, n);
    at += Math.ceil((n * width) / 8) * 8;
    return column;
  };
  return drawn.map((d) => {
    const n = d.values.length;
    const s: SeriesPoints = { seriesId: d.seriesId, valueType: d.valueType, timestampMs: place((b, o, k) => new Float64Array(b, o, k), 8, n) };
    s.timestampMs.set(d.values.map((_, i) => 1_700_000_000_000 + i * 1000));
    if (d.valueType === 'FLOAT' || d.valueType === 'FLOAT32' || d.valueType === 'MIXED') (s.float = place((b, o, k) => new Float64Array(b, o, k), 8, n)).set(d.values.map((v) => v[0]));
    if (d.valueType === 'BIGINT') (s.bigint = place((b, o, k) => new BigInt64Array(b, o, k), 8, n)).set(d.values.map((v) => v[1]));
    if (d.valueType === 'NUMERIC' || d.valueType === 'DECIMAL32') (s.scaled = place((b, o, k) => new BigInt64Array(b, o, k), 8, n)).set(d.values.map((v) => v[1]));
    if (d.valueType === 'TEXT' || d.valueType === 'MIXED') s.text = d.values.map((v) => v[2]);
    if (d.valueType === 'MIXED') (s.isText = place((b, o, k) => new Uint8Array(b, o, k), 1, n)).set(d.values.map((v) => (v[3] ? 1 : 0)));
    return s;
  });
}

t.test('every series reads back as given, from a slab or from buffers of its own, without a copy', async (t) => {
  fc.assert(fc.property(fc.array(drawnSeries, { maxLength: 6 }), fc.boolean(), fc.bigInt({ min: 1n, max: (1n << 62n) }), (drawn, inSlab, writeVersion) => {
    const batch: IngestBatch = { tenant: 'acme', writeVersion, series: lay(drawn, inSlab) };
    const pack = new PackedBatch(batch);
    if (pack.seriesCount !== batch.series.length || pack.tenant !== 'acme' || pack.writeVersion !== writeVersion) throw new Error('batch fields');
    if (pack.pointCount !== drawn.reduce((n, d) => n + d.values.length, 0)) throw new Error('pointCount');
    batch.series.forEach((s, i) => {
      const back = pack.series(i);
      t.same(back, s);
      if (back.timestampMs.buffer !== s.timestampMs.buffer || back.timestampMs.byteOffset !== s.timestampMs.byteOffset) throw new Error('a copy, not a view');
      if (pack.seriesId(i) !== s.seriesId || pack.valueType(i) !== s.valueType || pack.length(i) !== s.timestampMs.length) throw new Error('row fields');
      const start = pack.start(i, PACKED_TS);
      if (s.timestampMs.length > 0 && pack.firstTimestamp(i) !== s.timestampMs[0]) throw new Error('first timestamp');
      for (let k = 0; k < s.timestampMs.length; k++) {
        if (pack.f64(i, PACKED_TS)[start + k] !== s.timestampMs[k]) throw new Error('timestamp entry');
        if (s.float && !Object.is(pack.f64(i, PACKED_FLOAT)[pack.start(i, PACKED_FLOAT) + k], s.float[k])) throw new Error('float entry');
        if (s.bigint && pack.i64(i, PACKED_BIGINT)[pack.start(i, PACKED_BIGINT) + k] !== s.bigint[k]) throw new Error('bigint entry');
        if (s.scaled && pack.i64(i, PACKED_SCALED)[pack.start(i, PACKED_SCALED) + k] !== s.scaled[k]) throw new Error('scaled entry');
        if (s.isText && pack.u8(i, PACKED_IS_TEXT)[pack.start(i, PACKED_IS_TEXT) + k] !== s.isText[k]) throw new Error('isText entry');
      }
      if (pack.has(i, PACKED_FLOAT) !== (s.float !== undefined) || pack.has(i, PACKED_IS_TEXT) !== (s.isText !== undefined)) throw new Error('column presence');
      if (pack.text(i) !== s.text) throw new Error('text');
    });
    t.same(pack.unpack(), batch);
  }), { numRuns: 300 });
});

t.test('packed() keeps a packed batch and packs a plain one', async (t) => {
  const batch: IngestBatch = { tenant: 'acme', writeVersion: 7n, series: [{ seriesId: 3, valueType: 'FLOAT', timestampMs: Float64Array.of(1, 2), float: Float64Array.of(5, 6) }] };
  const pack = packed(batch);
  t.ok(pack instanceof PackedBatch);
  t.equal(packed(pack), pack);
  t.same(pack.unpack(), batch);
});
