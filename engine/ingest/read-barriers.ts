// The reads waiting for acknowledged appends to reach the store, and what each tenant's and
// series' newest uninserted append is (DESIGN "Reads see every acknowledged point, and wait
// only for what they read"). The group commit (group-commit.ts) numbers its appends in arrival
// order and says which are in; this module answers how far a read must wait and settles the
// reads once everything up to that point is in: a map update per series of an append when it
// is acknowledged and when it is inserted, one comparison per waiting read per commit. A read
// on an engine that can read JS columns does not wait: it copies the points it needs out of
// the appends whose memory the log still holds (queued()), as from a memtable.
import { StoreUnavailableError } from '../errors.ts';
import type { IngestBatch, ReadWindow } from './ingest-log.ts';
import { PACKED_TS, PackedBatch } from '../datapoints/write/packed-batch.ts';
import { seriesSlice, type QueuedRun, type SeriesPoints } from '../datapoints/types.ts';

/** Entries per append in a series' list: queue index, first and last timestamp, the series' place in its batch. */
const STRIDE = 4;
/**
 * A series' list begins with two slots, where its live entries begin and end: an insert drops a
 * prefix by moving the first, and the next appends write over the space behind the second.
 * Shortening the array instead (`length -=`) let V8 trim its store and the next appends grow
 * it again: a gateway request's entries then cost it 9.4 KB of new arrays, the most any step of
 * the request allocated on the event loop (bench/probe.ts gateway --heap).
 */
const HEAD = 0;
const END = 1;
const FIRST_ENTRY = 2;

/**
 * One tenant's acknowledged appends not yet inserted, by what a read asks for. Per series, its
 * uninserted appends in queue order as flat entries (STRIDE: queue index, first and last
 * timestamp of its points there, its place in the batch): a read waits only for appends whose
 * points fall in the time it reads.
 */
interface UninsertedAppends {
  /** Queue index of the tenant's newest uninserted append. */
  newestIndex: number;
  /**
   * Series id to [head, end, ..., index, firstMs, lastMs, position, index, ...]: the entries
   * from `list[HEAD]` to `list[END]`, oldest first. A list that empties stays for the series'
   * next append (a new array per series per request was ~5% of what a gateway request
   * allocated); the tenant's map goes once every list is empty.
   */
  bySeries: Map<number, number[]>;
  /** Series whose list holds an append. */
  seriesWithAppends: number;
}


/** A read waiting until every append up to throughIndex (queue arrival order) is inserted. */
interface WaitingRead {
  throughIndex: number;
  resolve: () => void;
}

/** An inserted append: its batch and queue index. */
export interface InsertedAppend {
  batch: IngestBatch | PackedBatch;
  index: number;
}

export class ReadBarriers {
  private readonly uninsertedByTenant = new Map<string, UninsertedAppends>();
  private readonly reads = new Set<WaitingRead>();
  /** Appends whose memory the log holds (queued or being inserted), by queue index. */
  private readonly held = new Map<number, PackedBatch>();
  /** The lowest queue index of each running insert's appends. */
  private readonly insertingFrom = new Set<number>();
  /** Appends inserted while an insert taken before theirs still runs (see insertDone). */
  private insertedAhead: InsertedAppend[] = [];

  /** Reads waiting now (a commit waiting to grow takes what is queued while any wait). */
  get waitingCount(): number {
    return this.reads.size;
  }

  /**
   * The queue index a read waits through: the newest uninserted append holding points of its
   * series (with `windows`, parallel to seriesIds: points within the series' window), of
   * `tenant` alone its newest, of every tenant the newest append `newestIndex`; undefined
   * when nothing it reads is uninserted.
   */
  throughIndex(tenant: string | undefined, seriesIds: readonly number[] | undefined, newestIndex: number, windows?: readonly ReadWindow[]): number | undefined {
    if (tenant === undefined) return this.uninsertedByTenant.size === 0 ? undefined : newestIndex;
    const uninserted = this.uninsertedByTenant.get(tenant);
    if (!uninserted || seriesIds === undefined) return uninserted?.newestIndex;
    let newest: number | undefined;
    for (let k = 0; k < seriesIds.length; k++) {
      const appends = uninserted.bySeries.get(seriesIds[k] as number);
      if (!appends) continue;
      const window = windows?.[k];
      const head = appends[HEAD] as number;
      // Newest first: the first append that reaches into the window is the one to wait for.
      for (let at = (appends[END] as number) - STRIDE; at >= head; at -= STRIDE) {
        const index = appends[at] as number;
        if (newest !== undefined && index <= newest) break;
        if (window && ((appends[at + 2] as number) < window.start || (appends[at + 1] as number) >= window.end)) continue;
        newest = index;
        break;
      }
    }
    return newest;
  }

  /** Resolves once settle() is called with a lowest uninserted index past `throughIndex`; a 503 after `timeoutMs`. */
  wait(throughIndex: number, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const read: WaitingRead = { throughIndex, resolve: () => { clearTimeout(timer); resolve(); } };
      const timer = setTimeout(() => {
        this.reads.delete(read);
        reject(new StoreUnavailableError(`Acknowledged data points are not in the store after ${timeoutMs} ms; retry shortly.`));
      }, timeoutMs);
      this.reads.add(read);
    });
  }

  /**
   * An acknowledged append, not yet inserted, becomes the newest its reads wait for. `batch`
   * is the log's own copy, packed as the queue holds it (one heap object per append: as
   * SeriesPoints, a gateway's queued appends were megabytes of small objects every scavenge
   * copied, packed-batch.ts); queued() reads it until released(index).
   */
  added(batch: PackedBatch, index: number): void {
    let uninserted = this.uninsertedByTenant.get(batch.tenant);
    if (!uninserted) this.uninsertedByTenant.set(batch.tenant, (uninserted = { newestIndex: index, bySeries: new Map(), seriesWithAppends: 0 }));
    uninserted.newestIndex = index;
    this.held.set(index, batch);
    for (let position = 0; position < batch.seriesCount; position++) {
      const n = batch.length(position);
      if (n === 0) continue;
      // The columns are sorted by timestamp (datapoint-encode.ts): the first and last are the span.
      const times = batch.f64(position, PACKED_TS);
      const first = batch.start(position, PACKED_TS);
      const seriesId = batch.seriesId(position);
      let appends = uninserted.bySeries.get(seriesId);
      if (!appends) uninserted.bySeries.set(seriesId, (appends = [FIRST_ENTRY, FIRST_ENTRY]));
      if (appends[HEAD] === appends[END]) uninserted.seriesWithAppends++;
      pushEntry(appends, index, times[first] as number, times[first + n - 1] as number, position);
    }
  }

  /** The log gives append `index`'s memory back (it is in the store): queued() no longer reads it. */
  released(index: number): void {
    this.held.delete(index);
  }

  /**
   * Copies of the acknowledged points of `tenant`'s series not yet inserted, within each
   * series' window (parallel to seriesIds; undefined where there are none). Every append
   * acknowledged before the call is either here or in the store: an append leaves `held` only
   * once its insert is done. Appends inserted ahead of an earlier one (two inserts at once)
   * are in the store already and are left out.
   */
  queued(tenant: string, seriesIds: readonly number[], windows: readonly ReadWindow[]): (QueuedRun[] | undefined)[] {
    const uninserted = this.uninsertedByTenant.get(tenant);
    return seriesIds.map((seriesId, k) => {
      const appends = uninserted?.bySeries.get(seriesId);
      if (!appends) return undefined;
      const window = windows[k] ?? { start: -Infinity, end: Infinity };
      let runs: QueuedRun[] | undefined;
      for (let at = appends[HEAD] as number; at < (appends[END] as number); at += STRIDE) {
        if ((appends[at + 2] as number) < window.start || (appends[at + 1] as number) >= window.end) continue;
        const batch = this.held.get(appends[at] as number);
        if (!batch) continue;
        const points = pointsWithin(batch.series(appends[at + 3] as number), window);
        if (points) (runs ??= []).push({ writeVersion: batch.writeVersion, points });
      }
      return runs;
    });
  }

  /** An insert of the appends from queue index `fromIndex` on (the lowest it carries) begins. */
  insertStarted(fromIndex: number): void {
    this.insertingFrom.add(fromIndex);
  }

  /** That insert ended, done or given back to the queue (whose head then holds its index). */
  insertEnded(fromIndex: number): void {
    this.insertingFrom.delete(fromIndex);
  }

  /** Every append below this queue index is inserted: the queue's head, or a running insert's lowest, or `nextIndex` when neither. */
  lowestUninserted(queueHeadIndex: number | undefined, nextIndex: number): number {
    let lowest = queueHeadIndex ?? nextIndex;
    for (const index of this.insertingFrom) if (index < lowest) lowest = index;
    return lowest;
  }

  /**
   * An insert's appends are in (after insertEnded); `lowest` is lowestUninserted now. An
   * append is forgotten once every append before it is in too: an insert that ends before one
   * taken earlier (two run at once) leaves its appends to be forgotten with that one's, or a
   * read of a series in both would pass while the earlier insert still runs. Then the reads
   * whose appends are all in resolve.
   */
  insertDone(appends: readonly InsertedAppend[], lowest: number): void {
    const ahead: InsertedAppend[] = [];
    for (const list of [this.insertedAhead, appends]) {
      for (const append of list) {
        if (append.index < lowest) this.inserted(append.batch, lowest);
        else ahead.push(append);
      }
    }
    this.insertedAhead = ahead;
    this.settle(lowest);
  }

  /**
   * An inserted append stops holding reads of its series, with every other entry of those series
   * below `lowest` (all inserted): the first of an insert's appends to name a series drops that
   * series' whole inserted prefix at once, the rest find nothing below `lowest` left.
   */
  private inserted(batch: IngestBatch | PackedBatch, lowest: number): void {
    const uninserted = this.uninsertedByTenant.get(batch.tenant);
    if (!uninserted) return;
    if (batch instanceof PackedBatch) {
      for (let i = 0; i < batch.seriesCount; i++) if (forgetBelow(uninserted.bySeries, batch.seriesId(i), lowest)) uninserted.seriesWithAppends--;
    } else {
      for (const series of batch.series) if (forgetBelow(uninserted.bySeries, series.seriesId, lowest)) uninserted.seriesWithAppends--;
    }
    if (uninserted.seriesWithAppends === 0) this.uninsertedByTenant.delete(batch.tenant);
  }

  /** Resolves the reads whose appends are all in: every append below `lowestUninsertedIndex` is. */
  private settle(lowestUninsertedIndex: number): void {
    for (const read of this.reads) {
      if (read.throughIndex >= lowestUninsertedIndex) continue;
      this.reads.delete(read);
      read.resolve();
    }
  }
}

/**
 * Drops the entries of a series' list whose queue index is below `lowest` (a prefix: the list is
 * in queue order); true when that emptied the list. The whole prefix at once, by moving where
 * the list begins: an insert of 2,000 gateway requests had dropped each of its series' ~200
 * entries one at a time, shifting the rest each time (10-15 ms of the event loop per insert,
 * bench/probe.ts gateway --one-tenant).
 */
function forgetBelow(bySeries: Map<number, number[]>, seriesId: number, lowest: number): boolean {
  const appends = bySeries.get(seriesId);
  if (!appends) return false;
  let head = appends[HEAD] as number;
  const end = appends[END] as number;
  if (head === end || (appends[head] as number) >= lowest) return false;
  do head += STRIDE; while (head < end && (appends[head] as number) < lowest);
  if (head < end) {
    appends[HEAD] = head;
    return false;
  }
  appends[HEAD] = FIRST_ENTRY;
  appends[END] = FIRST_ENTRY;
  return true;
}

/**
 * Writes an entry after a series' last one. Past the array's end, the live entries move to the
 * front when they fill at most half of it (a plain loop: copyWithin boxes every double it
 * moves), else the array grows: a steady load writes over the same array.
 */
function pushEntry(appends: number[], index: number, firstMs: number, lastMs: number, position: number): void {
  let end = appends[END] as number;
  if (end === appends.length) {
    const head = appends[HEAD] as number;
    const live = end - head;
    if (head > FIRST_ENTRY && 2 * live <= appends.length - FIRST_ENTRY) {
      for (let k = 0; k < live; k++) appends[FIRST_ENTRY + k] = appends[head + k] as number;
      appends[HEAD] = FIRST_ENTRY;
      end = FIRST_ENTRY + live;
    }
  }
  // In bounds, or exactly at the end (the array grows by push's own rule).
  appends[end] = index;
  appends[end + 1] = firstMs;
  appends[end + 2] = lastMs;
  appends[end + 3] = position;
  appends[END] = end + STRIDE;
}

/** The first index whose timestamp is at least ms (the timestamps ascend). */
function lowerBound(times: Float64Array, ms: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((times[mid] as number) < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A copy of the series' points in [window.start, window.end), or undefined when none are. */
function pointsWithin(series: SeriesPoints, window: ReadWindow): SeriesPoints | undefined {
  const from = lowerBound(series.timestampMs, window.start);
  const to = lowerBound(series.timestampMs, window.end);
  // Copies: the log's memory goes back at the insert, while the read may still bind them.
  return from >= to ? undefined : seriesSlice(series, from, to, true);
}
