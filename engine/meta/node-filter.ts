// The filters of nodes every node family needs: the readable data sets, SPEC's `dataSetId`
// rule (entries by id or externalId, descendants included) and the time series filter's
// fields that every node family has (nodeFilterParts). The WHERE-clause builders are in
// node-filter.sql.ts, the pattern compiler in engine/records/patterns.ts.
import type { SqlParams } from '../stores/sql-params.ts';
import type { NodeKind } from './node-lookup.ts';
import type { Queryable } from '../stores/queryable.ts';
import { readableIds, type Access } from '../grants/access.ts';
import { DESCENDANT_DATA_SETS } from '../grants/access.sql.ts';
import { asList, patternPredicate } from '../records/patterns.ts';
import { and, inPredicate, labelsPredicate as labelsListPredicate, metadataPredicate, rangePredicate, readableIdsPredicate, tenantKind } from './node-filter.sql.ts';

export { and, inPredicate, metadataPredicate, patternPredicate, rangePredicate, tenantKind };

/** Unreadable records behave as missing (SPEC Authentication 6). */
export function readablePredicate(params: SqlParams, access: Access, column = 'data_set_id'): string | undefined {
  return readableIdsPredicate(params, readableIds(access), column);
}

/** SPEC: `labels` (bare value or array): all must be present. */
export function labelsPredicate(params: SqlParams, labels: string | string[] | undefined): string | undefined {
  return labelsListPredicate(params, asList(labels));
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

/** The time series filter's fields that every node family has (SPEC "Time series filter"). */
export interface NodeFilterFields {
  dataSetId?: DataSetRef | DataSetRef[];
  id?: number | number[];
  externalId?: string | string[];
  name?: string | string[];
  labels?: string | string[];
  metadata?: Record<string, string | null>;
  createdTime?: { min?: number; max?: number };
  lastUpdatedTime?: { min?: number; max?: number };
}

/**
 * The WHERE parts of those fields for one family, with the tenant, the kind and the caller's
 * readable data sets; the family AND-s its own fields to them.
 */
export async function nodeFilterParts(db: Queryable, params: SqlParams, access: Access, kind: NodeKind, filter: NodeFilterFields): Promise<(string | undefined)[]> {
  const dataSetIds = await resolveDataSetFilter(db, access, filter.dataSetId);
  return [
    tenantKind(params, access.tenant, kind),
    readablePredicate(params, access),
    inPredicate(params, 'data_set_id', dataSetIds),
    inPredicate(params, 'id', asList(filter.id)),
    patternPredicate(params, 'external_id', filter.externalId),
    patternPredicate(params, 'name', filter.name),
    labelsPredicate(params, filter.labels),
    metadataPredicate(params, filter.metadata),
    rangePredicate(params, 'created_time', filter.createdTime),
    rangePredicate(params, 'last_updated_time', filter.lastUpdatedTime),
  ];
}
