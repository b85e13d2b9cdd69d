// Data sets (SPEC "Data sets"; shapes ours): the parent link is a BELONGS_TO edge from the
// child data set to its parent, so grants on a parent cover its children.
import { Type, type Static } from '@sinclair/typebox';
import { Description, EpochMs, ExternalId, Id, IdentifierSchema, Items, ItemsResponse, Metadata, PageQuery, PagedResponse, CAPS } from './common.ts';

const Name = Type.String({ minLength: 1, maxLength: CAPS.nameCharsMax });

export const DataSet = Type.Object({
  id: Id,
  externalId: ExternalId,
  name: Type.String(),
  description: Type.Optional(Type.String()),
  metadata: Type.Record(Type.String(), Type.String()),
  parentId: Type.Optional(Id),
  parentExternalId: Type.Optional(ExternalId),
  createdTime: EpochMs,
  lastUpdatedTime: EpochMs,
}, { description: 'A data set. `parentId`/`parentExternalId` name the data set it BELONGS_TO.' });
export type DataSet = Static<typeof DataSet>;

export const DataSetCreate = Type.Object({
  externalId: ExternalId,
  name: Name,
  description: Type.Optional(Description),
  metadata: Type.Optional(Metadata),
  parentId: Type.Optional(Id),
  parentExternalId: Type.Optional(ExternalId),
}, { additionalProperties: false, description: 'Give the parent by id or externalId (it may be created earlier in the same batch).' });
export type DataSetCreate = Static<typeof DataSetCreate>;

export const DataSetCreateRequest = Items(DataSetCreate);
export const DataSetCollection = ItemsResponse(DataSet);
export const DataSetPage = PagedResponse(DataSet);

export const DataSetUpdateItem = Type.Object({
  id: Type.Optional(Id),
  externalId: Type.Optional(ExternalId),
  update: Type.Object({
    externalId: Type.Optional(Type.Object({ set: ExternalId })),
    name: Type.Optional(Type.Object({ set: Name })),
    description: Type.Optional(Type.Object({ set: Type.Optional(Description), setNull: Type.Optional(Type.Boolean()) })),
    metadata: Type.Optional(Type.Object({ set: Type.Optional(Metadata), add: Type.Optional(Metadata), remove: Type.Optional(Type.Array(Type.String())) })),
    parentId: Type.Optional(Type.Object({ set: Type.Optional(Id), setNull: Type.Optional(Type.Boolean()) })),
    parentExternalId: Type.Optional(Type.Object({ set: ExternalId })),
  }, { additionalProperties: false }),
});
export type DataSetUpdateItem = Static<typeof DataSetUpdateItem>;
export const DataSetUpdateRequest = Items(DataSetUpdateItem);

export const DataSetByIdsRequest = Type.Object({
  items: Type.Array(IdentifierSchema, { minItems: 1, maxItems: CAPS.itemsPerRequestMax }),
  ignoreUnknownIds: Type.Optional(Type.Boolean()),
});

export const DataSetListRequest = Type.Object({
  filter: Type.Optional(Type.Object({
    parentIds: Type.Optional(Type.Array(Id, { maxItems: 100 })),
    externalIdPrefix: Type.Optional(Type.String({ maxLength: 255 })),
  }, { additionalProperties: false })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  cursor: Type.Optional(Type.String({ maxLength: 2048 })),
}, { additionalProperties: false });
export type DataSetListRequest = Static<typeof DataSetListRequest>;

/** GET /datasets. */
export const DataSetListQuery = PageQuery(1000, 100);
/** GET /labels. */
export const LabelListQuery = PageQuery(1000, 100);
