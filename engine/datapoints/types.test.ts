// Goal: seriesValueColumn reads, by position, exactly the column SERIES_VALUE_COLUMNS names there
// (the log record and the workers' wire lay columns out in that order and read them with it).
// Method: a series with every value column set to a distinct array, and one with none.
import t from 'tap';
import { SERIES_VALUE_COLUMNS, VALUE_TYPES, VALUE_TYPE_INDEX, seriesColumnAt, seriesValueColumn, type SeriesPoints } from './types.ts';

t.test('each position reads the column its name says', async (t) => {
  const full: SeriesPoints = {
    seriesId: 1, valueType: 'MIXED', timestampMs: Float64Array.of(1),
    float: Float64Array.of(2), bigint: BigInt64Array.of(3n), scaled: BigInt64Array.of(4n), isText: Uint8Array.of(1),
  };
  t.equal(SERIES_VALUE_COLUMNS.length, 4);
  SERIES_VALUE_COLUMNS.forEach((name, k) => t.equal(seriesValueColumn(full, k), full[name], `${k}: ${name}`));
  const none: SeriesPoints = { seriesId: 2, valueType: 'TEXT', timestampMs: Float64Array.of(1), text: ['a'] };
  SERIES_VALUE_COLUMNS.forEach((name, k) => t.equal(seriesValueColumn(none, k), undefined, `${k}: ${name} absent`));
});

t.test('seriesColumnAt: the timestamps first, then the value columns in order; VALUE_TYPE_INDEX inverts VALUE_TYPES', async (t) => {
  const full: SeriesPoints = {
    seriesId: 1, valueType: 'MIXED', timestampMs: Float64Array.of(1),
    float: Float64Array.of(2), bigint: BigInt64Array.of(3n), scaled: BigInt64Array.of(4n), isText: Uint8Array.of(1),
  };
  t.equal(seriesColumnAt(full, 0), full.timestampMs);
  SERIES_VALUE_COLUMNS.forEach((name, k) => t.equal(seriesColumnAt(full, k + 1), full[name], `${k + 1}: ${name}`));
  VALUE_TYPES.forEach((type, k) => t.equal(VALUE_TYPE_INDEX.get(type), k, type));
  t.equal(VALUE_TYPE_INDEX.size, VALUE_TYPES.length);
});
