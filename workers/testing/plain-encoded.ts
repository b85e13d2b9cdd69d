// Test helper: an EncodedBody with every column as a plain array, -0 spelled out, so t.same
// compares encodings made into different memory (allocated or carved out of a slab).
import type { EncodedBody } from '../datapoint-encode.ts';

export function plainEncoded(encoded: EncodedBody): unknown {
  const numbers = (column: ArrayLike<number | bigint> | undefined) => (column === undefined ? undefined : Array.from(column, (v) => (Object.is(v, -0) ? '-0' : v)));
  return {
    errors: encoded.errors,
    series: encoded.series.map((s) =>
      s === null
        ? null
        : { seriesId: s.seriesId, valueType: s.valueType, timestampMs: numbers(s.timestampMs), float: numbers(s.float), bigint: numbers(s.bigint), scaled: numbers(s.scaled), isText: numbers(s.isText), text: s.text },
    ),
  };
}
