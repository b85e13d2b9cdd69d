// WHERE clauses over the shared node table that every filter of nodes needs: the tenant and
// kind, the readable data sets, and SPEC's pattern, label, metadata and time-range rules.
import type { SqlParams } from '../stores/sql-params.ts';
import type { Queryable } from '../stores/queryable.ts';
import { readableIds, type Access } from '../grants/access.ts';
import { DESCENDANT_DATA_SETS } from '../grants/access.sql.ts';
import { asList, patternToIlike } from './patterns.ts';

export function tenantKind(params: SqlParams, tenant: string, kind: 'timeseries' | 'dataset' | 'resource'): string {
  return `tenant = ${params.bind(tenant)} AND kind = ${params.bind(kind)}`;
}

/** Unreadable records behave as missing (SPEC Authentication 6). */
export function readablePredicate(params: SqlParams, access: Access, column = 'data_set_id'): string | undefined {
  const ids = readableIds(access);
  return ids === null ? undefined : `(${column} IS NULL OR ${column} = ANY(${params.bind(ids)}::bigint[]))`;
}

export function patternPredicate(params: SqlParams, column: string, patterns: string | string[] | undefined): string | undefined {
  const list = asList(patterns);
  if (!list) return undefined;
  if (list.length === 0) return 'false';
  // lower() LIKE lower() rather than ILIKE: a btree on lower(column) text_pattern_ops serves
  // a pattern's literal prefix (migration 003), which ILIKE cannot use.
  return `(${list.map((p) => `lower(${column}) LIKE lower(${params.bind(patternToIlike(p))})`).join(' OR ')})`;
}

export function labelsPredicate(params: SqlParams, labels: string | string[] | undefined): string | undefined {
  const list = asList(labels);
  return list && list.length > 0 ? `labels @> ${params.bind(list)}::text[]` : undefined;
}

export function metadataPredicate(params: SqlParams, metadata: Record<string, string | null> | undefined): string | undefined {
  if (!metadata) return undefined;
  const parts: string[] = [];
  const pairs = Object.fromEntries(Object.entries(metadata).filter(([, v]) => v !== null));
  const keysOnly = Object.entries(metadata).filter(([, v]) => v === null).map(([k]) => k);
  if (Object.keys(pairs).length > 0) parts.push(`metadata @> ${params.bind(JSON.stringify(pairs))}::jsonb`);
  if (keysOnly.length > 0) parts.push(`metadata ?& ${params.bind(keysOnly)}::text[]`);
  return parts.length ? parts.join(' AND ') : undefined;
}

export function rangePredicate(params: SqlParams, column: string, range: { min?: number; max?: number } | undefined): string | undefined {
  if (!range) return undefined;
  const parts: string[] = [];
  if (range.min !== undefined) parts.push(`${column} >= ${params.bind(range.min)}`);
  if (range.max !== undefined) parts.push(`${column} <= ${params.bind(range.max)}`);
  return parts.length ? parts.join(' AND ') : undefined;
}

export type DataSetRef = { id: number } | { externalId: string };

/**
 * SPEC: `dataSetId` entries by id or externalId include descendants; unreadable ones are
 * silently omitted. Returns the ids to match (possibly empty: matches nothing).
 */
export async function resolveDataSetFilter(db: Queryable, access: Access, refs: DataSetRef | DataSetRef[] | undefined): Promise<number[] | undefined> {
  const list = asList(refs);
  if (!list) return undefined;
  const ids = list.filter((r): r is { id: number } => 'id' in r).map((r) => r.id);
  const externalIds = list.filter((r): r is { externalId: string } => 'externalId' in r).map((r) => r.externalId);
  if (ids.length === 0 && externalIds.length === 0) return [];
  const { rows } = await db.query<{ id: number }>(DESCENDANT_DATA_SETS, [access.tenant, ids, externalIds]);
  return rows.map((r) => r.id).filter((id) => access.readable === null || access.readable.has(id));
}

export function inPredicate(params: SqlParams, column: string, values: number[] | undefined): string | undefined {
  return values === undefined ? undefined : `${column} = ANY(${params.bind(values)}::bigint[])`;
}

export function and(parts: (string | undefined)[]): string {
  return parts.filter((p): p is string => p !== undefined).join(' AND ');
}
