// Edges (relationships) and relationship types (SPEC "Edge (relationship)", "Relationship
// type", "Edges"). Writes name ends by fromId/fromExternalId and toId/toExternalId; reads say
// start and end.
import { Type, type Static } from '@sinclair/typebox';
import { CAPS, Description, EpochMs, ExternalId, Id, Items, ItemsResponse, Metadata } from './common.ts';

/** SPEC: names registered through the types endpoint are capped at 128 characters. */
export const RELATIONSHIP_TYPE_NAME_CHARS_MAX = 128;

export const Edge = Type.Object({
  id: Id,
  start: Id,
  end: Id,
  type: Type.String({ description: 'relationship type name, upper-cased' }),
  relationshipTypeId: Id,
  description: Type.Optional(Type.String()),
  metadata: Type.Record(Type.String(), Type.String()),
  createdTime: EpochMs,
  lastUpdatedTime: EpochMs,
}, { description: 'A directed, typed edge from `start` to `end`; unique per (start, end, type).' });
export type Edge = Static<typeof Edge>;

export const RelationCreate = Type.Object({
  fromId: Type.Optional(Id),
  fromExternalId: Type.Optional(ExternalId),
  toId: Type.Optional(Id),
  toExternalId: Type.Optional(ExternalId),
  relationshipType: Type.Optional(Type.String({ minLength: 1, maxLength: CAPS.nameCharsMax, description: 'upper-cased (only); an unknown name creates the type' })),
  relationshipTypeId: Type.Optional(Id),
  description: Type.Optional(Description),
  metadata: Type.Optional(Metadata),
}, { additionalProperties: false, description: 'one of fromId / fromExternalId, one of toId / toExternalId, one of relationshipType / relationshipTypeId' });
export type RelationCreate = Static<typeof RelationCreate>;

export const EdgeCreateRequest = Items(RelationCreate);
export const EdgeCollection = ItemsResponse(Edge);
export const EdgeIdsRequest = Items(Type.Object({ id: Id }, { additionalProperties: false }));

/** An end node of an edge as byids returns it: its kind says which record family it is. */
export const GraphNode = Type.Object({
  id: Id,
  kind: Type.Union([Type.Literal('resource'), Type.Literal('timeseries'), Type.Literal('dataset')]),
  externalId: Type.String(),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  isRoot: Type.Optional(Type.Boolean({ description: 'resources only' })),
  dataSetId: Type.Optional(Id),
  labels: Type.Optional(Type.Array(Type.String())),
  metadata: Type.Record(Type.String(), Type.String()),
  createdTime: EpochMs,
  lastUpdatedTime: EpochMs,
}, { description: 'A node of the graph: a resource, a time series or a data set (`kind`), with its common fields.' });
export type GraphNode = Static<typeof GraphNode>;

export const EdgeGraph = Type.Object({
  relations: Type.Array(Edge),
  nodes: Type.Array(GraphNode),
}, { description: 'The edges asked for under `relations` and their end nodes under `nodes` (each once)' });

/** Edges page size without a `limit`, and at most. */
export const EDGE_FILTER_LIMIT_DEFAULT = 100;
export const EDGE_FILTER_LIMIT_MAX = 1000;

export const EdgeFilterRequest = Type.Object({
  filter: Type.Optional(Type.Object({
    startId: Type.Optional(Id),
    endId: Type.Optional(Id),
    type: Type.Optional(Type.String({ minLength: 1, maxLength: RELATIONSHIP_TYPE_NAME_CHARS_MAX, description: 'the type name, compared upper-cased as `/edges/create` stores it' })),
  }, { additionalProperties: false })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: EDGE_FILTER_LIMIT_MAX, default: EDGE_FILTER_LIMIT_DEFAULT })),
  cursor: Type.Optional(Type.String({ maxLength: 4096 })),
}, { additionalProperties: false });
export type EdgeFilterRequest = Static<typeof EdgeFilterRequest>;

export const EdgePage = Type.Object({
  items: Type.Array(Edge),
  nodes: Type.Array(GraphNode, { description: 'the end nodes of the page\'s edges, each once, by id' }),
  nextCursor: Type.Optional(Type.String()),
});

export const RelationshipType = Type.Object({
  id: Id,
  name: Type.String(),
  description: Type.Optional(Type.String()),
  i18nCode: Type.Optional(Type.String()),
});
export type RelationshipType = Static<typeof RelationshipType>;

export const RelationshipTypeCreate = Type.Object({
  name: Type.String({ minLength: 1, maxLength: RELATIONSHIP_TYPE_NAME_CHARS_MAX, description: 'snake-upper-cased: `Flows To`, `flows to` and `FLOWS_TO` are one type' }),
  description: Type.Optional(Description),
  i18nCode: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
}, { additionalProperties: false });
export type RelationshipTypeCreate = Static<typeof RelationshipTypeCreate>;

export const RelationshipTypeCreateRequest = Items(RelationshipTypeCreate);
export const RelationshipTypeCollection = ItemsResponse(RelationshipType);
