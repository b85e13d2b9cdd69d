// Goal: a batch comes back from its write-ahead record bit for bit, for every value type
// (BIGINT beyond 2^53, -0 and NaN payloads, text with escapes, MIXED), and a record cut short
// or padded is refused; a record of each older format version (1: JSON header, 2: binary header
// without a format word) still decodes, and a format word naming an unknown version is refused
// with an error naming it. Method: encode, join the parts as the log writes them, decode; the
// older records are built byte by byte as those versions laid them out.
import t from 'tap';
import type { IngestBatch } from './ingest-log.ts';
import { WAL_RECORD_VERSION, decodeWalRecord, encodePackedWalRecord, encodeWalRecord } from './wal-record.ts';
import { ownedCopy } from './owned-batch.ts';
import { SlabPool } from '../memory/slab-pool.ts';
import { PackedBatch } from '../datapoints/write/packed-batch.ts';

const ts = (n: number) => Float64Array.from({ length: n }, (_, i) => 1_700_000_000_000 + i * 1000);
const batch: IngestBatch = {
  tenant: 'acme "plant" ü',
  writeVersion: (1n << 62n) + 5n,
  series: [
    { seriesId: 1, valueType: 'FLOAT', timestampMs: ts(3), float: Float64Array.from([-0, Number.MAX_VALUE, 5e-324]) },
    { seriesId: 2, valueType: 'BIGINT', timestampMs: ts(2), bigint: BigInt64Array.from([(1n << 63n) - 1n, -(1n << 63n)]) },
    { seriesId: 3, valueType: 'NUMERIC', timestampMs: ts(1), scaled: BigInt64Array.from([-123_456_789n]) },
    { seriesId: 4, valueType: 'TEXT', timestampMs: ts(2), text: ['line\nbreak', '"quoted" \\ back'] },
    { seriesId: Number.MAX_SAFE_INTEGER, valueType: 'MIXED', timestampMs: ts(2), float: Float64Array.from([1.5, 0]), text: ['', 'word'], isText: Uint8Array.from([0, 1]) },
  ],
};

const join = (parts: Uint8Array[]) => Buffer.concat(parts);

t.test('every value type round-trips exactly', async (t) => {
  const back = decodeWalRecord(join(encodeWalRecord(batch)));
  t.equal(back.tenant, batch.tenant);
  t.equal(back.writeVersion, batch.writeVersion);
  t.equal(back.series.length, batch.series.length);
  batch.series.forEach((series, i) => {
    const got = back.series[i];
    t.same(got, series, `series ${series.seriesId} (${series.valueType})`);
  });
  t.ok(Object.is(back.series[0]?.float?.[0], -0), '-0 stays -0');
});

t.test('a packed batch writes the same record byte for byte, its columns as the one run they lie in', async (t) => {
  // Laid out as the parse workers lay a request's columns: back to back in record order, in one buffer.
  const owned = ownedCopy(batch, new SlabPool());
  const packed = new PackedBatch(owned.batch);
  const run = packed.columnRun();
  if (!run) throw new Error('the copy lays the columns out as one run');
  t.same(Buffer.from(run), Buffer.from(owned.columnBytes as Uint8Array), 'the run is the copy\'s column bytes');
  t.same(join(encodePackedWalRecord(packed, run)), join(encodeWalRecord(batch)));
  t.same(decodeWalRecord(join(encodePackedWalRecord(packed, run))), batch);
  t.throws(() => encodePackedWalRecord(packed, run.subarray(1)), /column bytes given/, 'a run of the wrong length is refused');
  const apart = new PackedBatch(batch); // each column an array of its own
  t.equal(apart.columnRun(), undefined, 'columns in several buffers are no run');
});

t.test('a version-1 record (JSON header) still decodes', async (t) => {
  // Format version 1: u32 header length (high bit clear), header JSON, the columns.
  const header = {
    tenant: batch.tenant, version: batch.writeVersion.toString(),
    series: batch.series.map((s) => ({ id: s.seriesId, type: s.valueType, n: s.timestampMs.length, columns: (['float', 'bigint', 'scaled', 'isText'] as const).filter((c) => s[c] !== undefined), ...(s.text ? { text: s.text } : {}) })),
  };
  const json = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(json.length, 0);
  const columns = batch.series.flatMap((s) => [s.timestampMs, s.float, s.bigint, s.scaled, s.isText].filter((c) => c !== undefined).map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength)));
  t.same(decodeWalRecord(Buffer.concat([length, json, ...columns])), batch);
  t.same(decodeWalRecord(join(encodeWalRecord(batch))), batch, 'and the binary header decodes to the same batch');
});

t.test('records carry format version 3; a version-2 record still decodes', async (t) => {
  const whole = join(encodeWalRecord(batch));
  t.equal(WAL_RECORD_VERSION, 3);
  t.equal(whole.readUInt32LE(0), 0x8000_0003, 'the first word: the high bit and the version');
  // Format version 2: no format word; the header's u32 length with the high bit set, then the same header.
  const v2 = Buffer.from(whole.subarray(4));
  v2.writeUInt32LE((0x8000_0000 | v2.readUInt32LE(0)) >>> 0, 0);
  t.same(decodeWalRecord(v2), batch);
  const empty: IngestBatch = { tenant: '', writeVersion: 0n, series: [] };
  const emptyV2 = Buffer.from(join(encodeWalRecord(empty)).subarray(4));
  t.equal(emptyV2.readUInt32LE(0), 18, 'the shortest version-2 header is 18 bytes, above every format word');
  emptyV2.writeUInt32LE((0x8000_0000 | 18) >>> 0, 0);
  t.same(decodeWalRecord(emptyV2), empty);
});

t.test('a record of an unknown format version is refused, naming the version', async (t) => {
  const whole = join(encodeWalRecord(batch));
  for (const version of [0, 4, 17]) {
    const other = Buffer.from(whole);
    other.writeUInt32LE((0x8000_0000 | version) >>> 0, 0);
    t.throws(() => decodeWalRecord(other), new RegExp(`format version ${version} is not known to this build \\(it reads versions 1 to 3\\)`), `version ${version}`);
  }
});

t.test('a binary header that does not add up is refused', async (t) => {
  const whole = join(encodeWalRecord(batch));
  const wrongCount = Buffer.from(whole);
  wrongCount.writeUInt32LE(batch.series.length + 1, 8);
  t.throws(() => decodeWalRecord(wrongCount), /header length|cut short|out of range/);
  const wrongType = Buffer.from(whole);
  wrongType.writeUInt8(200, 22 + Buffer.byteLength(batch.tenant) + 8);
  t.throws(() => decodeWalRecord(wrongType), /unknown valueType/);
});

t.test('the parts are views on the batch, not copies', async (t) => {
  const parts = encodeWalRecord(batch);
  t.ok(parts.some((part) => part.buffer === batch.series[0]?.timestampMs.buffer), 'timestamps go out as their own bytes');
});

t.test('a record cut short or with bytes left over is refused', async (t) => {
  const whole = join(encodeWalRecord(batch));
  t.throws(() => decodeWalRecord(whole.subarray(0, whole.length - 1)), /cut short/);
  t.throws(() => decodeWalRecord(Buffer.concat([whole, Buffer.from([0])])), /left over/);
});
