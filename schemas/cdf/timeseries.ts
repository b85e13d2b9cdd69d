// CDF's time series requests as @cognite/sdk 10.5 sends them (POST /timeseries, /list, /byids,
// /search, /update, /delete, /aggregate; GET /timeseries). Fields our model cannot carry are
// accepted here and refused by name in api/cdf/timeseries-form.ts (docs/cdf.md says which).
import { Type, type Static } from '@sinclair/typebox';
import { EpochMs, Id, Metadata } from '../common.ts';

/** CDF: at most 1 000 items per create, byids, update and delete request. */
export const CDF_ITEMS_MAX = 1000;
/** CDF: list and search pages default to 100 and hold at most 1 000. */
export const CDF_PAGE_LIMIT_DEFAULT = 100;
export const CDF_PAGE_LIMIT_MAX = 1000;

const ExternalId = Type.String({ minLength: 1, maxLength: 255 });
const Name = Type.String({ maxLength: 255 });
const Description = Type.String({ maxLength: 1000 });
const Unit = Type.String({ maxLength: 32 });
const UnitExternalId = Type.String({ maxLength: 256 });

export const CdfIdentifier = Type.Union([
  Type.Object({ id: Id }, { additionalProperties: false }),
  Type.Object({ externalId: ExternalId }, { additionalProperties: false }),
]);
export type CdfIdentifier = Static<typeof CdfIdentifier>;

export const CdfTimeSeriesCreate = Type.Object({
  externalId: Type.Optional(ExternalId),
  name: Type.Optional(Name),
  isString: Type.Optional(Type.Boolean({ default: false })),
  isStep: Type.Optional(Type.Boolean({ default: false })),
  metadata: Type.Optional(Metadata),
  unit: Type.Optional(Unit),
  unitExternalId: Type.Optional(UnitExternalId),
  assetId: Type.Optional(Id),
  description: Type.Optional(Description),
  securityCategories: Type.Optional(Type.Array(Id, { maxItems: 100 })),
  dataSetId: Type.Optional(Id),
  legacyName: Type.Optional(Type.String({ maxLength: 255 })),
}, { additionalProperties: false });
export type CdfTimeSeriesCreate = Static<typeof CdfTimeSeriesCreate>;

export const CdfTimeSeriesCreateRequest = Type.Object({
  items: Type.Array(CdfTimeSeriesCreate, { minItems: 1, maxItems: CDF_ITEMS_MAX }),
}, { additionalProperties: false });

const Range = Type.Object({ min: Type.Optional(EpochMs), max: Type.Optional(EpochMs) }, { additionalProperties: false });
const DataSetRefs = Type.Array(CdfIdentifier, { maxItems: 100 });

export const CdfTimeSeriesFilter = Type.Object({
  name: Type.Optional(Name),
  unit: Type.Optional(Unit),
  unitExternalId: Type.Optional(UnitExternalId),
  unitQuantity: Type.Optional(Type.String()),
  isString: Type.Optional(Type.Boolean()),
  isStep: Type.Optional(Type.Boolean()),
  metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
  assetIds: Type.Optional(Type.Array(Id, { maxItems: 100 })),
  assetExternalIds: Type.Optional(Type.Array(ExternalId, { maxItems: 100 })),
  rootAssetIds: Type.Optional(Type.Array(Id, { maxItems: 100 })),
  assetSubtreeIds: Type.Optional(Type.Array(CdfIdentifier, { maxItems: 100 })),
  dataSetIds: Type.Optional(DataSetRefs),
  externalIdPrefix: Type.Optional(Type.String({ maxLength: 255 })),
  createdTime: Type.Optional(Range),
  lastUpdatedTime: Type.Optional(Range),
}, { additionalProperties: false });
export type CdfTimeSeriesFilter = Static<typeof CdfTimeSeriesFilter>;

const Limit = Type.Integer({ minimum: 1, maximum: CDF_PAGE_LIMIT_MAX });

export const CdfTimeSeriesListRequest = Type.Object({
  filter: Type.Optional(CdfTimeSeriesFilter),
  limit: Type.Optional(Limit),
  cursor: Type.Optional(Type.String({ maxLength: 2048 })),
  partition: Type.Optional(Type.String()),
}, { additionalProperties: false });
export type CdfTimeSeriesListRequest = Static<typeof CdfTimeSeriesListRequest>;

/** GET /timeseries: the page parameters and the filters CDF puts in the query. */
export const CdfTimeSeriesListQuery = Type.Object({
  limit: Type.Optional(Limit),
  cursor: Type.Optional(Type.String({ maxLength: 2048 })),
  includeMetadata: Type.Optional(Type.Boolean()),
  externalIdPrefix: Type.Optional(Type.String({ maxLength: 255 })),
  partition: Type.Optional(Type.String()),
});
export type CdfTimeSeriesListQuery = Static<typeof CdfTimeSeriesListQuery>;

export const CdfTimeSeriesSearchRequest = Type.Object({
  filter: Type.Optional(CdfTimeSeriesFilter),
  search: Type.Optional(Type.Object({
    name: Type.Optional(Type.String({ maxLength: 512 })),
    description: Type.Optional(Type.String({ maxLength: 512 })),
    query: Type.Optional(Type.String({ maxLength: 512 })),
  }, { additionalProperties: false })),
  limit: Type.Optional(Limit),
}, { additionalProperties: false });
export type CdfTimeSeriesSearchRequest = Static<typeof CdfTimeSeriesSearchRequest>;

export const CdfByIdsRequest = Type.Object({
  items: Type.Array(CdfIdentifier, { minItems: 1, maxItems: CDF_ITEMS_MAX }),
  ignoreUnknownIds: Type.Optional(Type.Boolean({ default: false })),
}, { additionalProperties: false });
export type CdfByIdsRequest = Static<typeof CdfByIdsRequest>;

const SetNull = Type.Object({ setNull: Type.Literal(true) }, { additionalProperties: false });
const Set = <T extends Parameters<typeof Type.Object>[0][string]>(value: T) => Type.Object({ set: value }, { additionalProperties: false });
const SetOrNull = <T extends Parameters<typeof Type.Object>[0][string]>(value: T) => Type.Union([Set(value), SetNull]);

export const CdfTimeSeriesUpdateFields = Type.Object({
  externalId: Type.Optional(SetOrNull(ExternalId)),
  name: Type.Optional(SetOrNull(Name)),
  description: Type.Optional(SetOrNull(Description)),
  unit: Type.Optional(SetOrNull(Unit)),
  unitExternalId: Type.Optional(SetOrNull(UnitExternalId)),
  isStep: Type.Optional(Set(Type.Boolean())),
  metadata: Type.Optional(Type.Union([
    Set(Metadata),
    Type.Object({ add: Type.Optional(Metadata), remove: Type.Optional(Type.Array(Type.String(), { maxItems: 256 })) }, { additionalProperties: false }),
  ])),
  assetId: Type.Optional(SetOrNull(Id)),
  dataSetId: Type.Optional(SetOrNull(Id)),
  securityCategories: Type.Optional(Type.Union([
    Set(Type.Array(Id)),
    Type.Object({ add: Type.Optional(Type.Array(Id)), remove: Type.Optional(Type.Array(Id)) }, { additionalProperties: false }),
  ])),
}, { additionalProperties: false });
export type CdfTimeSeriesUpdateFields = Static<typeof CdfTimeSeriesUpdateFields>;

export const CdfTimeSeriesUpdateItem = Type.Union([
  Type.Object({ id: Id, update: CdfTimeSeriesUpdateFields }, { additionalProperties: false }),
  Type.Object({ externalId: ExternalId, update: CdfTimeSeriesUpdateFields }, { additionalProperties: false }),
]);
export type CdfTimeSeriesUpdateItem = Static<typeof CdfTimeSeriesUpdateItem>;

export const CdfTimeSeriesUpdateRequest = Type.Object({
  items: Type.Array(CdfTimeSeriesUpdateItem, { minItems: 1, maxItems: CDF_ITEMS_MAX }),
}, { additionalProperties: false });

export const CdfDeleteRequest = CdfByIdsRequest;

export const CdfTimeSeriesAggregateRequest = Type.Object({
  filter: Type.Optional(CdfTimeSeriesFilter),
  aggregate: Type.Optional(Type.Literal('count')),
}, { additionalProperties: false });
export type CdfTimeSeriesAggregateRequest = Static<typeof CdfTimeSeriesAggregateRequest>;

/** A time series in CDF's form (the response of every route of the family). */
export const CdfTimeSeries = Type.Object({
  id: Id,
  externalId: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  isString: Type.Boolean(),
  isStep: Type.Boolean(),
  metadata: Type.Record(Type.String(), Type.String()),
  unit: Type.Optional(Type.String()),
  unitExternalId: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  dataSetId: Type.Optional(Id),
  createdTime: EpochMs,
  lastUpdatedTime: EpochMs,
});
export type CdfTimeSeries = Static<typeof CdfTimeSeries>;
export const CdfTimeSeriesItems = Type.Object({ items: Type.Array(CdfTimeSeries) });
export const CdfTimeSeriesPage = Type.Object({ items: Type.Array(CdfTimeSeries), nextCursor: Type.Optional(Type.String()) });
export const CdfCountItems = Type.Object({ items: Type.Array(Type.Object({ count: Type.Integer() })) });
