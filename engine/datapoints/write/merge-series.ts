// Two items of one request may name the same series (by id and by externalId, say). The store
// wants one SeriesPoints per series, sorted with no duplicate timestamp, so they are merged
// here: later items win a shared timestamp, as later points within an item do.
import type { SeriesPoints } from '../types.ts';
import { PACKED_ROW, type PackedRows } from './packed-batch.ts';

function take(series: SeriesPoints, order: number[]): SeriesPoints {
  const pick = <T extends Float64Array | BigInt64Array | Uint8Array>(column: T | undefined, make: (n: number) => T): T | undefined => {
    if (!column) return undefined;
    const out = make(order.length);
    order.forEach((from, to) => { out[to] = column[from] as never; });
    return out;
  };
  return {
    seriesId: series.seriesId,
    valueType: series.valueType,
    timestampMs: pick(series.timestampMs, (n) => new Float64Array(n)) as Float64Array,
    float: pick(series.float, (n) => new Float64Array(n)),
    bigint: pick(series.bigint, (n) => new BigInt64Array(n)),
    scaled: pick(series.scaled, (n) => new BigInt64Array(n)),
    isText: pick(series.isText, (n) => new Uint8Array(n)),
    text: series.text ? order.map((i) => series.text?.[i] as string) : undefined,
  };
}

function concat(parts: SeriesPoints[]): SeriesPoints {
  const first = parts[0] as SeriesPoints;
  const total = parts.reduce((n, p) => n + p.timestampMs.length, 0);
  const join = <T extends Float64Array | BigInt64Array | Uint8Array>(get: (p: SeriesPoints) => T | undefined, make: (n: number) => T): T | undefined => {
    if (!get(first)) return undefined;
    const out = make(total);
    let offset = 0;
    for (const p of parts) {
      const column = get(p) as T;
      out.set(column as never, offset);
      offset += column.length;
    }
    return out;
  };
  return {
    seriesId: first.seriesId,
    valueType: first.valueType,
    timestampMs: join((p) => p.timestampMs, (n) => new Float64Array(n)) as Float64Array,
    float: join((p) => p.float, (n) => new Float64Array(n)),
    bigint: join((p) => p.bigint, (n) => new BigInt64Array(n)),
    scaled: join((p) => p.scaled, (n) => new BigInt64Array(n)),
    isText: join((p) => p.isText, (n) => new Uint8Array(n)),
    text: first.text ? parts.flatMap((p) => p.text ?? []) : undefined,
  };
}

/** The ids to look for repeats in, reused from request to request (ingest runs one at a time on the event loop). */
let idScratch = new Float64Array(256);

function hasRepeatedId(series: readonly SeriesPoints[]): boolean {
  const n = series.length;
  if (n < 2) return false;
  if (idScratch.length < n) idScratch = new Float64Array(Math.max(n, idScratch.length * 2));
  for (let i = 0; i < n; i++) idScratch[i] = (series[i] as SeriesPoints).seriesId;
  return sortedRepeats(idScratch.subarray(0, n).sort());
}

/** Whether packed series (packed-batch.ts) name some seriesId twice. */
export function packedHasRepeatedId(packed: PackedRows): boolean {
  const n = packed.seriesCount;
  if (n < 2) return false;
  if (idScratch.length < n) idScratch = new Float64Array(Math.max(n, idScratch.length * 2));
  for (let i = 0; i < n; i++) idScratch[i] = packed.rows[i * PACKED_ROW] as number;
  return sortedRepeats(idScratch.subarray(0, n).sort());
}

function sortedRepeats(ids: Float64Array): boolean {
  for (let i = 1; i < ids.length; i++) if (ids[i] === ids[i - 1]) return true;
  return false;
}

/** One SeriesPoints per seriesId; sorted ascending, the last occurrence of a timestamp wins. */
export function mergeSameSeries(series: SeriesPoints[]): SeriesPoints[] {
  // The usual request names each series once: then it is the answer, and no list per series
  // is built (ingest calls this for every request; a Set of the ids allocated more than the
  // sorted copy in reused memory).
  if (!hasRepeatedId(series)) return series;
  const bySeries = new Map<number, SeriesPoints[]>();
  for (const s of series) {
    const list = bySeries.get(s.seriesId);
    if (list) list.push(s);
    else bySeries.set(s.seriesId, [s]);
  }
  const out: SeriesPoints[] = [];
  for (const parts of bySeries.values()) {
    if (parts.length === 1) {
      out.push(parts[0] as SeriesPoints);
      continue;
    }
    const all = concat(parts);
    const ts = all.timestampMs;
    // Stable sort by timestamp, then keep the last index of each timestamp.
    const order = Array.from(ts.keys()).sort((a, b) => (ts[a] as number) - (ts[b] as number) || a - b);
    const kept = order.filter((index, k) => k === order.length - 1 || ts[order[k + 1] as number] !== ts[index]);
    out.push(take(all, kept));
  }
  return out;
}
