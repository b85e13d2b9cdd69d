// Storage families of data points: each valueType maps to one family, and each
// family has its raw table, its minute and hourly rollups and its latest-point table, all with the same
// layout apart from the value columns described here. Table and column names in SQL come
// only from this file (STYLE §7: identifiers from a fixed allow-list).
import { DECIMAL_MANTISSA_CODEC, decimalColumnDdl, decimalSumSql, decimalTargets } from './decimal-coding.ts';
import type { ValueType } from '../types.ts';

export const FAMILIES = ['float', 'int', 'numeric', 'decimal32', 'text', 'mixed'] as const;
export type Family = (typeof FAMILIES)[number];

const FAMILY_OF_VALUE_TYPE: Record<ValueType, Family> = {
  FLOAT: 'float', FLOAT32: 'float', BIGINT: 'int', NUMERIC: 'numeric', DECIMAL32: 'decimal32', TEXT: 'text', MIXED: 'mixed',
};

export function familyOf(valueType: ValueType): Family {
  return FAMILY_OF_VALUE_TYPE[valueType];
}

/** Hourly rollups are the base of the 1h and 1d granularities. */
export const ROLLUP_BUCKET_MS = 3_600_000;

/**
 * Minute rollups are the base of the 1m granularity and what the fold recomputes
 * hourly rows from (60 rows an hour instead of every raw point). Dirty marks are aligned to it.
 */
export const MINUTE_BUCKET_MS = 60_000;

/** The start of the bucket of `bucketMs` holding ms (negative times too). */
export function floorTo(ms: number, bucketMs: number): number {
  return ms - (((ms % bucketMs) + bucketMs) % bucketMs);
}

/** The end of the last bucket of `bucketMs` a range ending (exclusive) at ms touches. */
export function ceilTo(ms: number, bucketMs: number): number {
  const floor = floorTo(ms, bucketMs);
  return floor === ms ? ms : floor + bucketMs;
}

export interface FamilyShape {
  family: Family;
  rawTable: string;
  /** Hourly rollup rows (bucket = hour start). */
  rollupTable: string;
  /** Minute rollup rows, same columns (bucket = minute start). */
  minuteTable: string;
  latestTable: string;
  /** Value columns of the raw table, DDL. */
  rawValueDdl: string;
  /** Value columns as inserted: their SELECT expressions over the Arrow columns. */
  insertValueSelect: string;
  insertValueTargets: readonly string[];
  /** Value columns as read (FLOAT: the decoded alias, not its stored parts). */
  rawValueColumns: readonly string[];
  /** rawValueColumns as SELECT expressions over the insert's Arrow columns (points read from the ingest log's memory). */
  queuedValueExprs: readonly string[];
  /** Raw value columns as read back into Arrow (decimals as their scaled Int64). */
  readValueSelect: string;
  /** Whether SUM/MIN/MAX/AVG exist (TEXT: COUNT only). */
  hasNumericAggregates: boolean;
  /** Raw-row predicate of the points that aggregate ('' when all do; MIXED: numeric only). */
  aggregateRowFilter: string;
  /** Rollup value columns, DDL (value_sum, value_min, value_max). */
  rollupAggregateDdl: string;
  /** Raw expressions of those columns, over the rows passing aggregateRowFilter. */
  rawSumExpr: string;
  rawMinExpr: string;
  rawMaxExpr: string;
  /** The fold's rollup columns over all live points of an hour (MIXED: -If over numeric ones). */
  foldValueCount: string;
  foldAggregates: readonly [sum: string, min: string, max: string] | readonly [];
  /** Float64 value columns of the raw table stored decimally (FLOAT's value). */
  codedRawColumns: readonly string[];
  /** The raw table's stored value columns with their types and codecs, as an older table takes them at open (aliases left out: they have none). */
  rawCodecColumns: readonly (readonly [name: string, typeAndCodec: string])[];
  /** Float64 value columns of the rollup tables stored decimally (FLOAT: as its raw values are). */
  codedRollupColumns: readonly string[];
  /** Exact types read as strings (BIGINT, decimals); Float64 read as numbers. */
  exactAggregates: boolean;
  /** Read expressions of a sum / min-max column: scaled integers as strings when exact. */
  readSum: (column: string) => string;
  readMinMax: (column: string) => string;
  /** Last point columns in rollup and latest tables: DDL, names, and raw argMax sources. */
  lastValueDdl: string;
  lastValueColumns: readonly string[];
  rawLastSources: readonly string[];
  /** Select list of the last value, given one expression per lastValueColumns entry (exact types as strings). */
  readLast: (sources: readonly string[]) => string;
  /**
   * Whether the rollup rows keep CDF_ROLLUP_COLUMNS (CDF's interpolating aggregates from rollups;
   * TEXT has none, MIXED reads its numeric points raw), and a value, sum or last value as Float64.
   */
  cdfRollups: boolean;
  asFloat: (column: string) => string;
}

/**
 * The CDF rollup columns of a numeric family's minute and hour rows (cdf-rollup.sql.ts): the
 * bucket's points as one piece (read/cdf-pieces.ts): its first point, the integrals of the
 * linear and the stepwise interpolant from its first to its last point with their squared
 * deviations, the total variation, and the values' squared deviations; `cdf_complete` 1 when
 * they were computed (only for series in CDF_SERIES_TABLE: they cost about 0.57 bytes per point
 * at 1 s, 40% of the data directory, so series never read through CDF's interpolating
 * aggregates keep zeros). FLOAT keeps first_value decimally, as its last_value.
 */
export const CDF_ROLLUP_COLUMNS = ['cdf_complete', 'first_ts', 'first_value', 'lin_integral', 'lin_m2', 'step_integral', 'step_m2', 'total_variation', 'value_m2'] as const;

/** The series whose rollup rows keep the CDF columns: listed by their first CDF interpolating read. */
export const CDF_SERIES_TABLE = 'datapoint_cdf_series';

const FLOAT_CODEC = 'CODEC(ZSTD(3))';
/**
 * Raw integer and decimal values. Measured in chdb alone on 2M synthetic points of 20 series
 * (wide parts, bytes a point; ZSTD(3) / Delta + T64('bit') + ZSTD(3) / Delta + ZSTD(3)):
 * Int64 a counter 1.825 / 0.904 / 0.667, a level with noise 2.136 / 1.284 / 1.945, a status
 * code 0.230 / 0.265 / 0.106; Decimal(18, 6) the same shapes at three decimals 2.945 / 1.827 /
 * 1.245, 2.687 / 2.178 / 2.051, 0.103 / 0.347 / 0.115. No codec wins every shape; each family
 * takes the smallest over the three together: BIGINT the decimal mantissas' codec (2.45 against
 * 2.72 and ZSTD alone's 4.19), decimals Delta + ZSTD(3) (3.41 against 4.35 and 5.74).
 */
const BIGINT_CODEC = DECIMAL_MANTISSA_CODEC;
const DECIMAL_CODEC = 'CODEC(Delta, ZSTD(3))';

const FLOAT_VALUE_DDL = decimalColumnDdl('value').map(([name, type]) => `${name} ${type}`).join(', ');

/** The raw value: one `value` column of rawType under a codec, or stored columns of their own (FLOAT: decimal coding). */
type RawValue =
  | { rawCodec: string; rawValue?: never }
  | { rawCodec?: never; rawValue: { ddl: string; insertSelect: string; insertTargets: readonly string[] } };

type NumericFamily = RawValue & {
  family: Family;
  rawType: string;
  sumType: string;
  insertExpr: string;
  /** The stored value as a plain number or scaled integer, given the column name. */
  scaled: (column: string) => string;
  /** The sum column as a plain number or scaled integer. */
  scaledSum: (column: string) => string;
  rawSumExpr: string;
  exact: boolean;
};

const identity = (column: string) => column;

function numericShape(f: NumericFamily): FamilyShape {
  const read = (column: string) => (f.exact ? `toString(${f.scaled(column)})` : column);
  return {
    family: f.family,
    rawTable: `datapoints_${f.family}`,
    rollupTable: `datapoints_${f.family}_1h`,
    minuteTable: `datapoints_${f.family}_1m`,
    latestTable: `datapoints_${f.family}_latest`,
    rawValueDdl: f.rawValue?.ddl ?? `value ${f.rawType} ${f.rawCodec}`,
    insertValueSelect: f.rawValue?.insertSelect ?? f.insertExpr,
    insertValueTargets: f.rawValue?.insertTargets ?? ['value'],
    rawValueColumns: ['value'],
    queuedValueExprs: [f.insertExpr],
    readValueSelect: `${f.scaled('value')} AS value`,
    hasNumericAggregates: true,
    aggregateRowFilter: '',
    rollupAggregateDdl: `value_sum ${f.sumType}, value_min ${f.rawType}, value_max ${f.rawType}`,
    rawSumExpr: f.rawSumExpr,
    rawMinExpr: 'min(value)',
    rawMaxExpr: 'max(value)',
    foldValueCount: 'count()',
    foldAggregates: [f.rawValue ? decimalSumSql('value') : f.rawSumExpr, 'min(value)', 'max(value)'],
    codedRawColumns: f.rawValue ? ['value'] : [],
    rawCodecColumns: f.rawValue ? decimalColumnDdl('value').filter(([, type]) => !type.includes(' ALIAS ')) : [['value', `${f.rawType} ${f.rawCodec}`]],
    codedRollupColumns: f.rawValue ? ['value_sum', 'value_min', 'value_max', 'last_value'] : [],
    exactAggregates: f.exact,
    readSum: f.exact ? (column) => `toString(${f.scaledSum(column)})` : (column) => column,
    readMinMax: read,
    lastValueDdl: `last_value ${f.rawType}`,
    lastValueColumns: ['last_value'],
    rawLastSources: ['value'],
    readLast: ([value]) => `${read(value as string)} AS out_value`,
    cdfRollups: true,
    asFloat: f.family === 'float' ? identity : (column) => `toFloat64(${column})`,
  };
}

export const FAMILY_SHAPES: Readonly<Record<Family, FamilyShape>> = Object.freeze({
  float: numericShape({ family: 'float', rawType: 'Float64', sumType: 'Float64', insertExpr: 'assumeNotNull(value)',
    rawValue: {
      ddl: FLOAT_VALUE_DDL,
      insertSelect: decimalTargets('value', 'assumeNotNull(value)').exprs.join(', '),
      insertTargets: decimalTargets('value', 'assumeNotNull(value)').targets,
    },
    scaled: identity, scaledSum: identity, rawSumExpr: 'sum(value)', exact: false }),
  int: numericShape({ family: 'int', rawType: 'Int64', rawCodec: BIGINT_CODEC, sumType: 'Int128', insertExpr: 'assumeNotNull(value)',
    scaled: identity, scaledSum: identity, rawSumExpr: 'sum(toInt128(value))', exact: true }),
  // Decimals travel as their scaled integers (types.ts DECIMAL_FORMAT); reinterpret keeps every digit.
  numeric: numericShape({ family: 'numeric', rawType: 'Decimal(18, 6)', rawCodec: DECIMAL_CODEC, sumType: 'Decimal(38, 6)',
    insertExpr: "reinterpret(assumeNotNull(value), 'Decimal(18, 6)')",
    scaled: (c) => `reinterpret(${c}, 'Int64')`, scaledSum: (c) => `reinterpret(${c}, 'Int128')`, rawSumExpr: 'sum(value)', exact: true }),
  decimal32: numericShape({ family: 'decimal32', rawType: 'Decimal(9, 3)', rawCodec: DECIMAL_CODEC, sumType: 'Decimal(38, 3)',
    insertExpr: "reinterpret(toInt32(assumeNotNull(value)), 'Decimal(9, 3)')",
    scaled: (c) => `toInt64(reinterpret(${c}, 'Int32'))`, scaledSum: (c) => `reinterpret(${c}, 'Int128')`, rawSumExpr: 'sum(value)', exact: true }),
  text: {
    family: 'text',
    rawTable: 'datapoints_text',
    rollupTable: 'datapoints_text_1h',
    minuteTable: 'datapoints_text_1m',
    latestTable: 'datapoints_text_latest',
    rawValueDdl: 'value String CODEC(ZSTD(3))',
    insertValueSelect: 'assumeNotNull(value)',
    insertValueTargets: ['value'],
    rawValueColumns: ['value'],
    queuedValueExprs: ['assumeNotNull(value)'],
    readValueSelect: 'value',
    hasNumericAggregates: false,
    aggregateRowFilter: '',
    rollupAggregateDdl: '',
    rawSumExpr: '',
    rawMinExpr: '',
    rawMaxExpr: '',
    foldValueCount: 'count()',
    foldAggregates: [],
    codedRawColumns: [],
    rawCodecColumns: [],
    codedRollupColumns: [],
    exactAggregates: false,
    readSum: identity,
    readMinMax: identity,
    lastValueDdl: 'last_value String',
    lastValueColumns: ['last_value'],
    rawLastSources: ['value'],
    readLast: ([value]) => `${value} AS out_value`,
    cdfRollups: false,
    asFloat: identity,
  },
  // MIXED keeps both kinds per point; aggregates see numeric points only.
  mixed: {
    family: 'mixed',
    rawTable: 'datapoints_mixed',
    rollupTable: 'datapoints_mixed_1h',
    minuteTable: 'datapoints_mixed_1m',
    latestTable: 'datapoints_mixed_latest',
    rawValueDdl: `value Float64 ${FLOAT_CODEC}, text String CODEC(ZSTD(3)), is_text UInt8 CODEC(ZSTD(1))`,
    insertValueSelect: 'assumeNotNull(value), assumeNotNull(text), assumeNotNull(is_text)',
    insertValueTargets: ['value', 'text', 'is_text'],
    rawValueColumns: ['value', 'text', 'is_text'],
    queuedValueExprs: ['assumeNotNull(value)', 'assumeNotNull(text)', 'assumeNotNull(is_text)'],
    readValueSelect: 'value, text, is_text',
    hasNumericAggregates: true,
    aggregateRowFilter: 'is_text = 0',
    rollupAggregateDdl: 'value_sum Float64, value_min Float64, value_max Float64',
    rawSumExpr: 'sum(value)',
    rawMinExpr: 'min(value)',
    rawMaxExpr: 'max(value)',
    foldValueCount: 'countIf(is_text = 0)',
    foldAggregates: ['sumIf(value, is_text = 0)', 'minIf(value, is_text = 0)', 'maxIf(value, is_text = 0)'],
    codedRawColumns: [],
    rawCodecColumns: [],
    codedRollupColumns: [],
    exactAggregates: false,
    readSum: identity,
    readMinMax: identity,
    lastValueDdl: 'last_value Float64, last_text String, last_is_text UInt8',
    lastValueColumns: ['last_value', 'last_text', 'last_is_text'],
    rawLastSources: ['value', 'text', 'is_text'],
    readLast: ([value, text, isText]) => `${value} AS out_value, ${text} AS out_text, ${isText} AS out_is_text`,
    cdfRollups: false,
    asFloat: identity,
  },
});
