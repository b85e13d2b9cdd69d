// The dirty marks of a write: which hour-aligned ranges of which series a
// group commit's points fall in, so the fold recomputes only those rollups, and their rows in
// datapoint_dirty. Computed once per commit over every series of every request, for the table
// and for the read contexts in memory (datapoint-store.ts).
import assert from 'node:assert/strict';
import type { ColumnarStore, InsertColumn } from '../../stores/columnar.ts';
import { ROLLUP_BUCKET_MS, familyOf, floorTo, type Family } from '../tables/families.ts';
import { PACKED_TS, PackedBatch, packed } from './packed-batch.ts';
import type { IngestBatch } from '../../ingest/ingest-log.ts';

/** An hour-aligned range [beginMs, endMs) of one series whose rollups may be stale. */
export interface DirtyRange {
  tenant: string;
  seriesId: number;
  /** '' when the family is unknown (deletes): the fold then looks at every family. */
  family: Family | '';
  beginMs: number;
  endMs: number;
  /** An earlier mark's time (engine clock, µs), kept when re-marking; absent: now. */
  markedAtMicros?: bigint;
}

/** Bucket-aligned runs covering the (sorted) timestamps; an empty bucket between points splits a run. */
export function bucketRuns(timestampMs: Float64Array, bucketMs: number): [number, number][] {
  const runs: [number, number][] = [];
  let run: [number, number] | undefined;
  for (let i = 0; i < timestampMs.length; i++) {
    const ts = timestampMs[i] as number;
    if (run !== undefined && ts < run[1]) continue;
    const bucket = floorTo(ts, bucketMs);
    if (run !== undefined && bucket === run[1]) run[1] = bucket + bucketMs;
    else runs.push((run = [bucket, bucket + bucketMs]));
  }
  return runs;
}

/**
 * The dirty runs of one series' points: hour-aligned, a contiguous run one mark. Minute marks
 * let the fold recompute only the minutes written, but every distinct mark is a row
 * of datapoint_dirty the fold must delete, and those deletes are mutations over the table's
 * parts: a gateway writing 10 s per series per request left one mark per series-minute instead
 * of one per series-hour (marks of the same hour are one row), and the catch-up after 3.4 M
 * points took 382 CPU-s instead of 9.9 (bench/probe.ts gateway, 2026-11-23). The fold still
 * builds an hour from its minute rows; it recomputes the marked hour's minutes from raw points.
 */
export function dirtyRuns(timestampMs: Float64Array): [number, number][] {
  return bucketRuns(timestampMs, ROLLUP_BUCKET_MS);
}

/**
 * The dirty ranges of a set of batches, one per (tenant, series, family, run of dirtyRuns), in
 * the order first seen. Every group commit computes them over every series of every request
 * (a gateway commit: ~40,000 series entries, ~1,000 ranges), so the ranges already found are
 * looked up per tenant and series by number, not by a string key built per entry.
 */
export function dirtyRangesOf(batches: readonly (IngestBatch | PackedBatch)[]): DirtyRange[] {
  const collector = new DirtyRangeCollector();
  for (const batch of batches) collector.add(batch);
  return collector.ranges;
}

/**
 * dirtyRangesOf one batch at a time (a group commit gives the event loop turns between them).
 * It walks each series' hour runs in place rather than through dirtyRuns' arrays, and keys
 * runs by hour number (a small integer) rather than by their start in ms (a heap number per
 * lookup): with ~40,000 series entries per gateway commit this was an eighth of everything
 * the event loop allocated (heap sampling, bench/probe.ts gateway, 2026-11-25).
 */
export class DirtyRangeCollector {
  readonly ranges: DirtyRange[] = [];
  /** Each (tenant, series) of the batches once, in the order first seen (a gateway commit: ~1,000 of ~40,000 entries). */
  readonly series: [tenant: string, seriesId: number][] = [];
  // tenant -> series -> first hour number of a run -> the ranges starting there (one, but for other ends or families)
  private readonly byTenant = new Map<string, Map<number, Map<number, DirtyRange[]>>>();

  add(input: IngestBatch | PackedBatch): void {
    const batch = packed(input);
    let bySeries = this.byTenant.get(batch.tenant);
    if (!bySeries) this.byTenant.set(batch.tenant, (bySeries = new Map()));
    for (let s = 0; s < batch.seriesCount; s++) {
      const seriesId = batch.seriesId(s);
      const family = familyOf(batch.valueType(s));
      let byBegin = bySeries.get(seriesId);
      if (!byBegin) {
        bySeries.set(seriesId, (byBegin = new Map()));
        this.series.push([batch.tenant, seriesId]);
      }
      // The runs of dirtyRuns: hours with points, an hour without splitting a run.
      const length = batch.length(s);
      if (length === 0) continue;
      const timestampMs = batch.f64(s, PACKED_TS);
      const start = batch.start(s, PACKED_TS);
      let runFirst = hourOf(timestampMs[start] as number);
      // The timestamps ascend: points within two adjacent hours are one run whatever lies
      // between (a gateway's series: ten points in ten seconds), and the rest is not read.
      const lastHour = hourOf(timestampMs[start + length - 1] as number);
      if (lastHour - runFirst <= 1) {
        this.note(batch.tenant, seriesId, family, byBegin, runFirst, lastHour);
        continue;
      }
      let runLast = runFirst;
      for (let i = start + 1; i < start + length; i++) {
        const hour = hourOf(timestampMs[i] as number);
        if (hour <= runLast + 1) runLast = hour;
        else {
          this.note(batch.tenant, seriesId, family, byBegin, runFirst, runLast);
          runFirst = runLast = hour;
        }
      }
      this.note(batch.tenant, seriesId, family, byBegin, runFirst, runLast);
    }
  }

  private note(tenant: string, seriesId: number, family: Family, byBegin: Map<number, DirtyRange[]>, firstHour: number, lastHour: number): void {
    const beginMs = firstHour * ROLLUP_BUCKET_MS;
    const endMs = (lastHour + 1) * ROLLUP_BUCKET_MS;
    let known = byBegin.get(firstHour);
    if (!known) byBegin.set(firstHour, (known = []));
    else {
      for (const r of known) if (r.endMs === endMs && r.family === family) return;
    }
    const range: DirtyRange = { tenant, seriesId, family, beginMs, endMs };
    known.push(range);
    this.ranges.push(range);
  }
}

/** The rollup hour a timestamp falls in, counted from the epoch (floorTo's buckets, numbered). */
function hourOf(ms: number): number {
  return Math.floor(ms / ROLLUP_BUCKET_MS);
}

/**
 * Records dirty ranges. Their marked_at is set by the engine at insert time, or kept from an
 * earlier mark (the fold re-marking a hot remainder): then every range carries markedAtMicros.
 */
export async function writeDirtyRanges(store: ColumnarStore, ranges: readonly DirtyRange[]): Promise<void> {
  if (ranges.length === 0) return;
  const kept = ranges[0]?.markedAtMicros !== undefined;
  assert.ok(ranges.every((r) => (r.markedAtMicros !== undefined) === kept), 'dirty ranges: markedAtMicros on all of them or none');
  const columns: InsertColumn[] = [
    { name: 'tenant', type: 'String', data: ranges.map((r) => r.tenant) },
    { name: 'series_id', type: 'Float64', data: Float64Array.from(ranges, (r) => r.seriesId) },
    { name: 'family', type: 'String', data: ranges.map((r) => r.family) },
    { name: 'begin_ms', type: 'Float64', data: Float64Array.from(ranges, (r) => r.beginMs) },
    { name: 'end_ms', type: 'Float64', data: Float64Array.from(ranges, (r) => r.endMs) },
  ];
  if (kept) columns.push({ name: 'marked_at', type: 'Int64', data: BigInt64Array.from(ranges, (r) => r.markedAtMicros as bigint) });
  await store.insertColumns({
    table: 'datapoint_dirty',
    targetColumns: ['tenant', 'series_id', 'family', 'begin_ms', 'end_ms', ...(kept ? ['marked_at'] : [])],
    select: 'assumeNotNull(tenant), toUInt64(assumeNotNull(series_id)), assumeNotNull(family), toInt64(assumeNotNull(begin_ms)), toInt64(assumeNotNull(end_ms))'
      + (kept ? ', toUInt64(assumeNotNull(marked_at))' : ''),
    columns,
  });
}
