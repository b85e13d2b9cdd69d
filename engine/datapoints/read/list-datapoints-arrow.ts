// The list use case answered as an Arrow IPC stream (POST /timeseries/data/list with Accept
// application/vnd.apache.arrow.stream): the JSON list's rules, grants, 400s, 404s, limits,
// cursors and read barrier (list-datapoints.ts planListDatapoints), then raw pages as the
// engine's Arrow columns (datapoint-arrow.ts) and aggregates from the same fold as JSON's,
// written as one stream (datapoint-arrow-answer.ts).
import type { Access } from '../../grants/access.ts';
import { timed } from '../../metrics.ts';
import type { SeriesTarget } from '../../meta/series-targets.ts';
import type { AggregateName, AggregateResult } from '../types.ts';
import { arrowAnswer, arrowLayout, type ArrowItem, type ArrowItemAsk } from './datapoint-arrow-answer.ts';
import { planListDatapoints, specAggregateResults, type ListDatapointsDeps, type ListDatapointsRequest, type ListQuery } from './list-datapoints.ts';

/**
 * The answer's chunks (arrowAnswer, sent without joining them): one record batch per named
 * series in request order (series ignored by `ignoreUnknownIds` have none, as they have no
 * JSON item). Throws what the JSON list throws, and BadRequestError when raw items' values
 * need different Arrow types (arrowLayout).
 */
export async function listDatapointsArrow(access: Access, request: ListDatapointsRequest, deps: ListDatapointsDeps): Promise<Uint8Array[]> {
  const plan = await planListDatapoints(access, request, deps);
  const asks: ArrowItemAsk[] = [];
  plan.targets.forEach((target, index) => {
    if (target) asks.push({ index, target, aggregates: (plan.queries[index] as ListQuery).aggregates });
  });
  const layout = arrowLayout(asks);
  const aggregates = await specAggregateResults(access, plan, deps);
  const items = await Promise.all(asks.map(async ({ index, target }): Promise<ArrowItem> => {
    const q = plan.queries[index] as ListQuery;
    const aggregated = aggregates.get(index);
    if (aggregated) return { target, aggregates: q.aggregates as AggregateName[], result: aggregated as AggregateResult };
    const raw = await timed(deps.metrics, 'clickhouse', 'read-raw', () => deps.store.readRawArrow(access.tenant, target as SeriesTarget, { start: q.start, end: q.end, limit: q.limit, cursor: q.cursor }));
    return { target, raw };
  }));
  return arrowAnswer(layout, items);
}
