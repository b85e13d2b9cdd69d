// Goal: formatFloat writes exactly what String() writes for every double (its fast path covers
// values of at most three decimals: the decimals themselves, their neighbours one ulp away,
// negative values, -0, the edges of the 10^15 bound), so answers do not change with it.
// Method: fast-check over any double and over decimals at every scale, against String().
import fc from 'fast-check';
import t from 'tap';
import { formatFloat } from './datapoint-format.ts';

const decimals = fc.tuple(fc.integer({ min: -(2 ** 53), max: 2 ** 53 }), fc.integer({ min: 0, max: 6 })).map(([m, e]) => m / 10 ** e);
const neighbour = (v: number, step: number) => {
  const bits = new BigInt64Array(Float64Array.of(v).buffer);
  bits[0] = (bits[0] as bigint) + BigInt(step);
  return new Float64Array(bits.buffer)[0] as number;
};

t.test('formatFloat is String() for every double', async (t) => {
  fc.assert(fc.property(fc.oneof(fc.double(), decimals, decimals.map((v) => neighbour(v, 1)), decimals.map((v) => neighbour(v, -1))), (v) => {
    if (formatFloat(v) !== String(v)) throw new Error(`${formatFloat(v)} for ${String(v)}`);
  }), { numRuns: 200_000 });
  for (const v of [0, -0, 0.001, -0.001, 0.01, 0.1, 0.5, 1, -1, 10.05, 999999999999.999, -999999999999.999, 1e12, 1e15, 999999999999.9999,
    0.0005, 23.45, 23.4, 123456.789, 9007199254740.993, 0.1 + 0.2]) {
    t.equal(formatFloat(v), String(v), String(v));
  }
});
