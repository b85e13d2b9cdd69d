// Events (SPEC "Event", "Events"): the operational log. Unknown properties are
// ignored (SPEC: the removed relatedResourceIds / relatedResourceExternalIds yield success with
// the relations dropped), so the request objects do not forbid additional properties.
import { Type, type Static } from '@sinclair/typebox';
import { CAPS, EpochMs, Metadata } from './common.ts';

export const EVENT_EXTERNAL_ID = { min: 3, max: 256 };
export const EVENT_CATEGORY = { min: 3, max: 128 };
export const EVENT_SOURCE = { min: 2, max: 128 };
/** SPEC: the update path rejects a source over 64 characters. */
export const EVENT_SOURCE_UPDATE_MAX = 64;

const Uuid = Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$', description: 'a UUID (v7 when the server assigns it)' });
/** Epoch ms, or an ISO-8601 instant (SPEC: accepted on input, returned as epoch ms). */
export const EventInstant = Type.Union([EpochMs, Type.String({ minLength: 1, maxLength: 64 })], { description: 'epoch ms or an ISO-8601 instant' });
const NodeIdInput = Type.Union([Type.Integer({ minimum: 1, maximum: 9007199254740991 }), Type.String({ pattern: '^[1-9][0-9]{0,15}$' })], { description: 'a node id, as a number or a string' });
const ExternalIdText = Type.String({ minLength: 1, maxLength: CAPS.externalIdCharsMax });

export const RelatedResourceInput = Type.Object({
  id: Type.Optional(NodeIdInput),
  externalId: Type.Optional(ExternalIdText),
}, { description: '`id`, `externalId` or both (both must name one node)' });

/** Metadata as sent, with SPEC's caps; an empty key is dropped, not rejected (by the engine). */
const EventMetadata = Metadata;

export const EventCreate = Type.Object({
  id: Type.Optional(Uuid),
  externalId: Type.String({ minLength: EVENT_EXTERNAL_ID.min, maxLength: EVENT_EXTERNAL_ID.max }),
  eventTime: EventInstant,
  type: Type.Optional(Type.String({ minLength: EVENT_CATEGORY.min, maxLength: EVENT_CATEGORY.max })),
  subType: Type.Optional(Type.String({ minLength: EVENT_CATEGORY.min, maxLength: EVENT_CATEGORY.max })),
  status: Type.Optional(Type.String({ minLength: EVENT_CATEGORY.min, maxLength: EVENT_CATEGORY.max })),
  source: Type.Optional(Type.String({ minLength: EVENT_SOURCE.min, maxLength: EVENT_SOURCE.max })),
  description: Type.Optional(Type.String({ maxLength: CAPS.descriptionCharsMax })),
  metadata: Type.Optional(EventMetadata),
  dataSetId: Type.Optional(NodeIdInput),
  relatedResources: Type.Optional(Type.Array(RelatedResourceInput, { maxItems: 100 })),
});
export type EventCreate = Static<typeof EventCreate>;
export const EventCreateRequest = Type.Object({ items: Type.Array(EventCreate, { minItems: 1, maxItems: CAPS.itemsPerRequestMax }) });

export const Event = Type.Object({
  id: Type.String(),
  externalId: Type.String(),
  eventTime: EpochMs,
  type: Type.Optional(Type.String()),
  subType: Type.Optional(Type.String()),
  status: Type.Optional(Type.String()),
  source: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  metadata: Type.Record(Type.String(), Type.String()),
  dataSetId: Type.Optional(Type.String({ description: 'string-encoded number' })),
  relatedResources: Type.Array(Type.Object({ id: Type.String(), externalId: Type.String() })),
  createdTime: EpochMs,
  lastUpdatedTime: EpochMs,
});
export type Event = Static<typeof Event>;
export const EventCollection = Type.Object({ items: Type.Array(Event) });
export const EventPage = Type.Object({ items: Type.Array(Event), nextCursor: Type.Optional(Type.String()) });

export const EventIdentifier = Type.Union([
  Type.Object({ id: Uuid, externalId: Type.Optional(ExternalIdText) }),
  Type.Object({ externalId: ExternalIdText, id: Type.Optional(Uuid) }),
]);
export const EventIdentifiers = Type.Object({ items: Type.Array(EventIdentifier, { minItems: 1, maxItems: CAPS.itemsPerRequestMax }) });

const PatternList = Type.Union([Type.String({ maxLength: 512 }), Type.Array(Type.String({ maxLength: 512 }), { maxItems: 1_000 })]);
const DataSetRef = Type.Union([Type.Object({ id: NodeIdInput }), Type.Object({ externalId: ExternalIdText })]);
const NodeRef = Type.Union([Type.Object({ id: NodeIdInput }), Type.Object({ externalId: ExternalIdText })]);
const MetadataPairs = Type.Record(Type.String(), Type.String());
/** SPEC events filter rules 1 and 4: a bare object or a list of them, every pair of every entry present. */
const MetadataFilter = Type.Union([MetadataPairs, Type.Array(MetadataPairs, { maxItems: 100 })], {
  description: 'key/value pairs every matching event has; a list of such objects: every entry must match',
});

export const EventFilter = Type.Object({
  externalId: Type.Optional(PatternList),
  type: Type.Optional(PatternList),
  subType: Type.Optional(PatternList),
  status: Type.Optional(PatternList),
  source: Type.Optional(PatternList),
  metadata: Type.Optional(MetadataFilter),
  dataSetId: Type.Optional(Type.Union([DataSetRef, Type.Array(DataSetRef, { maxItems: 1_000 }), Type.Null()])),
  relatedResources: Type.Optional(Type.Union([NodeRef, Type.Array(NodeRef, { maxItems: 100 })])),
  eventTime: Type.Optional(Type.Object({ min: Type.Optional(EventInstant), max: Type.Optional(EventInstant) })),
  createdTime: Type.Optional(Type.Object({ min: Type.Optional(EpochMs), max: Type.Optional(EpochMs) })),
  lastUpdatedTime: Type.Optional(Type.Object({ min: Type.Optional(EpochMs), max: Type.Optional(EpochMs) })),
});
export type EventFilter = Static<typeof EventFilter>;

export const EventFilterRequest = Type.Object({
  filter: Type.Optional(EventFilter),
  advancedFilter: Type.Optional(Type.Unknown({ description: '`and`, `or`, `not`; leaves `equals`, `prefix` ({ property: [name], value }) and `in` ({ property: [name], values })' })),
  sort: Type.Optional(Type.Unknown({ description: '{ property: [name], order } or a list of them (only the first is used)' })),
  cursor: Type.Optional(Type.String({ maxLength: 4096 })),
  limit: Type.Optional(Type.Integer({ maximum: CAPS.itemsPerRequestMax, description: 'default 100, max 10,000; zero or negative falls back to 100' })),
});
export type EventFilterRequest = Static<typeof EventFilterRequest>;

export const EventSearchRequest = Type.Object({
  search: Type.Object({ query: Type.String({ description: '3-140 letters, digits and spaces' }) }),
  filter: Type.Optional(Type.Unknown({ description: 'accepted and ignored' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000, default: 100 })),
});
export type EventSearchRequest = Static<typeof EventSearchRequest>;

const SetNull = <T extends ReturnType<typeof Type.String> | typeof NodeIdInput | typeof EventMetadata | typeof EventInstant>(value: T) =>
  Type.Object({ set: Type.Optional(value), setNull: Type.Optional(Type.Boolean()) });

export const EventUpdate = Type.Object({
  externalId: Type.Optional(Type.Object({ set: Type.Optional(Type.String({ minLength: EVENT_EXTERNAL_ID.min, maxLength: EVENT_EXTERNAL_ID.max })), setNull: Type.Optional(Type.Boolean()) })),
  description: Type.Optional(SetNull(Type.String({ maxLength: CAPS.descriptionCharsMax }))),
  type: Type.Optional(SetNull(Type.String({ minLength: EVENT_CATEGORY.min, maxLength: EVENT_CATEGORY.max }))),
  subType: Type.Optional(SetNull(Type.String({ minLength: EVENT_CATEGORY.min, maxLength: EVENT_CATEGORY.max }))),
  status: Type.Optional(SetNull(Type.String({ minLength: EVENT_CATEGORY.min, maxLength: EVENT_CATEGORY.max }))),
  source: Type.Optional(SetNull(Type.String({ minLength: EVENT_SOURCE.min, maxLength: EVENT_SOURCE.max }))),
  dataSetId: Type.Optional(SetNull(NodeIdInput)),
  eventTime: Type.Optional(Type.Object({ set: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'ISO-8601' })), setNull: Type.Optional(Type.Boolean()) })),
  metadata: Type.Optional(Type.Object({ set: Type.Optional(EventMetadata), setNull: Type.Optional(Type.Boolean()), add: Type.Optional(EventMetadata), remove: Type.Optional(Type.Array(Type.String(), { maxItems: CAPS.metadataEntriesMax })) })),
  relatedResources: Type.Optional(Type.Object({
    set: Type.Optional(Type.Array(RelatedResourceInput, { maxItems: 100 })), setNull: Type.Optional(Type.Boolean()),
    add: Type.Optional(Type.Array(RelatedResourceInput, { maxItems: 100 })), remove: Type.Optional(Type.Array(RelatedResourceInput, { maxItems: 100 })),
  })),
});
export const EventUpdateItem = Type.Object({ id: Type.Optional(Uuid), externalId: Type.Optional(ExternalIdText), update: EventUpdate });
export type EventUpdateItem = Static<typeof EventUpdateItem>;
export const EventUpdateRequest = Type.Object({ items: Type.Array(EventUpdateItem, { minItems: 1, maxItems: CAPS.itemsPerRequestMax }) });

export const DistinctValues = Type.Object({ items: Type.Array(Type.String()) });

/** SPEC: a distinct-value `limit` is clamped to 1-10,000 (not refused); only a non-integer is a 400. */
const DistinctLimit = Type.Integer({ default: 1_000, description: 'default 1,000; clamped to 1-10,000' });
/** GET /events/list/{column}. */
export const DistinctListQuery = Type.Object({ limit: DistinctLimit });
/** GET /events/search/{column}. */
export const DistinctSearchQuery = Type.Object({
  q: Type.String({ minLength: 1, description: 'the values containing this (case-insensitive)' }),
  limit: DistinctLimit,
});
