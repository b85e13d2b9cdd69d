// Subscriptions (SPEC "Subscription stream"; docs/api.md fixes the shapes SPEC leaves open): a
// subscription names its series by id or externalId, and with `dataSetId` covers every series
// in that data set and its descendants, including ones created later.
import { Type, type Static } from '@sinclair/typebox';
import { CAPS, Description, EpochMs, ExternalId, Id, IdentifierSchema, Items, ItemsResponse, PageQuery, PagedResponse } from './common.ts';

/** At most 10,000 series per subscription by id (engine/limits.ts SUBSCRIPTION_SERIES_MAX). */
export const SUBSCRIPTION_SERIES_MAX = 10_000;

const Name = Type.String({ minLength: 1, maxLength: CAPS.nameCharsMax });
const SeriesIds = Type.Array(Id, { maxItems: SUBSCRIPTION_SERIES_MAX });
const SeriesExternalIds = Type.Array(ExternalId, { maxItems: SUBSCRIPTION_SERIES_MAX });

export const Subscription = Type.Object({
  id: Id,
  externalId: ExternalId,
  name: Type.String(),
  description: Type.Optional(Type.String()),
  dataSetId: Type.Optional(Id),
  timeseriesCount: Type.Integer({ minimum: 0, description: 'series the subscription names by id (those covered through dataSetId are not counted)' }),
  createdTime: EpochMs,
  lastUpdatedTime: EpochMs,
}, { description: 'A subscription: the series it names, plus with `dataSetId` every series in that data set and its descendants.' });
export type Subscription = Static<typeof Subscription>;

export const SubscriptionCreate = Type.Object({
  externalId: ExternalId,
  name: Name,
  description: Type.Optional(Description),
  timeseriesIds: Type.Optional(SeriesIds),
  timeseriesExternalIds: Type.Optional(SeriesExternalIds),
  dataSetId: Type.Optional(Id),
}, { additionalProperties: false, description: 'At most 10,000 series by id and externalId together; unknown or unreadable series and data sets are a 400.' });
export type SubscriptionCreate = Static<typeof SubscriptionCreate>;

export const SubscriptionCreateRequest = Items(SubscriptionCreate);
export const SubscriptionCollection = ItemsResponse(Subscription);
export const SubscriptionPage = PagedResponse(Subscription);

const AddRemove = <T extends typeof SeriesIds | typeof SeriesExternalIds>(list: T) =>
  Type.Object({ add: Type.Optional(list), remove: Type.Optional(list) }, { additionalProperties: false });

export const SubscriptionUpdateItem = Type.Object({
  id: Type.Optional(Id),
  externalId: Type.Optional(ExternalId),
  update: Type.Object({
    name: Type.Optional(Type.Object({ set: Name }, { additionalProperties: false })),
    description: Type.Optional(Type.Object({ set: Type.Optional(Description), setNull: Type.Optional(Type.Boolean()) }, { additionalProperties: false })),
    dataSetId: Type.Optional(Type.Object({ set: Type.Optional(Id), setNull: Type.Optional(Type.Boolean()) }, { additionalProperties: false })),
    timeseriesIds: Type.Optional(AddRemove(SeriesIds)),
    timeseriesExternalIds: Type.Optional(AddRemove(SeriesExternalIds)),
  }, { additionalProperties: false }),
}, { additionalProperties: false });
export type SubscriptionUpdateItem = Static<typeof SubscriptionUpdateItem>;
export const SubscriptionUpdateRequest = Items(SubscriptionUpdateItem);

export const SubscriptionIdentifiers = Type.Object({
  items: Type.Array(IdentifierSchema, { minItems: 1, maxItems: CAPS.itemsPerRequestMax }),
}, { additionalProperties: false });

export const SubscriptionDeleteRequest = Type.Object({
  items: Type.Array(IdentifierSchema, { minItems: 1, maxItems: CAPS.itemsPerRequestMax }),
}, { additionalProperties: false });

export const SubscriptionListRequest = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  cursor: Type.Optional(Type.String({ maxLength: 4096 })),
}, { additionalProperties: false });
export type SubscriptionListRequest = Static<typeof SubscriptionListRequest>;

/** The subscription stream's server frame item (SPEC "Subscription stream"). */
export const SubscriptionDatapointsItem = Type.Object({
  id: Id,
  externalId: ExternalId,
  valueType: Type.String(),
  datapoints: Type.Array(Type.Object({ timestamp: Type.String({ description: 'ISO-8601 instant' }), value: Type.String() })),
});

/** GET /subscriptions. */
export const SubscriptionListQuery = PageQuery(1000, 100);
