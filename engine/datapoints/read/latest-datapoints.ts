// The latest use case (POST /timeseries/data/latest): the point with the highest timestamp per
// named series, as the JSON of the answer; series without points are omitted (SPEC's form) or
// answered with no points (CDF's form, which also takes a `before` bound per item).
import type { Static } from '@sinclair/typebox';
import type { DatapointLatestRequest } from '../../../schemas/datapoints.ts';
import type { Identifier } from '../../errors.ts';
import type { Access } from '../../grants/access.ts';
import { TIMESTAMP_MS_MAX, TIMESTAMP_MS_MIN } from '../../limits.ts';
import type { DatapointStore } from '../datapoint-store.ts';
import { unknownSeriesError } from '../unknown-series.ts';
import { identifierOf } from '../../records/identifiers.ts';
import type { DatapointForm, LatestPoint, SeriesPoints } from '../types.ts';
import type { SeriesDirectory } from '../../meta/series-directory.ts';
import { resolveSeriesTargets, type SeriesTarget } from '../../meta/series-targets.ts';
import { timed, type Metrics } from '../../metrics.ts';
import { itemsJson, rawItemFromJson, rawItemJson } from './datapoint-json.ts';

export interface LatestDatapointsDeps {
  /** Where the series are resolved (PostgreSQL behind keys held in memory). */
  series: SeriesDirectory;
  store: DatapointStore;
  /** Resolves once every acknowledged insert of these series of the tenant is readable. */
  readBarrier(tenant: string, seriesIds: readonly number[]): Promise<void>;
  metrics: Metrics;
}

/** SPEC's latest request, or CDF's with an exclusive `before` (epoch ms) per item. */
export interface LatestDatapointsRequest extends Omit<Static<typeof DatapointLatestRequest>, 'items'> {
  items: (Identifier & { before?: number })[];
}

export interface LatestDatapointsOptions {
  /** SPEC's form omits series without a point; CDF's answers one item per query, `datapoints` empty. @default 'spec' */
  form?: DatapointForm;
}

/**
 * `{"items":[...]}` as the chunks of one answer, one item per named series that has a point
 * (CDF's form: per named series), in request order. Throws NotFoundError for unknown series
 * unless `ignoreUnknownIds`.
 */
export async function latestDatapoints(access: Access, request: LatestDatapointsRequest, deps: LatestDatapointsDeps, options: LatestDatapointsOptions = {}): Promise<Uint8Array[]> {
  const form = options.form ?? 'spec';
  const { targets, missing } = await resolveSeriesTargets(deps.series, access, request.items.map(identifierOf), 'read');
  if (missing.length > 0 && !request.ignoreUnknownIds) throw unknownSeriesError(missing, 'Unknown time series');
  const present = targets.filter((t): t is SeriesTarget => t !== null);
  const unique = [...new Map(present.map((t) => [t.seriesId, t])).values()];
  // A 2xx insert means readable: wait for acknowledged points of these series still on their
  // way to the store (never for other series' points).
  await deps.readBarrier(access.tenant, unique.map((t) => t.seriesId));
  const latest = await timed(deps.metrics, 'clickhouse', 'latest', () => deps.store.latest(access.tenant, unique));
  const bySeries = new Map(latest.map((p) => [p.seriesId, p]));
  if (form === 'spec') {
    const items = present.flatMap((t) => {
      const point = bySeries.get(t.seriesId);
      if (!point) return [];
      return [rawItemJson(t, latestPointColumns(t, point.timestampMs, point.value))];
    });
    return itemsJson(items);
  }
  const items = await Promise.all(targets.map((t, i) => (t ? latestBeforeJson(access, t, bySeries.get(t.seriesId), request.items[i]?.before, deps) : undefined)));
  return itemsJson(items.filter((item) => item !== undefined));
}

/**
 * CDF's item: the newest point before `before` (exclusive). The series' latest point is it
 * when older; otherwise one descending raw read of a point ends before the bound.
 */
async function latestBeforeJson(access: Access, target: SeriesTarget, point: LatestPoint | undefined, before: number | undefined, deps: LatestDatapointsDeps): Promise<Uint8Array | Uint8Array[]> {
  if (!point) return rawItemFromJson(target, new Uint8Array(0), undefined, 'cdf');
  if (before === undefined || point.timestampMs < before) return rawItemJson(target, latestPointColumns(target, point.timestampMs, point.value), undefined, 'cdf');
  // No point lies outside the timestamp window: a bound beyond it is the window's edge.
  const end = Math.min(Math.max(before, TIMESTAMP_MS_MIN), TIMESTAMP_MS_MAX + 1);
  const page = await timed(deps.metrics, 'clickhouse', 'read-raw', () => deps.store.readRawJson(access.tenant, target, { end, limit: 1, form: 'cdf' }));
  return rawItemFromJson(target, page.datapoints, undefined, 'cdf');
}

/** One point in the columns of its series' valueType (SeriesPoints), for rawItemJson. */
function latestPointColumns(target: SeriesTarget, timestampMs: number, value: number | bigint | string): SeriesPoints {
  const vt = target.valueType;
  const points: SeriesPoints = { seriesId: target.seriesId, valueType: vt, timestampMs: Float64Array.of(timestampMs) };
  if (vt === 'BIGINT') points.bigint = BigInt64Array.of(value as bigint);
  else if (vt === 'NUMERIC' || vt === 'DECIMAL32') points.scaled = BigInt64Array.of(value as bigint);
  else if (vt === 'TEXT') points.text = [value as string];
  else if (vt === 'MIXED') {
    const isText = typeof value === 'string';
    points.isText = Uint8Array.of(isText ? 1 : 0);
    points.text = [isText ? value : ''];
    points.float = Float64Array.of(isText ? 0 : (value as number));
  } else points.float = Float64Array.of(value as number);
  return points;
}
