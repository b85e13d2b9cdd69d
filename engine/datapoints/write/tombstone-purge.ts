// Physical removal of deleted points, in the background. Reads already skip them
// through the tombstones; this removes the rows (lightweight DELETE), marks the tombstone
// purged, and drops purged tombstones after the replay horizon. Rollups are corrected by
// the fold, which the dirty marks of the delete schedule.
import { ColumnarParams } from '../../stores/columnar-params.ts';
import type { ColumnarStore } from '../../stores/columnar.ts';
import { FAMILIES, FAMILY_SHAPES } from '../tables/families.ts';
import {
  DROP_EXPIRED_TOMBSTONES_SQL, EXPIRED_TOMBSTONES_SQL, PENDING_TOMBSTONES_SQL, markPurgedSql, purgeRawSql, purgeSeriesRowsSql,
} from './tombstone-purge.sql.ts';

/** purgeSeries() writes tombstones with this version: nothing ever written survives them. */
export const SERIES_PURGE_VERSION = (1n << 64n) - 1n;

interface PendingRow { tenant: string; series: string; begin_ms: string; end_ms: string; version: string }

export interface PurgeOptions {
  /** Tombstones handled per purge. @default 500 */
  tombstonesPerPurge?: number;
  /** Purged tombstones are kept this long, against replays of older batches. @default 7 days */
  tombstoneRetentionMs?: number;
}

function covered(params: ColumnarParams, rows: readonly PendingRow[]): string {
  return rows.map((r) => `(tenant = ${params.bind(r.tenant, 'String')} AND series_id = ${params.bind(BigInt(r.series), 'UInt64')}`
    + ` AND ts >= ${params.bind(BigInt(r.begin_ms), 'Int64')} AND ts < ${params.bind(BigInt(r.end_ms), 'Int64')}`
    + ` AND version <= ${params.bind(BigInt(r.version), 'UInt64')})`).join(' OR ');
}

function identity(params: ColumnarParams, rows: readonly PendingRow[]): string {
  return rows.map((r) => `(tenant = ${params.bind(r.tenant, 'String')} AND series_id = ${params.bind(BigInt(r.series), 'UInt64')}`
    + ` AND version = ${params.bind(BigInt(r.version), 'UInt64')} AND begin_ms = ${params.bind(BigInt(r.begin_ms), 'Int64')}`
    + ` AND end_ms = ${params.bind(BigInt(r.end_ms), 'Int64')})`).join(' OR ');
}

function seriesOf(params: ColumnarParams, rows: readonly PendingRow[]): string {
  return rows.map((r) => `(tenant = ${params.bind(r.tenant, 'String')} AND series_id = ${params.bind(BigInt(r.series), 'UInt64')})`).join(' OR ');
}

/** Deleted series lose their derived rows too; their dirty marks would only recompute nothing. */
async function purgeDerived(store: ColumnarStore, rows: readonly PendingRow[]): Promise<void> {
  const purgedSeries = rows.filter((r) => BigInt(r.version) === SERIES_PURGE_VERSION);
  if (purgedSeries.length === 0) return;
  for (const table of [...FAMILIES.flatMap((f) => [FAMILY_SHAPES[f].rollupTable, FAMILY_SHAPES[f].latestTable]), 'datapoint_dirty']) {
    const params = new ColumnarParams();
    await store.command(purgeSeriesRowsSql(table, seriesOf(params, purgedSeries)), params.values);
  }
}

/** What a purge removed: the store's in-memory read contexts follow (read-context-index.ts). */
export interface PurgeReport {
  /** Tombstones whose points were removed now. */
  purged: number;
  /** Series whose points were removed (the tombstones' series), as [tenant, seriesId]. */
  series: [tenant: string, seriesId: number][];
  /** Whether rows left the tombstone or dirty tables (expired tombstones, purged series' marks). */
  contextRowsRemoved: boolean;
}

/** Runs the raw tables' DELETE; the store runs it with their merges going (merge-deferral.ts whileMerging). */
export type RawMutationRunner = (work: () => Promise<void>) => Promise<void>;

/** Purges up to tombstonesPerPurge pending tombstones; `expire` also drops old purged ones. */
export async function purgeTombstones(
  store: ColumnarStore, nowMicros: bigint, options: PurgeOptions = {}, expire = true, rawMutation: RawMutationRunner = (work) => work(),
): Promise<PurgeReport> {
  const rows = await store.query<PendingRow>(PENDING_TOMBSTONES_SQL, { limit: options.tombstonesPerPurge ?? 500 });
  let contextRowsRemoved = false;
  if (rows.length > 0) {
    await rawMutation(async () => {
      for (const family of FAMILIES) {
        const params = new ColumnarParams();
        await store.command(purgeRawSql(FAMILY_SHAPES[family].rawTable, covered(params, rows)), params.values);
      }
    });
    contextRowsRemoved = rows.some((r) => BigInt(r.version) === SERIES_PURGE_VERSION);
    await purgeDerived(store, rows);
    const params = new ColumnarParams();
    await store.command(markPurgedSql(identity(params, rows)), params.values);
  }
  const retentionMicros = BigInt(options.tombstoneRetentionMs ?? 7 * 86_400_000) * 1000n;
  if (expire && nowMicros > retentionMicros) {
    const cutoff = nowMicros - retentionMicros;
    const [expired] = await store.query<{ expired: string }>(EXPIRED_TOMBSTONES_SQL, { cutoff });
    if (Number(expired?.expired ?? 0) > 0) {
      await store.command(DROP_EXPIRED_TOMBSTONES_SQL, { cutoff });
      contextRowsRemoved = true;
    }
  }
  return { purged: rows.length, series: rows.map((r) => [r.tenant, Number(r.series)]), contextRowsRemoved };
}
