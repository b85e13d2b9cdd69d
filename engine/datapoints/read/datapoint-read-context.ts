// What every data point read shares: the page-size check and the series' context,
// dirty ranges and delete tombstones, from the in-memory index (read-context-index.ts, the
// embedded engine) where it holds the series or one small statement, with the bound SQL
// pieces they become. The reads themselves are
// datapoint-read.ts (raw pages), datapoint-aggregate.ts and datapoint-latest.ts.
import { BadRequestError } from '../../errors.ts';
import { ColumnarParams, type QueryParams } from '../../stores/columnar-params.ts';
import type { ColumnarStore } from '../../stores/columnar.ts';
import { SERIES_CONTEXT_SQL } from './datapoint-read.sql.ts';
import { ROLLUP_BUCKET_MS } from '../tables/families.ts';
import type { ReadContextCache } from './read-context-cache.ts';
import type { Range, SeriesContext, Tombstone, TombstoneForm } from './series-context.ts';

/** The page size a read asks for, within its contract cap (SPEC "Limits"). */
export function assertLimit(limit: number, max: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > max) {
    throw new BadRequestError(`limit must be an integer from 1 to ${max}`, [{ field: 'limit', message: `from 1 to ${max}`, value: limit }]);
  }
}

interface ContextRow { kind: string; series: string; a: string; b: string; c: string }

function contextsFromRows(ids: readonly number[], rows: readonly ContextRow[]): Map<number, SeriesContext> {
  const contexts = new Map<number, SeriesContext>(ids.map((id) => [id, { dirty: [], tombstones: [] }]));
  for (const row of rows) {
    const context = contexts.get(Number(row.series));
    if (!context) continue;
    if (row.kind === 'd') context.dirty.push([Number(row.a), Number(row.b)]);
    else context.tombstones.push({ seriesId: Number(row.series), begin: Number(row.a), end: Number(row.b), version: BigInt(row.c) });
  }
  return contexts;
}

/**
 * Dirty ranges and tombstones of each series: from the index where it holds them (no
 * statement, whatever is being written), else one statement. Nothing fetched is kept: the
 * index alone decides what it holds.
 */
export async function contextsOf(store: ColumnarStore, tenant: string, ids: readonly number[], cache?: ReadContextCache): Promise<Map<number, SeriesContext>> {
  const contexts = new Map<number, SeriesContext>();
  const missing: number[] = [];
  for (const id of ids) {
    const held = cache?.index.context(tenant, id);
    if (held) contexts.set(id, held);
    else missing.push(id);
  }
  if (missing.length === 0) return contexts;
  const fetched = contextsFromRows(missing, await store.query<ContextRow>(SERIES_CONTEXT_SQL, { tenant, series: missing.map(BigInt) }));
  for (const [id, context] of fetched) contexts.set(id, context);
  return contexts;
}

/** Tombstones up to which the predicate form is cheaper than the join's fixed cost. */
export const TOMBSTONE_LIST_MAX = 32;

/** The tombstones a read binds: their form and the bound arrays (tomb_series, tomb_begin, tomb_end, tomb_version). */
export interface BoundTombstones {
  form: TombstoneForm;
  params: QueryParams;
}

/** The tombstones of the given contexts overlapping [start, end), bound for liveRawRows. */
export function bindTombstones(contexts: Iterable<SeriesContext>, start = -Infinity, end = Infinity): BoundTombstones {
  const touching: Tombstone[] = [];
  for (const context of contexts) for (const t of context.tombstones) if (t.begin < end && t.end > start) touching.push(t);
  return bound(disjointTombstones(touching));
}

/**
 * Tombstones of several tenants bound for liveRawRows with `tenantKeyed` (the fold's
 * statements span tenants): disjoint per tenant and series, with tomb_tenant beside.
 */
export function bindTenantTombstones(byTenant: ReadonlyMap<string, readonly Tombstone[]>): BoundTombstones {
  const tenants: string[] = [];
  const disjoint: Tombstone[] = [];
  for (const [tenant, tombstones] of byTenant) {
    for (const t of disjointTombstones(tombstones)) {
      tenants.push(tenant);
      disjoint.push(t);
    }
  }
  return bound(disjoint, { tomb_tenant: tenants });
}

/** Disjoint tombstones in the form their count calls for, as the arrays liveRawRows binds (plus `extra`). */
function bound(disjoint: readonly Tombstone[], extra: QueryParams = {}): BoundTombstones {
  if (disjoint.length === 0) return { form: 'none', params: {} };
  return {
    form: disjoint.length <= TOMBSTONE_LIST_MAX ? 'list' : 'join',
    params: {
      ...extra,
      tomb_series: disjoint.map((t) => BigInt(t.seriesId)),
      tomb_begin: disjoint.map((t) => t.begin),
      tomb_end: disjoint.map((t) => t.end),
      tomb_version: disjoint.map((t) => t.version),
    },
  };
}

/**
 * The same deletions as disjoint ranges, sorted by series and begin, each with the highest
 * version of the tombstones covering it. A point is dead when some covering tombstone's version
 * is at least its own, that is when the highest one is: so the join can look up the one range
 * at or before a point's time (ASOF) instead of every range that covers it.
 */
export function disjointTombstones(tombstones: readonly Tombstone[]): Tombstone[] {
  const bySeries = new Map<number, Tombstone[]>();
  for (const t of tombstones) {
    if (t.begin >= t.end) continue;
    const list = bySeries.get(t.seriesId);
    if (list) list.push(t);
    else bySeries.set(t.seriesId, [t]);
  }
  const out: Tombstone[] = [];
  for (const seriesId of [...bySeries.keys()].sort((a, b) => a - b)) {
    const list = (bySeries.get(seriesId) as Tombstone[]).sort((a, b) => a.begin - b.begin);
    const bounds = [...new Set(list.flatMap((t) => [t.begin, t.end]))].sort((a, b) => a - b);
    const active = new VersionHeap();
    let next = 0;
    for (let k = 0; k + 1 < bounds.length; k++) {
      const from = bounds[k] as number;
      const to = bounds[k + 1] as number;
      // Every begin and end is a bound, so a tombstone begun by `from` and ending after it covers [from, to).
      while (next < list.length && (list[next] as Tombstone).begin <= from) active.push(list[next++] as Tombstone);
      const top = active.topEndingAfter(from);
      if (!top) continue;
      const last = out[out.length - 1];
      if (last && last.seriesId === seriesId && last.end === from && last.version === top.version) last.end = to;
      else out.push({ seriesId, begin: from, end: to, version: top.version });
    }
  }
  return out;
}

/** A max-heap of tombstones by version; ended ones are dropped when they come to the top. */
class VersionHeap {
  private readonly items: Tombstone[] = [];

  push(t: Tombstone): void {
    const items = this.items;
    items.push(t);
    for (let i = items.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if ((items[parent] as Tombstone).version >= t.version) break;
      items[i] = items[parent] as Tombstone;
      items[parent] = t;
      i = parent;
    }
  }

  /** The highest-version tombstone still covering `at` (end > at), dropping ended ones. */
  topEndingAfter(at: number): Tombstone | undefined {
    while (this.items.length > 0 && (this.items[0] as Tombstone).end <= at) this.pop();
    return this.items[0];
  }

  private pop(): void {
    const items = this.items;
    const last = items.pop() as Tombstone;
    if (items.length === 0) return;
    items[0] = last;
    for (let i = 0; ;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let best = i;
      if (l < items.length && (items[l] as Tombstone).version > (items[best] as Tombstone).version) best = l;
      if (r < items.length && (items[r] as Tombstone).version > (items[best] as Tombstone).version) best = r;
      if (best === i) break;
      [items[i], items[best]] = [items[best] as Tombstone, items[i] as Tombstone];
      i = best;
    }
  }
}

/** Sorted, merged ranges clipped to [start, end). */
export function clip(ranges: readonly Range[], start: number, end: number): Range[] {
  const out: Range[] = [];
  for (const [b, e] of [...ranges].sort((x, y) => x[0] - y[0])) {
    const from = Math.max(b, start);
    const to = Math.min(e, end);
    if (from >= to) continue;
    const last = out[out.length - 1];
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else out.push([from, to]);
  }
  return out;
}

export function overlaps(ranges: readonly Range[] | undefined, begin: number, end: number): boolean {
  return ranges !== undefined && ranges.some(([b, e]) => b < end && e > begin);
}

/** `(tenant = .. AND series_id = .. AND <column> in range) OR ..`, values bound. */
export function rangeList(params: ColumnarParams, tenant: string, ranges: ReadonlyMap<number, readonly Range[]>, column: 'ts' | 'bucket'): string {
  const parts: string[] = [];
  for (const [seriesId, list] of ranges) {
    for (const [b, e] of list) {
      const inRange = column === 'ts'
        ? `ts >= ${params.bind(b, 'Int64')} AND ts < ${params.bind(e, 'Int64')}`
        : `bucket < ${params.bind(e, 'Int64')} AND bucket + ${ROLLUP_BUCKET_MS} > ${params.bind(b, 'Int64')}`;
      parts.push(`(tenant = ${params.bind(tenant, 'String')} AND series_id = ${params.bind(seriesId, 'UInt64')} AND ${inRange})`);
    }
  }
  return parts.join(' OR ');
}
