// An input named with `aggregate` and `granularity` (ts{id=1, aggregate='average',
// granularity='1h'}): its buckets' values, computed by CDF's aggregate read (the same as
// POST /timeseries/data/list under the CDF prefix answers), stand as the input's points, one
// at each bucket's start. The evaluation reads them as bound columns beside the raw inputs.
// Between buckets they are linear, as raw points of a linear series are; stepInterpolation
// buckets, and any aggregate of a stepwise series, are held until the next.
import { BadRequestError } from '../errors.ts';
import { AGGREGATES_LIMIT_MAX, FUNCTION_CALL_POINTS_MAX } from '../limits.ts';
import { bucketReach, parseGranularity } from '../datapoints/read/aggregate-grid.ts';
import { cdfAggregate, type CdfAggregateBucket, type CdfAggregateName } from '../datapoints/read/cdf-aggregates.ts';
import type { DatapointStore } from '../datapoints/datapoint-store.ts';
import type { SeriesRef } from '../datapoints/types.ts';
import { ColumnSource } from '../stores/columnar-params.ts';
import type { InputRef } from './expression.ts';

/** An aggregate input's buckets as `ts` and `v` columns, and whether they are held (stepwise) rather than linear. */
export interface AggregateColumns {
  source: ColumnSource;
  step: boolean;
}

/**
 * The buckets of `ref` over [start, end) and one bucket either side (the neighbours of the
 * window's first and last timestamps), those with a value only. More than
 * FUNCTION_CALL_POINTS_MAX buckets is a 400 naming `field`.
 */
export async function aggregateColumns(store: DatapointStore, tenant: string, series: SeriesRef & { externalId: string; isStep?: boolean }, ref: InputRef, start: number, end: number, field: string): Promise<AggregateColumns> {
  const granularity = ref.granularity as string;
  const aggregate = ref.aggregate as CdfAggregateName;
  const reach = bucketReach(parseGranularity(granularity), start, end);
  const buckets: CdfAggregateBucket[] = [];
  let cursor: string | undefined;
  do {
    const page = await cdfAggregate(store.columnar, tenant, series, {
      start: reach.start, end: reach.end, granularity, aggregates: [aggregate], isStep: series.isStep === true, limit: AGGREGATES_LIMIT_MAX, ...(cursor ? { cursor } : {}),
    }, store.contexts);
    buckets.push(...page.buckets);
    if (buckets.length > FUNCTION_CALL_POINTS_MAX) {
      throw new BadRequestError(`${field}: the ${aggregate} of ${series.externalId} at ${granularity} has more than ${FUNCTION_CALL_POINTS_MAX} buckets in the window; narrow it or coarsen the granularity`, [{ field: `${field}.expression`, message: `more than ${FUNCTION_CALL_POINTS_MAX} buckets` }]);
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  const held = buckets.filter((bucket) => bucket[aggregate] !== undefined && Number.isFinite(bucket[aggregate]));
  const ts = Float64Array.from(held, (bucket) => bucket.timestamp);
  const v = Float64Array.from(held, (bucket) => bucket[aggregate] as number);
  return {
    source: new ColumnSource([{ name: 'ts', type: 'Float64', data: ts }, { name: 'v', type: 'Float64', data: v }]),
    step: aggregate === 'stepInterpolation' || series.isStep === true,
  };
}
