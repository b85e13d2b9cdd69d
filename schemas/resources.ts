// Resources (SPEC "Resources"; issue 8 fixes the shapes, CDF-asset-like): nodes of the asset
// graph, created and updated together with relations, hanging from root resources.
import { Type, type Static } from '@sinclair/typebox';
import { CAPS, Description, EpochMs, ExternalId, Id, IdentifierSchema, Labels, Metadata, PagedResponse, ItemsResponse } from './common.ts';
import { Edge, RelationCreate } from './edges.ts';

/** SPEC Limits: nodes and relations in /resources/create and /resources/update, each. */
export const GRAPH_ITEMS_PER_REQUEST_MAX = 1_000;

const Name = Type.String({ minLength: 1, maxLength: CAPS.nameCharsMax });
const GeoLocation = Type.Unknown({ description: 'raw GeoJSON (RFC 7946: a geometry, Feature or FeatureCollection), up to 65,536 characters as JSON; validated' });

export const Resource = Type.Object({
  id: Id,
  externalId: ExternalId,
  name: Type.String(),
  description: Type.Optional(Type.String()),
  isRoot: Type.Boolean(),
  dataSetId: Type.Optional(Id),
  labels: Type.Array(Type.String()),
  metadata: Type.Record(Type.String(), Type.String()),
  geoLocation: Type.Optional(Type.Unknown()),
  createdTime: EpochMs,
  lastUpdatedTime: EpochMs,
}, { description: 'A resource of the asset graph. Read-only: id, createdTime, lastUpdatedTime.' });
export type Resource = Static<typeof Resource>;

export const ResourceCreate = Type.Object({
  externalId: ExternalId,
  name: Name,
  description: Type.Optional(Description),
  isRoot: Type.Optional(Type.Boolean({ default: false, description: 'a root of the graph; every other resource must be reachable from a root' })),
  dataSetId: Type.Optional(Id),
  dataSetExternalId: Type.Optional(ExternalId),
  labels: Type.Optional(Labels),
  metadata: Type.Optional(Metadata),
  geoLocation: Type.Optional(GeoLocation),
}, { additionalProperties: false });
export type ResourceCreate = Static<typeof ResourceCreate>;

export const ResourceCreateRequest = Type.Object({
  nodes: Type.Optional(Type.Array(ResourceCreate, { maxItems: GRAPH_ITEMS_PER_REQUEST_MAX })),
  relations: Type.Optional(Type.Array(RelationCreate, { maxItems: GRAPH_ITEMS_PER_REQUEST_MAX })),
}, { additionalProperties: false });
export type ResourceCreateRequest = Static<typeof ResourceCreateRequest>;

export const ResourceGraphResponse = Type.Object({ items: Type.Array(Resource), relations: Type.Array(Edge) });

const SetOrNull = <T extends ReturnType<typeof Type.String> | typeof Id | typeof GeoLocation>(value: T) =>
  Type.Object({ set: Type.Optional(value), setNull: Type.Optional(Type.Boolean()) }, { additionalProperties: false });

export const ResourceUpdateFields = Type.Object({
  externalId: Type.Optional(Type.Object({ set: Type.Optional(ExternalId), setNull: Type.Optional(Type.Boolean()) }, { additionalProperties: false })),
  name: Type.Optional(Type.Object({ set: Type.Optional(Name), setNull: Type.Optional(Type.Boolean()) }, { additionalProperties: false })),
  description: Type.Optional(SetOrNull(Description)),
  isRoot: Type.Optional(Type.Object({ set: Type.Boolean() }, { additionalProperties: false })),
  dataSetId: Type.Optional(SetOrNull(Id)),
  geoLocation: Type.Optional(SetOrNull(GeoLocation)),
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

export const ResourceUpdateItem = Type.Object({
  id: Type.Optional(Id),
  externalId: Type.Optional(ExternalId),
  update: ResourceUpdateFields,
}, { additionalProperties: false });
export type ResourceUpdateItem = Static<typeof ResourceUpdateItem>;

export const ResourceUpdateRequest = Type.Object({
  nodes: Type.Optional(Type.Array(ResourceUpdateItem, { maxItems: GRAPH_ITEMS_PER_REQUEST_MAX })),
  relations: Type.Optional(Type.Array(RelationCreate, { maxItems: GRAPH_ITEMS_PER_REQUEST_MAX, description: 'relations to add' })),
}, { additionalProperties: false });
export type ResourceUpdateRequest = Static<typeof ResourceUpdateRequest>;

const PatternList = Type.Union([Type.String({ maxLength: CAPS.externalIdCharsMax }), Type.Array(Type.String({ maxLength: CAPS.externalIdCharsMax }), { maxItems: 100 })]);
const DataSetRef = Type.Union([Type.Object({ id: Id }, { additionalProperties: false }), Type.Object({ externalId: ExternalId }, { additionalProperties: false })]);
const TimeRange = Type.Object({ min: Type.Optional(EpochMs), max: Type.Optional(EpochMs) }, { additionalProperties: false });

export const ResourceFilter = Type.Object({
  id: Type.Optional(Type.Union([Id, Type.Array(Id, { maxItems: 10_000 })])),
  externalId: Type.Optional(PatternList),
  name: Type.Optional(PatternList),
  description: Type.Optional(PatternList),
  isRoot: Type.Optional(Type.Boolean()),
  dataSetId: Type.Optional(Type.Union([DataSetRef, Type.Array(DataSetRef, { maxItems: 100 })])),
  labels: Type.Optional(Type.Union([Type.String({ maxLength: CAPS.labelCharsMax }), Type.Array(Type.String({ maxLength: CAPS.labelCharsMax }), { maxItems: CAPS.labelsMax })])),
  metadata: Type.Optional(Type.Record(Type.String({ maxLength: CAPS.metadataKeyCharsMax }), Type.Union([Type.String({ maxLength: CAPS.metadataValueCharsMax }), Type.Null()]), { maxProperties: CAPS.metadataEntriesMax })),
  createdTime: Type.Optional(TimeRange),
  lastUpdatedTime: Type.Optional(TimeRange),
}, { additionalProperties: false });
export type ResourceFilter = Static<typeof ResourceFilter>;

const SortProperty = Type.Union(['id', 'externalId', 'name', 'description', 'createdTime', 'lastUpdatedTime', 'dataSetId'].map((p) => Type.Literal(p)));
const SortItem = Type.Object({ property: SortProperty, order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])) }, { additionalProperties: false });

export const ResourceFilterRequest = Type.Object({
  filter: Type.Optional(ResourceFilter),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 1000 })),
  sort: Type.Optional(Type.Union([SortItem, Type.Array(SortItem, { minItems: 1, maxItems: 1 })])),
  cursor: Type.Optional(Type.String()),
}, { additionalProperties: false });
export type ResourceFilterRequest = Static<typeof ResourceFilterRequest>;

export const ResourceSearchRequest = Type.Object({
  search: Type.Object({ query: Type.String({ minLength: 1, maxLength: 1000 }) }, { additionalProperties: false }),
  filter: Type.Optional(Type.Unknown({ description: 'accepted and ignored (SPEC: the resource search ignores its filter)' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000, default: 100 })),
}, { additionalProperties: false });
export type ResourceSearchRequest = Static<typeof ResourceSearchRequest>;

export const ResourceIdentifiers = Type.Object({ items: Type.Array(IdentifierSchema, { minItems: 1, maxItems: 10_000 }) }, { additionalProperties: false });
export const ResourceCollection = ItemsResponse(Resource);
export const ResourcePage = PagedResponse(Resource);
export const ResourceWithEdges = Type.Object({ item: Resource, relations: Type.Array(Edge) });
