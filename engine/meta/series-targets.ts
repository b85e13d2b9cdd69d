// Resolves the time series named by a data point request (id and/or externalId per item) to
// what the data point store addresses: series id and valueType. Unreadable series behave as
// missing; readable series the caller may not write make a write a 403 (SPEC Authentication).
import type { ValueType } from '../datapoints/types.ts';
import type { Identifier } from '../errors.ts';
import { assertCanWrite, canRead, type Access } from '../grants/access.ts';
import { resolveIdentifiers } from '../records/identifiers.ts';
import type { SeriesDirectory } from './series-directory.ts';

export interface SeriesTarget {
  seriesId: number;
  externalId: string;
  valueType: ValueType;
  dataSetId: number | null;
}

export interface ResolvedTargets {
  /** Parallel to the request's items; null where the series is missing or unreadable. */
  targets: (SeriesTarget | null)[];
  /** The identifiers of the missing items, as the client sent them. */
  missing: { index: number; identifier: Identifier }[];
}

/** Resolves through the series directory (series-directory.ts): no PostgreSQL round trip for series it holds. */
export async function resolveSeriesTargets(directory: SeriesDirectory, access: Access, identifiers: Identifier[], mode: 'read' | 'write'): Promise<ResolvedTargets> {
  const resolved = await resolveIdentifiers(directory.family(), directory.db, access.tenant, identifiers, { visible: (row) => canRead(access, row.data_set_id) });
  const targets = resolved.map((r) => (r.row && canRead(access, r.row.data_set_id)
    ? { seriesId: r.row.id, externalId: r.row.external_id, valueType: r.row.value_type as ValueType, dataSetId: r.row.data_set_id }
    : null));
  if (mode === 'write') assertCanWrite(access, targets.map((t) => t?.dataSetId), 'data points');
  const missing = resolved.filter((_, i) => targets[i] === null).map((r) => ({ index: r.index, identifier: r.identifier }));
  return { targets, missing };
}
