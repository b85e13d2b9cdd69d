// How a fold's ranges become statements: merged per series, cut into chunks, and written
// as WHERE conditions with bound values (rollup-fold.ts runs them).
import type { ColumnarParams } from '../../stores/columnar-params.ts';

/** A range to recompute: [beginMs, endMs) of one series, minute-aligned (hour-aligned for hours). */
export interface FoldRange {
  tenant: string;
  seriesId: number;
  beginMs: number;
  endMs: number;
}

/** Merges overlapping or touching ranges of the same series. */
export function mergeRanges(ranges: readonly FoldRange[]): FoldRange[] {
  const sorted = [...ranges].sort((a, b) => (a.tenant < b.tenant ? -1 : a.tenant > b.tenant ? 1 : a.seriesId - b.seriesId || a.beginMs - b.beginMs));
  const merged: FoldRange[] = [];
  for (const range of sorted) {
    const last = merged[merged.length - 1];
    if (last && last.tenant === range.tenant && last.seriesId === range.seriesId && range.beginMs <= last.endMs) {
      last.endMs = Math.max(last.endMs, range.endMs);
    } else {
      merged.push({ ...range });
    }
  }
  return merged;
}

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * The ranges as a WHERE condition, one term per (tenant, begin, end) with the series that share
 * it as a set: the condition is evaluated for every row read, and a fold after a gateway's
 * load has thousands of series with the same hours. One term per range cost the catch-up
 * after a gateway's load 26% more CPU at 100 ranges a statement (bench/probe.ts gateway:
 * 14.7 against 11.7 CPU-s) and 2.9x at 1,000 (27.8 against 9.7 with spans).
 */
export function rangeConditions(params: ColumnarParams, ranges: readonly FoldRange[], column: 'ts' | 'bucket'): string {
  const spans = new Map<string, { tenant: string; beginMs: number; endMs: number; seriesIds: number[] }>();
  for (const r of ranges) {
    const key = `${r.tenant}\u0000${r.beginMs}\u0000${r.endMs}`;
    let span = spans.get(key);
    if (!span) spans.set(key, (span = { tenant: r.tenant, beginMs: r.beginMs, endMs: r.endMs, seriesIds: [] }));
    span.seriesIds.push(r.seriesId);
  }
  return [...spans.values()].map((span) => `(tenant = ${params.bind(span.tenant, 'String')} AND series_id IN ${params.bind(span.seriesIds, 'Array(UInt64)')}`
    + ` AND ${column} >= ${params.bind(span.beginMs, 'Int64')} AND ${column} < ${params.bind(span.endMs, 'Int64')})`).join(' OR ');
}

/** The ranges' series as a WHERE condition: one term per tenant, its series as a set. */
export function seriesConditions(params: ColumnarParams, ranges: readonly FoldRange[]): string {
  const byTenant = new Map<string, Set<number>>();
  for (const r of ranges) {
    let ids = byTenant.get(r.tenant);
    if (!ids) byTenant.set(r.tenant, (ids = new Set()));
    ids.add(r.seriesId);
  }
  return [...byTenant].map(([tenant, ids]) => `(tenant = ${params.bind(tenant, 'String')} AND series_id IN ${params.bind([...ids], 'Array(UInt64)')})`).join(' OR ');
}

/** Distinct (tenant, begin, end) spans per statement, at most: each is a term every row read is tested against. */
export const SPANS_PER_STATEMENT = 100;

/**
 * The ranges cut into statements of at most `rangesMax` ranges and SPANS_PER_STATEMENT spans
 * (rangeConditions), ranges of one span kept together so that they share a term.
 */
export function statementChunks<R extends FoldRange>(ranges: readonly R[], rangesMax: number): R[][] {
  const sorted = [...ranges].sort((a, b) => (a.tenant < b.tenant ? -1 : a.tenant > b.tenant ? 1 : a.beginMs - b.beginMs || a.endMs - b.endMs || a.seriesId - b.seriesId));
  const out: R[][] = [];
  let chunk: R[] = [];
  let spans = 0;
  let last: R | undefined;
  for (const range of sorted) {
    const newSpan = !last || last.tenant !== range.tenant || last.beginMs !== range.beginMs || last.endMs !== range.endMs;
    if (chunk.length > 0 && (chunk.length >= rangesMax || (newSpan && spans >= SPANS_PER_STATEMENT))) {
      out.push(chunk);
      chunk = [];
      spans = 0;
    }
    if (newSpan || chunk.length === 0) spans++;
    chunk.push(range);
    last = range;
  }
  if (chunk.length > 0) out.push(chunk);
  return out;
}

/** The statement's {tenants} and {series_ids}: every tenant and series id of its ranges. */
export function seriesParams(ranges: readonly FoldRange[]): { tenants: string[]; series_ids: bigint[] } {
  return { tenants: [...new Set(ranges.map((r) => r.tenant))], series_ids: [...new Set(ranges.map((r) => BigInt(r.seriesId)))] };
}
