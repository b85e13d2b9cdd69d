// SQL of the rollup fold (rollup-fold.ts). The fold is maintenance across tenants; every
// statement still names the tenant in each OR-ed range, so no read or delete spans tenants
// by accident. Range conditions are generated with bound values (ColumnarParams).
import { decimalSumSql, decimalTargets } from '../tables/decimal-coding.ts';
import { CDF_ROLLUP_COLUMNS, ROLLUP_BUCKET_MS, type FamilyShape } from '../tables/families.ts';
import { cdfFromPiecesSql, cdfFromPointsSql, type CdfRollupSql } from './cdf-rollup.sql.ts';
import { liveRawRows } from '../read/datapoint-read.sql.ts';
import type { TombstoneForm } from '../read/series-context.ts';

export const FOLD_CLOCK_SQL = 'SELECT toString(toUnixTimestamp64Micro(now64(6))) AS now_us';

/** Dirty ranges grouped by identity; oldest decides whether a hot range is folded anyway. */
/** Dirty ranges waiting for the fold (an operational gauge: how far rollups are behind). */
export const DIRTY_BACKLOG_SQL = 'SELECT toString(count()) AS ranges FROM datapoint_dirty';

/** Merges the engine is running on this database's tables now. */
export const MERGES_RUNNING_SQL = 'SELECT toString(count()) AS merges FROM system.merges WHERE database = currentDatabase()';

export const DIRTY_SNAPSHOT_SQL = `SELECT tenant, toString(series_id) AS series, family, toString(begin_ms) AS begin_ms,
  toString(end_ms) AS end_ms, toString(min(marked_at)) AS oldest, toString(max(marked_at)) AS newest
FROM datapoint_dirty
GROUP BY tenant, series_id, family, begin_ms, end_ms
ORDER BY oldest
LIMIT {limit:UInt32}`;

/** Marks older than the fold's clock on the fold's series, all families (rollup-fold.ts: which hours trust minute rows). */
export const OLD_MARKS_SQL = `SELECT tenant, toString(series_id) AS series, family, toString(begin_ms) AS begin_ms, toString(end_ms) AS end_ms
FROM datapoint_dirty
WHERE tenant IN {tenants:Array(String)} AND series_id IN {series_ids:Array(UInt64)} AND marked_at < {computed_at:UInt64}
GROUP BY tenant, series_id, family, begin_ms, end_ms`;

/** Buckets of `table` that had points in the ranges get a point_count = 0 row, superseded below when points remain. */
export function foldZeroRowsSql(table: string, bucketRanges: string): string {
  return `INSERT INTO ${table} (tenant, series_id, bucket, point_count, value_count, computed_at)
SELECT tenant, series_id, bucket, 0, 0, {zero_at:UInt64}
FROM ${table} FINAL
WHERE (${bucketRanges}) AND point_count > 0`;
}

/**
 * The INSERT column list and SELECT list of rollup rows, given the select expressions of the
 * key columns, of value_sum, value_min and value_max (none for TEXT), of last_ts, of the
 * last value columns and of the CDF columns (families without them: none). A decimally stored
 * column (families.ts codedRollupColumns, FLOAT's first_value) takes its integer and exponent.
 */
function rollupRows(
  shape: FamilyShape, keys: string, aggregates: readonly string[], lastTs: string, lasts: readonly string[], cdf: CdfRollupSql | undefined, computedAt: string,
): { targets: string; select: string } {
  const targets = ['tenant', 'series_id', 'bucket', 'point_count', 'value_count'];
  const select = [keys];
  const value = (column: string, expr: string) => {
    const coded = shape.codedRollupColumns.includes(column) ? decimalTargets(column, expr) : { targets: [column], exprs: [expr] };
    targets.push(...coded.targets);
    select.push(...coded.exprs);
  };
  ['value_sum', 'value_min', 'value_max'].forEach((column, i) => { if (aggregates[i] !== undefined) value(column, aggregates[i] as string); });
  targets.push('last_ts');
  select.push(lastTs);
  shape.lastValueColumns.forEach((column, i) => value(column, lasts[i] as string));
  CDF_ROLLUP_COLUMNS.forEach((column, i) => {
    if (!cdf) return;
    if (column === 'first_value' && shape.family === 'float') {
      const coded = decimalTargets(column, cdf.exprs[i] as string);
      targets.push(...coded.targets);
      select.push(...coded.exprs);
    } else {
      targets.push(column);
      select.push(cdf.exprs[i] as string);
    }
  });
  targets.push('computed_at');
  select.push(computedAt);
  return { targets: targets.join(', '), select: select.join(', ') };
}


/**
 * The tombstones of the fold's series (tenants x series ids; bindTenantTombstones keys them by
 * tenant), purged ones too: their points may still lie in parts the purge's DELETE has not
 * reached.
 */
export const FOLD_TOMBSTONES_SQL = `SELECT tenant, toString(series_id) AS series, toString(begin_ms) AS begin_ms, toString(end_ms) AS end_ms,
  toString(version) AS version
FROM datapoint_tombstones
WHERE tenant IN {tenants:Array(String)} AND series_id IN {series_ids:Array(UInt64)}`;

/**
 * Every bucket of `table` (`bucketMs` wide: minutes, or hours when the fold cannot trust minute
 * rows) in the ranges recomputed from live raw points (FINAL dedup, the bound tombstones of
 * `form` applied as reads apply them: liveRawRows, tenant-keyed). The tombstones were once an
 * array in the statement tested against every row, which the engine copies per row of a block:
 * with 20,000 tombstones on a series the fold asked for 24 GiB and failed at every round.
 */
export function foldFromRawSql(shape: FamilyShape, table: string, bucketMs: number, tsRanges: string, form: TombstoneForm): string {
  const cdf = shape.cdfRollups ? cdfFromPointsSql(shape) : undefined;
  const rows = rollupRows(shape, `tenant, series_id, ts - positiveModulo(ts, ${bucketMs}) AS fold_bucket, count(), ${shape.foldValueCount}`,
    shape.foldAggregates, 'max(ts)', shape.rawLastSources.map((source) => `argMax(${source}, ts)`), cdf, '{computed_at:UInt64}');
  return `INSERT INTO ${table} (${rows.targets})
${cdf ? `WITH ${cdf.withItems.join(',\n  ')}\n` : ''}SELECT ${rows.select}
${liveRawRows(shape, `(${tsRanges})`, form, { tenantKeyed: true })}
GROUP BY tenant, series_id, fold_bucket`;
}

/**
 * Hours recomputed from their minute rows (60 rows an hour, not every raw point).
 * FINAL: a minute folded twice has two rows until a merge. Extremes only over minutes with
 * aggregating points (MIXED: a minute of text points has value_count = 0 and no extremes).
 */
export function foldHoursFromMinutesSql(shape: FamilyShape, bucketRanges: string): string {
  const aggregates = shape.foldAggregates.length > 0
    ? [shape.codedRollupColumns.includes('value_sum') ? decimalSumSql('value_sum') : 'sum(value_sum)', 'minIf(value_min, value_count > 0)', 'maxIf(value_max, value_count > 0)']
    : [];
  const cdf = shape.cdfRollups ? cdfFromPiecesSql(shape) : undefined;
  const rows = rollupRows(shape, `tenant, series_id, bucket - positiveModulo(bucket, ${ROLLUP_BUCKET_MS}) AS fold_hour, sum(point_count), sum(value_count)`,
    aggregates, 'max(last_ts)', shape.lastValueColumns.map((column) => `argMax(${column}, last_ts)`), cdf, '{computed_at:UInt64}');
  return `INSERT INTO ${shape.rollupTable} (${rows.targets})${cdf ? `\nWITH ${cdf.withItems.join(',\n  ')}` : ''}
SELECT ${rows.select}
FROM ${shape.minuteTable} FINAL
WHERE (${bucketRanges}) AND point_count > 0
GROUP BY tenant, series_id, fold_hour`;
}

/** Series whose latest row may have gone: an is_empty row, superseded below when points remain. */
export function foldLatestEmptySql(shape: FamilyShape, seriesList: string): string {
  return `INSERT INTO ${shape.latestTable} (tenant, series_id, is_empty, computed_at)
SELECT tenant, series_id, 1, {zero_at:UInt64}
FROM ${shape.latestTable} FINAL
WHERE (${seriesList}) AND is_empty = 0`;
}

/** The latest point of each series from its newest non-empty rollup bucket. */
export function foldLatestSql(shape: FamilyShape, seriesList: string): string {
  const last = shape.lastValueColumns.map((column) => `argMax(${column}, bucket)`).join(', ');
  return `INSERT INTO ${shape.latestTable} (tenant, series_id, is_empty, last_ts, ${shape.lastValueColumns.join(', ')}, computed_at)
SELECT tenant, series_id, 0, argMax(last_ts, bucket), ${last}, {computed_at:UInt64}
FROM ${shape.rollupTable} FINAL
WHERE (${seriesList}) AND point_count > 0
GROUP BY tenant, series_id`;
}

/**
 * Removes the folded marks older than the fold's start (newer ones stay dirty), up to 1,000 in
 * one statement (rollup-fold.ts MARKS_PER_DELETE): a lightweight DELETE is a mutation over the
 * table's parts, and one per 100 marks made the deletes the largest cost of a round (~0.6 s
 * of ~1 s).
 */
export const FOLD_DELETE_MARKS_SQL = `DELETE FROM datapoint_dirty
WHERE (tenant, series_id, family, begin_ms, end_ms) IN (
  SELECT arrayJoin(arrayZip({tenants:Array(String)}, {series:Array(UInt64)}, {families:Array(String)}, {begins:Array(Int64)}, {ends:Array(Int64)})))
  AND marked_at < {computed_at:UInt64}`;
