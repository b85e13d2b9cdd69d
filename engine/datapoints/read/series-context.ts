// The read context of a series, as every read and the read-context index share it: the ranges
// whose rollups may be stale, the delete tombstones, and the form in which a statement leaves
// the deleted points out. Types only, so the index, the cache and the read SQL can all name them
// without importing each other.

/** A time range [begin, end) in epoch milliseconds. */
export type Range = [begin: number, end: number];

/** A delete of [begin, end) on one series, at the write version of its request. */
export interface Tombstone { seriesId: number; begin: number; end: number; version: bigint }

/** Everything a read needs to know about a series besides its points and rollups. */
export interface SeriesContext {
  /** Ranges [begin, end) whose rollups may be stale, unsorted, any alignment (minute or hour today). */
  dirty: Range[];
  tombstones: Tombstone[];
}

/**
 * How a statement leaves out deleted points (datapoint-read.sql.ts liveRawRows): 'none' when
 * no tombstone touches the read; 'list', a predicate over the bound arrays, for a few; 'join',
 * an ASOF JOIN on them, for many. The predicate is evaluated per row against every tombstone
 * (the engine copies the arrays to each row): 10,000 tombstones over 20,000 points took 44 s
 * here, the join 40 ms.
 */
export type TombstoneForm = 'none' | 'list' | 'join';
