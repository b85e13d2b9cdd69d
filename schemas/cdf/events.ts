// CDF's events (docs/cdf.md "Events, assets and relationships"): the request bodies as CDF
// documents them and @cognite/sdk 10.5 sends them, every field the SDK sends accepted (a field
// our event log cannot carry is refused by name in api/cdf/events-form.ts, never dropped), any
// other field a 400 naming it. Also the pieces the asset and relationship schemas share.
import { Type, type Static } from '@sinclair/typebox';
import { CAPS } from '../common.ts';

/** CDF's id range: [1, 2^53-1]. */
export const CdfId = Type.Integer({ minimum: 1, maximum: 9007199254740991 });
export const CdfEpochMs = Type.Integer({ minimum: -9007199254740991, maximum: 9007199254740991, description: 'epoch milliseconds, UTC' });
export const CdfExternalId = Type.String({ minLength: 1, maxLength: CAPS.externalIdCharsMax });
export const CdfMetadata = Type.Record(Type.String(), Type.String(), { description: 'string to string (our caps: 256 entries, keys 128, values 1,024 characters)' });
export const CdfIdentifier = Type.Union([
  Type.Object({ id: CdfId }, { additionalProperties: false }),
  Type.Object({ externalId: CdfExternalId }, { additionalProperties: false }),
]);
export type CdfIdentifier = Static<typeof CdfIdentifier>;
export const CdfRange = Type.Object({ min: Type.Optional(CdfEpochMs), max: Type.Optional(CdfEpochMs) }, { additionalProperties: false });
export type CdfRange = Static<typeof CdfRange>;
export const CdfItemsMax = 1_000;
export const CdfLimit = Type.Integer({ minimum: 1, maximum: 1_000, description: 'default 100' });
export const CdfCursor = Type.String({ maxLength: 4096 });
export const CdfSetNull = <T extends ReturnType<typeof Type.String> | typeof CdfId | typeof CdfEpochMs>(value: T) =>
  Type.Union([Type.Object({ set: value }, { additionalProperties: false }), Type.Object({ setNull: Type.Boolean() }, { additionalProperties: false })]);
export const CdfMetadataUpdate = Type.Union([
  Type.Object({ set: CdfMetadata }, { additionalProperties: false }),
  Type.Object({ add: Type.Optional(CdfMetadata), remove: Type.Optional(Type.Array(Type.String())) }, { additionalProperties: false }),
]);
export const CdfIdListUpdate = Type.Union([
  Type.Object({ set: Type.Array(CdfId) }, { additionalProperties: false }),
  Type.Object({ add: Type.Optional(Type.Array(CdfId)), remove: Type.Optional(Type.Array(CdfId)) }, { additionalProperties: false }),
]);
export const CdfEmpty = Type.Object({});
export const CdfCount = Type.Object({ items: Type.Array(Type.Object({ count: Type.Integer() })) });

export const CdfEventCreate = Type.Object({
  externalId: Type.Optional(CdfExternalId),
  startTime: Type.Optional(CdfEpochMs),
  endTime: Type.Optional(CdfEpochMs),
  type: Type.Optional(Type.String()),
  subtype: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  metadata: Type.Optional(CdfMetadata),
  assetIds: Type.Optional(Type.Array(CdfId, { maxItems: 10_000 })),
  dataSetId: Type.Optional(CdfId),
  source: Type.Optional(Type.String()),
}, { additionalProperties: false });
export type CdfEventCreate = Static<typeof CdfEventCreate>;
export const CdfEventCreateRequest = Type.Object({ items: Type.Array(CdfEventCreate, { minItems: 1, maxItems: CdfItemsMax }) }, { additionalProperties: false });

export const CdfEvent = Type.Object({
  id: CdfId,
  externalId: Type.String(),
  startTime: CdfEpochMs,
  type: Type.Optional(Type.String()),
  subtype: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  metadata: Type.Record(Type.String(), Type.String()),
  assetIds: Type.Array(CdfId),
  source: Type.Optional(Type.String()),
  dataSetId: Type.Optional(CdfId),
  createdTime: CdfEpochMs,
  lastUpdatedTime: CdfEpochMs,
}, { description: 'A CDF event: an event of our log, named by its number' });
export type CdfEvent = Static<typeof CdfEvent>;
export const CdfEventCollection = Type.Object({ items: Type.Array(CdfEvent) });
export const CdfEventPage = Type.Object({ items: Type.Array(CdfEvent), nextCursor: Type.Optional(Type.String()) });

export const CdfEventFilter = Type.Object({
  startTime: Type.Optional(CdfRange),
  endTime: Type.Optional(Type.Union([CdfRange, Type.Object({ isNull: Type.Boolean() }, { additionalProperties: false })])),
  activeAtTime: Type.Optional(CdfRange),
  metadata: Type.Optional(CdfMetadata),
  assetIds: Type.Optional(Type.Array(CdfId, { minItems: 1, maxItems: 100 })),
  assetExternalIds: Type.Optional(Type.Array(CdfExternalId, { minItems: 1, maxItems: 100 })),
  assetSubtreeIds: Type.Optional(Type.Array(CdfIdentifier)),
  dataSetIds: Type.Optional(Type.Array(CdfIdentifier, { maxItems: 100 })),
  source: Type.Optional(Type.String()),
  type: Type.Optional(Type.String()),
  subtype: Type.Optional(Type.String()),
  createdTime: Type.Optional(CdfRange),
  lastUpdatedTime: Type.Optional(CdfRange),
  externalIdPrefix: Type.Optional(Type.String({ maxLength: CAPS.externalIdCharsMax })),
}, { additionalProperties: false });
export type CdfEventFilter = Static<typeof CdfEventFilter>;

/** A sort as the SDK sends it (`"startTime:desc"`) or as CDF documents it (`{ property: [name], order }`). */
export const CdfSort = Type.Union([
  Type.String({ maxLength: 128 }),
  Type.Object({ property: Type.Array(Type.String(), { minItems: 1, maxItems: 2 }), order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])), nulls: Type.Optional(Type.String()) }, { additionalProperties: false }),
]);
export type CdfSort = Static<typeof CdfSort>;

export const CdfEventListRequest = Type.Object({
  filter: Type.Optional(CdfEventFilter),
  limit: Type.Optional(CdfLimit),
  cursor: Type.Optional(CdfCursor),
  sort: Type.Optional(Type.Array(CdfSort, { maxItems: 2 })),
}, { additionalProperties: false });
export type CdfEventListRequest = Static<typeof CdfEventListRequest>;

export const CdfByIdsRequest = Type.Object({
  items: Type.Array(CdfIdentifier, { minItems: 1, maxItems: CdfItemsMax }),
  ignoreUnknownIds: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });
export type CdfByIdsRequest = Static<typeof CdfByIdsRequest>;

export const CdfEventSearchRequest = Type.Object({
  filter: Type.Optional(CdfEventFilter),
  search: Type.Optional(Type.Object({ description: Type.Optional(Type.String({ maxLength: 1_000 })) }, { additionalProperties: false })),
  limit: Type.Optional(CdfLimit),
}, { additionalProperties: false });
export type CdfEventSearchRequest = Static<typeof CdfEventSearchRequest>;

export const CdfEventUpdate = Type.Object({
  externalId: Type.Optional(CdfSetNull(CdfExternalId)),
  startTime: Type.Optional(CdfSetNull(CdfEpochMs)),
  endTime: Type.Optional(CdfSetNull(CdfEpochMs)),
  description: Type.Optional(CdfSetNull(Type.String())),
  source: Type.Optional(CdfSetNull(Type.String())),
  type: Type.Optional(CdfSetNull(Type.String())),
  subtype: Type.Optional(CdfSetNull(Type.String())),
  metadata: Type.Optional(CdfMetadataUpdate),
  assetIds: Type.Optional(CdfIdListUpdate),
  dataSetId: Type.Optional(CdfSetNull(CdfId)),
}, { additionalProperties: false });
export type CdfEventUpdate = Static<typeof CdfEventUpdate>;
export const CdfEventUpdateRequest = Type.Object({
  items: Type.Array(Type.Union([
    Type.Object({ id: CdfId, update: CdfEventUpdate }, { additionalProperties: false }),
    Type.Object({ externalId: CdfExternalId, update: CdfEventUpdate }, { additionalProperties: false }),
  ]), { minItems: 1, maxItems: CdfItemsMax }),
}, { additionalProperties: false });
export type CdfEventUpdateRequest = Static<typeof CdfEventUpdateRequest>;

export const CdfDeleteRequest = Type.Object({
  items: Type.Array(CdfIdentifier, { minItems: 1, maxItems: CdfItemsMax }),
  ignoreUnknownIds: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });
export type CdfDeleteRequest = Static<typeof CdfDeleteRequest>;

export const CdfEventAggregateRequest = Type.Object({
  filter: Type.Optional(CdfEventFilter),
  aggregate: Type.Optional(Type.Union([Type.Literal('count'), Type.Literal('uniqueValues')])),
  fields: Type.Optional(Type.Array(Type.Union([Type.Literal('type'), Type.Literal('subtype'), Type.Literal('dataSetId')]), { minItems: 1, maxItems: 1 })),
}, { additionalProperties: false });
export type CdfEventAggregateRequest = Static<typeof CdfEventAggregateRequest>;
export const CdfEventAggregateResponse = Type.Object({
  items: Type.Array(Type.Object({ count: Type.Integer(), value: Type.Optional(Type.Union([Type.String(), Type.Integer()])) })),
});
