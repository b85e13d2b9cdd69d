// CDF's relationships (docs/cdf.md "Events, assets and relationships"): the request bodies as
// CDF documents them and @cognite/sdk 10.5 sends them; a field our edges cannot carry is refused
// by name in api/cdf/relationships-form.ts; any other field is a 400 naming it.
import { Type, type Static } from '@sinclair/typebox';
import { CdfCursor, CdfEpochMs, CdfExternalId, CdfId, CdfIdentifier, CdfItemsMax, CdfLimit, CdfRange } from './events.ts';

export const CDF_RESOURCE_TYPES = ['asset', 'timeSeries', 'file', 'event', 'sequence'] as const;
const CdfResourceType = Type.Union(CDF_RESOURCE_TYPES.map((t) => Type.Literal(t)));
const CdfLabel = Type.Object({ externalId: CdfExternalId }, { additionalProperties: false });
const CdfExternalIdItem = Type.Object({ externalId: CdfExternalId }, { additionalProperties: false });

export const CdfRelationshipCreate = Type.Object({
  externalId: CdfExternalId,
  sourceExternalId: CdfExternalId,
  sourceType: CdfResourceType,
  targetExternalId: CdfExternalId,
  targetType: CdfResourceType,
  startTime: Type.Optional(CdfEpochMs),
  endTime: Type.Optional(CdfEpochMs),
  confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  dataSetId: Type.Optional(CdfId),
  labels: Type.Optional(Type.Array(CdfLabel)),
}, { additionalProperties: false });
export type CdfRelationshipCreate = Static<typeof CdfRelationshipCreate>;
export const CdfRelationshipCreateRequest = Type.Object({ items: Type.Array(CdfRelationshipCreate, { minItems: 1, maxItems: CdfItemsMax }) }, { additionalProperties: false });

export const CdfRelationship = Type.Object({
  externalId: Type.String(),
  sourceExternalId: Type.String(),
  sourceType: Type.String(),
  targetExternalId: Type.String(),
  targetType: Type.String(),
  labels: Type.Array(CdfLabel),
  createdTime: CdfEpochMs,
  lastUpdatedTime: CdfEpochMs,
}, { description: 'A CDF relationship: an edge named by its externalId' });
export type CdfRelationship = Static<typeof CdfRelationship>;
export const CdfRelationshipCollection = Type.Object({ items: Type.Array(CdfRelationship) });
export const CdfRelationshipPage = Type.Object({ items: Type.Array(CdfRelationship), nextCursor: Type.Optional(Type.String()) });

const LabelContains = Type.Union([
  Type.Object({ containsAny: Type.Array(CdfLabel, { minItems: 1 }) }, { additionalProperties: false }),
  Type.Object({ containsAll: Type.Array(CdfLabel, { minItems: 1 }) }, { additionalProperties: false }),
]);

export const CdfRelationshipFilter = Type.Object({
  sourceExternalIds: Type.Optional(Type.Array(CdfExternalId, { minItems: 1, maxItems: 1_000 })),
  sourceTypes: Type.Optional(Type.Array(CdfResourceType, { minItems: 1 })),
  targetExternalIds: Type.Optional(Type.Array(CdfExternalId, { minItems: 1, maxItems: 1_000 })),
  targetTypes: Type.Optional(Type.Array(CdfResourceType, { minItems: 1 })),
  dataSetIds: Type.Optional(Type.Array(CdfIdentifier)),
  startTime: Type.Optional(CdfRange),
  endTime: Type.Optional(CdfRange),
  confidence: Type.Optional(Type.Object({ min: Type.Optional(Type.Number()), max: Type.Optional(Type.Number()) }, { additionalProperties: false })),
  lastUpdatedTime: Type.Optional(CdfRange),
  createdTime: Type.Optional(CdfRange),
  activeAtTime: Type.Optional(CdfRange),
  labels: Type.Optional(LabelContains),
  sourcesOrTargets: Type.Optional(Type.Array(Type.Object({ type: CdfResourceType, externalId: CdfExternalId }, { additionalProperties: false }))),
}, { additionalProperties: false });
export type CdfRelationshipFilter = Static<typeof CdfRelationshipFilter>;

export const CdfRelationshipListRequest = Type.Object({
  filter: Type.Optional(CdfRelationshipFilter),
  limit: Type.Optional(CdfLimit),
  cursor: Type.Optional(CdfCursor),
  fetchResources: Type.Optional(Type.Boolean()),
  partition: Type.Optional(Type.String()),
}, { additionalProperties: false });
export type CdfRelationshipListRequest = Static<typeof CdfRelationshipListRequest>;

export const CdfRelationshipByIdsRequest = Type.Object({
  items: Type.Array(CdfExternalIdItem, { minItems: 1, maxItems: CdfItemsMax }),
  ignoreUnknownIds: Type.Optional(Type.Boolean()),
  fetchResources: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });
export type CdfRelationshipByIdsRequest = Static<typeof CdfRelationshipByIdsRequest>;

export const CdfRelationshipDeleteRequest = Type.Object({
  items: Type.Array(CdfExternalIdItem, { minItems: 1, maxItems: CdfItemsMax }),
  ignoreUnknownIds: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });
export type CdfRelationshipDeleteRequest = Static<typeof CdfRelationshipDeleteRequest>;
