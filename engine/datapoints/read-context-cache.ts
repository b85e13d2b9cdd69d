// Per-series read context (dirty hour ranges and delete tombstones) kept in memory between
// reads, so a read of clean series runs one statement instead of two (bench Q1, Q3), and the
// rollup rows of clean ranges (a repeated dashboard aggregate runs none: Q1, Q2). Only for
// the embedded engine: chdb locks its data directory to one process, so every write to the
// data point tables passes through this process's columnar store, which track() wraps. Any
// write statement invalidates every entry; a read caches what it fetched only when no write
// started or ran while it fetched. With a ClickHouse server other processes write (Kafka
// ingesters, other api replicas), and the cache is off.
import type { ColumnarStore } from '../stores/columnar.ts';

export type Range = [begin: number, end: number];
export interface Tombstone { seriesId: number; begin: number; end: number; version: bigint }

/** Everything a read needs to know about a series besides its points and rollups. */
export interface SeriesContext {
  /** Hour-aligned ranges whose rollups may be stale, unsorted. */
  dirty: Range[];
  tombstones: Tombstone[];
}

/** Series whose contexts are kept; a context is a few small arrays. */
export const READ_CONTEXT_ENTRIES_MAX = 100_000;

/** Rollup results kept (clean ranges only), and the rows one may hold. */
export const ROLLUP_RESULTS_MAX = 1_000;
export const ROLLUP_RESULT_ROWS_MAX = 10_000;
/**
 * Bytes of raw JSON pages kept: a dashboard repeating a 100 000-point read (bench Q3) gets
 * the page the engine wrote last time, until any write. A quarter of it per page at most.
 */
export const RAW_PAGES_BYTES_MAX = 64 * 1024 * 1024;

export class ReadContextCache {
  private epoch = 0;
  private writesInFlight = 0;
  private readonly entries = new Map<string, SeriesContext>();
  private entriesEpoch = 0;
  /** Rollup rows of clean hours by statement key (what a fresh statement would return now). */
  private readonly rollups = new Map<string, readonly unknown[]>();
  /** Raw pages by read key, least recently used first, and their total bytes. */
  private readonly pages = new Map<string, { value: unknown; bytes: number }>();
  private pageBytes = 0;

  constructor(private readonly entriesMax = READ_CONTEXT_ENTRIES_MAX) {}

  /** The store with its write statements (command, insertColumns) counted; reads pass through. */
  track(store: ColumnarStore): ColumnarStore {
    const write = async <T>(run: () => Promise<T>): Promise<T> => {
      this.epoch++;
      this.writesInFlight++;
      try {
        return await run();
      } finally {
        this.writesInFlight--;
        this.epoch++;
      }
    };
    return {
      kind: store.kind,
      query: (sql, params) => store.query(sql, params),
      queryArrow: (sql, params) => store.queryArrow(sql, params),
      queryBytes: (sql, params) => store.queryBytes(sql, params),
      command: (sql, params) => write(() => store.command(sql, params)),
      insertColumns: (insert) => write(() => store.insertColumns(insert)),
      ping: () => store.ping(),
      close: () => store.close(),
    };
  }

  /** A mark to pass to set() after fetching; undefined while a write runs (fetch, do not keep). */
  begin(): number | undefined {
    return this.writesInFlight === 0 ? this.epoch : undefined;
  }

  get(tenant: string, seriesId: number): SeriesContext | undefined {
    if (this.writesInFlight > 0 || this.entriesEpoch !== this.epoch) return undefined;
    return this.entries.get(`${tenant}\u0000${seriesId}`);
  }

  getRollup<Row>(key: string): readonly Row[] | undefined {
    if (this.writesInFlight > 0 || this.entriesEpoch !== this.epoch) return undefined;
    return this.rollups.get(key) as readonly Row[] | undefined;
  }

  /** Keeps a rollup statement's rows fetched since begin() returned mark, like set(). */
  setRollup(mark: number | undefined, key: string, rows: readonly unknown[]): void {
    if (rows.length > ROLLUP_RESULT_ROWS_MAX || !this.current(mark)) return;
    if (this.rollups.size >= ROLLUP_RESULTS_MAX) this.rollups.delete(this.rollups.keys().next().value as string);
    this.rollups.set(key, rows);
  }

  getPage<Page>(key: string): Page | undefined {
    if (this.writesInFlight > 0 || this.entriesEpoch !== this.epoch) return undefined;
    const entry = this.pages.get(key);
    if (!entry) return undefined;
    this.pages.delete(key);
    this.pages.set(key, entry);
    return entry.value as Page;
  }

  /** Keeps a raw page of `bytes` fetched since begin() returned mark, like set(); evicts the least recently used. */
  setPage(mark: number | undefined, key: string, value: unknown, bytes: number): void {
    if (bytes > RAW_PAGES_BYTES_MAX / 4 || !this.current(mark)) return;
    const previous = this.pages.get(key);
    if (previous) {
      this.pages.delete(key);
      this.pageBytes -= previous.bytes;
    }
    while (this.pageBytes + bytes > RAW_PAGES_BYTES_MAX) {
      const [oldest, entry] = this.pages.entries().next().value as [string, { bytes: number }];
      this.pages.delete(oldest);
      this.pageBytes -= entry.bytes;
    }
    this.pages.set(key, { value, bytes });
    this.pageBytes += bytes;
  }

  /** Whether nothing was written since mark; starts a new generation of entries if needed. */
  private current(mark: number | undefined): boolean {
    if (mark === undefined || mark !== this.epoch || this.writesInFlight > 0) return false;
    if (this.entriesEpoch !== mark) {
      this.entries.clear();
      this.rollups.clear();
      this.pages.clear();
      this.pageBytes = 0;
      this.entriesEpoch = mark;
    }
    return true;
  }

  /** Keeps contexts fetched since begin() returned mark, if nothing was written meanwhile. */
  set(mark: number | undefined, tenant: string, contexts: ReadonlyMap<number, SeriesContext>): void {
    if (!this.current(mark)) return;
    for (const [seriesId, context] of contexts) {
      if (this.entries.size >= this.entriesMax) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(`${tenant}\u0000${seriesId}`, context);
    }
  }
}
