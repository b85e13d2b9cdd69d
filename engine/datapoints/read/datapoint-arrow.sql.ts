// SQL of a raw page read as Arrow columns (datapoint-arrow.ts): the engine's own ArrowStream
// output, typed as the answer's columns are (docs/api.md "Arrow answers"), so no point
// becomes a JavaScript object or string on its way out. Live rows as every raw read
// (datapoint-read.sql.ts liveRawRows); tenant leads the WHERE; names come from families.ts only.
import type { TombstoneForm } from './series-context.ts';
import { liveRawRows } from './datapoint-read.sql.ts';
import type { Family, FamilyShape } from '../tables/families.ts';

/** 2^53: below it a decimal's scaled integer is exact as a double, and one division by 10^scale rounds once. */
const SCALED_EXACT_MAX = '9007199254740992';

/**
 * The value columns per family, named arrow_value (and arrow_text for MIXED). Decimals are
 * the double nearest the decimal: toFloat64 of a Decimal divides its scaled integer as a
 * double, which rounds twice past 2^53 (9007199254.740993 came out ...740992), so those few
 * go through the decimal's text, parsed to the nearest double.
 */
const ARROW_VALUE: Readonly<Record<Family, string>> = {
  float: 'value AS arrow_value',
  int: 'value AS arrow_value',
  numeric: `if(abs(reinterpret(value, 'Int64')) <= ${SCALED_EXACT_MAX}, toFloat64(value), toFloat64(toString(value))) AS arrow_value`,
  decimal32: 'toFloat64(value) AS arrow_value',
  text: 'value AS arrow_value',
  mixed: 'if(is_text = 1, NULL, value) AS arrow_value, if(is_text = 1, text, NULL) AS arrow_text',
};

/** One series' raw points in the read's window. */
const ONE_SERIES_WINDOW = 'tenant = {tenant:String} AND series_id = {series_id:UInt64} AND ts >= {start:Int64} AND ts < {end:Int64}';

/**
 * One raw page and the point past it: {fetch} = limit + 1 rows of `ts` (Int64 epoch ms) and
 * the value columns, always ascending. A descending walk (no start: the most recent points)
 * takes the newest {fetch} and turns them around, so the point past the page comes first.
 * Strings leave as Arrow utf8 (the setting is a server's default, said here for older ones).
 * One thread, as the JSON page's: a 100,000-point page of 1M took 19 ms (median of 12) on one
 * thread and 32 ms on the engine's default, the threads contending for 2 shared cores.
 */
export function rawArrowSql(shape: FamilyShape, order: 'ASC' | 'DESC', tombstones: TombstoneForm, queued = false): string {
  const page = `SELECT ts, ${ARROW_VALUE[shape.family]}
${liveRawRows(shape, ONE_SERIES_WINDOW, tombstones, { queued })}
ORDER BY ts ${order}
LIMIT {fetch:UInt32}`;
  const settings = 'SETTINGS output_format_arrow_string_as_string = 1, max_threads = 1';
  return order === 'ASC' ? `${page}\n${settings}` : `SELECT * FROM (\n${page}\n)\nORDER BY ts ASC\n${settings}`;
}
