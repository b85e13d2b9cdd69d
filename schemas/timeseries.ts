// Time series: records, create/update/filter/search/list requests (SPEC "Time series").
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import {
  CAPS, DataSetRef, Description, EpochMs, ExternalId, Id, IdentifierSchema, Items, ItemsResponse, Labels, LabelsFilter, LabelsUpdate, Metadata, MetadataFilter,
  MetadataUpdate, OneOrMany, PagedResponse, Pattern, SetOrNull, SortSchema, TimeRange,
} from './common.ts';

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

export const TimeSeriesUpdateFields = Type.Object({
  externalId: Type.Optional(Type.Object({ set: Type.Optional(ExternalId), setNull: Type.Optional(Type.Boolean()) })),
  name: Type.Optional(Type.Object({ set: Type.Optional(Name), setNull: Type.Optional(Type.Boolean()) })),
  description: Type.Optional(SetOrNull(Description)),
  unit: Type.Optional(SetOrNull(Unit)),
  unitExternalId: Type.Optional(SetOrNull(UnitExternalId)),
  dataSetId: Type.Optional(SetOrNull(Id)),
  source: Type.Optional(SetOrNull(Source)),
  valueType: Type.Optional(Type.Object({ set: Type.Optional(Type.Unknown()), setNull: Type.Optional(Type.Boolean()) }, { description: 'immutable: any change is a 400' })),
  metadata: Type.Optional(MetadataUpdate),
  labels: Type.Optional(LabelsUpdate),
}, { additionalProperties: false });
export type TimeSeriesUpdateFields = Static<typeof TimeSeriesUpdateFields>;

export const TimeSeriesUpdateItem = Type.Object({
  id: Type.Optional(Id),
  externalId: Type.Optional(ExternalId),
  update: TimeSeriesUpdateFields,
});
export type TimeSeriesUpdateItem = Static<typeof TimeSeriesUpdateItem>;
export const TimeSeriesUpdateRequest = Items(TimeSeriesUpdateItem);

export const TimeSeriesFilter = Type.Object({
  dataSetId: Type.Optional(OneOrMany(DataSetRef)),
  id: Type.Optional(OneOrMany(Id)),
  externalId: Type.Optional(OneOrMany(Pattern)),
  name: Type.Optional(OneOrMany(Pattern)),
  source: Type.Optional(OneOrMany(Pattern)),
  unit: Type.Optional(OneOrMany(Pattern)),
  unitExternalId: Type.Optional(OneOrMany(Pattern)),
  labels: Type.Optional(LabelsFilter),
  valueType: Type.Optional(Type.String({ description: 'one of the seven value types, case-insensitive' })),
  metadata: Type.Optional(MetadataFilter),
  createdTime: Type.Optional(TimeRange),
  lastUpdatedTime: Type.Optional(TimeRange),
}, { additionalProperties: false });
export type TimeSeriesFilter = Static<typeof TimeSeriesFilter>;

export const SORTABLE_TIMESERIES_PROPERTIES = ['id', 'externalId', 'name', 'source', 'description', 'createdTime', 'lastUpdatedTime', 'dataSetId'] as const;
export const TimeSeriesSort = SortSchema(SORTABLE_TIMESERIES_PROPERTIES);

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

/** GET /timeseries (SPEC: a bad `limit` or `dataSetId` is a 400 with a plain-text body). */
export const TimeSeriesListQuery = Type.Object({
  limit: Type.Integer({
    minimum: 1, maximum: CAPS.timeseriesListLimitMax, default: CAPS.timeseriesListLimitDefault,
    description: `page size, default ${CAPS.timeseriesListLimitDefault} (the parameter's documented default; SPEC's prose says 100), at most ${CAPS.timeseriesListLimitMax}`,
  }),
  dataSetId: Type.Optional(Type.Integer({ minimum: 0, maximum: 9007199254740991, description: 'only series in this data set or its descendants' })),
  cursor: Type.Optional(Type.String({ description: 'nextCursor of the previous page' })),
});
