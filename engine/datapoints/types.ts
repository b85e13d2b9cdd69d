// The shapes data points take between the parsing workers, the ingest log and the
// columnar store. Fixed here so the three can be built and tested apart; the ingest log's own
// types (the batch it takes, the log, its commit listeners) are engine/ingest/ingest-log.ts.

/** SPEC "Time series": valueType is immutable after creation. */
export const VALUE_TYPES = ['BIGINT', 'FLOAT', 'FLOAT32', 'NUMERIC', 'DECIMAL32', 'TEXT', 'MIXED'] as const;
export type ValueType = (typeof VALUE_TYPES)[number];

/**
 * Decimal semantics: NUMERIC is Decimal(18, 6), DECIMAL32 is Decimal(9, 3).
 * Both travel as integers scaled by 10^scale in a BigInt64Array, so no double is involved.
 */
export const DECIMAL_FORMAT = {
  NUMERIC: { precision: 18, scale: 6 },
  DECIMAL32: { precision: 9, scale: 3 },
} as const;

/**
 * The points of one series in one write, after parsing against its valueType.
 * Invariants (asserted at engine entry): timestampMs is sorted ascending with no duplicate
 * (a later point in the same request replaced an earlier one at the same timestamp), every
 * column has timestampMs.length entries, and exactly the columns of the valueType are set:
 * - FLOAT, FLOAT32 (already rounded with Math.fround): `float`
 * - BIGINT: `bigint` (exact signed 64-bit)
 * - NUMERIC, DECIMAL32: `scaled` (value * 10^scale, exact; see DECIMAL_FORMAT)
 * - TEXT: `text`
 * - MIXED: `float` and `text` and `isText` (1 where the point is text; float is 0 there,
 *   text is '' where the point is numeric)
 */
export interface SeriesPoints {
  seriesId: number;
  valueType: ValueType;
  /** Epoch milliseconds, UTC, integers. */
  timestampMs: Float64Array;
  float?: Float64Array;
  bigint?: BigInt64Array;
  scaled?: BigInt64Array;
  text?: string[];
  isText?: Uint8Array;
}

/**
 * Points [from, to) of a series: views on its memory, or with `copy` columns of their own (for
 * a holder whose memory goes back to a pool while the slice is still read).
 */
export function seriesSlice(series: SeriesPoints, from: number, to: number, copy = false): SeriesPoints {
  const cut = <A extends { subarray(a: number, b: number): A; slice(a: number, b: number): A }>(column: A): A => (copy ? column.slice(from, to) : column.subarray(from, to));
  const slice: SeriesPoints = { seriesId: series.seriesId, valueType: series.valueType, timestampMs: cut(series.timestampMs) };
  if (series.float) slice.float = cut(series.float);
  if (series.bigint) slice.bigint = cut(series.bigint);
  if (series.scaled) slice.scaled = cut(series.scaled);
  if (series.text) slice.text = series.text.slice(from, to);
  if (series.isText) slice.isText = cut(series.isText);
  return slice;
}

/** The typed value columns of SeriesPoints, in the order the ingest log record and the worker wire lay them out. */
export const SERIES_VALUE_COLUMNS = ['float', 'bigint', 'scaled', 'isText'] as const;

/**
 * A series' value column by its place in SERIES_VALUE_COLUMNS, read by name: `series[name]`
 * with the name from a list is a megamorphic keyed load, and the log record, its copy and the
 * workers' wire made ~1,500 of them per gateway request (~2.7% of the service's CPU in perf,
 * bench/probe.ts gateway, 2026-11-25).
 */
export function seriesValueColumn(series: SeriesPoints, k: number): Float64Array | BigInt64Array | Uint8Array | undefined {
  switch (k) {
    case 0: return series.float;
    case 1: return series.bigint;
    case 2: return series.scaled;
    default: return series.isText;
  }
}

/**
 * A series' columns by place: 0 the timestamps, then SERIES_VALUE_COLUMNS' order (the ingest
 * log record's layout, and the packed batch's).
 */
export function seriesColumnAt(series: SeriesPoints, c: number): Float64Array | BigInt64Array | Uint8Array | undefined {
  return c === 0 ? series.timestampMs : seriesValueColumn(series, c - 1);
}

/**
 * A batch's series already in the packed layout (PACKED_ROW numbers each, write/packed-batch.ts;
 * every one with at least one point), as the parse workers' answer gives them
 * (workers/datapoint-wire.ts): a request goes to the ingest log without a SeriesPoints and its
 * typed-array views per series, which were 30% of what the event loop allocated per gateway
 * request (bench/probe.ts gateway --heap).
 */
export interface PackedRows {
  seriesCount: number;
  pointCount: number;
  /** Points of TEXT and MIXED series (the quota counts them apart). */
  textPointCount: number;
  /** Bytes of the series' columns (the log keeps the memory they lie in only when they fill enough of it). */
  columnByteCount: number;
  rows: Float64Array;
  memory: ArrayBufferLike[];
  /** By series index, where the series has text (TEXT, MIXED). */
  texts: (string[] | undefined)[] | undefined;
}

/** Each valueType's place in VALUE_TYPES: how the wire, the log record and packed batches write it as a number. */
export const VALUE_TYPE_INDEX: ReadonlyMap<ValueType, number> = new Map(VALUE_TYPES.map((type, k) => [type, k]));

// ---- Reads. Every read takes the tenant first and a series with its valueType
// (the series row lives in PostgreSQL; the store only sees tenant, numeric id and valueType).

/** A series as the store addresses it. */
export interface SeriesRef {
  seriesId: number;
  valueType: ValueType;
  /**
   * Acknowledged points of the series not yet in the store, within the time the read covers,
   * taken from the ingest log's memory when the read began (a memtable: the read does not
   * wait for their insert). Absent when the read waited for them instead.
   */
  queued?: readonly QueuedRun[];
}

/** Points of one acknowledged append of a series, at the append's write version (copies: the log's memory goes back at its insert). */
export interface QueuedRun {
  writeVersion: bigint;
  points: SeriesPoints;
}

/**
 * The JSON form a read answers in: SPEC's (values as exact decimal strings, `valueType`) or
 * CDF's (api/cdf: numeric values as JSON numbers, text as strings, `isString` and `isStep`).
 */
export type DatapointForm = 'spec' | 'cdf';

export interface RawReadOptions {
  /** Inclusive, epoch ms. Omitted (with or without end): the most recent `limit` points before end. */
  start?: number;
  /** Exclusive, epoch ms. Omitted: no upper bound. */
  end?: number;
  /** Points per page, 1 to DATAPOINTS_LIMIT_MAX. */
  limit: number;
  /** nextCursor of the previous page of the same request. */
  cursor?: string;
  /** The form of the point JSON readRawJson writes (readRaw ignores it). @default 'spec' */
  form?: DatapointForm;
}

export interface RawReadResult {
  /** Ascending by timestamp, in the columns of the series' valueType (see SeriesPoints). */
  points: SeriesPoints;
  /** Present when more points follow; pass it back as `cursor` with the same request. */
  nextCursor?: string;
}

export const GRANULARITIES = ['1m', '1h', '1d'] as const;
export type Granularity = (typeof GRANULARITIES)[number];
export const AGGREGATE_NAMES = ['AVG', 'MIN', 'MAX', 'COUNT', 'SUM'] as const;
export type AggregateName = (typeof AGGREGATE_NAMES)[number];

export interface AggregateOptions {
  /** Epoch ms; rounded down to the granularity's unit (in the time zone for hours and longer). */
  start: number;
  /** Epoch ms, exclusive: buckets starting before it are returned, each over all its points. */
  end: number;
  /** A count of a unit, `1m`, `15m`, `2h`, `1d`, `1w`, `1mo`, `1q`, `1y`, ... (aggregate-grid.ts). */
  granularity: Granularity | string;
  /** An IANA name or a fixed offset (time-zone.ts); UTC when omitted. */
  timeZone?: string;
  aggregates: readonly AggregateName[];
  /** Buckets per page, 1 to AGGREGATES_LIMIT_MAX. */
  limit: number;
  cursor?: string;
}

/**
 * A value read back: FLOAT, FLOAT32 and MIXED numbers as `number`; BIGINT as `bigint`;
 * NUMERIC and DECIMAL32 as `bigint` scaled by 10^scale (DECIMAL_FORMAT); TEXT and MIXED text
 * as `string`. formatDatapointValue() turns any of them into the API's string.
 */
export type DatapointValue = number | bigint | string;

/**
 * One bucket; only the requested aggregates are set, and a bucket without points is absent.
 * count: points in the bucket (MIXED: numeric points). sum/min/max: DatapointValue of the
 * valueType (BIGINT sums are exact bigints, decimal sums scaled bigints). average: number for
 * FLOAT, MIXED and BIGINT; for NUMERIC and DECIMAL32 a scaled bigint rounded half away from zero.
 */
export interface AggregateBucket {
  timestampMs: number;
  count?: number;
  sum?: number | bigint;
  min?: number | bigint;
  max?: number | bigint;
  average?: number | bigint;
}

export interface AggregateResult {
  buckets: AggregateBucket[];
  nextCursor?: string;
}

export interface LatestPoint {
  seriesId: number;
  timestampMs: number;
  value: DatapointValue;
}
