// The read context of every series held in memory: dirty ranges (datapoint_dirty)
// and delete tombstones (datapoint_tombstones) per (tenant, series), loaded from the two tables
// at open and kept by the write paths, so a read never runs a context statement and a write to
// one series never touches what reads of another see. Embedded engine only: chdb locks its
// data directory to one process, so every write to those tables passes through this process's
// DatapointStore. The tables stay the durable truth (crash recovery, the fold's work list).
//
// Why a read never uses a stale rollup for a range whose points changed and were acknowledged:
// 1. Every write (insert, delete, series purge) adds its dirty ranges and tombstones here,
//    under a sequence number, before any of its rows is written, and is "pending" until its
//    statements have settled. A read that starts after the acknowledgement therefore finds the
//    range dirty (answered from raw points) and the tombstone bound, unless a fold removed it.
// 2. A range leaves only through applyFold, for a mark the fold reports as folded (recomputed
//    from raw points read after its clock). The clock is taken through the MarkOrderGate: no
//    write runs while it is read, and clock() records which sequence numbers had settled then.
//    Only those ranges are removed (minus the parts no folded mark of their family covers), and
//    their points were durable before the clock, so the recomputed rollups include them. A
//    write that was held back, or started later, keeps its ranges until a later fold.
// 3. Remainders the fold writes back (hot parts of a folded mark) are added before anything is
//    removed from a read's point of view: applyFold runs synchronously after the fold returns,
//    while the index still holds the whole folded range.
// 4. replace() swaps the settled items for the tables' rows (at open, after a failed write or
//    fold, after tombstones expire or a purged series loses its rows). It runs in the store's
//    maintenance, never beside a fold; items of writes not settled at its clock are kept, and
//    a settled write's rows are in the tables by then. Duplicates (a pending write whose rows
//    were already read) are merged, keeping the newer sequence number.
// A failed write leaves its ranges (marking early is always safe); the store then asks for a
// replace() so a range no table row backs does not stay dirty for ever.
//
// Memory: a held series costs a map slot and a few small objects; series with an empty context
// are not stored (absence means empty while the index is complete). Past itemsMax the index
// stops taking new series: it becomes incomplete, absence then means "not held", and reads of
// series not held run the context statement (the tables are complete for them). Nothing held
// is ever evicted: that would lose acknowledged marks.
import type { ColumnarStore } from '../../stores/columnar.ts';
import type { Range, SeriesContext, Tombstone } from './series-context.ts';
import { DIRTY_ROWS_SQL, TOMBSTONE_ROWS_SQL } from './read-context-index.sql.ts';

/** Ranges plus tombstones held; about 100 bytes each with their series' share (see the test). */
export const READ_CONTEXT_ITEMS_MAX = 1_000_000;

/** A dirty range of one series as the tables and the fold name it (family '' = every family). */
export interface DirtyMark {
  tenant: string;
  seriesId: number;
  family: string;
  beginMs: number;
  endMs: number;
}

export interface TombstoneMark {
  tenant: string;
  seriesId: number;
  beginMs: number;
  endMs: number;
  version: bigint;
}

interface DirtyItem { family: string; begin: number; end: number; seq: number }
interface TombstoneItem { begin: number; end: number; version: bigint; seq: number }
interface SeriesEntry { dirty: DirtyItem[]; tombstones: TombstoneItem[] }

/** Which writes had settled at a clock: seq at most `seq` and not in `pending`. */
export interface IndexClock {
  readonly seq: number;
  readonly pending: ReadonlySet<number>;
}

/** Every row of the dirty and tombstone tables, for replace(). */
export async function readContextRows(store: ColumnarStore): Promise<{ dirty: DirtyMark[]; tombstones: TombstoneMark[] }> {
  const [dirty, tombstones] = await Promise.all([
    store.query<{ tenant: string; series: string; family: string; begin_ms: string; end_ms: string }>(DIRTY_ROWS_SQL),
    store.query<{ tenant: string; series: string; begin_ms: string; end_ms: string; version: string }>(TOMBSTONE_ROWS_SQL),
  ]);
  return {
    dirty: dirty.map((r) => ({ tenant: r.tenant, seriesId: Number(r.series), family: r.family, beginMs: Number(r.begin_ms), endMs: Number(r.end_ms) })),
    tombstones: tombstones.map((r) => ({ tenant: r.tenant, seriesId: Number(r.series), beginMs: Number(r.begin_ms), endMs: Number(r.end_ms), version: BigInt(r.version) })),
  };
}

function settledAt(clock: IndexClock, seq: number): boolean {
  return seq <= clock.seq && !clock.pending.has(seq);
}

/** [begin, end) minus [cutBegin, cutEnd): zero, one or two pieces. */
function subtract(item: DirtyItem, cutBegin: number, cutEnd: number): DirtyItem[] {
  if (cutBegin >= item.end || cutEnd <= item.begin) return [item];
  const pieces: DirtyItem[] = [];
  if (item.begin < cutBegin) pieces.push({ ...item, end: cutBegin });
  if (cutEnd < item.end) pieces.push({ ...item, begin: cutEnd });
  return pieces;
}

export class ReadContextIndex {
  private readonly tenants = new Map<string, Map<number, SeriesEntry>>();
  private seq = 0;
  private readonly pending = new Set<number>();
  private itemCount = 0;
  private complete = true;

  constructor(private readonly itemsMax = READ_CONTEXT_ITEMS_MAX) {}

  /** Ranges and tombstones held, and whether every series is held. */
  get size(): { items: number; complete: boolean } {
    return { items: this.itemCount, complete: this.complete };
  }

  /** The context of a series; undefined when it is not held (ask the tables). */
  context(tenant: string, seriesId: number): SeriesContext | undefined {
    const entry = this.tenants.get(tenant)?.get(seriesId);
    if (!entry) return this.complete ? { dirty: [], tombstones: [] } : undefined;
    return {
      dirty: entry.dirty.map((d): Range => [d.begin, d.end]),
      tombstones: entry.tombstones.map((t): Tombstone => ({ seriesId, begin: t.begin, end: t.end, version: t.version })),
    };
  }

  /** Adds a write's ranges and tombstones before any of it is written; pending until settle(). */
  begin(dirty: readonly DirtyMark[], tombstones: readonly TombstoneMark[] = []): number {
    const seq = ++this.seq;
    this.pending.add(seq);
    for (const d of dirty) this.addDirty(d, seq);
    for (const t of tombstones) this.addTombstone(t, seq);
    return seq;
  }

  /** The write of `seq` has settled (resolved or failed: whatever it wrote is visible). */
  settle(seq: number): void {
    this.pending.delete(seq);
  }

  /** Which writes have settled now; taken by the fold while the MarkOrderGate holds writes back. */
  clock(): IndexClock {
    return { seq: this.seq, pending: new Set(this.pending) };
  }

  /**
   * After a fold whose clock was `clock`: settled ranges lose what a folded mark of their
   * family (or of every family) covers; remainders written back are added. Returns the series
   * touched (with repeats).
   */
  applyFold(clock: IndexClock, folded: readonly DirtyMark[], remarked: readonly DirtyMark[]): [tenant: string, seriesId: number][] {
    const touched: [string, number][] = [];
    for (const mark of remarked) {
      this.addDirty(mark, ++this.seq);
      touched.push([mark.tenant, mark.seriesId]);
    }
    for (const mark of folded) {
      touched.push([mark.tenant, mark.seriesId]);
      const entry = this.tenants.get(mark.tenant)?.get(mark.seriesId);
      if (!entry) continue;
      const kept: DirtyItem[] = [];
      for (const item of entry.dirty) {
        const applies = (mark.family === '' || mark.family === item.family) && settledAt(clock, item.seq);
        for (const piece of applies ? subtract(item, mark.beginMs, mark.endMs) : [item]) kept.push(piece);
      }
      this.itemCount += kept.length - entry.dirty.length;
      entry.dirty = kept;
      this.dropIfEmpty(mark.tenant, mark.seriesId, entry);
    }
    return touched;
  }

  /**
   * Replaces every item settled at `clock` with the tables' rows read after it (see the module
   * comment, 4). While incomplete, only series still held are updated.
   */
  replace(clock: IndexClock, dirty: readonly DirtyMark[], tombstones: readonly TombstoneMark[]): void {
    for (const [tenant, series] of this.tenants) {
      for (const [seriesId, entry] of series) {
        const before = entry.dirty.length + entry.tombstones.length;
        entry.dirty = entry.dirty.filter((d) => !settledAt(clock, d.seq));
        entry.tombstones = entry.tombstones.filter((t) => !settledAt(clock, t.seq));
        this.itemCount -= before - entry.dirty.length - entry.tombstones.length;
        if (!this.complete) continue;
        this.dropIfEmpty(tenant, seriesId, entry);
      }
    }
    // Rows get sequence number 0: settled at every later clock.
    for (const d of dirty) this.addDirty(d, 0);
    for (const t of tombstones) this.addTombstone(t, 0);
    if (!this.complete) for (const [tenant, series] of this.tenants) for (const [id, entry] of series) this.dropIfEmpty(tenant, id, entry);
  }

  /** The entry of a series, created if the index may hold one more; undefined when not held. */
  private entryFor(tenant: string, seriesId: number): SeriesEntry | undefined {
    let series = this.tenants.get(tenant);
    const entry = series?.get(seriesId);
    if (entry) return entry;
    if (!this.complete) return undefined;
    if (this.itemCount >= this.itemsMax) {
      // Absence stops meaning "empty": reads of series not held ask the tables from now on.
      this.complete = false;
      return undefined;
    }
    if (!series) this.tenants.set(tenant, (series = new Map()));
    const created: SeriesEntry = { dirty: [], tombstones: [] };
    series.set(seriesId, created);
    return created;
  }

  private addDirty(mark: DirtyMark, seq: number): void {
    const entry = this.entryFor(mark.tenant, mark.seriesId);
    if (!entry) return;
    const same = entry.dirty.find((d) => d.family === mark.family && d.begin === mark.beginMs && d.end === mark.endMs);
    if (same) { same.seq = Math.max(same.seq, seq); return; }
    entry.dirty.push({ family: mark.family, begin: mark.beginMs, end: mark.endMs, seq });
    this.itemCount++;
  }

  private addTombstone(mark: TombstoneMark, seq: number): void {
    const entry = this.entryFor(mark.tenant, mark.seriesId);
    if (!entry) return;
    const same = entry.tombstones.find((t) => t.begin === mark.beginMs && t.end === mark.endMs && t.version === mark.version);
    if (same) { same.seq = Math.max(same.seq, seq); return; }
    entry.tombstones.push({ begin: mark.beginMs, end: mark.endMs, version: mark.version, seq });
    this.itemCount++;
  }

  private dropIfEmpty(tenant: string, seriesId: number, entry: SeriesEntry): void {
    if (entry.dirty.length > 0 || entry.tombstones.length > 0) return;
    const series = this.tenants.get(tenant);
    series?.delete(seriesId);
    if (series?.size === 0) this.tenants.delete(tenant);
  }
}
