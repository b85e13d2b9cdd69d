// Goal: the ingest log's copy of a batch holds exactly the batch's points in memory of its own
// (a later change to the request's memory does not reach it), and when its columns lie back
// to back in record order the write-ahead record takes them as one part with the same bytes
// as one part per column. Both copies are covered: the block copy of columns the workers laid
// out back to back, and the column-by-column copy, with and without padding.
// Method: batches built as the workers build them (one arena, each item's timestamps then
// its values) and as separate arrays; records compared byte for byte and decoded.
import t, { type Test } from 'tap';
import type { SeriesPoints } from '../datapoints/types.ts';
import type { IngestBatch } from './ingest-log.ts';
import { ColumnArena } from '../memory/column-arena.ts';
import { SlabPool } from '../memory/slab-pool.ts';
import { ownedCopy } from './owned-batch.ts';
import { decodeWalRecord, encodeWalRecord } from './wal-record.ts';

const ts = (n: number, from = 1_700_000_000_000) => Float64Array.from({ length: n }, (_, i) => from + i * 1000);
const join = (parts: Uint8Array[]) => Buffer.concat(parts);

/** As the workers lay out an encoded body: one arena, per series its timestamps and then its values. */
function workerLaidOut(textPoints: number): IngestBatch {
  const arena = new ColumnArena(new SharedArrayBuffer(1 << 16));
  arena.float64(5).fill(7); // the body's own columns come first in the workers' arena
  const put = <T extends Float64Array | BigInt64Array | Uint8Array>(to: T, values: ArrayLike<number | bigint>): T => (to.set(values as never), to);
  const series: SeriesPoints[] = [
    { seriesId: 7, valueType: 'FLOAT', timestampMs: put(arena.float64(3), ts(3)), float: put(arena.float64(3), [-0, 1.5, Number.MAX_VALUE]) },
    { seriesId: 8, valueType: 'BIGINT', timestampMs: put(arena.float64(2), ts(2, 5)), bigint: put(arena.bigint64(2), [(1n << 63n) - 1n, -(1n << 63n)]) },
    { seriesId: 9, valueType: 'NUMERIC', timestampMs: put(arena.float64(1), ts(1, 9)), scaled: put(arena.bigint64(1), [-123_456_789n]) },
  ];
  const mixedTs = put(arena.float64(textPoints), ts(textPoints, 11));
  const mixedFloat = put(arena.float64(textPoints), Array.from({ length: textPoints }, (_, i) => i / 4));
  const isText = put(arena.uint8(textPoints), Array.from({ length: textPoints }, (_, i) => i % 2));
  series.push({ seriesId: 10, valueType: 'MIXED', timestampMs: mixedTs, float: mixedFloat, isText, text: Array.from({ length: textPoints }, (_, i) => (i % 2 ? `w${i}` : '')) });
  // A FLOAT series after the MIXED one: its timestamps start after isText's padding, if any.
  series.push({ seriesId: 11, valueType: 'FLOAT', timestampMs: put(arena.float64(2), ts(2, 13)), float: put(arena.float64(2), [3, 4]) });
  return { tenant: 'acme', writeVersion: 42n, series };
}

/** The same points, every column an array of its own. */
function separateArrays(batch: IngestBatch): IngestBatch {
  return {
    ...batch,
    series: batch.series.map((s) => ({
      ...s,
      timestampMs: s.timestampMs.slice(),
      ...(s.float ? { float: s.float.slice() } : {}),
      ...(s.bigint ? { bigint: s.bigint.slice() } : {}),
      ...(s.scaled ? { scaled: s.scaled.slice() } : {}),
      ...(s.isText ? { isText: s.isText.slice() } : {}),
    })),
  };
}

function checkCopy(t: Test, batch: IngestBatch, slabs: SlabPool | undefined, wantOnePart: boolean): void {
  const expected = separateArrays(batch); // structuredClone would share a SharedArrayBuffer
  const owned = ownedCopy(batch, slabs);
  t.same(owned.batch, expected, 'the copy holds the batch');
  t.equal(owned.columnBytes !== undefined, wantOnePart, wantOnePart ? 'columns in one run' : 'columns not in one run (padding)');
  for (const s of batch.series) {
    s.timestampMs.fill(0);
    s.float?.fill(-1);
    s.bigint?.fill(0n);
    s.scaled?.fill(0n);
    s.isText?.fill(9);
  }
  t.same(owned.batch, expected, 'the request\'s memory changing later does not reach the copy');
  const perColumn = join(encodeWalRecord(owned.batch));
  const record = join(encodeWalRecord(owned.batch, owned.columnBytes));
  if (owned.columnBytes) t.equal(encodeWalRecord(owned.batch, owned.columnBytes).length, 2, 'header, columns');
  t.ok(record.equals(perColumn), 'the same record bytes as one part per column');
  t.same(decodeWalRecord(record), expected, 'the record decodes to the batch');
  owned.release();
}

t.test('columns the workers laid out back to back: one block copy, one record part', async (t) => {
  checkCopy(t, workerLaidOut(8), new SlabPool(), true);
  checkCopy(t, workerLaidOut(8), undefined, true);
});

t.test('columns in arrays of their own: copied one by one, still one record part', async (t) => {
  checkCopy(t, separateArrays(workerLaidOut(8)), new SlabPool(), true);
});

t.test('an isText column that needs padding: one record part per column', async (t) => {
  checkCopy(t, workerLaidOut(3), new SlabPool(), false);
  checkCopy(t, separateArrays(workerLaidOut(3)), new SlabPool(), false);
});

t.test('series out of arena order are copied one by one', async (t) => {
  const batch = workerLaidOut(8);
  batch.series.reverse();
  checkCopy(t, batch, new SlabPool(), true);
});

t.test('a record refuses column bytes that do not match its columns', async (t) => {
  const batch = workerLaidOut(8);
  t.throws(() => encodeWalRecord(batch, new Uint8Array(8)), /column bytes/);
});
