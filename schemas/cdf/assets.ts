// CDF's assets (docs/cdf.md "Events, assets and relationships"): the request bodies as CDF
// documents them and @cognite/sdk 10.5 sends them; a field our resources cannot carry is refused
// by name in api/cdf/assets-form.ts; any other field is a 400 naming it.
import { Type, type Static } from '@sinclair/typebox';
import { CAPS } from '../common.ts';
import { CdfCursor, CdfEpochMs, CdfExternalId, CdfId, CdfIdentifier, CdfItemsMax, CdfLimit, CdfMetadata, CdfMetadataUpdate, CdfRange, CdfSetNull } from './events.ts';

const CdfLabel = Type.Object({ externalId: CdfExternalId }, { additionalProperties: false });

export const CdfAssetCreate = Type.Object({
  externalId: Type.Optional(CdfExternalId),
  name: Type.String({ minLength: 1, maxLength: CAPS.nameCharsMax }),
  parentId: Type.Optional(CdfId),
  parentExternalId: Type.Optional(CdfExternalId),
  description: Type.Optional(Type.String()),
  dataSetId: Type.Optional(CdfId),
  metadata: Type.Optional(CdfMetadata),
  source: Type.Optional(Type.String()),
  labels: Type.Optional(Type.Array(CdfLabel)),
}, { additionalProperties: false });
export type CdfAssetCreate = Static<typeof CdfAssetCreate>;
export const CdfAssetCreateRequest = Type.Object({ items: Type.Array(CdfAssetCreate, { minItems: 1, maxItems: CdfItemsMax }) }, { additionalProperties: false });

export const CdfAsset = Type.Object({
  id: CdfId,
  externalId: Type.String(),
  name: Type.String(),
  parentId: Type.Optional(CdfId),
  parentExternalId: Type.Optional(Type.String()),
  rootId: CdfId,
  description: Type.Optional(Type.String()),
  dataSetId: Type.Optional(CdfId),
  metadata: Type.Record(Type.String(), Type.String()),
  labels: Type.Array(CdfLabel),
  createdTime: CdfEpochMs,
  lastUpdatedTime: CdfEpochMs,
}, { description: 'A CDF asset: a resource, its parent and root from the containment tree' });
export type CdfAsset = Static<typeof CdfAsset>;
export const CdfAssetCollection = Type.Object({ items: Type.Array(CdfAsset) });
export const CdfAssetPage = Type.Object({ items: Type.Array(CdfAsset), nextCursor: Type.Optional(Type.String()) });

const LabelContains = Type.Union([
  Type.Object({ containsAny: Type.Array(CdfLabel, { minItems: 1 }) }, { additionalProperties: false }),
  Type.Object({ containsAll: Type.Array(CdfLabel, { minItems: 1 }) }, { additionalProperties: false }),
]);

export const CdfAssetFilter = Type.Object({
  name: Type.Optional(Type.String({ maxLength: CAPS.nameCharsMax })),
  parentIds: Type.Optional(Type.Array(CdfId, { minItems: 1, maxItems: 100 })),
  parentExternalIds: Type.Optional(Type.Array(CdfExternalId, { minItems: 1, maxItems: 100 })),
  rootIds: Type.Optional(Type.Array(CdfIdentifier, { minItems: 1, maxItems: 100 })),
  assetSubtreeIds: Type.Optional(Type.Array(CdfIdentifier, { minItems: 1, maxItems: 100 })),
  dataSetIds: Type.Optional(Type.Array(CdfIdentifier, { maxItems: 100 })),
  labels: Type.Optional(LabelContains),
  metadata: Type.Optional(CdfMetadata),
  source: Type.Optional(Type.String()),
  createdTime: Type.Optional(CdfRange),
  lastUpdatedTime: Type.Optional(CdfRange),
  root: Type.Optional(Type.Boolean()),
  externalIdPrefix: Type.Optional(Type.String({ maxLength: CAPS.externalIdCharsMax })),
}, { additionalProperties: false });
export type CdfAssetFilter = Static<typeof CdfAssetFilter>;

export const CdfAssetListRequest = Type.Object({
  filter: Type.Optional(CdfAssetFilter),
  limit: Type.Optional(CdfLimit),
  cursor: Type.Optional(CdfCursor),
  aggregatedProperties: Type.Optional(Type.Array(Type.String())),
  partition: Type.Optional(Type.String()),
}, { additionalProperties: false });
export type CdfAssetListRequest = Static<typeof CdfAssetListRequest>;

export const CdfAssetSearchRequest = Type.Object({
  filter: Type.Optional(CdfAssetFilter),
  search: Type.Optional(Type.Object({
    name: Type.Optional(Type.String({ maxLength: 1_000 })),
    description: Type.Optional(Type.String({ maxLength: 1_000 })),
    query: Type.Optional(Type.String({ maxLength: 1_000 })),
  }, { additionalProperties: false })),
  limit: Type.Optional(CdfLimit),
}, { additionalProperties: false });
export type CdfAssetSearchRequest = Static<typeof CdfAssetSearchRequest>;

export const CdfAssetUpdate = Type.Object({
  externalId: Type.Optional(CdfSetNull(CdfExternalId)),
  name: Type.Optional(CdfSetNull(Type.String({ minLength: 1, maxLength: CAPS.nameCharsMax }))),
  description: Type.Optional(CdfSetNull(Type.String())),
  dataSetId: Type.Optional(CdfSetNull(CdfId)),
  metadata: Type.Optional(CdfMetadataUpdate),
  labels: Type.Optional(Type.Object({ add: Type.Optional(Type.Array(CdfLabel)), remove: Type.Optional(Type.Array(CdfLabel)) }, { additionalProperties: false })),
  source: Type.Optional(CdfSetNull(Type.String())),
  parentId: Type.Optional(Type.Object({ set: CdfId }, { additionalProperties: false })),
  parentExternalId: Type.Optional(Type.Object({ set: CdfExternalId }, { additionalProperties: false })),
}, { additionalProperties: false });
export type CdfAssetUpdate = Static<typeof CdfAssetUpdate>;
export const CdfAssetUpdateRequest = Type.Object({
  items: Type.Array(Type.Union([
    Type.Object({ id: CdfId, update: CdfAssetUpdate }, { additionalProperties: false }),
    Type.Object({ externalId: CdfExternalId, update: CdfAssetUpdate }, { additionalProperties: false }),
  ]), { minItems: 1, maxItems: CdfItemsMax }),
}, { additionalProperties: false });
export type CdfAssetUpdateRequest = Static<typeof CdfAssetUpdateRequest>;

export const CdfAssetDeleteRequest = Type.Object({
  items: Type.Array(CdfIdentifier, { minItems: 1, maxItems: CdfItemsMax }),
  recursive: Type.Optional(Type.Boolean()),
  ignoreUnknownIds: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });
export type CdfAssetDeleteRequest = Static<typeof CdfAssetDeleteRequest>;

export const CdfAssetAggregateRequest = Type.Object({
  filter: Type.Optional(CdfAssetFilter),
  aggregate: Type.Optional(Type.Literal('count')),
}, { additionalProperties: false });
export type CdfAssetAggregateRequest = Static<typeof CdfAssetAggregateRequest>;
