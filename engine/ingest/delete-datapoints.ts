// The delete use case (POST or DELETE /timeseries/data/delete): points of each named series in
// [inclusiveBegin, exclusiveEnd), or all of them when both bounds are omitted. Visible to reads
// at once; the write version recorded with the tombstone keeps a replayed older write from
// bringing a deleted point back (datapoint-store.ts).
import type { Static } from '@sinclair/typebox';
import type { DatapointDeleteRequest } from '../../schemas/datapoints.ts';
import { BadRequestError } from '../errors.ts';
import type { Access } from '../grants/access.ts';
import { coalesceDeleteRanges } from '../datapoints/write/delete-ranges.ts';
import type { DatapointStore, DeleteRange } from '../datapoints/datapoint-store.ts';
import type { WriteGuard } from '../functions/target-guard.ts';
import { parseInstant } from '../records/instant.ts';
import { unknownSeriesError } from '../datapoints/unknown-series.ts';
import { identifierOf } from '../records/identifiers.ts';
import type { SeriesDirectory } from '../meta/series-directory.ts';
import { resolveSeriesTargets, type SeriesTarget } from '../meta/series-targets.ts';

export interface DeleteDatapointsDeps {
  /** Where the series are resolved (PostgreSQL behind keys held in memory). */
  series: SeriesDirectory;
  store: DatapointStore;
  /** Refuses deletes in series only a function writes (functions/target-guard.ts). */
  guardWrites?: WriteGuard;
  /** Told of every delete once it is visible (the functions reading those series recompute). */
  deleted?(tenant: string, ranges: readonly DeleteRange[]): void;
}

export interface DeleteDatapointsOptions {
  /** Unknown series as a NotFoundError listing them (the CDF surface answers it as a 400 with `missing`) instead of SPEC's BadRequestError. */
  listMissing?: boolean;
}

/** Throws BadRequestError for a bad bound or an unknown series (SPEC: 400, not 404), ForbiddenError without a write grant. */
export async function deleteDatapoints(access: Access, request: Static<typeof DatapointDeleteRequest>, deps: DeleteDatapointsDeps, options: DeleteDatapointsOptions = {}): Promise<void> {
  const items = request.items;
  const bounds = items.map((item, i) => ({ begin: parseInstant(item.inclusiveBegin, `items.${i}.inclusiveBegin`), end: parseInstant(item.exclusiveEnd, `items.${i}.exclusiveEnd`) }));
  const { targets, missing } = await resolveSeriesTargets(deps.series, access, items.map(identifierOf), 'write');
  if (missing.length > 0 && options.listMissing) throw unknownSeriesError(missing, 'Unknown time series; nothing was deleted');
  if (missing.length > 0) {
    throw new BadRequestError('Unknown time series', missing.map((m) => ({ field: `items.${m.index}`, index: m.index, message: 'no such time series', value: m.identifier.externalId ?? m.identifier.id })));
  }
  await deps.guardWrites?.(access, targets.map((t) => t?.seriesId));
  // One store write for every item, ranges of a series merged first: a 10 000-item delete of
  // consecutive windows is one tombstone, which every later read binds.
  const ranges = coalesceDeleteRanges(targets.map((target, i) => ({
    seriesId: (target as SeriesTarget).seriesId, inclusiveBeginMs: bounds[i]?.begin, exclusiveEndMs: bounds[i]?.end,
  })));
  await deps.store.deleteRanges(access.tenant, ranges);
  deps.deleted?.(access.tenant, ranges);
}
