// Time series: records, create/update/filter/search/list requests (SPEC "Time series").
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Description, EpochMs, ExternalId, Id, IdentifierSchema, Items, Labels, Metadata, PagedResponse, ItemsResponse, CAPS } from './common.ts';

export const ValueTypeSchema = Type.Union(
  ['BIGINT', 'FLOAT', 'FLOAT32', 'NUMERIC', 'DECIMAL32', 'TEXT', 'MIXED'].map((v) => Type.Literal(v)),
  { description: 'BIGINT exact signed 64-bit; FLOAT double; FLOAT32 rounded to 32 bits on write; NUMERIC Decimal(18,6); DECIMAL32 Decimal(9,3); TEXT; MIXED numbers and strings. Immutable after creation.' },
);

const Name = Type.String({ minLength: 1, maxLength: CAPS.nameCharsMax });
const Source = Type.String({ maxLength: 128, description: 'system of record' });
const Unit = Type.String({ minLength: 1, maxLength: 64, description: 'must name a known unit of the catalogue (symbol, name or alias)' });
const UnitExternalId = Type.String({ minLength: 1, maxLength: 128, description: 'externalId of a unit in the catalogue (GET /units)' });

export const TimeSeries = Type.Object({
  id: Id,
  externalId: ExternalId,
  name: Type.String(),
  description: Type.Optional(Type.String()),
  valueType: ValueTypeSchema,
  unit: Type.Optional(Type.String()),
  unitExternalId: Type.Optional(Type.String()),
  dataSetId: Type.Optional(Id),
  source: Type.Optional(Type.String()),
  labels: Type.Array(Type.String()),
  metadata: Type.Record(Type.String(), Type.String()),
  createdTime: EpochMs,
  lastUpdatedTime: EpochMs,
}, { description: 'A time series. Read-only fields: id, createdTime, lastUpdatedTime.' });
export type TimeSeries = Static<typeof TimeSeries>;

export const TimeSeriesCreate = Type.Object({
  externalId: ExternalId,
  name: Name,
  description: Type.Optional(Description),
  valueType: ValueTypeSchema,
  unit: Type.Optional(Unit),
  unitExternalId: Type.Optional(UnitExternalId),
  dataSetId: Type.Optional(Id),
  source: Type.Optional(Source),
  labels: Type.Optional(Labels),
  metadata: Type.Optional(Metadata),
}, { additionalProperties: false });
export type TimeSeriesCreate = Static<typeof TimeSeriesCreate>;

export const TimeSeriesCreateRequest = Items(TimeSeriesCreate);
export const TimeSeriesCollection = ItemsResponse(TimeSeries);
export const TimeSeriesPage = PagedResponse(TimeSeries);

/** `set` replaces, `setNull: true` clears; both together is a 400 checked by the engine. */
const SetOrNull = <T extends TSchema>(value: T) =>
  Type.Object({ set: Type.Optional(value), setNull: Type.Optional(Type.Boolean()) }, { additionalProperties: false });

export const TimeSeriesUpdateFields = Type.Object({
  externalId: Type.Optional(Type.Object({ set: Type.Optional(ExternalId), setNull: Type.Optional(Type.Boolean()) })),
  name: Type.Optional(Type.Object({ set: Type.Optional(Name), setNull: Type.Optional(Type.Boolean()) })),
  description: Type.Optional(SetOrNull(Description)),
  unit: Type.Optional(SetOrNull(Unit)),
  unitExternalId: Type.Optional(SetOrNull(UnitExternalId)),
  dataSetId: Type.Optional(SetOrNull(Id)),
  source: Type.Optional(SetOrNull(Source)),
  valueType: Type.Optional(Type.Object({ set: Type.Optional(Type.Unknown()), setNull: Type.Optional(Type.Boolean()) }, { description: 'immutable: any change is a 400' })),
  metadata: Type.Optional(Type.Object({
    set: Type.Optional(Metadata),
    setNull: Type.Optional(Type.Boolean()),
    add: Type.Optional(Metadata),
    remove: Type.Optional(Type.Array(Type.String({ maxLength: CAPS.metadataKeyCharsMax }), { maxItems: CAPS.metadataEntriesMax })),
  }, { additionalProperties: false })),
  labels: Type.Optional(Type.Object({
    set: Type.Optional(Labels),
    setNull: Type.Optional(Type.Boolean()),
    add: Type.Optional(Labels),
    remove: Type.Optional(Labels),
  }, { additionalProperties: false })),
}, { additionalProperties: false });
export type TimeSeriesUpdateFields = Static<typeof TimeSeriesUpdateFields>;

export const TimeSeriesUpdateItem = Type.Object({
  id: Type.Optional(Id),
  externalId: Type.Optional(ExternalId),
  update: TimeSeriesUpdateFields,
});
export type TimeSeriesUpdateItem = Static<typeof TimeSeriesUpdateItem>;
export const TimeSeriesUpdateRequest = Items(TimeSeriesUpdateItem);

const OneOrMany = <T extends TSchema>(value: T) => Type.Union([value, Type.Array(value, { maxItems: 1000 })]);
const Pattern = Type.String({ maxLength: 512, description: '`*` and `%` are wildcards, `_` is literal, case-insensitive; no wildcard means exact' });
const TimeRange = Type.Object({ min: Type.Optional(EpochMs), max: Type.Optional(EpochMs) }, { description: 'inclusive min and max' });
const DataSetRef = Type.Union([Type.Object({ id: Id }), Type.Object({ externalId: ExternalId })]);

export const TimeSeriesFilter = Type.Object({
  dataSetId: Type.Optional(OneOrMany(DataSetRef)),
  id: Type.Optional(OneOrMany(Id)),
  externalId: Type.Optional(OneOrMany(Pattern)),
  name: Type.Optional(OneOrMany(Pattern)),
  source: Type.Optional(OneOrMany(Pattern)),
  unit: Type.Optional(OneOrMany(Pattern)),
  unitExternalId: Type.Optional(OneOrMany(Pattern)),
  labels: Type.Optional(OneOrMany(Type.String({ maxLength: CAPS.labelCharsMax }))),
  valueType: Type.Optional(Type.String({ description: 'one of the seven value types, case-insensitive' })),
  metadata: Type.Optional(Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()]), { description: 'every entry must be present; a null value matches the key alone' })),
  createdTime: Type.Optional(TimeRange),
  lastUpdatedTime: Type.Optional(TimeRange),
}, { additionalProperties: false });
export type TimeSeriesFilter = Static<typeof TimeSeriesFilter>;

export const SORTABLE_TIMESERIES_PROPERTIES = ['id', 'externalId', 'name', 'source', 'description', 'createdTime', 'lastUpdatedTime', 'dataSetId'] as const;
const SortProperty = Type.Union(SORTABLE_TIMESERIES_PROPERTIES.map((p) => Type.Literal(p)));
const SortItem = Type.Object({
  property: Type.Union([SortProperty, Type.Array(SortProperty, { minItems: 1, maxItems: 1 })]),
  order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
});
export const TimeSeriesSort = Type.Union([SortItem, Type.Array(SortItem, { minItems: 1, maxItems: 1 })], { description: 'one property; `id` is appended as tie-break' });

export const TimeSeriesFilterRequest = Type.Object({
  filter: Type.Optional(TimeSeriesFilter),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 1000 })),
  sort: Type.Optional(TimeSeriesSort),
  cursor: Type.Optional(Type.String({ maxLength: 2048 })),
}, { additionalProperties: false });
export type TimeSeriesFilterRequest = Static<typeof TimeSeriesFilterRequest>;

export const TimeSeriesSearchRequest = Type.Object({
  search: Type.Object({ query: Type.String({ minLength: 1, maxLength: 512 }) }),
  filter: Type.Optional(TimeSeriesFilter),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
}, { additionalProperties: false });
export type TimeSeriesSearchRequest = Static<typeof TimeSeriesSearchRequest>;

export const IdentifierItems = Items(IdentifierSchema);
export const TimeSeriesByIdsRequest = Type.Object({
  items: Type.Array(IdentifierSchema, { minItems: 1, maxItems: CAPS.itemsPerRequestMax }),
  ignoreUnknownIds: Type.Optional(Type.Boolean({ description: 'accepted for CDF compatibility; misses are always omitted' })),
});
export const TimeSeriesDeleteRequest = Type.Object({
  items: Type.Array(IdentifierSchema, { minItems: 1, maxItems: CAPS.itemsPerRequestMax }),
  ignoreUnknownIds: Type.Optional(Type.Boolean()),
});
