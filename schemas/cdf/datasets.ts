// CDF's data set and label requests as @cognite/sdk 10.5 sends them (POST /datasets, /list,
// /byids, /update, /aggregate; POST /labels, /labels/list, /labels/delete). Fields our model
// cannot carry are accepted here and refused by name in api/cdf/datasets-form.ts.
import { Type, type Static } from '@sinclair/typebox';
import { EpochMs, Id, Metadata } from '../common.ts';
import { CDF_ITEMS_MAX, CDF_PAGE_LIMIT_MAX, CdfIdentifier } from './timeseries.ts';

const ExternalId = Type.String({ minLength: 1, maxLength: 255 });
const Name = Type.String({ maxLength: 50 });
const Description = Type.String({ maxLength: 500 });
const Range = Type.Object({ min: Type.Optional(EpochMs), max: Type.Optional(EpochMs) }, { additionalProperties: false });
const Limit = Type.Integer({ minimum: 1, maximum: CDF_PAGE_LIMIT_MAX });
const Cursor = Type.String({ maxLength: 2048 });

export const CdfDataSetCreate = Type.Object({
  externalId: Type.Optional(ExternalId),
  name: Type.Optional(Name),
  description: Type.Optional(Description),
  metadata: Type.Optional(Metadata),
  writeProtected: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });
export type CdfDataSetCreate = Static<typeof CdfDataSetCreate>;
export const CdfDataSetCreateRequest = Type.Object({ items: Type.Array(CdfDataSetCreate, { minItems: 1, maxItems: CDF_ITEMS_MAX }) }, { additionalProperties: false });

export const CdfDataSetFilter = Type.Object({
  metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
  externalIdPrefix: Type.Optional(Type.String({ maxLength: 255 })),
  writeProtected: Type.Optional(Type.Boolean()),
  createdTime: Type.Optional(Range),
  lastUpdatedTime: Type.Optional(Range),
}, { additionalProperties: false });
export type CdfDataSetFilter = Static<typeof CdfDataSetFilter>;

export const CdfDataSetListRequest = Type.Object({
  filter: Type.Optional(CdfDataSetFilter),
  limit: Type.Optional(Limit),
  cursor: Type.Optional(Cursor),
}, { additionalProperties: false });
export type CdfDataSetListRequest = Static<typeof CdfDataSetListRequest>;

export const CdfDataSetAggregateRequest = Type.Object({
  filter: Type.Optional(CdfDataSetFilter),
  aggregate: Type.Optional(Type.Literal('count')),
}, { additionalProperties: false });

const SetOrNull = <T extends Parameters<typeof Type.Object>[0][string]>(value: T) => Type.Union([
  Type.Object({ set: value }, { additionalProperties: false }),
  Type.Object({ setNull: Type.Literal(true) }, { additionalProperties: false }),
]);

export const CdfDataSetUpdateFields = Type.Object({
  externalId: Type.Optional(SetOrNull(ExternalId)),
  name: Type.Optional(SetOrNull(Name)),
  description: Type.Optional(SetOrNull(Description)),
  metadata: Type.Optional(Type.Union([
    Type.Object({ set: Metadata }, { additionalProperties: false }),
    Type.Object({ add: Type.Optional(Metadata), remove: Type.Optional(Type.Array(Type.String(), { maxItems: 256 })) }, { additionalProperties: false }),
  ])),
  writeProtected: Type.Optional(Type.Object({ set: Type.Boolean() }, { additionalProperties: false })),
}, { additionalProperties: false });
export type CdfDataSetUpdateFields = Static<typeof CdfDataSetUpdateFields>;

export const CdfDataSetUpdateItem = Type.Union([
  Type.Object({ id: Id, update: CdfDataSetUpdateFields }, { additionalProperties: false }),
  Type.Object({ externalId: ExternalId, update: CdfDataSetUpdateFields }, { additionalProperties: false }),
]);
export type CdfDataSetUpdateItem = Static<typeof CdfDataSetUpdateItem>;
export const CdfDataSetUpdateRequest = Type.Object({ items: Type.Array(CdfDataSetUpdateItem, { minItems: 1, maxItems: CDF_ITEMS_MAX }) }, { additionalProperties: false });

export const CdfDataSet = Type.Object({
  id: Id,
  externalId: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  metadata: Type.Record(Type.String(), Type.String()),
  writeProtected: Type.Boolean(),
  createdTime: EpochMs,
  lastUpdatedTime: EpochMs,
});
export type CdfDataSet = Static<typeof CdfDataSet>;
export const CdfDataSetItems = Type.Object({ items: Type.Array(CdfDataSet) });
export const CdfDataSetPage = Type.Object({ items: Type.Array(CdfDataSet), nextCursor: Type.Optional(Type.String()) });

const LabelExternalId = Type.String({ minLength: 1, maxLength: 255 });

export const CdfLabelCreate = Type.Object({
  externalId: LabelExternalId,
  name: Type.String({ minLength: 1, maxLength: 140 }),
  description: Type.Optional(Type.String({ maxLength: 500 })),
  dataSetId: Type.Optional(Id),
}, { additionalProperties: false });
export type CdfLabelCreate = Static<typeof CdfLabelCreate>;
export const CdfLabelCreateRequest = Type.Object({ items: Type.Array(CdfLabelCreate, { minItems: 1, maxItems: CDF_ITEMS_MAX }) }, { additionalProperties: false });

export const CdfLabelListRequest = Type.Object({
  filter: Type.Optional(Type.Object({
    name: Type.Optional(Type.String({ maxLength: 140 })),
    externalIdPrefix: Type.Optional(Type.String({ maxLength: 255 })),
    dataSetIds: Type.Optional(Type.Array(CdfIdentifier, { maxItems: 100 })),
  }, { additionalProperties: false })),
  limit: Type.Optional(Limit),
  cursor: Type.Optional(Cursor),
}, { additionalProperties: false });
export type CdfLabelListRequest = Static<typeof CdfLabelListRequest>;

export const CdfLabelDeleteRequest = Type.Object({
  items: Type.Array(Type.Object({ externalId: LabelExternalId }, { additionalProperties: false }), { minItems: 1, maxItems: CDF_ITEMS_MAX }),
}, { additionalProperties: false });

export const CdfLabel = Type.Object({
  externalId: Type.String(),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  createdTime: EpochMs,
});
export const CdfLabelItems = Type.Object({ items: Type.Array(CdfLabel) });
export const CdfLabelPage = Type.Object({ items: Type.Array(CdfLabel), nextCursor: Type.Optional(Type.String()) });
