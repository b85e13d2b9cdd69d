// Merges the batches decoded from one Kafka fetch into as few store inserts as the
// IngestBatch shape allows: one per (tenant, writeVersion), since the store
// resolves replays and deletes by the version of each batch and versions must never be
// raised or lowered. The chunks of a large series are joined again; a chunk seen twice (a
// redelivery inside one fetch) is dropped, which the store would have absorbed anyway.
import type { SeriesPoints } from '../datapoints/types.ts';
import type { IngestBatch } from './ingest-log.ts';

function concatFloat64(parts: Float64Array[], total: number): Float64Array {
  const out = new Float64Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function concatBigInt64(parts: BigInt64Array[], total: number): BigInt64Array {
  const out = new BigInt64Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function concatUint8(parts: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Joins chunks of one series (same tenant, version and id) in timestamp order. */
export function joinSeriesChunks(chunks: SeriesPoints[]): SeriesPoints {
  const first = chunks[0];
  if (first === undefined) throw new Error('joinSeriesChunks needs at least one chunk');
  if (chunks.length === 1) return first;
  const ordered = chunks
    .filter((chunk) => chunk.timestampMs.length > 0 && chunk.valueType === first.valueType)
    .sort((a, b) => (a.timestampMs[0] as number) - (b.timestampMs[0] as number));
  const kept: SeriesPoints[] = [];
  let lastMs = -Infinity;
  for (const chunk of ordered) {
    // Chunks of one append never overlap; an overlapping one is the same chunk again.
    if ((chunk.timestampMs[0] as number) <= lastMs) continue;
    kept.push(chunk);
    lastMs = chunk.timestampMs[chunk.timestampMs.length - 1] as number;
  }
  if (kept.length === 0) return { ...first, timestampMs: first.timestampMs.subarray(0, 0) };
  if (kept.length === 1) return kept[0] as SeriesPoints;
  const total = kept.reduce((sum, chunk) => sum + chunk.timestampMs.length, 0);
  const joined: SeriesPoints = {
    seriesId: first.seriesId,
    valueType: first.valueType,
    timestampMs: concatFloat64(kept.map((c) => c.timestampMs), total),
  };
  if (first.float) joined.float = concatFloat64(kept.map((c) => c.float ?? new Float64Array(c.timestampMs.length)), total);
  if (first.bigint) joined.bigint = concatBigInt64(kept.map((c) => c.bigint ?? new BigInt64Array(c.timestampMs.length)), total);
  if (first.scaled) joined.scaled = concatBigInt64(kept.map((c) => c.scaled ?? new BigInt64Array(c.timestampMs.length)), total);
  if (first.isText) joined.isText = concatUint8(kept.map((c) => c.isText ?? new Uint8Array(c.timestampMs.length)), total);
  if (first.text) joined.text = kept.flatMap((c) => c.text ?? new Array<string>(c.timestampMs.length).fill(''));
  return joined;
}

/** Groups decoded batches by (tenant, writeVersion), joining the chunks of each series. */
export function mergeForInsert(batches: IngestBatch[]): IngestBatch[] {
  const groups = new Map<string, { tenant: string; writeVersion: bigint; series: Map<number, SeriesPoints[]> }>();
  for (const batch of batches) {
    const groupKey = `${batch.writeVersion}\u0000${batch.tenant}`;
    let group = groups.get(groupKey);
    if (group === undefined) {
      group = { tenant: batch.tenant, writeVersion: batch.writeVersion, series: new Map() };
      groups.set(groupKey, group);
    }
    for (const series of batch.series) {
      const chunks = group.series.get(series.seriesId);
      if (chunks === undefined) group.series.set(series.seriesId, [series]);
      else chunks.push(series);
    }
  }
  return [...groups.values()].map((group) => ({
    tenant: group.tenant,
    writeVersion: group.writeVersion,
    series: [...group.series.values()].map(joinSeriesChunks),
  }));
}
