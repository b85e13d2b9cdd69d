// CDF's data point requests in the engine's terms: relative times (`2d-ago`, `now`) to epoch
// ms, CDF's defaults (start 0, end now, limit 100) and top-level fields resolved into each
// item, a delete's lone `inclusiveBegin` as a one-millisecond range; the fields this service
// cannot carry refused by name. Pure: the caller passes the clock. The rules (what is missing,
// what may be read, the caps) are the engine's, asked for with the options below.
import { BadRequestError } from '../../engine/errors.ts';
import type { ListDatapointsItem, ListDatapointsOptions, ListDatapointsRequest } from '../../engine/datapoints/read/list-datapoints.ts';
import type { LatestDatapointsOptions, LatestDatapointsRequest } from '../../engine/datapoints/read/latest-datapoints.ts';
import type { InsertDatapointsOptions } from '../../engine/ingest/insert-datapoints.ts';
import type { DeleteDatapointsOptions } from '../../engine/ingest/delete-datapoints.ts';
import type { CdfDatapointDeleteRequest, CdfDatapointLatestRequest, CdfDatapointListRequest } from '../../schemas/cdf/datapoints.ts';

/** CDF: at most 100 000 data points per insert request (API reference, postMultiTimeSeriesDatapoints). */
export const CDF_INSERT_POINTS_MAX = 100_000;
/** CDF: at most 100 000 raw data points over all items of one retrieve (API reference, getMultiTimeSeriesDatapoints). */
export const CDF_RAW_POINTS_PER_READ_MAX = 100_000;
/** CDF's raw `limit` when an item and the request give none. */
export const CDF_RAW_LIMIT_DEFAULT = 100;

/** CDF's insert: all-or-nothing when a series is missing, the points cap per request. */
export const CDF_INSERT_OPTIONS: InsertDatapointsOptions = { missingSeries: 'reject', pointsPerRequestMax: CDF_INSERT_POINTS_MAX };
export const CDF_LIST_OPTIONS: ListDatapointsOptions = { form: 'cdf', rawPointsPerRequestMax: CDF_RAW_POINTS_PER_READ_MAX };
export const CDF_LATEST_OPTIONS: LatestDatapointsOptions = { form: 'cdf' };
export const CDF_DELETE_OPTIONS: DeleteDatapointsOptions = { listMissing: true };

const UNIT_MS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const RELATIVE = /^(\d{1,12})(s|m|h|d|w)-(ago|ahead)$/;

function badField(field: string, message: string, value?: unknown): BadRequestError {
  return new BadRequestError(`${field}: ${message}`, [{ field, message, ...(value !== undefined ? { value: typeof value === 'object' ? JSON.stringify(value) : value } : {}) }]);
}

/** A CDF time (epoch ms, `now`, `<n><unit>-ago`, `<n><unit>-ahead`) as epoch ms; undefined when absent. */
export function cdfTimeMs(value: number | string | undefined, nowMs: number, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return value;
  if (value === 'now') return nowMs;
  const relative = RELATIVE.exec(value);
  if (!relative) throw badField(field, 'must be epoch milliseconds, `now`, or `<n><s|m|h|d|w>-ago` / `-ahead`', value);
  const offset = Number(relative[1]) * (UNIT_MS[relative[2] as string] as number);
  const ms = relative[3] === 'ago' ? nowMs - offset : nowMs + offset;
  if (!Number.isSafeInteger(ms)) throw badField(field, 'is too far from now', value);
  return ms;
}

/** Fields of CDF's requests this service cannot carry: a 400 naming the first one sent. */
function refuseUnserved(item: object, prefix: string): void {
  for (const field of ['instanceId', 'targetUnit', 'targetUnitSystem'] as const) {
    if (field in item && (item as Record<string, unknown>)[field] !== undefined) {
      throw badField(`${prefix}${field}`, field === 'instanceId' ? 'data modeling instances are not served; name the series by id or externalId' : 'unit conversion is not served');
    }
  }
}

/**
 * Items asking for aggregates: the one place that answers them. Not served on this surface
 * yet, so a 400 naming `aggregates`; the aggregate path of the engine wires in here.
 */
export function refuseCdfAggregates(index: number): never {
  throw badField(`items.${index}.aggregates`, 'aggregates are not served on the CDF surface yet; ask for raw data points');
}

/** CDF's retrieve as the engine's list request: each item with its own bounds, limit and options. */
export function listRequestFromCdf(body: CdfDatapointListRequest, nowMs: number): ListDatapointsRequest {
  refuseUnserved(body, '');
  const items = body.items.map((item, index): ListDatapointsItem => {
    refuseUnserved(item, `items.${index}.`);
    const aggregates = item.aggregates ?? body.aggregates;
    if (aggregates !== undefined) refuseCdfAggregates(index);
    const granularity = item.granularity ?? body.granularity;
    return {
      ...(item.id !== undefined ? { id: item.id } : {}),
      ...(item.externalId !== undefined ? { externalId: item.externalId } : {}),
      start: cdfTimeMs(item.start ?? body.start, nowMs, `items.${index}.start`) ?? 0,
      end: cdfTimeMs(item.end ?? body.end, nowMs, `items.${index}.end`) ?? nowMs,
      limit: item.limit ?? body.limit ?? CDF_RAW_LIMIT_DEFAULT,
      ...(item.cursor !== undefined ? { cursor: item.cursor } : {}),
      // Passed on so the engine answers a granularity without aggregates with its 400.
      ...(granularity !== undefined ? { granularity: granularity as ListDatapointsItem['granularity'] } : {}),
      includeOutsidePoints: item.includeOutsidePoints ?? body.includeOutsidePoints ?? false,
    };
  });
  return { items, ignoreUnknownIds: body.ignoreUnknownIds ?? false };
}

/** CDF's latest: `before` (exclusive) per item, default now. */
export function latestRequestFromCdf(body: CdfDatapointLatestRequest, nowMs: number): LatestDatapointsRequest {
  const items = body.items.map((item, index) => {
    refuseUnserved(item, `items.${index}.`);
    return {
      ...(item.id !== undefined ? { id: item.id } : {}),
      ...(item.externalId !== undefined ? { externalId: item.externalId } : {}),
      before: cdfTimeMs(item.before, nowMs, `items.${index}.before`) ?? nowMs,
    };
  });
  return { items, ignoreUnknownIds: body.ignoreUnknownIds ?? false };
}

/** CDF's delete ranges: without exclusiveEnd only the point at inclusiveBegin goes. */
export function deleteRequestFromCdf(body: CdfDatapointDeleteRequest, nowMs: number): { items: { id?: number; externalId?: string; inclusiveBegin: number; exclusiveEnd: number }[] } {
  const items = body.items.map((item, index) => {
    refuseUnserved(item, `items.${index}.`);
    const inclusiveBegin = cdfTimeMs(item.inclusiveBegin, nowMs, `items.${index}.inclusiveBegin`) as number;
    const exclusiveEnd = cdfTimeMs(item.exclusiveEnd, nowMs, `items.${index}.exclusiveEnd`) ?? inclusiveBegin + 1;
    return {
      ...(item.id !== undefined ? { id: item.id } : {}),
      ...(item.externalId !== undefined ? { externalId: item.externalId } : {}),
      inclusiveBegin, exclusiveEnd,
    };
  });
  return { items };
}
