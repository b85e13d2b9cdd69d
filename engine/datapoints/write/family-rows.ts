// One storage family's parts of a group commit, gathered from its batches and, when they are
// long, put in the raw table's sort order before the insert fills its columns (datapoint-write.ts).
import type { EventLoopTurns } from '../../scheduling/event-loop-turns.ts';
import { familyOf, type Family } from '../tables/families.ts';
import type { PackedBatch } from './packed-batch.ts';

/** One storage family's parts (a series of a batch each), in parallel arrays: no object per part. */
export interface FamilyRows {
  tenants: string[];
  batches: PackedBatch[];
  /** Per part: its batch's index in `batches`. */
  partBatch: Int32Array;
  /** Per part: the series' index in its batch. */
  partSeries: Int32Array;
  /** Per part: its tenant's index in `tenants`, 1-based. */
  partTenant: Int32Array;
  partCount: number;
  pointCount: number;
  /**
   * Per part in the order groupByFamily found them (batch by batch, each batch's series in its
   * order: the order their columns lie in memory), its place among the sorted parts; set by
   * sortBySortKey. Absent: the parts stay in that order (sortsBeforeInsert).
   */
  sortedPlace?: Int32Array;
}

function newFamilyRows(batches: PackedBatch[], capacity: number): FamilyRows {
  return { tenants: [], batches, partBatch: new Int32Array(capacity), partSeries: new Int32Array(capacity), partTenant: new Int32Array(capacity), partCount: 0, pointCount: 0 };
}

export async function groupByFamily(batches: PackedBatch[], turns: EventLoopTurns | undefined): Promise<Map<Family, FamilyRows>> {
  let capacity = 0;
  for (const batch of batches) capacity += batch.seriesCount;
  const groups = new Map<Family, FamilyRows>();
  for (let b = 0; b < batches.length; b++) {
    await turns?.maybe();
    const batch = batches[b] as PackedBatch;
    for (let i = 0; i < batch.seriesCount; i++) {
      const length = batch.length(i);
      if (length === 0) continue;
      const family = familyOf(batch.valueType(i));
      let group = groups.get(family);
      if (!group) groups.set(family, (group = newFamilyRows(batches, capacity)));
      let tenantIndex = group.tenants.indexOf(batch.tenant) + 1;
      if (tenantIndex === 0) tenantIndex = group.tenants.push(batch.tenant);
      const p = group.partCount++;
      group.partBatch[p] = b;
      group.partSeries[p] = i;
      group.partTenant[p] = tenantIndex;
      group.pointCount += length;
    }
  }
  for (const group of groups.values()) if (sortsBeforeInsert(group)) await sortBySortKey(group, turns);
  return groups;
}

/**
 * Points a family's parts must hold on average to be sorted before the insert. The engine
 * sorts a block that is not in the table's order as it writes the part (a stable sort: rows of
 * equal keys keep their order, as sortBySortKey keeps them), on its own thread. A gateway's
 * commit (~10 points a part, 13,000-40,000 parts) costs less sorted there than here, where the
 * sort of its parts took 6% of the event loop's perf samples: `bench/probe.ts gateway
 * --one-tenant`, six runs each by turns, the engine's sort the faster in every pair:
 * 803-958k points/s at 1.24-1.54 CPU-s per million points against 772-929k at 1.29-1.58. Long
 * parts (a bulk load's 10,000 points each) take our sort almost for free, and spare the engine
 * a permuted copy of every column: `bench/probe.ts bulk --series 100`, two runs each, anonymous
 * memory at the peak 464-466 MiB with our sort against 509-550 with the engine's, at the same rate.
 */
export const SORTED_PART_POINTS_MIN = 64;

/** Whether the parts are long enough to sort here rather than leave to the engine (SORTED_PART_POINTS_MIN). */
export function sortsBeforeInsert(group: FamilyRows): boolean {
  return group.pointCount >= SORTED_PART_POINTS_MIN * group.partCount;
}

/** Parts sorted in one go, one run of the sort: ~0.4 ms of the event loop for 2,048 (Node 20). */
const SORT_RUN_PARTS = 2_048;
/** Parts placed between two looks at the slice's clock while the sort's keys are read or its runs merged. */
const SORT_CHECK_PARTS = 4_096;

/**
 * Parts in the table's sort order (tenant, series, first timestamp, version): a group commit
 * joins requests in arrival order, and a block that is already sorted spares the engine its
 * sort on insert (for long parts: sortsBeforeInsert). Row order does not decide anything: the
 * write version does, and a series is one part of its batch with no timestamp twice
 * (merge-series.ts). Tenants and versions are ranked once and the keys read once into arrays,
 * so the comparator compares numbers only (a gateway commit sorted ~40,000 parts: with two
 * tenant strings per comparison the sort took 10-30 ms of the event loop). Given `turns`, the sort is sliced: runs of
 * SORT_RUN_PARTS sorted apart, then merged pairwise, the slice's clock read as it goes (one
 * unsliced sort of a gathered commit's ~15,000 parts held the loop for 5-40 ms at 250,000
 * points/s in one tenant). Equal keys keep their order.
 */
export async function sortBySortKey(group: FamilyRows, turns?: EventLoopTurns): Promise<void> {
  const n = group.partCount;
  const { batches } = group;
  const tenantOrder = group.tenants.map((_, i) => i).sort((a, b) => ((group.tenants[a] as string) < (group.tenants[b] as string) ? -1 : 1));
  const tenantRankOf = new Int32Array(group.tenants.length + 1);
  tenantOrder.forEach((index, position) => { tenantRankOf[index + 1] = position; });
  const batchOrder = batches.map((_, b) => b).sort((a, b) => {
    const va = (batches[a] as PackedBatch).writeVersion;
    const vb = (batches[b] as PackedBatch).writeVersion;
    return va < vb ? -1 : va > vb ? 1 : 0;
  });
  const versionRankOf = new Int32Array(batches.length);
  batchOrder.forEach((b, position) => { versionRankOf[b] = position; });
  const tenantRank = new Int32Array(n);
  const seriesId = new Float64Array(n);
  const first = new Float64Array(n);
  const versionRank = new Int32Array(n);
  for (let p = 0; p < n; p++) {
    if (turns && p % SORT_CHECK_PARTS === 0 && turns.due()) await turns.turn();
    const b = group.partBatch[p] as number;
    const batch = batches[b] as PackedBatch;
    const i = group.partSeries[p] as number;
    tenantRank[p] = tenantRankOf[group.partTenant[p] as number] as number;
    seriesId[p] = batch.seriesId(i);
    first[p] = batch.firstTimestamp(i);
    versionRank[p] = versionRankOf[b] as number;
  }
  // Small integers out: a difference of two ids or timestamps is a double past 2^30, and the
  // sort's builtin boxes every double its comparator returns.
  const compare = (a: number, b: number): number => {
    const byTenant = (tenantRank[a] as number) - (tenantRank[b] as number);
    if (byTenant !== 0) return byTenant;
    const sa = seriesId[a] as number;
    const sb = seriesId[b] as number;
    if (sa !== sb) return sa < sb ? -1 : 1;
    const fa = first[a] as number;
    const fb = first[b] as number;
    if (fa !== fb) return fa < fb ? -1 : 1;
    return (versionRank[a] as number) - (versionRank[b] as number) || a - b;
  };
  let order = new Uint32Array(n);
  for (let p = 0; p < n; p++) order[p] = p;
  for (let from = 0; from < n; from += SORT_RUN_PARTS) {
    if (turns?.due()) await turns.turn();
    order.subarray(from, Math.min(n, from + SORT_RUN_PARTS)).sort(compare);
  }
  let merged = new Uint32Array(n);
  for (let width = SORT_RUN_PARTS; width < n; width *= 2) {
    for (let left = 0; left < n; left += 2 * width) {
      const middle = Math.min(n, left + width);
      const right = Math.min(n, left + 2 * width);
      let a = left;
      let b = middle;
      for (let k = left; k < right; k++) {
        if (turns && (k - left) % SORT_CHECK_PARTS === SORT_CHECK_PARTS - 1 && turns.due()) await turns.turn();
        if (b >= right || (a < middle && compare(order[a] as number, order[b] as number) <= 0)) merged[k] = order[a++] as number;
        else merged[k] = order[b++] as number;
      }
    }
    [order, merged] = [merged, order];
  }
  const partBatch = new Int32Array(n);
  const partSeries = new Int32Array(n);
  const partTenant = new Int32Array(n);
  const sortedPlace = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    const p = order[k] as number;
    partBatch[k] = group.partBatch[p] as number;
    partSeries[k] = group.partSeries[p] as number;
    partTenant[k] = group.partTenant[p] as number;
    sortedPlace[p] = k;
  }
  group.partBatch = partBatch;
  group.partSeries = partSeries;
  group.partTenant = partTenant;
  group.sortedPlace = sortedPlace;
}
