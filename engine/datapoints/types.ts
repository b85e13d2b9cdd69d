// The shapes data points take between the parsing workers, the ingest log and the
// columnar store. Fixed here so the three can be built and tested apart.

/** SPEC "Time series": valueType is immutable after creation. */
export const VALUE_TYPES = ['BIGINT', 'FLOAT', 'FLOAT32', 'NUMERIC', 'DECIMAL32', 'TEXT', 'MIXED'] as const;
export type ValueType = (typeof VALUE_TYPES)[number];

/**
 * Decimal semantics (issue 3): NUMERIC is Decimal(18, 6), DECIMAL32 is Decimal(9, 3).
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

/** A batch of one tenant's points as handed to the ingest log. */
export interface IngestBatch {
  tenant: string;
  series: SeriesPoints[];
  /**
   * Monotonic write version (assigned once when the batch enters the log). The store keeps
   * the point with the highest version per (tenant, series, timestamp), and a delete records
   * the version it was issued at, so replaying a batch can neither duplicate a point nor
   * bring back a deleted one (issue 3, Kafka mode).
   */
  writeVersion: bigint;
}

/**
 * The ingest log: in the embedded default a group-commit batcher in front of the store,
 * with KAFKA_BROKERS a Kafka producer. append() resolves only once the batch is durable
 * (CONTRACT: a 2xx means stored, or acked by Kafka with acks=all).
 */
export interface IngestLog {
  append(batch: Omit<IngestBatch, 'writeVersion'>): Promise<void>;
  close(): Promise<void>;
}
