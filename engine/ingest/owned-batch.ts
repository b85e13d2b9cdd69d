// The ingest log's hold on an acknowledged batch until it is inserted (group-commit.ts): the
// slab the request handed over with its columns (adoptedBatch, no copy), or else a copy of
// its own, as the request's memory goes back with its answer (ownedCopy). The copy lays every
// column out one after another in the write-ahead record's order (wal-record.ts), so the
// record takes the columns as one run of bytes: one checksum and one buffer to write per
// request instead of two per series (a gateway request of 100 series was ~200 of each).
// When the columns already lie so in one buffer (the parse workers write each item's
// timestamps and then its values into one arena), the copy is a single block copy.
import { seriesColumnAt, type SeriesPoints } from '../datapoints/types.ts';
import type { BatchMemory, IngestBatch } from './ingest-log.ts';
import { ColumnArena } from '../memory/column-arena.ts';
import type { SlabPool } from '../memory/slab-pool.ts';
import { PackedBatch } from '../datapoints/write/packed-batch.ts';
import { RECORD_COLUMNS, encodePackedWalRecord, encodeWalRecord } from './wal-record.ts';

export interface OwnedBatch<B extends IngestBatch | PackedBatch = IngestBatch | PackedBatch> {
  /** Packed when it came so, with its columns as one run (PackedBatch.columnRun). */
  batch: B;
  /** Every column's bytes in record order, one run (encodeWalRecord's `columnBytes`), when the copy laid them so. */
  columnBytes?: Uint8Array;
  /** Gives the copy's memory back (once inserted). */
  release: () => void;
}

type Column = Float64Array | BigInt64Array | Uint8Array;

// A series' columns in record order come from seriesColumnAt (types.ts), read in a loop rather
// than through a callback: a closure per series (each a __name call under tsx's keepNames) cost
// more than the copy (bench/probe.ts gateway).
const RECORD_COLUMN_COUNT = RECORD_COLUMNS.length + 1;

/** The bytes the batch's columns span when they lie back to back in record order in one buffer. */
function backToBack(series: readonly SeriesPoints[]): Uint8Array | undefined {
  const first = series[0]?.timestampMs;
  if (!first) return undefined;
  let end = first.byteOffset;
  for (const s of series) {
    for (let k = 0; k < RECORD_COLUMN_COUNT; k++) {
      const column = seriesColumnAt(s, k);
      if (column === undefined) continue;
      if (column.buffer !== first.buffer || column.byteOffset !== end) return undefined;
      end += column.byteLength;
    }
  }
  return new Uint8Array(first.buffer, first.byteOffset, end - first.byteOffset);
}

/** The same series over `bytes`, where `from` held them at the same relative offsets. */
function seriesOver(series: readonly SeriesPoints[], from: Uint8Array, bytes: Uint8Array): SeriesPoints[] {
  const at = (column: Column) => bytes.byteOffset + (column.byteOffset - from.byteOffset);
  return series.map((s): SeriesPoints => {
    const n = s.timestampMs.length;
    const owned: SeriesPoints = { seriesId: s.seriesId, valueType: s.valueType, timestampMs: new Float64Array(bytes.buffer, at(s.timestampMs), n) };
    if (s.float) owned.float = new Float64Array(bytes.buffer, at(s.float), n);
    if (s.bigint) owned.bigint = new BigInt64Array(bytes.buffer, at(s.bigint), n);
    if (s.scaled) owned.scaled = new BigInt64Array(bytes.buffer, at(s.scaled), n);
    if (s.isText) owned.isText = new Uint8Array(bytes.buffer, at(s.isText), n);
    if (s.text) owned.text = s.text; // strings are immutable
    return owned;
  });
}

/**
 * A packed batch whose memory the caller handed over, kept as it is when its columns lie as the
 * record lays them out (PackedBatch.columnRun, as the parse workers write them); else undefined.
 */
export function adoptedPacked(batch: PackedBatch, memory: BatchMemory): OwnedBatch<PackedBatch> | undefined {
  const run = batch.columnRun();
  return run ? { batch, columnBytes: run, release: () => memory.release() } : undefined;
}

/** The write-ahead record of what the log holds, its columns as the one run laid here when they are. */
export function walRecordOf(owned: OwnedBatch): Uint8Array[] {
  if (owned.batch instanceof PackedBatch) return encodePackedWalRecord(owned.batch, owned.columnBytes as Uint8Array);
  return encodeWalRecord(owned.batch, owned.columnBytes);
}

/** A batch whose memory the caller handed over (IngestLog.append's `memory`): kept as it is, no copy. */
export function adoptedBatch(batch: IngestBatch, memory: BatchMemory): OwnedBatch<IngestBatch> {
  const run = backToBack(batch.series);
  return { batch, release: () => memory.release(), ...(run ? { columnBytes: run } : {}) };
}

/** A copy of a batch in one slab (or, without slabs, in memory of its own). */
export function ownedCopy(batch: IngestBatch, slabs: SlabPool | undefined): OwnedBatch<IngestBatch> {
  let total = 0;
  let arenaBytes = 0;
  for (const s of batch.series) {
    for (let k = 0; k < RECORD_COLUMN_COUNT; k++) {
      const bytes = seriesColumnAt(s, k)?.byteLength ?? 0;
      total += bytes;
      arenaBytes += ColumnArena.bytesForColumn(bytes);
    }
  }
  const slab = slabs?.acquire(arenaBytes);
  const release = () => slab?.release();
  const own = (series: SeriesPoints[], run?: Uint8Array): OwnedBatch<IngestBatch> => ({
    batch: { tenant: batch.tenant, writeVersion: batch.writeVersion, series }, release, ...(run ? { columnBytes: run } : {}),
  });
  const source = backToBack(batch.series);
  if (source) {
    const run = slab ? new Uint8Array(slab.buffer, 0, total) : new Uint8Array(total);
    run.set(source);
    return own(seriesOver(batch.series, source, run), run);
  }
  // Column by column; still one run when no column needed padding (a MIXED series' isText may).
  const arena = new ColumnArena(slab?.buffer, { zero: false }); // every column is copied over whole
  const copy = <T extends Column>(make: (n: number) => T, from: T | undefined): T | undefined => {
    if (!from) return undefined;
    const to = make(from.length);
    to.set(from as never);
    return to;
  };
  const series = batch.series.map((s): SeriesPoints => {
    const owned: SeriesPoints = { seriesId: s.seriesId, valueType: s.valueType, timestampMs: copy((n) => arena.float64(n), s.timestampMs) as Float64Array };
    const float = copy((n) => arena.float64(n), s.float);
    const bigint = copy((n) => arena.bigint64(n), s.bigint);
    const scaled = copy((n) => arena.bigint64(n), s.scaled);
    const isText = copy((n) => arena.uint8(n), s.isText);
    if (float) owned.float = float;
    if (bigint) owned.bigint = bigint;
    if (scaled) owned.scaled = scaled;
    if (isText) owned.isText = isText;
    if (s.text) owned.text = s.text;
    return owned;
  });
  return own(series, backToBack(series));
}
