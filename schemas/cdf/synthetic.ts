// CDF's synthetic time series query (POST /timeseries/synthetic/query under
// /api/v1/projects/{project}), as @cognite/sdk's timeseries.syntheticQuery sends and reads it.
import { Type, type Static } from '@sinclair/typebox';
import { FUNCTION_EXPRESSION_CHARS_MAX } from '../../engine/limits.ts';
import { CdfTime } from './datapoints.ts';

/** Points one synthetic query item may ask for: CDF's cap. */
export const SYNTHETIC_LIMIT_MAX = 10_000;
/** Items per request: CDF's cap. */
export const SYNTHETIC_ITEMS_MAX = 10;

export const CdfSyntheticQueryRequest = Type.Object({
  items: Type.Array(Type.Object({
    expression: Type.String({ minLength: 1, maxLength: FUNCTION_EXPRESSION_CHARS_MAX, description: 'CDF\'s synthetic time series language: ts{externalId=\'...\'} or ts{id=...}, numbers, + - * / ^, functions (docs/api.md, Expressions)' }),
    start: Type.Optional(CdfTime),
    end: Type.Optional(CdfTime),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: SYNTHETIC_LIMIT_MAX, description: 'default 100' })),
  }), { minItems: 1, maxItems: SYNTHETIC_ITEMS_MAX }),
}, { description: 'start inclusive (default 0), end exclusive (default now); the first `limit` points of each expression, ascending.' });
export type CdfSyntheticQueryRequest = Static<typeof CdfSyntheticQueryRequest>;

const SyntheticPoint = Type.Union([
  Type.Object({ timestamp: Type.Integer(), value: Type.Number() }),
  Type.Object({ timestamp: Type.Integer(), error: Type.String({ description: 'why the expression has no value at this timestamp' }) }),
]);

export const CdfSyntheticQueryResponse = Type.Object({
  items: Type.Array(Type.Object({ isString: Type.Boolean(), datapoints: Type.Array(SyntheticPoint) })),
});
