// The data point store: durable columnar inserts, deletes that beat replays, exact
// raw/aggregate/latest reads, and the background work that keeps reads fast (rollup fold,
// physical purge, crash recovery of dirty marks). Series metadata is not its business: it
// sees a tenant, a numeric series id and the series' valueType.
import path from 'node:path';
import { TIMESTAMP_MS_MAX, TIMESTAMP_MS_MIN } from '../limits.ts';
import { logger as rootLogger, type Logger } from '../log.ts';
import { WriteVersionClock } from '../memory/write-version.ts';
import { openColumnarStore, type ColumnarStore } from '../stores/columnar.ts';
import { aggregate, aggregateMany, type AggregateRequest } from './read/datapoint-aggregate.ts';
import { latest } from './read/datapoint-latest.ts';
import { cdfAggregate, cdfAggregateMany, type CdfAggregateOptions, type CdfAggregateRequest, type CdfAggregateResult } from './read/cdf-aggregates.ts';
import { readRaw, readRawJson, type RawJsonResult } from './read/datapoint-read.ts';
import { readRawArrow, type RawArrowPage } from './read/datapoint-arrow.ts';
import { DATAPOINT_CODECS_SQL, DATAPOINT_TABLES_DDL, STATE_READ_SQL, STATE_WRITE_SQL } from './tables/datapoint-tables.sql.ts';
import { migrateFloatCoding } from './tables/float-coding-migration.ts';
import { migrateRawGranules } from './tables/raw-granule-migration.ts';
import { insertTurns, packedChecked, pointCountOf, writeBatches } from './write/datapoint-write.ts';
import { DirtyRangeCollector, writeDirtyRanges, type DirtyRange } from './write/dirty-ranges.ts';
import type { PackedBatch } from './write/packed-batch.ts';
import { ROLLUP_BUCKET_MS } from './tables/families.ts';
import { FAMILIES, FAMILY_SHAPES } from './tables/families.ts';
import { IngestLoad, type IngestLoadOptions } from './write/ingest-load.ts';
import { SlabPool } from '../memory/slab-pool.ts';
import { MarkOrderGate } from './write/mark-order-gate.ts';
import { MergeDeferral, type MergeDeferralOptions } from './write/merge-deferral.ts';
import { MergeSettle, type MergeSettleOptions } from './write/merge-settle.ts';
import { foldDirtyRanges, type FoldOptions, type FoldReport } from './rollups/rollup-fold.ts';
import { ReadContextCache } from './read/read-context-cache.ts';
import { ReadContextFollower } from './read/read-context-follow.ts';
import type { TombstoneMark } from './read/read-context-index.ts';
import { recoverUnmarkedParts, saveUnmarkedCheckpoint } from './write/unmarked-recovery.ts';
import { SERIES_PURGE_VERSION, purgeTombstones, type PurgeOptions } from './write/tombstone-purge.ts';
import type { AggregateOptions, AggregateResult, LatestPoint, RawReadOptions, RawReadResult, SeriesRef } from './types.ts';
import type { IngestBatch } from '../ingest/ingest-log.ts';

const SERIES_PURGE_SQL = `INSERT INTO datapoint_tombstones (tenant, series_id, begin_ms, end_ms, version)
SELECT {tenant:String}, arrayJoin({series:Array(UInt64)}), {begin:Int64}, {end:Int64}, {version:UInt64}`;
const HIGH_WATER = 'write_version_high_water';
/** Raw parts at or below which the fold after a bulk load no longer waits for merges. */
const FOLD_AFTER_PARTS = 8;
/** No insert for this long, ms, and a fold's minute days may fill the memory kept for them (read-context-follow.ts). */
const WARM_QUIET_MS = 2_000;

export interface DatapointStoreOptions {
  columnar: ColumnarStore;
  logger?: Logger;
  /** Background maintenance (fold, purge, checkpoint) every this many ms; 0: only runMaintenance(). @default 1000 */
  maintenanceIntervalMs?: number;
  fold?: FoldOptions;
  purge?: PurgeOptions;
  /**
   * At open, mark dirty the points of parts written after the last checkpoint (a crash between
   * a points insert and its dirty marks). Exact with one writer process (the embedded default);
   * with several ingesters their Kafka replay does the same. @default true
   */
  recoverUnmarked?: boolean;
  /** What counts as a bulk load, during which merges and the fold wait (ingest-load.ts). */
  ingestLoad?: IngestLoadOptions;
  /** Memory for the insert's columns; share the service's pool. @default a pool of its own (256 MiB) */
  slabs?: SlabPool;
  /** Raw-table merges deferred during a bulk load (embedded engine only); false: never. */
  mergeDeferral?: MergeDeferralOptions | false;
  /** Raw parts merged once ingest goes quiet (merge-settle.ts; with the deferral only); false: never. */
  mergeSettle?: MergeSettleOptions | false;
  /** Longest the scheduled fold waits for a bulk load to end, ms. @default 30_000 */
  foldDeferMaxMs?: number;
}

/** One range of DatapointStore.deleteRanges; both bounds omitted: every point of the series. */
export interface DeleteRange {
  seriesId: number;
  inclusiveBeginMs?: number;
  exclusiveEndMs?: number;
}

export interface MaintenanceReport extends FoldReport {
  tombstonesPurged: number;
}

export class DatapointStore {
  private insertsInFlight = 0;
  private insertEpoch = 0;
  private timer: NodeJS.Timeout | undefined;
  private bulkEndTimer: NodeJS.Timeout | undefined;
  private running: Promise<MaintenanceReport> | undefined;
  private lastCheckpointMs = 0;
  private lastExpiryMs = 0;
  private lastFoldMs = Date.now();
  /**
   * A bulk load just ended: its raw parts are merging, and the fold waits for them (up to
   * foldDeferMaxMs from the last fold) instead of merging them once more in its FINAL.
   */
  private foldAfterMerges = false;
  private closed = false;
  private readonly log: Logger;
  private readonly load: IngestLoad;
  private readonly merges: MergeDeferral | undefined;
  private readonly settle: MergeSettle | undefined;
  /** Memory for the insert's columns, reused from commit to commit (at most two run at once). */
  private readonly insertSlabs: SlabPool;
  /** Points and marks written at once; only when this process is the engine's one writer. */
  private readonly markGate: MarkOrderGate | undefined;
  /** The read state held in memory, kept in line with every write and fold (read-context-follow.ts). */
  private readonly follower: ReadContextFollower;

  private constructor(
    readonly columnar: ColumnarStore, readonly writeVersions: WriteVersionClock, private readonly options: DatapointStoreOptions,
    /** Read contexts and results held in memory (embedded engine only; read-context-cache.ts). */
    readonly contexts: ReadContextCache | undefined,
  ) {
    this.log = (options.logger ?? rootLogger).child({ module: 'datapoint-store' });
    this.load = new IngestLoad(options.ingestLoad);
    this.insertSlabs = options.slabs ?? new SlabPool({ bytesMax: 256 * 1024 * 1024 });
    this.follower = new ReadContextFollower(columnar, contexts, this.log, () => this.load.quietFor(WARM_QUIET_MS));
    this.markGate = columnar.kind === 'chdb' ? new MarkOrderGate(() => this.follower.onClock()) : undefined;
    this.merges = columnar.kind === 'chdb' && options.mergeDeferral !== false
      ? new MergeDeferral(columnar, FAMILIES.map((family) => FAMILY_SHAPES[family].rawTable), this.load, this.log, options.mergeDeferral || {})
      : undefined;
    this.settle = this.merges && options.mergeSettle !== false
      ? new MergeSettle(columnar, FAMILIES.map((family) => FAMILY_SHAPES[family].rawTable), this.load, this.log, options.mergeSettle || {})
      : undefined;
  }

  /** Creates the tables when missing (idempotent), recovers unmarked parts, starts maintenance. */
  static async open(options: DatapointStoreOptions): Promise<DatapointStore> {
    // The embedded engine's directory belongs to this process: every write passes here, so
    // read contexts can be held in memory (read-context-index.ts). A server has other writers.
    const contexts = options.columnar.kind === 'chdb' ? new ReadContextCache() : undefined;
    const store = options.columnar;
    for (const ddl of DATAPOINT_TABLES_DDL) await store.command(ddl);
    await migrateFloatCoding(store, (options.logger ?? rootLogger).child({ module: 'datapoint-store' }));
    for (const alter of DATAPOINT_CODECS_SQL) await store.command(alter);
    const versions = await WriteVersionClock.open({
      loadHighWater: async () => BigInt((await store.query<{ value: string }>(STATE_READ_SQL, { name: HIGH_WATER }))[0]?.value ?? '0'),
      saveHighWater: (version) => options.columnar.command(STATE_WRITE_SQL, { name: HIGH_WATER, value: version }),
    });
    const datapoints = new DatapointStore(store, versions, options, contexts);
    if (options.recoverUnmarked ?? true) await recoverUnmarkedParts(store, datapoints.log);
    // After the recovery: the move renumbers the raw parts, and every part must be marked by then.
    await migrateRawGranules(store, datapoints.log);
    await datapoints.follower.reload();
    datapoints.schedule();
    return datapoints;
  }

  /** Resolves once the points and their dirty marks are durable (fsync'd parts). */
  insert(batch: IngestBatch): Promise<void> {
    return this.insertMany([batch]);
  }

  /** Several batches (any tenants) in one insert per storage family: one sync for all. */
  async insertMany(input: readonly (IngestBatch | PackedBatch)[]): Promise<void> {
    this.insertsInFlight++;
    this.insertEpoch++;
    try {
      const wasBulk = this.load.isBulk();
      const points = pointCountOf(input);
      this.load.note(points);
      // The first commit of a bulk load stops merges at once rather than at the next round.
      if (!wasBulk && this.load.isBulk()) void this.merges?.update();
      if (this.load.isBulk()) {
        this.foldAfterMerges = true;
        this.watchBulkEnd();
      }
      // A gateway's commit holds ~40,000 series entries: its work goes in slices (event-loop-turns.ts).
      const turns = insertTurns(points);
      const batches = await packedChecked(input, turns);
      // One computation of the marks for the table and for memory (a hot path: every group
      // commit), and of the series written, each once however many requests carried it.
      const dirty = new DirtyRangeCollector();
      for (const batch of batches) {
        await turns?.maybe();
        dirty.add(batch);
      }
      // Marked in memory before any point is written: a read never finds the points without their marks.
      await this.follower.write(dirty.series, dirty.ranges, [], () => writeBatches(this.columnar, batches, this.insertSlabs, this.markGate, dirty.ranges, turns), batches);
    } finally {
      this.insertsInFlight--;
    }
  }

  /**
   * A delete's or purge's rows: tombstones and dirty marks in memory first (reads apply the
   * delete from then on), then through the MarkOrderGate, so a fold's clock never falls between
   * the two statements (read-context-index.ts).
   */
  private writeContextRows(tenant: string, tombstones: readonly TombstoneMark[], dirty: readonly DirtyRange[], write: () => Promise<void>): Promise<void> {
    const series = tombstones.map((t): [string, number] => [tenant, t.seriesId]);
    return this.follower.write(series, dirty, tombstones, () => (this.markGate ? this.markGate.insert(write) : write()));
  }

  /**
   * Deletes [inclusiveBeginMs, exclusiveEndMs) of a series (both omitted: every point). Visible
   * to reads on return; wins over every point written before it, also when replayed later.
   */
  deleteRange(tenant: string, seriesId: number, inclusiveBeginMs?: number, exclusiveEndMs?: number): Promise<void> {
    return this.deleteRanges(tenant, [{ seriesId, inclusiveBeginMs, exclusiveEndMs }]);
  }

  /**
   * Several range deletes (the items of one request) under one version: one tombstone insert
   * and one dirty-mark insert for all of them, not two statements per item (a 10 000-item
   * delete took minutes that way).
   */
  async deleteRanges(tenant: string, ranges: readonly DeleteRange[]): Promise<void> {
    const spans = ranges
      .map((r) => ({ seriesId: r.seriesId, begin: r.inclusiveBeginMs ?? TIMESTAMP_MS_MIN, end: r.exclusiveEndMs ?? TIMESTAMP_MS_MAX + 1 }))
      .filter((r) => r.begin < r.end);
    if (spans.length === 0) return;
    const version = this.writeVersions.next();
    const floorHour = (ms: number) => ms - (((ms % ROLLUP_BUCKET_MS) + ROLLUP_BUCKET_MS) % ROLLUP_BUCKET_MS);
    const ceilHour = (ms: number) => (floorHour(ms) === ms ? ms : floorHour(ms) + ROLLUP_BUCKET_MS);
    const tombstones = spans.map((r): TombstoneMark => ({ tenant, seriesId: r.seriesId, beginMs: r.begin, endMs: r.end, version }));
    const dirty = spans.map((r): DirtyRange => ({ tenant, seriesId: r.seriesId, family: '', beginMs: floorHour(r.begin), endMs: ceilHour(r.end) }));
    // Counted like an insert: the recovery checkpoint must not pass a tombstone whose marks are not written yet.
    this.insertsInFlight++;
    this.insertEpoch++;
    try {
      await this.writeContextRows(tenant, tombstones, dirty, () => this.writeDeletes(tenant, version, spans, dirty));
    } finally {
      this.insertsInFlight--;
    }
  }

  /** A delete's tombstones, then their dirty marks (the recovery of a crash between the two: unmarked-recovery.ts). */
  private async writeDeletes(tenant: string, version: bigint, spans: readonly { seriesId: number; begin: number; end: number }[], dirty: readonly DirtyRange[]): Promise<void> {
    await this.columnar.insertColumns({
      table: 'datapoint_tombstones',
      targetColumns: ['tenant', 'series_id', 'begin_ms', 'end_ms', 'version'],
      select: '{tenant:String}, toUInt64(assumeNotNull(series_id)), toInt64(assumeNotNull(begin_ms)), toInt64(assumeNotNull(end_ms)), {version:UInt64}',
      params: { tenant, version },
      columns: [
        { name: 'series_id', type: 'Float64', data: Float64Array.from(spans, (r) => r.seriesId) },
        { name: 'begin_ms', type: 'Float64', data: Float64Array.from(spans, (r) => r.begin) },
        { name: 'end_ms', type: 'Float64', data: Float64Array.from(spans, (r) => r.end) },
      ],
    });
    await writeDirtyRanges(this.columnar, dirty);
  }

  /** Deleted time series: their points are dead at once for any version and purged in the background. */
  async purgeSeries(tenant: string, seriesIds: readonly number[]): Promise<void> {
    if (seriesIds.length === 0) return;
    const tombstones = seriesIds.map((seriesId): TombstoneMark => ({ tenant, seriesId, beginMs: TIMESTAMP_MS_MIN, endMs: TIMESTAMP_MS_MAX + 1, version: SERIES_PURGE_VERSION }));
    await this.writeContextRows(tenant, tombstones, [], () => this.columnar.command(SERIES_PURGE_SQL, {
      tenant, series: seriesIds.map(BigInt), begin: TIMESTAMP_MS_MIN, end: TIMESTAMP_MS_MAX + 1, version: SERIES_PURGE_VERSION,
    }));
  }

  readRaw(tenant: string, series: SeriesRef, options: RawReadOptions): Promise<RawReadResult> {
    return readRaw(this.columnar, tenant, series, options, this.contexts);
  }

  /** readRaw as JSON text written by the engine (the API's answer), for large pages. */
  readRawJson(tenant: string, series: SeriesRef, options: RawReadOptions): Promise<RawJsonResult> {
    return readRawJson(this.columnar, tenant, series, options, this.contexts);
  }

  /** readRaw as Arrow columns written by the engine (the API's Arrow answer), same pages and cursors as readRawJson. */
  readRawArrow(tenant: string, series: SeriesRef, options: RawReadOptions): Promise<RawArrowPage> {
    return readRawArrow(this.columnar, tenant, series, options, this.contexts);
  }

  aggregate(tenant: string, series: SeriesRef, options: AggregateOptions): Promise<AggregateResult> {
    return aggregate(this.columnar, tenant, series, options, this.contexts);
  }

  /** Aggregates of several series at once (the items of one /timeseries/data/list), in request order. */
  aggregateMany(tenant: string, requests: readonly AggregateRequest[]): Promise<AggregateResult[]> {
    return aggregateMany(this.columnar, tenant, requests, this.contexts);
  }

  /**
   * CDF's aggregates (average time-weighted, interpolation, variances, ...: cdf-aggregates.ts) of
   * one series over CDF's granularities and time zones; cdfAggregateDatapointsJson writes the answer.
   */
  cdfAggregate(tenant: string, series: SeriesRef, options: CdfAggregateOptions): Promise<CdfAggregateResult> {
    return cdfAggregate(this.columnar, tenant, series, options, this.contexts);
  }

  /** cdfAggregate of several series (the aggregate items of one CDF list request), in request order; items alike share statements. */
  cdfAggregateMany(tenant: string, requests: readonly CdfAggregateRequest[]): Promise<CdfAggregateResult[]> {
    return cdfAggregateMany(this.columnar, tenant, requests, this.contexts);
  }

  latest(tenant: string, series: readonly SeriesRef[]): Promise<LatestPoint[]> {
    return latest(this.columnar, tenant, series, this.contexts);
  }

  /** One round of background work now (tests force the fold with includeHot). */
  runMaintenance(fold: FoldOptions = {}): Promise<MaintenanceReport> {
    return this.enqueueMaintenance(fold, false);
  }

  private enqueueMaintenance(fold: FoldOptions, scheduled: boolean): Promise<MaintenanceReport> {
    const previous = this.running ?? Promise.resolve(undefined);
    const run = previous.catch(() => undefined).then(() => this.maintain(fold, scheduled));
    this.running = run;
    return run.finally(() => { if (this.running === run) this.running = undefined; });
  }

  /**
   * A scheduled round skips the fold during a bulk load (up to foldDeferMaxMs): the fold reads
   * back every point just written, and reads stay exact meanwhile by computing dirty hours
   * from raw points. After the load it also waits while the raw parts the load left merge
   * (foldAfterMerges): its FINAL would merge those parts on the fly, the same k-way merge the
   * engine then runs again. A gateway load of 10M points: catch-up 5.3 -> 3.7 CPU-s, the
   * fold's part 2.9 -> 1.3 (bench/probe.ts gateway, 2026-11-25).
   */
  private async maintain(fold: FoldOptions, scheduled: boolean): Promise<MaintenanceReport> {
    await this.merges?.update();
    const deferrable = scheduled && Date.now() - this.lastFoldMs < (this.options.foldDeferMaxMs ?? 30_000);
    if (deferrable && (this.load.isBulk() || (this.foldAfterMerges && await this.merges?.merging(FOLD_AFTER_PARTS)))) {
      return { computedAt: 0n, rangesFolded: 0, rangesDeferred: 0, tombstonesPurged: 0 };
    }
    const report = await this.follower.fold(() => foldDirtyRanges(this.columnar, { ...this.options.fold, ...fold }, this.markGate));
    this.lastFoldMs = Date.now();
    this.foldAfterMerges = false;
    // Expired tombstones are looked for once a minute; pending ones every round.
    const expire = Date.now() - this.lastExpiryMs > 60_000;
    const purge = await purgeTombstones(this.columnar, report.computedAt, this.options.purge, expire, (work) => (this.merges ? this.merges.whileMerging(work) : work()));
    await this.follower.purged(purge.series, purge.contextRowsRemoved);
    if (expire) this.lastExpiryMs = Date.now();
    if (Date.now() - this.lastCheckpointMs > 10_000) await this.checkpoint();
    // Last in the round, behind the deferral's updates: a bulk load that starts meanwhile stops merges after it.
    if (this.merges && this.settle?.due() && this.insertsInFlight === 0) await this.merges.whileMerging(() => (this.settle as MergeSettle).settle(performance.now(), () => this.closed));
    return { ...report, tombstonesPurged: purge.purged };
  }

  /** Saves how far every part has its dirty marks, when no insert is between the two. */
  private async checkpoint(): Promise<void> {
    if (this.insertsInFlight > 0) return;
    const epoch = this.insertEpoch;
    await saveUnmarkedCheckpoint(this.columnar, () => this.insertsInFlight === 0 && epoch === this.insertEpoch);
    this.lastCheckpointMs = Date.now();
  }

  /**
   * Once a bulk load ends, one maintenance round at once (not at the next tick): it resumes
   * merges and folds the hours it deferred, so reads right after a load soon find rollups.
   */
  private watchBulkEnd(): void {
    clearTimeout(this.bulkEndTimer);
    this.bulkEndTimer = setTimeout(() => {
      if (this.closed || this.load.isBulk()) return;
      // Without scheduled maintenance (maintenanceIntervalMs 0) only the merges come back.
      if ((this.options.maintenanceIntervalMs ?? 1_000) <= 0) void this.merges?.update();
      else this.enqueueMaintenance({}, true).catch((error: unknown) => this.log.warn({ err: error }, 'data point maintenance after a bulk load failed; retrying next round'));
    }, this.load.windowMs + 10);
    this.bulkEndTimer.unref();
  }

  private schedule(): void {
    const intervalMs = this.options.maintenanceIntervalMs ?? 1_000;
    if (intervalMs <= 0 || this.closed) return;
    this.timer = setTimeout(() => {
      this.enqueueMaintenance({}, true)
        .catch((error: unknown) => this.log.warn({ err: error }, 'data point maintenance failed; retrying next round'))
        .finally(() => this.schedule());
    }, intervalMs);
    this.timer.unref();
  }

  /** Stops maintenance, saves the write-version mark and closes the columnar store. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.bulkEndTimer);
    await this.running?.catch(() => undefined);
    await this.merges?.resumeAll();
    if (this.options.recoverUnmarked ?? true) await this.checkpoint().catch((error: unknown) => this.log.warn({ err: error }, 'could not save the dirty-mark checkpoint'));
    await this.writeVersions.flush().catch((error: unknown) => this.log.warn({ err: error }, 'could not save the write-version mark'));
    await this.columnar.close();
  }
}

/** Where the embedded engine keeps its files (CONTRACT: DATA_DIR/clickhouse). */
export function embeddedColumnarPath(dataDir: string): string {
  return path.join(dataDir, 'clickhouse');
}

/** Opens the configured columnar store (CLICKHOUSE_URL or the embedded engine) and the data point store on it. */
export async function openDatapointStore(
  config: { dataDir: string; clickhouse?: { url: string; username?: string; password?: string; database?: string } },
  options: Omit<DatapointStoreOptions, 'columnar'> = {},
): Promise<DatapointStore> {
  const columnar = await openColumnarStore(config.clickhouse
    ? { engine: 'clickhouse', ...config.clickhouse }
    : { engine: 'chdb', path: embeddedColumnarPath(config.dataDir) });
  try {
    return await DatapointStore.open({ ...options, columnar });
  } catch (error) {
    await columnar.close();
    throw error;
  }
}
