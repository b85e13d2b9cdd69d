// What every data point read shares (issue 3): the page-size check and the series' context,
// dirty ranges and delete tombstones, from the in-memory index (read-context-index.ts, the
// embedded engine) where it holds the series or one small statement, with the bound SQL
// pieces they become. The reads themselves are
// datapoint-read.ts (raw pages), datapoint-aggregate.ts and datapoint-latest.ts.
import { BadRequestError } from '../errors.ts';
import { ColumnarParams, type QueryParams } from '../stores/columnar-params.ts';
import type { ColumnarStore } from '../stores/columnar.ts';
import { SERIES_CONTEXT_SQL } from './datapoint-read.sql.ts';
import { ROLLUP_BUCKET_MS } from './families.ts';
import type { Range, ReadContextCache, SeriesContext, Tombstone } from './read-context-cache.ts';

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
 * Dirty ranges and tombstones of each series: from the index where it holds them (issue 11: no
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

/** Tombstones of the given contexts overlapping [start, end). */
export function tombstonesIn(contexts: Iterable<SeriesContext>, start: number, end: number): Tombstone[] {
  const out: Tombstone[] = [];
  for (const context of contexts) for (const t of context.tombstones) if (t.begin < end && t.end > start) out.push(t);
  return out;
}

/** The bound arrays of aliveCondition(true); nothing when there are no tombstones. */
export function tombstoneParams(tombstones: readonly Tombstone[]): QueryParams {
  if (tombstones.length === 0) return {};
  return {
    tomb_series: tombstones.map((t) => BigInt(t.seriesId)),
    tomb_begin: tombstones.map((t) => t.begin),
    tomb_end: tombstones.map((t) => t.end),
    tomb_version: tombstones.map((t) => t.version),
  };
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
