// CDF's synthetic time series query (POST /timeseries/synthetic/query under
// /api/v1/projects/{project}): each item's expression evaluated by the engine over its window,
// answered in CDF's shape. The language and its alignment rules are docs/api.md's, Expressions.
import type { DatapointEngine } from '../../engine/datapoints/datapoint-engine.ts';
import { CdfSyntheticQueryRequest, CdfSyntheticQueryResponse } from '../../schemas/cdf/synthetic.ts';
import { ok, type Route } from '../route.ts';
import { cdfJsonRoute } from './cdf-route.ts';
import { cdfTimeMs } from './datapoints-form.ts';

const LIMIT_DEFAULT = 100;

export function cdfSyntheticRoutes(datapoints: DatapointEngine): Route[] {
  return [
    cdfJsonRoute({
      method: 'post', path: '/timeseries/synthetic/query', operationId: 'querySyntheticTimeseries', tag: 'Synthetic time series',
      summary: 'Evaluate expressions over time series: arithmetic and functions over aligned points',
      description: 'Each item\'s expression over [start, end) (start default 0, end default now), its first `limit` points (default 100, at most 10 000), ascending. A point where the expression has no finite value carries `error` instead of `value`. A malformed expression is a 400 naming the character offset and what was expected; a missing or unreadable series a 400 listing it.',
      body: CdfSyntheticQueryRequest,
      responses: { 200: { description: 'one item per query, in request order', schema: CdfSyntheticQueryResponse }, 400: { description: 'a bad expression, time or unknown series' } },
      async handle({ access, body }) {
        const now = Date.now();
        const requests = body.items.map((item, index) => ({
          expression: item.expression,
          start: cdfTimeMs(item.start, now, `items.${index}.start`) ?? 0,
          end: cdfTimeMs(item.end, now, `items.${index}.end`) ?? now,
          limit: item.limit ?? LIMIT_DEFAULT,
        }));
        const answers = await datapoints.evaluate(access, requests);
        return ok({ items: answers.map((datapoints) => ({ isString: false, datapoints })) });
      },
    }),
  ];
}
