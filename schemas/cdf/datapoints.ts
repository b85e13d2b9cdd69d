// CDF's data point requests and answers (POST /timeseries/data, /data/list, /data/latest,
// /data/delete under /api/v1/projects/{project}), as @cognite/sdk 10.5 sends and reads them.
// Every field the SDK may send is accepted here; the ones this service cannot carry are
// refused by name in api/cdf/datapoints-form.ts (docs/cdf.md lists them).
import { Type, type Static } from '@sinclair/typebox';
import { ExternalId, Id } from '../common.ts';

/** Epoch milliseconds, or CDF's relative time: `now`, `<n><s|m|h|d|w>-ago`, `<n><unit>-ahead`. */
export const CdfTime = Type.Union([Type.Integer({ minimum: -9007199254740991, maximum: 9007199254740991 }), Type.String({ maxLength: 64 })], {
  description: 'epoch milliseconds, or `now`, `<n><unit>-ago`, `<n><unit>-ahead` with unit s, m, h, d or w',
});
/** CDF's data modeling identifier: not served (a 400 naming it). */
const InstanceId = Type.Unknown({ description: 'not served: a 400 naming instanceId' });

const Identifier = {
  id: Type.Optional(Id),
  externalId: Type.Optional(ExternalId),
  instanceId: Type.Optional(InstanceId),
};

export const CdfDatapointInsertRequest = Type.Object({
  items: Type.Array(Type.Object({
    ...Identifier,
    datapoints: Type.Array(Type.Object({
      timestamp: Type.Integer({ description: 'epoch milliseconds, 1900-01-01 to 2099-12-31' }),
      value: Type.Union([Type.Number(), Type.String({ maxLength: 64 })], { description: 'a number for a numeric series, a string for a string series' }),
    })),
  }), { minItems: 1, maxItems: 10_000 }),
}, { description: 'Up to 10 000 series and 100 000 data points per request; parsed by the same workers as SPEC\'s insert.' });

const QueryFields = {
  start: Type.Optional(CdfTime),
  end: Type.Optional(CdfTime),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'raw points per item; default 100; at most 100 000 over all items' })),
  aggregates: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 16 })),
  granularity: Type.Optional(Type.String({ maxLength: 64 })),
  includeOutsidePoints: Type.Optional(Type.Boolean()),
  timeZone: Type.Optional(Type.String({ maxLength: 64, description: 'applies to aggregates only' })),
  targetUnit: Type.Optional(Type.String({ maxLength: 255, description: 'not served: a 400 naming it' })),
  targetUnitSystem: Type.Optional(Type.String({ maxLength: 255, description: 'not served: a 400 naming it' })),
  includeStatus: Type.Optional(Type.Boolean({ description: 'every point is Good here, so no point carries a status' })),
  ignoreBadDataPoints: Type.Optional(Type.Boolean()),
  treatUncertainAsBad: Type.Optional(Type.Boolean()),
};

export const CdfDatapointListRequest = Type.Object({
  items: Type.Array(Type.Object({
    ...Identifier,
    ...QueryFields,
    cursor: Type.Optional(Type.String({ maxLength: 2048 })),
  }), { minItems: 1, maxItems: 100 }),
  ...QueryFields,
  ignoreUnknownIds: Type.Optional(Type.Boolean()),
}, { description: 'Top-level fields are defaults for every item. start inclusive (default 0), end exclusive (default now).' });
export type CdfDatapointListRequest = Static<typeof CdfDatapointListRequest>;

const CdfRawDatapoint = Type.Object({ timestamp: Type.Integer(), value: Type.Union([Type.Number(), Type.String()]) });

const CdfDatapointItem = Type.Object({
  id: Id,
  externalId: Type.String(),
  isString: Type.Boolean(),
  isStep: Type.Boolean(),
  datapoints: Type.Array(CdfRawDatapoint),
  nextCursor: Type.Optional(Type.String()),
});
export const CdfDatapointListResponse = Type.Object({ items: Type.Array(CdfDatapointItem) });

export const CdfDatapointLatestRequest = Type.Object({
  items: Type.Array(Type.Object({
    ...Identifier,
    before: Type.Optional(CdfTime),
    targetUnit: QueryFields.targetUnit,
    targetUnitSystem: QueryFields.targetUnitSystem,
    includeStatus: QueryFields.includeStatus,
    ignoreBadDataPoints: QueryFields.ignoreBadDataPoints,
    treatUncertainAsBad: QueryFields.treatUncertainAsBad,
  }), { minItems: 1, maxItems: 100 }),
  ignoreUnknownIds: Type.Optional(Type.Boolean()),
});
export type CdfDatapointLatestRequest = Static<typeof CdfDatapointLatestRequest>;

export const CdfDatapointDeleteRequest = Type.Object({
  items: Type.Array(Type.Object({
    ...Identifier,
    inclusiveBegin: CdfTime,
    exclusiveEnd: Type.Optional(CdfTime),
  }), { minItems: 1, maxItems: 10_000 }),
});
export type CdfDatapointDeleteRequest = Static<typeof CdfDatapointDeleteRequest>;

/** Insert and delete answer an empty object. */
export const CdfEmptyResponse = Type.Object({});
