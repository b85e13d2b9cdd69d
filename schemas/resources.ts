// Resources (SPEC "Resources"; the shapes SPEC leaves open, CDF-asset-like, in docs/api.md): nodes of the asset
// graph, created and updated together with relations, hanging from root resources.
import { Type, type Static } from '@sinclair/typebox';
import {
  CAPS, DataSetRef, Description, EpochMs, ExternalId, Id, IdentifierSchema, ItemsResponse, Labels, LabelsFilter, LabelsUpdate, Metadata, MetadataFilter, MetadataUpdate,
  OneOrMany, PagedResponse, Pattern, SetOrNull, SortSchema, TimeRange,
} from './common.ts';
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

export const ResourceUpdateFields = Type.Object({
  externalId: Type.Optional(SetOrNull(ExternalId)),
  name: Type.Optional(SetOrNull(Name)),
  description: Type.Optional(SetOrNull(Description)),
  isRoot: Type.Optional(Type.Object({ set: Type.Boolean() }, { additionalProperties: false })),
  dataSetId: Type.Optional(SetOrNull(Id)),
  geoLocation: Type.Optional(SetOrNull(GeoLocation)),
  metadata: Type.Optional(MetadataUpdate),
  labels: Type.Optional(LabelsUpdate),
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

/** The time series filter's fields that resources have (the same rules), plus `description` patterns and `isRoot`. */
export const ResourceFilter = Type.Object({
  dataSetId: Type.Optional(OneOrMany(DataSetRef)),
  id: Type.Optional(OneOrMany(Id)),
  externalId: Type.Optional(OneOrMany(Pattern)),
  name: Type.Optional(OneOrMany(Pattern)),
  description: Type.Optional(OneOrMany(Pattern)),
  isRoot: Type.Optional(Type.Boolean()),
  labels: Type.Optional(LabelsFilter),
  metadata: Type.Optional(MetadataFilter),
  createdTime: Type.Optional(TimeRange),
  lastUpdatedTime: Type.Optional(TimeRange),
}, { additionalProperties: false });
export type ResourceFilter = Static<typeof ResourceFilter>;

export const SORTABLE_RESOURCE_PROPERTIES = ['id', 'externalId', 'name', 'description', 'createdTime', 'lastUpdatedTime', 'dataSetId'] as const;

export const ResourceFilterRequest = Type.Object({
  filter: Type.Optional(ResourceFilter),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 1000 })),
  sort: Type.Optional(SortSchema(SORTABLE_RESOURCE_PROPERTIES)),
  cursor: Type.Optional(Type.String({ maxLength: 2048 })),
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
