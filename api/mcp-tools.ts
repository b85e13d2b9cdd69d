// The tools /mcp offers agents: SPEC's five edge tools, and what an agent needs to
// find its way around a plant: resources, time series and their data points. A tool is a
// route handler in another envelope: a typed input (TypeBox, so the input schema agents see
// is the one we validate with), one engine call, a result. Each says whether it reads or
// writes, which is what it is charged to the caller's rate budget as.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { DatapointEngine } from '../engine/datapoints/datapoint-engine.ts';
import type { EdgeEngine, ResourceEngine } from '../engine/graph/graph-engine.ts';
import type { Access } from '../engine/grants/access.ts';
import type { TimeSeriesEngine } from '../engine/meta/meta-engine.ts';
import { Id, ExternalId } from '../schemas/common.ts';
import { DatapointListRequest } from '../schemas/datapoints.ts';
import { RelationCreate, RelationshipTypeCreate } from '../schemas/edges.ts';
import { compileValidator, type Validator } from './validation.ts';

/** What the tools call. */
export interface McpEngines {
  edges: EdgeEngine;
  resources: ResourceEngine;
  timeseries: TimeSeriesEngine;
  datapoints: DatapointEngine;
}

export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: TSchema;
  budget: 'read' | 'write';
  /** Throws BadRequestError / UnprocessableError naming the wrong arguments. */
  validate: Validator;
  /** The structured result (an object: MCP's structuredContent). */
  call(access: Access, args: unknown): Promise<Record<string, unknown>>;
}

function tool<S extends TSchema>(def: { name: string; title: string; description: string; input: S; budget: 'read' | 'write'; call(access: Access, args: Static<S>): Promise<Record<string, unknown>> }): McpTool {
  return {
    name: def.name, title: def.title, description: def.description, inputSchema: def.input, budget: def.budget,
    validate: compileValidator(def.input, `arguments of ${def.name}`),
    call: (access, args) => def.call(access, args as Static<S>),
  };
}

/** At most this many items per tool call: an agent reads the answer, keep it to a screenful or a few. */
const TOOL_ITEMS_MAX = 1_000;

/** The JSON chunks a data point read answers with, as one value. */
function parseChunks(chunks: Uint8Array[]): Record<string, unknown> {
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}

export function mcpTools(engines: McpEngines): McpTool[] {
  const { edges, resources, timeseries, datapoints } = engines;
  return [
    tool({
      name: 'edge_get', title: 'Get an edge', budget: 'read',
      description: 'One edge (relationship) by id: { id, start, end, type, relationshipTypeId, description, metadata }. Refused (isError) when missing or when an end is unreadable.',
      input: Type.Object({ id: Id }, { additionalProperties: false }),
      call: async (access, { id }) => ({ edge: await edges.get(access, id) }),
    }),
    tool({
      name: 'edge_create', title: 'Create edges', budget: 'write',
      description: 'Creates directed, typed edges between resources, time series and data sets (all-or-nothing), with every rule of POST /edges/create: ends by fromId/fromExternalId and toId/toExternalId, the type by relationshipType (upper-cased; an unknown name creates it) or relationshipTypeId; a relation into a data set must be BELONGS_TO; a duplicate (start, end, type) is refused.',
      input: Type.Object({ items: Type.Array(RelationCreate, { minItems: 1, maxItems: TOOL_ITEMS_MAX }) }, { additionalProperties: false }),
      call: async (access, { items }) => ({ items: await edges.create(access, items) }),
    }),
    tool({
      name: 'edge_delete', title: 'Delete edges', budget: 'write',
      description: 'Deletes edges by id (idempotent: unknown ids are skipped). Refused when it would leave a resource unreachable from every root; the refusal names them.',
      input: Type.Object({ ids: Type.Array(Id, { minItems: 1, maxItems: TOOL_ITEMS_MAX }) }, { additionalProperties: false }),
      async call(access, { ids }) {
        await edges.delete(access, ids);
        return { deleted: ids };
      },
    }),
    tool({
      name: 'edge_list_types', title: 'List relationship types', budget: 'read',
      description: 'The tenant\'s relationship type catalogue: { id, name, description, i18nCode }, by name.',
      input: Type.Object({}, { additionalProperties: false }),
      call: async (access) => ({ items: await edges.listTypes(access) }),
    }),
    tool({
      name: 'edge_create_type', title: 'Register relationship types', budget: 'write',
      description: 'Registers relationship types (one transaction). Names are snake-upper-cased (`Flows To` becomes FLOWS_TO), at most 128 characters; a name that exists (ignoring case) is refused and nothing is created.',
      input: Type.Object({ items: Type.Array(RelationshipTypeCreate, { minItems: 1, maxItems: TOOL_ITEMS_MAX }) }, { additionalProperties: false }),
      call: async (access, { items }) => ({ items: await edges.createTypes(access, items) }),
    }),
    tool({
      name: 'resource_search', title: 'Search resources', budget: 'read',
      description: 'Fuzzy search over resources\' name, externalId and description (typos and partial words match), ranked by relevance. Use it to find equipment (sites, lines, pumps, sensors) by what it is called.',
      input: Type.Object({ query: Type.String({ minLength: 1, maxLength: 1000 }), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 20 })) }, { additionalProperties: false }),
      call: async (access, { query, limit }) => ({ items: await resources.search(access, { search: { query }, limit: limit ?? 20 }) }),
    }),
    tool({
      name: 'resource_get', title: 'Get a resource with its edges', budget: 'read',
      description: 'One resource by id or externalId, with its readable edges in both directions (at most 1,000): follow `end` of edges starting here to go down the hierarchy, `start` of edges ending here to go up.',
      input: Type.Object({ id: Type.Optional(Id), externalId: Type.Optional(ExternalId) }, { additionalProperties: false }),
      call: async (access, { id, externalId }) => ({ ...(await resources.getWithEdges(access, { ...(id !== undefined ? { id } : {}), ...(externalId !== undefined ? { externalId } : {}) })) }),
    }),
    tool({
      name: 'timeseries_search', title: 'Search time series', budget: 'read',
      description: 'Fuzzy search over time series\' name, externalId and description, ranked by relevance; `filter` takes the POST /timeseries/filter fields (for example { "unit": "bar" } or { "dataSetId": { "externalId": "plant" } }).',
      input: Type.Object({
        query: Type.String({ minLength: 1, maxLength: 1000 }),
        filter: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 20 })),
      }, { additionalProperties: false }),
      call: async (access, { query, filter, limit }) => ({ items: await timeseries.search(access, { search: { query }, filter: filter as never, limit: limit ?? 20 }) }),
    }),
    tool({
      name: 'datapoints_list', title: 'Read data points', budget: 'read',
      description: 'Data points of time series, raw or aggregated, exactly as POST /timeseries/data/list: items of { id | externalId, start, end (epoch ms or ISO-8601), limit, aggregates (AVG, MIN, MAX, COUNT, SUM), granularity (a count and a unit: 30s, 15m, 2h, 1d, 1w, 1mo, 1q, 1y), timeZone (IANA name or offset, for hour and longer buckets) }. Values are exact decimal strings.',
      input: DatapointListRequest,
      call: async (access, request) => parseChunks(await datapoints.list(access, request)),
    }),
    tool({
      name: 'datapoints_latest', title: 'Latest data points', budget: 'read',
      description: 'The latest point (highest timestamp) of each named time series; series without points are omitted.',
      input: Type.Object({ items: Type.Array(Type.Object({ id: Type.Optional(Id), externalId: Type.Optional(ExternalId) }, { additionalProperties: false }), { minItems: 1, maxItems: TOOL_ITEMS_MAX }) }, { additionalProperties: false }),
      call: async (access, request) => parseChunks(await datapoints.latest(access, request)),
    }),
  ];
}
