// WHERE-clause builders over the shared node table: the tenant and kind, the readable data
// sets, and SPEC's label, metadata, id-list and time-range rules (patterns: the one compiler
// in engine/records/patterns.ts). Columns come only from the callers' allow-lists; every
// value is bound through SqlParams.
import type { SqlParams } from '../stores/sql-params.ts';

export function tenantKind(params: SqlParams, tenant: string, kind: 'timeseries' | 'dataset' | 'resource'): string {
  return `tenant = ${params.bind(tenant)} AND kind = ${params.bind(kind)}`;
}

/** Records without a data set, or in one of `readableIds`; undefined when every data set is readable. */
export function readableIdsPredicate(params: SqlParams, readableIds: number[] | null, column = 'data_set_id'): string | undefined {
  return readableIds === null ? undefined : `(${column} IS NULL OR ${column} = ANY(${params.bind(readableIds)}::bigint[]))`;
}

/** SPEC: every label must be present. */
export function labelsPredicate(params: SqlParams, labels: string[] | undefined): string | undefined {
  return labels && labels.length > 0 ? `labels @> ${params.bind(labels)}::text[]` : undefined;
}

/** SPEC: every entry must be present; a null value matches the key alone. */
export function metadataPredicate(params: SqlParams, metadata: Record<string, string | null> | undefined): string | undefined {
  if (!metadata) return undefined;
  const parts: string[] = [];
  const pairs = Object.fromEntries(Object.entries(metadata).filter(([, v]) => v !== null));
  const keysOnly = Object.entries(metadata).filter(([, v]) => v === null).map(([k]) => k);
  if (Object.keys(pairs).length > 0) parts.push(`metadata @> ${params.bind(JSON.stringify(pairs))}::jsonb`);
  if (keysOnly.length > 0) parts.push(`metadata ?& ${params.bind(keysOnly)}::text[]`);
  return parts.length ? parts.join(' AND ') : undefined;
}

/** Inclusive `min` / `max`. */
export function rangePredicate(params: SqlParams, column: string, range: { min?: number; max?: number } | undefined): string | undefined {
  if (!range) return undefined;
  const parts: string[] = [];
  if (range.min !== undefined) parts.push(`${column} >= ${params.bind(range.min)}`);
  if (range.max !== undefined) parts.push(`${column} <= ${params.bind(range.max)}`);
  return parts.length ? parts.join(' AND ') : undefined;
}

export function inPredicate(params: SqlParams, column: string, values: number[] | undefined): string | undefined {
  return values === undefined ? undefined : `${column} = ANY(${params.bind(values)}::bigint[])`;
}

/** The parts AND-ed; absent and empty parts (a builder with nothing to say) are left out. */
export function and(parts: (string | undefined)[]): string {
  return parts.filter((p): p is string => p !== undefined && p !== '').join(' AND ');
}
