// The reads waiting for acknowledged appends to reach the store, and what each tenant's and
// series' newest uninserted append is (DESIGN "Reads see every acknowledged point, and wait
// only for what they read"). The group commit (group-commit.ts) numbers its appends in arrival
// order and says which are in; this module answers how far a read must wait and settles the
// reads once everything up to that point is in: a map update per series of an append when it
// is acknowledged and when it is inserted, one comparison per waiting read per commit.
import { StoreUnavailableError } from '../errors.ts';
import type { IngestBatch } from './ingest-log.ts';
import { PackedBatch } from '../datapoints/write/packed-batch.ts';

/** One tenant's acknowledged appends not yet inserted, by what a read asks for. */
interface UninsertedAppends {
  /** Queue index of the tenant's newest uninserted append. */
  newestIndex: number;
  /** Series id to the queue index of the newest uninserted append holding points of it. */
  newestBySeries: Map<number, number>;
}

/** A read waiting until every append up to throughIndex (queue arrival order) is inserted. */
interface WaitingRead {
  throughIndex: number;
  resolve: () => void;
}

export class ReadBarriers {
  private readonly uninsertedByTenant = new Map<string, UninsertedAppends>();
  private readonly reads = new Set<WaitingRead>();

  /** Reads waiting now (a commit waiting to grow takes what is queued while any wait). */
  get waitingCount(): number {
    return this.reads.size;
  }

  /**
   * The queue index a read waits through: its series' newest uninserted append (of `tenant`
   * alone, its newest; of every tenant, the newest append `newestIndex`), or undefined when
   * nothing it reads is uninserted.
   */
  throughIndex(tenant: string | undefined, seriesIds: readonly number[] | undefined, newestIndex: number): number | undefined {
    if (tenant === undefined) return this.uninsertedByTenant.size === 0 ? undefined : newestIndex;
    const uninserted = this.uninsertedByTenant.get(tenant);
    if (!uninserted || seriesIds === undefined) return uninserted?.newestIndex;
    let newest: number | undefined;
    for (const seriesId of seriesIds) {
      const index = uninserted.newestBySeries.get(seriesId);
      if (index !== undefined && (newest === undefined || index > newest)) newest = index;
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

  /** An acknowledged append, not yet inserted, becomes the newest its reads wait for. */
  added(batch: IngestBatch, index: number): void {
    let uninserted = this.uninsertedByTenant.get(batch.tenant);
    if (!uninserted) this.uninsertedByTenant.set(batch.tenant, (uninserted = { newestIndex: index, newestBySeries: new Map() }));
    uninserted.newestIndex = index;
    for (const series of batch.series) uninserted.newestBySeries.set(series.seriesId, index);
  }

  /** An inserted append stops holding reads of the series it is still the newest of. */
  inserted(batch: IngestBatch | PackedBatch, index: number): void {
    const uninserted = this.uninsertedByTenant.get(batch.tenant);
    if (!uninserted) return;
    const bySeries = uninserted.newestBySeries;
    if (batch instanceof PackedBatch) {
      for (let i = 0; i < batch.seriesCount; i++) if (bySeries.get(batch.seriesId(i)) === index) bySeries.delete(batch.seriesId(i));
    } else {
      for (const series of batch.series) if (bySeries.get(series.seriesId) === index) bySeries.delete(series.seriesId);
    }
    if (bySeries.size === 0) this.uninsertedByTenant.delete(batch.tenant);
  }

  /** Resolves the reads whose appends are all in: every append below `lowestUninsertedIndex` is. */
  settle(lowestUninsertedIndex: number): void {
    for (const read of this.reads) {
      if (read.throughIndex >= lowestUninsertedIndex) continue;
      this.reads.delete(read);
      read.resolve();
    }
  }
}
