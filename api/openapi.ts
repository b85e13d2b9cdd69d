// GET /openapi.json: generated from the routes' TypeBox schemas, the same objects the server
// validates with (CONTRACT "Operational endpoints"). OpenAPI 3.1 speaks JSON Schema, so the
// schemas go in as they are, minus TypeBox's symbol keys (which JSON drops anyway).
import type { TSchema } from '@sinclair/typebox';
import { queryParameters } from './query-schema.ts';
import type { Route } from './route.ts';
import { webSocketOperation, type WebSocketRoute } from './websocket-routes.ts';
import { ERROR_CODES } from './problems.ts';
import { ARROW_INSERT_BODY, ARROW_STREAM_MEDIA_TYPE } from './arrow-media.ts';

export const API_VERSION = '0.3';

const ERROR_BODY = {
  type: 'object',
  description: 'SPEC Errors: `{ error: { type, code, message, ... } }`; `code` is the HTTP status.',
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        type: { type: 'string', enum: [...ERROR_CODES] },
        code: { type: 'integer' },
        message: { type: 'string' },
        fields: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' }, index: { type: 'integer' } } } },
        duplicated: { type: 'array', items: { type: 'object' } },
        missing: { type: 'array', items: { type: 'object' } },
        cause: { type: 'string', enum: ['concurrency'] },
      },
    },
  },
};

const PROBLEM = {
  type: 'object',
  description: 'RFC 9457 problem document (application/problem+json). Types: {errorsBase}/request-too-large (limitBytes), /rate-limit-exceeded (scope, limit, retryAfter), /ingest-quota-exceeded (metric, limit, retryAfter), /tenant-limit-reached (metric, limit).',
  required: ['type', 'title', 'status', 'detail'],
  properties: {
    type: { type: 'string' }, title: { type: 'string' }, status: { type: 'integer' }, detail: { type: 'string' },
    limitBytes: { type: 'integer' }, scope: { type: 'string', enum: ['tenant', 'user'] }, limit: { type: 'integer' },
    retryAfter: { type: 'integer' }, metric: { type: 'string' },
  },
};

function plain(schema: TSchema): unknown {
  return JSON.parse(JSON.stringify(schema));
}

function responsesOf(route: Route): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    const code = Number(status);
    const problemStatus = code === 413 || code === 429;
    const contentType = spec.contentType ?? (problemStatus ? 'application/problem+json' : 'application/json');
    const schema = spec.schema ? plain(spec.schema) : code >= 400 ? (problemStatus ? PROBLEM : ERROR_BODY) : undefined;
    out[status] = { description: spec.description, ...(schema ? { content: { [contentType]: { schema } } } : {}) };
  }
  if (!route.public) {
    out['401'] ??= { description: 'Missing, malformed, badly signed or expired token', content: { 'application/json': { schema: ERROR_BODY } } };
    out['429'] ??= { description: 'Rate limit exceeded; Retry-After names the seconds to wait', content: { 'application/problem+json': { schema: PROBLEM } } };
  }
  return out;
}

export function buildOpenApi(routes: Route[], info: { description: string }, webSocketRoutes: readonly WebSocketRoute[] = []): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const operation: Record<string, unknown> = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: [route.tag],
      parameters: [
        ...[...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } })),
        ...queryParameters(route.query),
      ],
      responses: responsesOf(route),
      ...(route.public ? { security: [] } : {}),
    };
    const bodySchema = route.body ?? route.rawBodySchema;
    if (bodySchema) operation['requestBody'] = { required: true, content: { 'application/json': { schema: plain(bodySchema) } } };
    if (bodySchema && route.rawBodyArrow) {
      (operation['requestBody'] as { content: Record<string, unknown> }).content[ARROW_STREAM_MEDIA_TYPE] = {
        schema: { type: 'string', format: 'binary', description: ARROW_INSERT_BODY },
      };
    }
    if (route.streamBody) {
      operation['requestBody'] = { required: true, description: 'Streamed; no body size limit', content: { [route.bodyContentType ?? 'application/octet-stream']: { schema: { type: 'string', format: 'binary' } } } };
    }
    (paths[route.path] ??= {})[route.method] = operation;
  }
  for (const route of webSocketRoutes) {
    const { path, operation } = webSocketOperation(route);
    (paths[path] ??= {})['get'] = operation;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Industrial data service', version: API_VERSION, description: info.description },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }],
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas: { Error: ERROR_BODY, Problem: PROBLEM },
    },
    paths,
  };
}
