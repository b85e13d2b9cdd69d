// Function records (SPEC names POST /functions/create and leaves the shape open; docs/api.md
// "Functions"): list, byids, create, update and delete, with the rules of the time series
// records. The schemas are this family's own, built from schemas/common.ts; the expression
// language is documented with its parser.
import { Type } from '@sinclair/typebox';
import {
  DATAPOINTS_LIMIT_DEFAULT, DATAPOINTS_LIMIT_MAX, FUNCTION_CALL_POINTS_MAX, FUNCTION_EXPRESSION_CHARS_MAX, FUNCTION_LIST_LIMIT_DEFAULT, FUNCTION_LIST_LIMIT_MAX,
} from '../engine/limits.ts';
import { parseInstant } from '../engine/records/instant.ts';
import { Instant } from '../schemas/datapoints.ts';
import type { FunctionEngine } from '../engine/functions/function-engine.ts';
import {
  CAPS, Description, EpochMs, ExternalId, Id, IdentifierSchema, Items, ItemsResponse, Metadata, MetadataUpdate, PagedResponse, SetOrNull,
} from '../schemas/common.ts';
import { prefersOverJson } from './accept.ts';
import { ARROW_STREAM_MEDIA_TYPE as ARROW_STREAM } from './arrow-media.ts';
import { jsonRoute, noContent, ok, queryRoute, type Route } from './route.ts';

const TAG = 'Functions';

const Name = Type.String({ minLength: 1, maxLength: CAPS.nameCharsMax });
const Expression = Type.String({
  maxLength: FUNCTION_EXPRESSION_CHARS_MAX,
  description: `the computation, in the expression language (docs/api.md "Expressions"); at most ${FUNCTION_EXPRESSION_CHARS_MAX} characters (422 past it); one that does not parse is a 400 naming the item and the character position`,
});
const Target = Type.Object({ externalId: ExternalId }, {
  additionalProperties: false,
  description: 'the time series the function keeps up to date: an existing numeric series (not TEXT or MIXED) the writer may write, kept by no other function, not read by the expression; from then on written by the function alone, with the grants of the token that last set the expression or target',
});

const FunctionSchema = Type.Object({
  id: Id,
  externalId: ExternalId,
  name: Type.String(),
  description: Type.Optional(Type.String()),
  dataSetId: Type.Optional(Id),
  metadata: Type.Record(Type.String(), Type.String()),
  expression: Type.String(),
  target: Type.Union([Type.Object({ externalId: Type.String() }), Type.Null()], { description: 'the target as its writer named it; null when none' }),
  targetStatus: Type.Union([
    Type.Object({
      status: Type.Literal('stopped'),
      reason: Type.String({ description: 'why: the grants no longer reach the target or an input, an input or the target is gone, the expression cannot be evaluated' }),
      since: EpochMs,
    }),
    Type.Null(),
  ], { description: 'read-only: why keeping the target up to date stopped; null while it runs (and before it first ran). A later change of an input retries it, and a change of the expression or target clears it' }),
  createdTime: EpochMs,
  lastUpdatedTime: EpochMs,
}, { description: 'A function. Read-only fields: id, targetStatus, createdTime, lastUpdatedTime.' });

const FunctionCreate = Type.Object({
  externalId: ExternalId,
  name: Name,
  description: Type.Optional(Description),
  dataSetId: Type.Optional(Id),
  metadata: Type.Optional(Metadata),
  expression: Expression,
  target: Type.Optional(Type.Union([Target, Type.Null()])),
}, { additionalProperties: false });

const FunctionUpdateFields = Type.Object({
  externalId: Type.Optional(SetOrNull(ExternalId)),
  name: Type.Optional(SetOrNull(Name)),
  description: Type.Optional(SetOrNull(Description)),
  dataSetId: Type.Optional(SetOrNull(Id)),
  metadata: Type.Optional(MetadataUpdate),
  expression: Type.Optional(SetOrNull(Expression)),
  target: Type.Optional(SetOrNull(Target)),
}, { additionalProperties: false });

const FunctionUpdateItem = Type.Object({
  id: Type.Optional(Id),
  externalId: Type.Optional(ExternalId),
  update: FunctionUpdateFields,
});

const IgnoreUnknownIds = Type.Optional(Type.Boolean({ default: true, description: 'true (the default, as time series): unknown and unreadable functions are left out; false: they are a 404 listing them in `missing`' }));
const FunctionIdentifiersRequest = Type.Object({
  items: Type.Array(IdentifierSchema, { minItems: 1, maxItems: CAPS.itemsPerRequestMax }),
  ignoreUnknownIds: IgnoreUnknownIds,
});

/** GET /functions: the query of GET /timeseries. */
const FunctionListQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: FUNCTION_LIST_LIMIT_MAX, default: FUNCTION_LIST_LIMIT_DEFAULT, description: `page size, default ${FUNCTION_LIST_LIMIT_DEFAULT}, at most ${FUNCTION_LIST_LIMIT_MAX}` }),
  dataSetId: Type.Optional(Type.Integer({ minimum: 0, maximum: 9007199254740991, description: 'only functions in this data set or its descendants' })),
  cursor: Type.Optional(Type.String({ description: 'nextCursor of the previous page' })),
});

const FunctionCollection = ItemsResponse(FunctionSchema);

const FunctionCallRequest = Type.Object({
  items: Type.Array(Type.Object({
    id: Type.Optional(Id),
    externalId: Type.Optional(ExternalId),
    start: Type.Optional(Instant),
    end: Type.Optional(Instant),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: DATAPOINTS_LIMIT_MAX, description: `default ${DATAPOINTS_LIMIT_DEFAULT}; the items' limits together at most ${FUNCTION_CALL_POINTS_MAX}` })),
    cursor: Type.Optional(Type.String({ maxLength: 2048 })),
    granularity: Type.Optional(Type.String({ maxLength: 32, description: 'with aggregates: the buckets, as on data point reads (CDF\'s granularities, UTC); limit then counts buckets' })),
    aggregates: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { minItems: 1, maxItems: 10, description: 'with granularity: AVG, MIN, MAX, COUNT, SUM (or CDF\'s average, ...) of the function\'s points in each bucket, error points left out' })),
  }), { minItems: 1, maxItems: 100 }),
  ignoreUnknownIds: Type.Optional(Type.Boolean({ default: false })),
}, { description: 'start inclusive (default 0), end exclusive (default now), as epoch ms or ISO-8601.' });

const FunctionPoint = Type.Union([
  Type.Object({ timestamp: EpochMs, value: Type.Number() }),
  Type.Object({ timestamp: EpochMs, error: Type.String({ description: 'why the expression has no finite value at this timestamp' }) }),
  Type.Object({
    timestamp: EpochMs,
    average: Type.Optional(Type.Number()), min: Type.Optional(Type.Number()), max: Type.Optional(Type.Number()),
    count: Type.Optional(Type.Integer()), sum: Type.Optional(Type.Number()),
  }, { description: 'a bucket (items with aggregates): labelled by its start, the aggregates asked for' }),
]);
const FunctionCallResponse = ItemsResponse(Type.Object({ id: Id, externalId: Type.String(), datapoints: Type.Array(FunctionPoint), nextCursor: Type.Optional(Type.String()) }));

export function functionRoutes(functions: FunctionEngine): Route[] {
  return [
    queryRoute({
      method: 'get', path: '/functions', operationId: 'listFunctions', tag: TAG,
      summary: 'List functions, newest first',
      description: `As GET /timeseries: \`limit\` defaults to ${FUNCTION_LIST_LIMIT_DEFAULT}, max ${FUNCTION_LIST_LIMIT_MAX}; \`dataSetId\` includes descendant data sets, unreadable ones are silently omitted. A bad \`limit\`, \`dataSetId\` or \`cursor\` is a 400 naming it (the JSON error body: SPEC's plain-text 400 is GET /timeseries' own).`,
      query: FunctionListQuery,
      responses: {
        200: { description: 'functions, newest first', schema: PagedResponse(FunctionSchema) },
        400: { description: 'bad limit, dataSetId or cursor' },
      },
      handle: async ({ access, query }) => ok(await functions.list(access, { dataSetId: query.dataSetId, limit: query.limit, cursor: query.cursor })),
    }),
    jsonRoute({
      method: 'post', path: '/functions/byids', operationId: 'functionsByIds', tag: TAG,
      summary: 'Retrieve functions by id or externalId',
      body: FunctionIdentifiersRequest,
      responses: {
        200: { description: 'found functions, in request order, each once', schema: FunctionCollection },
        400: { description: 'invalid request' }, 404: { description: 'with `ignoreUnknownIds: false`: unknown or unreadable functions, listed in `missing`' },
      },
      handle: async ({ access, body }) => ok({ items: await functions.byIds(access, body.items, body.ignoreUnknownIds ?? true) }),
    }),
    jsonRoute({
      method: 'post', path: '/functions/call', operationId: 'callFunctions', tag: TAG,
      summary: 'Evaluate functions over a window, a page of points per item with a cursor',
      description: 'Each item\'s function evaluated as the caller, who must read every series its expression names (an unreadable one is unknown: a 404 listing it). The points of [start, end) ascending, `{ timestamp, value }` or `{ timestamp, error }` where the expression has no finite value; with `granularity` and `aggregates`, buckets of those points instead (`{ timestamp, average?, min?, max?, count?, sum? }`, error points left out, `limit` counting buckets); `nextCursor` while more follow (send it back as `cursor`). Unknown or unreadable functions are a 404 listing `missing` unless `ignoreUnknownIds`.',
      body: FunctionCallRequest,
      responses: {
        200: { description: 'one item per function called, in request order; with Accept application/vnd.apache.arrow.stream an Arrow IPC stream (docs/api.md "Functions")', schema: FunctionCallResponse },
        400: { description: 'invalid window, limit or cursor; an expression that cannot be evaluated; granularity or aggregates' },
        404: { description: 'unknown or unreadable functions or input series, listed in `missing`' },
      },
      requestHeaders: ['accept'],
      async handle({ access, body, headers }) {
        const items = body.items.map((item, i) => ({ ...item, start: parseInstant(item.start, `items.${i}.start`), end: parseInstant(item.end, `items.${i}.end`) }));
        const ignoreUnknownIds = body.ignoreUnknownIds ?? false;
        return prefersOverJson(headers['accept'], ARROW_STREAM)
          ? { status: 200, body: await functions.callArrow(access, items, ignoreUnknownIds), contentType: ARROW_STREAM }
          : ok({ items: await functions.call(access, items, ignoreUnknownIds) });
      },
    }),
    jsonRoute({
      method: 'post', path: '/functions/create', operationId: 'createFunctions', tag: TAG,
      summary: 'Create functions (all-or-nothing)',
      description: 'Counted in the daily `nodes` quota. 400: a missing required field, an expression that does not parse (`fields` name the item, with `position`: the 0-based character offset), an unknown `dataSetId`, a `target` that is unknown or unreadable, not writable by the caller, or not numeric. 409: an externalId taken (a space of the tenant\'s functions) or a target another function keeps.',
      body: Items(FunctionCreate),
      responses: {
        201: { description: 'created, with ids, in request order', schema: FunctionCollection },
        400: { description: 'missing required field, bad expression, unknown dataSetId, bad target' },
        403: { description: 'no write grant on a dataSetId' },
        409: { description: 'DuplicateError listing `duplicated` externalIds, or targets as `{ target: { externalId } }`' },
        422: { description: 'field caps (expression, description, metadata) exceeded' },
      },
      handle: async ({ access, body }) => ok({ items: await functions.create(access, body.items) }, 201),
    }),
    jsonRoute({
      method: 'post', path: '/functions/update', operationId: 'updateFunctions', tag: TAG,
      summary: 'Update functions with set / setNull / add / remove (all-or-nothing)',
      description: 'Verbs: `set`, `setNull: true`; `metadata` also takes `add` and `remove`. `externalId`, `name` and `expression` cannot be cleared; `target: { setNull: true }` removes the target. 400: no identifier, not found (or unreadable), `set` with `setNull`, a bad expression or target. 403: no write grant. 409: the new externalId or target is taken.',
      body: Items(FunctionUpdateItem),
      responses: {
        200: { description: 'functions after update, in request order', schema: FunctionCollection },
        400: { description: 'invalid update' }, 403: { description: 'no write grant' }, 409: { description: 'DuplicateError or ConflictError' }, 422: { description: 'field caps' },
      },
      handle: async ({ access, body }) => ok({ items: await functions.update(access, body.items) }),
    }),
    ...(['post', 'delete'] as const).map((method) => jsonRoute({
      method, path: '/functions/delete', operationId: method === 'post' ? 'deleteFunctions' : 'deleteFunctionsWithDelete', tag: TAG,
      summary: 'Delete functions (idempotent)',
      body: FunctionIdentifiersRequest,
      responses: {
        204: { description: 'deleted (unknown identifiers skipped unless `ignoreUnknownIds: false`)' },
        400: { description: 'invalid request' }, 403: { description: 'no write grant' }, 404: { description: 'with `ignoreUnknownIds: false`: unknown or unreadable functions, listed in `missing`; nothing deleted' },
      },
      async handle({ access, body }) {
        await functions.delete(access, body.items, body.ignoreUnknownIds ?? true);
        return noContent();
      },
    })),
  ];
}
