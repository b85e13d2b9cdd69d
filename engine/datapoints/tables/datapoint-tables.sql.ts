// DDL of the data point tables, applied idempotently when the store opens. Tenant
// leads every ORDER BY. Every table syncs its parts on insert: a 2xx means durable (CONTRACT),
// and a rollup row must be on disk before the dirty mark it resolves is removed.
import { decimalColumnDdl } from './decimal-coding.ts';
import { CDF_ROLLUP_COLUMNS, CDF_SERIES_TABLE, FAMILIES, FAMILY_SHAPES, ROLLUP_BUCKET_MS, type FamilyShape } from './families.ts';

/** fsync_after_insert: the part's files; fsync_part_directory: the part directory after the rename. */
const DURABLE = 'SETTINGS fsync_after_insert = 1, fsync_part_directory = 1';

/**
 * Raw rows per granule. Time-major writes (a gateway's requests carry all its series at the
 * newest time) leave ~150 of a series' points in each unmerged part, and a read pays at least
 * one granule per part. A live chart of the window being written (6 h of 1m buckets of one
 * series, 1,000 series written at 250,000 points/s: `bench/probe.ts gateway --one-tenant
 * --rate 250000 --live`, two runs each): 8,192 rows (the engine's default) median 159-188 ms,
 * p99 377-439; 2,048: 92-98 / 244-245; 1,024: 101-104 / 316-455, where smaller blocks make
 * reads of merged data dearer too (10,000 raw points, `probe.ts v3`: 16.8-16.9 ms at 8,192,
 * 15.0-16.7 at 2,048, 19.9-24.7 at 1,024). The marks add 0.5% to the bytes per point.
 */
export const RAW_INDEX_GRANULARITY = 2048;

/**
 * How the raw tables' merges pick parts. A plant's ingest does not pause, and past a bulk
 * load's merge deferral (merge-deferral.ts deferMaxMs) the engine's default selector merged
 * few parts at a time, rewriting each point about five times. Wider merges (a base of 10, the
 * heuristic that narrows them off), `bench/probe.ts gateway --one-tenant --seconds 120`, two runs
 * each: 336-343k points/s at 4.10-4.12 CPU-s per million points, merges 30-36 CPU-s, against
 * 301-303k at 4.63-4.69, merges 44 CPU-s, with the defaults. Both are table settings an ALTER
 * changes, so older tables take them at open. Once ingest goes quiet, merge-settle.ts merges
 * what the wide selector left.
 */
export const RAW_MERGE_SELECTOR_BASE = 10;
const RAW_MERGE_SETTINGS = `merge_selector_base = ${RAW_MERGE_SELECTOR_BASE}, merge_selector_enable_heuristic_to_lower_max_parts_to_merge_at_once = 0`;

/**
 * Uncompressed bytes a raw column gathers before it is compressed as one block (the engine's
 * default is 65,536). A block costs ~70 bytes of headers, checksum and codec frames whatever it
 * holds, and the key columns (tenant, series, time, version) compress to almost nothing
 * between them: at 65,536 bytes (8,192 rows) those four took 0.032 bytes per point of 10M
 * after OPTIMIZE FINAL, at 131,072 0.016, and ZSTD found the values 0.009 smaller. A read
 * decompresses whole blocks: 60 and 10,000 points of one series in chdb alone, 400 reads each
 * by turns, medians 6.39 / 18.08 ms at 65,536, 6.50 / 17.98 at 131,072, 7.18 / 18.87 at
 * 262,144 (which saved another 0.011).
 */
const RAW_COMPRESS_BLOCK_BYTES = 131_072;

/** The raw tables' settings an ALTER can change, so older tables take them at open (metadata only). */
const RAW_TABLE_SETTINGS = `${RAW_MERGE_SETTINGS}, min_compress_block_size = ${RAW_COMPRESS_BLOCK_BYTES}`;

/**
 * The tenant column of the raw and rollup tables. One tenant's rows run long in the sort
 * order, and ZSTD packs the dictionary keys of such a run smaller than the default LZ4 does:
 * 0.0047 -> 0.0009 bytes per raw point.
 */
const TENANT_TYPE = 'LowCardinality(String) CODEC(ZSTD(1))';
const TENANT_COLUMN_DDL = `tenant ${TENANT_TYPE}`;

/**
 * Raw points: one row per (tenant, series, timestamp, write version). ReplacingMergeTree keeps
 * the highest version per timestamp on merge; reads use FINAL until then. Timestamps and
 * versions delta-code to almost nothing at a steady spacing; values take plain ZSTD, which beat
 * Gorilla and FPC on decimal-looking sensor values here (1.7 vs 3.4 and 3.0 bytes per point).
 */
export function rawTableDdl(shape: FamilyShape, table = shape.rawTable): string {
  return `CREATE TABLE IF NOT EXISTS ${table} (
  ${TENANT_COLUMN_DDL},
  series_id UInt64 CODEC(Delta, ZSTD(1)),
  ts Int64 CODEC(DoubleDelta, ZSTD(1)),
  version UInt64 CODEC(Delta, ZSTD(1)),
  ${shape.rawValueDdl}
) ENGINE = ReplacingMergeTree(version)
ORDER BY (tenant, series_id, ts)
${DURABLE}, index_granularity = ${RAW_INDEX_GRANULARITY}, ${RAW_TABLE_SETTINGS}`;
}

/** Raw tables created before RAW_TABLE_SETTINGS take them (metadata only). */
function rawTableSettingsSql(shape: FamilyShape): string {
  return `ALTER TABLE ${shape.rawTable} MODIFY SETTING ${RAW_TABLE_SETTINGS}`;
}

/**
 * Codecs of the rollup columns (bytes per point): minute rows are one per series and
 * minute, and without codecs they took 0.57 bytes per raw point after OPTIMIZE FINAL (20% of
 * the data dir; bench/probe.ts bulk, 10 series x 100,000 points). Keys and times step evenly
 * (Delta / DoubleDelta), counts are small (T64), values take ZSTD(3) like raw values (Gorilla
 * + ZSTD(1) was worse: 0.46): 0.30 bytes per point. Every codec is lossless.
 */
const ROLLUP_KEY_CODECS: Readonly<Record<string, string>> = {
  series_id: 'CODEC(Delta, ZSTD(1))',
  bucket: 'CODEC(DoubleDelta, ZSTD(1))',
  point_count: 'CODEC(T64, ZSTD(1))',
  value_count: 'CODEC(T64, ZSTD(1))',
  last_ts: 'CODEC(DoubleDelta, ZSTD(1))',
  first_ts: 'CODEC(DoubleDelta, ZSTD(1))',
  computed_at: 'CODEC(Delta, ZSTD(1))',
};
const ROLLUP_VALUE_CODEC = 'CODEC(ZSTD(3))';

/** A family's column list (`a T, b Decimal(18, 6)`) as [name, type]: split at a comma before a name. */
function splitColumnsDdl(ddl: string): [name: string, type: string][] {
  return ddl.split(/,\s*(?=[a-z_]+\s)/).map((column) => {
    const at = column.trim().indexOf(' ');
    return [column.trim().slice(0, at), column.trim().slice(at + 1)];
  });
}

/** The rollup columns after tenant, each with its codec. */
function rollupColumns(shape: FamilyShape): [name: string, typeAndCodec: string][] {
  const values = splitColumnsDdl([shape.rollupAggregateDdl, shape.lastValueDdl].filter(Boolean).join(', '));
  const keyed = (name: string, type: string): [string, string] => [name, `${type} ${ROLLUP_KEY_CODECS[name] ?? ROLLUP_VALUE_CODEC}`];
  // FLOAT's value columns are stored decimally, as its raw values are (families.ts).
  const value = (name: string, type: string): [string, string][] => (shape.codedRollupColumns.includes(name) ? decimalColumnDdl(name) : [keyed(name, type)]);
  const lastValues = values.filter(([name]) => shape.lastValueColumns.includes(name));
  const aggregates = values.filter(([name]) => !shape.lastValueColumns.includes(name));
  return [
    keyed('series_id', 'UInt64'), keyed('bucket', 'Int64'), keyed('point_count', 'UInt64'), keyed('value_count', 'UInt64'),
    ...aggregates.flatMap(([name, type]) => value(name, type)),
    keyed('last_ts', 'Int64'),
    ...lastValues.flatMap(([name, type]) => value(name, type)),
    ...cdfRollupColumns(shape),
    keyed('computed_at', 'UInt64'),
  ];
}

/** CDF_ROLLUP_COLUMNS with their types and codecs (none for a family without them). */
function cdfRollupColumns(shape: FamilyShape): [name: string, typeAndCodec: string][] {
  if (!shape.cdfRollups) return [];
  return CDF_ROLLUP_COLUMNS.flatMap((name): [string, string][] => {
    if (name === 'first_ts') return [[name, `Int64 ${ROLLUP_KEY_CODECS[name]}`]];
    if (name === 'cdf_complete') return [[name, 'UInt8 CODEC(ZSTD(1))']];
    if (name === 'first_value' && shape.family === 'float') return decimalColumnDdl(name);
    return [[name, `Float64 ${ROLLUP_VALUE_CODEC}`]];
  });
}

/**
 * Rollup tables created before the CDF rollup columns take them at open (metadata only: older
 * parts read the defaults until rewritten, cdf_complete 0 among them, so no read trusts them).
 */
function cdfColumnsAlterSql(shape: FamilyShape, table: string): string[] {
  const columns = cdfRollupColumns(shape);
  return columns.length === 0 ? [] : [`ALTER TABLE ${table} ${columns.map(([name, type]) => `ADD COLUMN IF NOT EXISTS ${name} ${type}`).join(', ')}`];
}

/**
 * Rollups, recomputed by the fold (rollup-fold.ts), never by the insert: minute rows from raw
 * points, hourly rows from minute rows. computed_at is the fold's start (server clock, µs); the
 * newest computation of a bucket wins. A bucket whose points were all deleted keeps a row with
 * point_count = 0. Minute rows use a finer index: a 1m read of 6 hours wants 360 rows.
 */
function rollupTableDdl(shape: FamilyShape, table: string, indexGranularity: number): string {
  return `CREATE TABLE IF NOT EXISTS ${table} (
  ${TENANT_COLUMN_DDL},
  ${rollupColumns(shape).map(([name, type]) => `${name} ${type}`).join(',\n  ')}
) ENGINE = ReplacingMergeTree(computed_at)
ORDER BY (tenant, series_id, bucket)
${DURABLE}, index_granularity = ${indexGranularity}`;
}

/**
 * Tables created before today's codecs take them at open: a codec-only MODIFY COLUMN changes
 * metadata only (no mutation, parts untouched, ~3-9 ms a statement); new parts and merges write
 * the new codecs, so an old data directory shrinks as the fold and merges rewrite it. Run after
 * the move to the decimal coding (float-coding-migration.ts), which adds the coded columns.
 */
function codecAlterSql(table: string, columns: readonly (readonly [name: string, typeAndCodec: string])[]): string {
  return `ALTER TABLE ${table} ${[['tenant', TENANT_TYPE] as const, ...columns].map(([name, type]) => `MODIFY COLUMN ${name} ${type}`).join(', ')}`;
}

/** Every data point table's codecs, for tables created before them (see codecAlterSql). */
export const DATAPOINT_CODECS_SQL: readonly string[] = FAMILIES.flatMap((family) => {
  const shape = FAMILY_SHAPES[family];
  const rollup = rollupColumns(shape).filter(([, type]) => !type.includes(' ALIAS '));
  return [
    codecAlterSql(shape.rawTable, shape.rawCodecColumns),
    codecAlterSql(shape.rollupTable, rollup),
    codecAlterSql(shape.minuteTable, rollup),
  ];
});

/** The engine's default granule, kept for hourly rows (a day is 24 of them). */
const HOUR_INDEX_GRANULARITY = 8192;
/**
 * Minute rows: 6 h of one series (360 rows) out of 100 series x 7 days, FINAL, two parts,
 * medians of two runs: 1024 rows 3.9-4.7 ms, 8192 5.5-6.4 ms, 256 5.2-6.3 ms (shared 2 cores,
 * noisy). argMax by computed_at instead of FINAL was no faster (5.1-5.3 ms at 1024), so reads keep FINAL.
 */
export const MINUTE_INDEX_GRANULARITY = 1024;

/** The latest point per series as of the last fold of that series (is_empty: none left). */
function latestTableDdl(shape: FamilyShape): string {
  return `CREATE TABLE IF NOT EXISTS ${shape.latestTable} (
  tenant LowCardinality(String),
  series_id UInt64,
  is_empty UInt8,
  last_ts Int64,
  ${shape.lastValueDdl},
  computed_at UInt64
) ENGINE = ReplacingMergeTree(computed_at)
ORDER BY (tenant, series_id)
${DURABLE}`;
}

/**
 * Delete tombstones: a point with version <= the tombstone's version inside [begin, end) is
 * dead, now and when an older batch is replayed later (Kafka). purged = 1 once the points
 * are removed physically; the row stays for the replay horizon (tombstoneRetentionMs).
 */
export const TOMBSTONES_DDL = `CREATE TABLE IF NOT EXISTS datapoint_tombstones (
  tenant LowCardinality(String),
  series_id UInt64,
  begin_ms Int64,
  end_ms Int64,
  version UInt64,
  created_at UInt64 DEFAULT toUnixTimestamp64Micro(now64(6)),
  purged UInt8 DEFAULT 0
) ENGINE = ReplacingMergeTree(purged)
ORDER BY (tenant, series_id, version, begin_ms, end_ms)
${DURABLE}`;

/**
 * Dirty marks: minute-aligned ranges (hour-aligned in data directories written before minute rollups, still valid) [begin, end) of a series whose rollups may be stale. A
 * writer adds them after its points are committed, so a fold that starts after marked_at
 * (server clock, µs) sees those points; the fold removes only marks older than its start.
 * family '' means every family (a delete does not know the series' valueType).
 */
export const DIRTY_DDL = `CREATE TABLE IF NOT EXISTS datapoint_dirty (
  tenant LowCardinality(String),
  series_id UInt64,
  family LowCardinality(String),
  begin_ms Int64,
  end_ms Int64,
  marked_at UInt64 DEFAULT toUnixTimestamp64Micro(now64(6))
) ENGINE = ReplacingMergeTree(marked_at)
ORDER BY (tenant, series_id, family, begin_ms, end_ms)
${DURABLE}`;

/** Small monotonic facts (the write-version high-water mark, recovery checkpoints): max wins. */
export const STATE_DDL = `CREATE TABLE IF NOT EXISTS datapoint_state (
  name String,
  value UInt64
) ENGINE = ReplacingMergeTree(value)
ORDER BY name
${DURABLE}`;

const MINUTE_ROLLUPS_STATE = 'minute_rollups';
const MINUTE_ROLLUPS_ABSENT = `(SELECT count() FROM datapoint_state WHERE name = '${MINUTE_ROLLUPS_STATE}') = 0`;

/**
 * A data directory from before minute rollups has hourly rows and no minute rows, and the fold
 * builds hourly rows from minute rows: once, every series with hourly rows is marked dirty
 * over their span (the fold then computes its minutes from raw points, and reads answer from
 * raw points meanwhile), and only then the state row says it is done (a crash in between
 * marks again). Later opens find the state row and insert nothing.
 */
function minuteBackfillSql(shape: FamilyShape): string {
  return `INSERT INTO datapoint_dirty (tenant, series_id, family, begin_ms, end_ms)
SELECT tenant, series_id, '${shape.family}', min(bucket), max(bucket) + ${ROLLUP_BUCKET_MS}
FROM ${shape.rollupTable}
WHERE ${MINUTE_ROLLUPS_ABSENT}
GROUP BY tenant, series_id`;
}

const MINUTE_BACKFILL_DONE_SQL = `INSERT INTO datapoint_state (name, value) SELECT '${MINUTE_ROLLUPS_STATE}', 1 WHERE ${MINUTE_ROLLUPS_ABSENT}`;

/** The series whose rollups keep the CDF columns (families.ts CDF_SERIES_TABLE); a series listed twice is the same. */
const CDF_SERIES_DDL = `CREATE TABLE IF NOT EXISTS ${CDF_SERIES_TABLE} (
  tenant LowCardinality(String),
  series_id UInt64,
  listed_at UInt64 DEFAULT toUnixTimestamp64Micro(now64(6))
) ENGINE = ReplacingMergeTree(listed_at)
ORDER BY (tenant, series_id)
${DURABLE}`;

/** Run in order at every open: the tables, then the one-time minute backfill marks. */
export const DATAPOINT_TABLES_DDL: readonly string[] = [
  ...FAMILIES.flatMap((family) => {
    const shape = FAMILY_SHAPES[family];
    return [
      rawTableDdl(shape),
      rawTableSettingsSql(shape),
      rollupTableDdl(shape, shape.rollupTable, HOUR_INDEX_GRANULARITY),
      rollupTableDdl(shape, shape.minuteTable, MINUTE_INDEX_GRANULARITY),
      ...cdfColumnsAlterSql(shape, shape.rollupTable),
      ...cdfColumnsAlterSql(shape, shape.minuteTable),
      latestTableDdl(shape),
    ];
  }),
  TOMBSTONES_DDL,
  DIRTY_DDL,
  STATE_DDL,
  CDF_SERIES_DDL,
  ...FAMILIES.map((family) => minuteBackfillSql(FAMILY_SHAPES[family])),
  MINUTE_BACKFILL_DONE_SQL,
];

export const STATE_READ_SQL = 'SELECT toString(max(value)) AS value FROM datapoint_state WHERE name = {name:String}';
// INSERT ... SELECT, not VALUES: chdb turns VALUES inserts into async inserts by default.
export const STATE_WRITE_SQL = 'INSERT INTO datapoint_state (name, value) SELECT {name:String}, {value:UInt64}';
/** A state row removed, to write a lower value after it (the state keeps the highest). */
export const STATE_DELETE_SQL = 'DELETE FROM datapoint_state WHERE name = {name:String}';
