// Goal: the minute-days answer comes back as doubles ordered by series and minute whatever
// order the engine's streams gave the rows in, each row's columns kept together, values
// decoded from their stored parts; an empty answer is empty columns.
// Method: Arrow tables shaped as MINUTE_DAYS_SQL answers, rows shuffled by fast-check.
import fc from 'fast-check';
import t from 'tap';
import { tableFromArrays } from 'apache-arrow';
import { RAW_BITS } from '../tables/decimal-coding.ts';
import { minuteRows } from './minute-day-rows.ts';

interface Row { series: number; minute: number; n: number; sum: number; lo: number; hi: number }

function answerOf(rows: readonly Row[]) {
  // Sums as three-decimal integers, extremes as raw bits: both decodings in every row.
  return tableFromArrays({
    series: Float64Array.from(rows, (r) => r.series),
    minute: Float64Array.from(rows, (r) => r.minute),
    n: Float64Array.from(rows, (r) => r.n),
    value_sum_m: BigInt64Array.from(rows, (r) => BigInt(r.sum)),
    value_sum_e: Uint8Array.from(rows, () => 3),
    value_min_m: BigInt64Array.from(rows, (r) => new BigInt64Array(Float64Array.of(r.lo).buffer)[0] as bigint),
    value_min_e: Uint8Array.from(rows, () => RAW_BITS),
    value_max_m: BigInt64Array.from(rows, (r) => new BigInt64Array(Float64Array.of(r.hi).buffer)[0] as bigint),
    value_max_e: Uint8Array.from(rows, () => RAW_BITS),
  });
}

const rowsArb = fc.uniqueArray(fc.record({ series: fc.integer({ min: 1, max: 5 }), minute: fc.integer({ min: 0, max: 30 }).map((m) => m * 60_000) }), {
  selector: (r) => `${r.series}:${r.minute}`, maxLength: 80,
}).map((keys) => keys.map((k, i): Row => ({ ...k, n: i + 1, sum: k.series * 1_000_000 + k.minute / 60_000, lo: -k.minute / 7, hi: k.series / 3 })));

t.test('rows in any order come back ordered by series and minute, each row whole', async (t) => {
  await fc.assert(fc.property(rowsArb, fc.func(fc.integer()), (rows, rank) => {
    const shuffled = [...rows].sort((a, b) => rank(a) - rank(b));
    const got = minuteRows(answerOf(shuffled));
    const want = [...rows].sort((a, b) => a.series - b.series || a.minute - b.minute);
    t.equal(got.series.length, want.length);
    want.forEach((r, i) => {
      if (got.series[i] !== r.series || got.bucket[i] !== r.minute || got.n[i] !== r.n || got.s[i] !== r.sum / 1000 || got.lo[i] !== r.lo || got.hi[i] !== r.hi) {
        throw new Error(`row ${i}: ${JSON.stringify([got.series[i], got.bucket[i], got.n[i], got.s[i], got.lo[i], got.hi[i]])} for ${JSON.stringify(r)}`);
      }
    });
  }), { numRuns: 200 });
});

t.test('an empty answer is empty columns', async (t) => {
  const got = minuteRows(answerOf([]));
  t.same([got.series.length, got.bucket.length, got.n.length, got.s.length, got.lo.length, got.hi.length], [0, 0, 0, 0, 0, 0]);
});
