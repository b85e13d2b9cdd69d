// A group-commit sink (group-commit.ts GroupCommitSink) in front of a real data point store
// that holds every insert until the test releases it: the tests of reads made while
// acknowledged appends are still on their way to the store (read barriers, queued reads).
import type { GroupCommitSink } from '../ingest/group-commit.ts';
import type { IngestBatch } from '../ingest/ingest-log.ts';
import type { PackedBatch } from '../datapoints/write/packed-batch.ts';

/** Holds every insert until release(index) (index: order of arrival); done(index) once it is in the store. */
export class HoldingSink implements GroupCommitSink {
  readonly calls: (IngestBatch | PackedBatch)[][] = [];
  readonly stored: boolean[] = [];
  private readonly releases: (() => void)[] = [];
  private readonly releasedAt = new Set<number>();
  private readonly finished: Promise<void>[] = [];
  private readonly watchers: { count: number; resolve: () => void }[] = [];

  constructor(private readonly store: GroupCommitSink) {}

  /** Resolves once `count` inserts have entered. */
  entered(count: number): Promise<void> {
    if (this.calls.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.watchers.push({ count, resolve }));
  }

  release(index: number): void {
    this.releases[index]?.();
  }

  /** Releases every insert entered so far and resolves once they are all in the store. */
  async releaseAll(): Promise<void> {
    for (let i = 0; i < this.calls.length; i++) this.release(i);
    await Promise.all(this.finished);
  }

  done(index: number): Promise<void> {
    return this.finished[index] ?? Promise.resolve();
  }

  /** Inserts entered and not released yet. */
  held(): number[] {
    return this.calls.flatMap((_, i) => (this.releasedAt.has(i) ? [] : [i]));
  }

  insertMany(batches: readonly (IngestBatch | PackedBatch)[]): Promise<void> {
    const index = this.calls.push([...batches]) - 1;
    this.stored[index] = false;
    const released = new Promise<void>((resolve) => {
      this.releases[index] = () => {
        this.releasedAt.add(index);
        resolve();
      };
    });
    const insert = released.then(() => this.store.insertMany(batches)).then(() => {
      this.stored[index] = true;
    });
    this.finished[index] = insert;
    for (const watcher of this.watchers.filter((w) => this.calls.length >= w.count)) watcher.resolve();
    return insert;
  }
}
