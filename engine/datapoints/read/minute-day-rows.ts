// The answer of the minute-days statement (MINUTE_DAYS_SQL) as columns of doubles ordered by
// series and minute: the statement leaves the decimal decoding and the order to this side,
// where they cost microseconds (up to 64 series-days of 1,440 rows) instead of milliseconds
// of the engine's pipeline.
import type { Table } from 'apache-arrow';
import { decodeDecimalColumn } from '../tables/decimal-coding.ts';
import { MINUTE_BUCKET_MS } from '../tables/families.ts';

/**
 * One series' minute rollup rows of one UTC day, ascending by minute (FLOAT family), as views
 * over one buffer of MINUTE_DAY_ROW_BYTES a row (packMinuteDay): five doubles a row took 40
 * bytes, the whole day's bucket times 11.5 KB of it.
 */
export interface MinuteDay {
  /** The day's first millisecond (UTC). */
  dayMs: number;
  /** Each row's minute of the day, 0-1439: its bucket starts at dayMs + minute * 60,000. */
  minute: Uint16Array;
  /** Numeric values in the minute. */
  n: Uint32Array;
  s: Float64Array;
  lo: Float64Array;
  hi: Float64Array;
}

/** Every row of the answer, each column as doubles. */
export interface MinuteRows {
  series: Float64Array;
  /** The minute's bucket start, epoch ms. */
  bucket: Float64Array;
  n: Float64Array;
  s: Float64Array;
  lo: Float64Array;
  hi: Float64Array;
}

/** Bytes a held minute row takes: three doubles, a 32-bit count and a 16-bit minute of the day. */
export const MINUTE_DAY_ROW_BYTES = 30;

/** The memory of a whole held day: a row for each of its 1,440 minutes. */
export const WHOLE_MINUTE_DAY_BYTES = 1_440 * MINUTE_DAY_ROW_BYTES;

/** The memory a held day takes: its one buffer. */
export function minuteDayBytes(day: MinuteDay): number {
  return day.s.buffer.byteLength;
}

/**
 * Rows [from, to) of the answer, all of one series and of the UTC day starting at dayMs, as a
 * held day: one buffer (an entry must not hold the whole answer's buffers), doubles first so
 * every view is aligned. A minute holds at most 60,000 values (one per millisecond), so the
 * count fits 32 bits.
 */
export function packMinuteDay(rows: MinuteRows, from: number, to: number, dayMs: number): MinuteDay {
  const length = to - from;
  const buffer = new ArrayBuffer(length * MINUTE_DAY_ROW_BYTES);
  const day: MinuteDay = {
    dayMs,
    s: new Float64Array(buffer, 0, length),
    lo: new Float64Array(buffer, length * 8, length),
    hi: new Float64Array(buffer, length * 16, length),
    n: new Uint32Array(buffer, length * 24, length),
    minute: new Uint16Array(buffer, length * 28, length),
  };
  day.s.set(rows.s.subarray(from, to));
  day.lo.set(rows.lo.subarray(from, to));
  day.hi.set(rows.hi.subarray(from, to));
  day.n.set(rows.n.subarray(from, to));
  for (let i = 0; i < length; i++) day.minute[i] = ((rows.bucket[from + i] as number) - dayMs) / MINUTE_BUCKET_MS;
  return day;
}

export function minuteRows(table: Table): MinuteRows {
  if (table.numRows === 0) {
    const none = new Float64Array(0);
    return { series: none, bucket: none, n: none, s: none, lo: none, hi: none };
  }
  const doubles = (name: string) => table.getChild(name)?.toArray() as Float64Array;
  const decimal = (name: string) => decodeDecimalColumn(table.getChild(`${name}_m`)?.toArray() as BigInt64Array, table.getChild(`${name}_e`)?.toArray() as Uint8Array);
  return inKeyOrder({
    series: doubles('series'), bucket: doubles('minute'), n: doubles('n'), s: decimal('value_sum'), lo: decimal('value_min'), hi: decimal('value_max'),
  });
}

/** The rows as they came when already ordered by (series, minute), as one part read by one stream gives them; else reordered. */
function inKeyOrder(rows: MinuteRows): MinuteRows {
  const { series, bucket } = rows;
  let ordered = true;
  for (let i = 1; i < series.length && ordered; i++) {
    const a = series[i - 1] as number;
    const b = series[i] as number;
    ordered = a < b || (a === b && (bucket[i - 1] as number) < (bucket[i] as number));
  }
  if (ordered) return rows;
  const order = Uint32Array.from(series.keys()).sort((i, j) => (series[i] as number) - (series[j] as number) || (bucket[i] as number) - (bucket[j] as number));
  const permuted = (column: Float64Array) => Float64Array.from(order, (i) => column[i] as number);
  return { series: permuted(series), bucket: permuted(bucket), n: permuted(rows.n), s: permuted(rows.s), lo: permuted(rows.lo), hi: permuted(rows.hi) };
}
