// Data points (SPEC "Data point" and the /timeseries/data family). Values are strings:
// BIGINT a 64-bit integer, FLOAT/NUMERIC numbers as text, TEXT any string. JSON numbers are
// accepted on write too (existing CDF clients send them).
import { Type, type Static } from '@sinclair/typebox';
import { CAPS, ExternalId, Id } from './common.ts';

const Value = Type.Union([Type.String({ maxLength: 64 }), Type.Number()], { description: 'string (or JSON number) parsed against the series valueType; up to 64 characters' });
const Timestamp = Type.Integer({ description: 'epoch milliseconds, UTC, 1900-01-01 to 2099-12-31' });
export const Instant = Type.Union([Type.Integer(), Type.String({ maxLength: 64 })], { description: 'epoch milliseconds or an ISO-8601 instant' });

export const DatapointInsertRequest = Type.Object({
  items: Type.Array(Type.Object({
    id: Type.Optional(Id),
    externalId: Type.Optional(ExternalId),
    datapoints: Type.Array(Type.Object({ timestamp: Timestamp, value: Value }), { description: 'up to 100 000 points for numeric series, 10 000 for TEXT and MIXED' }),
  }), { minItems: 1, maxItems: CAPS.itemsPerRequestMax }),
}, { description: 'Parsed by workers with a byte-level scanner; body up to 16 MiB.' });

export const RawDatapoint = Type.Object({ timestamp: Timestamp, value: Type.String() });
export const AggregateDatapoint = Type.Object({
  timestamp: Type.Integer({ description: 'start of the bucket (aligned to the granularity unit in the time zone)' }),
  average: Type.Optional(Type.String()),
  min: Type.Optional(Type.String()),
  max: Type.Optional(Type.String()),
  count: Type.Optional(Type.Integer()),
  sum: Type.Optional(Type.String()),
}, { description: 'Aggregate values are exact decimal strings like raw values (BIGINT and decimals never pass through a double); count is an integer.' });

const AggregateName = Type.Union(['AVG', 'MIN', 'MAX', 'COUNT', 'SUM'].map((a) => Type.Literal(a)));
const GranularityName = Type.String({
  minLength: 1, maxLength: 16,
  description: 'a count and a unit: 1-120 `s`/`m` (seconds, minutes), 1-100 000 `h`, `d`, `mo`, also `w` (7 days), `q` (3 months), `y` (12 months) and the long forms `second(s)` ... `year(s)`, e.g. `30s`, `15m`, `2h`, `1d`, `1w`, `1mo`',
});
const TimeZoneName = Type.String({
  minLength: 1, maxLength: 64,
  description: 'aggregate buckets of an hour and longer align in this zone: an IANA name (`Europe/Oslo`) or a fixed offset in 15-minute steps (`UTC`, `+05:30`, `UTC+02:00`, `UTC-02`); default UTC',
});

const QueryFields = {
  start: Type.Optional(Instant),
  end: Type.Optional(Instant),
  aggregates: Type.Optional(Type.Array(AggregateName, { minItems: 1, maxItems: 5 })),
  granularity: Type.Optional(GranularityName),
  timeZone: Type.Optional(TimeZoneName),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'raw: default 100, max 100 000; aggregates: default 100, max 10 000' })),
};

export const DatapointListRequest = Type.Object({
  items: Type.Array(Type.Object({
    id: Type.Optional(Id),
    externalId: Type.Optional(ExternalId),
    ...QueryFields,
    cursor: Type.Optional(Type.String({ maxLength: 2048 })),
  }), { minItems: 1, maxItems: 100 }),
  ...QueryFields,
  ignoreUnknownIds: Type.Optional(Type.Boolean({ default: false })),
}, { description: 'Top-level start/end/aggregates/granularity/timeZone/limit are defaults for every item. start inclusive, end exclusive; without start the most recent `limit` points are returned.' });
export type DatapointListRequest = Static<typeof DatapointListRequest>;

export const DatapointListItem = Type.Object({
  id: Id,
  externalId: Type.String(),
  valueType: Type.String(),
  datapoints: Type.Union([Type.Array(RawDatapoint), Type.Array(AggregateDatapoint)]),
  nextCursor: Type.Optional(Type.String()),
});
export const DatapointListResponse = Type.Object({ items: Type.Array(DatapointListItem) });

export const DatapointDeleteRequest = Type.Object({
  items: Type.Array(Type.Object({
    id: Type.Optional(Id),
    externalId: Type.Optional(ExternalId),
    inclusiveBegin: Type.Optional(Instant),
    exclusiveEnd: Type.Optional(Instant),
  }), { minItems: 1, maxItems: CAPS.itemsPerRequestMax }),
}, { description: 'Both bounds omitted: clears the series, keeping its definition, edges and subscriptions.' });

export const DatapointLatestRequest = Type.Object({
  items: Type.Array(Type.Object({ id: Type.Optional(Id), externalId: Type.Optional(ExternalId) }), { minItems: 1, maxItems: CAPS.itemsPerRequestMax }),
  ignoreUnknownIds: Type.Optional(Type.Boolean({ default: false })),
});
export const DatapointLatestResponse = Type.Object({
  items: Type.Array(Type.Object({ id: Id, externalId: Type.String(), valueType: Type.String(), datapoints: Type.Array(RawDatapoint, { maxItems: 1 }) })),
});
