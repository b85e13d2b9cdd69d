// The Model Context Protocol at /mcp, over Streamable HTTP: JSON-RPC 2.0 messages
// POSTed one per request and answered as application/json (the transport lets a server answer
// a request with JSON instead of an event stream; we offer no stream, so GET is a 405).
// `initialize` opens a session (Mcp-Session-Id); every later request carries it. Messages are
// checked with the official SDK's schemas. The same token and grants as REST; each tool call
// is charged to the caller's rate budget as a read or a write by what the tool does (other
// methods as reads), and a refused call is a tool result with `isError` carrying the message
// and error body REST would give.
import type { CallToolResult, JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { Type } from '@sinclair/typebox';
import { DomainError } from '../engine/errors.ts';
import type { Caller } from '../engine/grants/claims.ts';
import type { Logger } from '../engine/log.ts';
import { parseJsonBody } from './json-body.ts';
import { McpSessions } from './mcp-sessions.ts';
import { mcpTools, type McpEngines, type McpTool } from './mcp-tools.ts';
import { toErrorReply } from './problems.ts';
import type { Reply, RequestContext, Route } from './route.ts';

const TAG = 'MCP';
const SESSION_HEADER = 'mcp-session-id';
const VERSION_HEADER = 'mcp-protocol-version';
export const MCP_SERVER_INFO = { name: 'plantdata', version: '0.1.0' };

type JsonRpcId = string | number | null;

/**
 * The SDK's message schemas (zod) are imported at the first /mcp request, not at start: they
 * were one of the largest parts of the start's module evaluation (docs/architecture.md, "What
 * the start spends its time on").
 */
let sdkLoading: Promise<typeof import('@modelcontextprotocol/sdk/types.js')> | undefined;
const mcpSdk = () => (sdkLoading ??= import('@modelcontextprotocol/sdk/types.js'));

const rpcError = (id: JsonRpcId, code: number, message: string, status = 200, data?: unknown): Reply => ({
  status, body: { jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined ? { data } : {}) } },
});
const rpcResult = (id: JsonRpcId, result: unknown, headers?: Record<string, string>): Reply => ({
  status: 200, body: { jsonrpc: '2.0', id, result }, ...(headers ? { headers } : {}),
});

/** A tool result the client's model reads: the structured value, and the same as text. */
function toolResult(structured: Record<string, unknown>, isError = false): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured, ...(isError ? { isError: true } : {}) };
}

interface Dispatch {
  tools: Map<string, McpTool>;
  sessions: McpSessions;
  errorsBase: string;
  log: Logger;
}

async function callTool(d: Dispatch, ctx: RequestContext, request: JSONRPCRequest): Promise<Reply> {
  const sdk = await mcpSdk();
  const parsed = sdk.CallToolRequestSchema.safeParse(request);
  if (!parsed.success) return rpcError(request.id, sdk.ErrorCode.InvalidParams, `Invalid tools/call params: ${parsed.error.issues[0]?.message ?? 'malformed'}`);
  const { name, arguments: args } = parsed.data.params;
  const tool = d.tools.get(name);
  if (!tool) return rpcError(request.id, sdk.ErrorCode.InvalidParams, `Unknown tool: ${name}`);
  try {
    await ctx.chargeRate(tool.budget);
    const input = args ?? {};
    tool.validate(input);
    return rpcResult(request.id, toolResult(await tool.call(ctx.access, input)));
  } catch (error) {
    if (!(error instanceof DomainError)) {
      d.log.error({ err: error, requestId: ctx.requestId, tool: name }, 'tool call failed');
      return rpcError(request.id, sdk.ErrorCode.InternalError, 'Internal error: the call failed on the server; retry after a short backoff');
    }
    const refused = toErrorReply(error, d.errorsBase);
    return rpcResult(request.id, toolResult({ status: refused.status, ...(refused.body as Record<string, unknown>) }, true));
  }
}

async function handlePost(d: Dispatch, ctx: RequestContext): Promise<Reply> {
  const sdk = await mcpSdk();
  let message: unknown;
  try {
    // The front end's one JSON reader: depth, UTF-8 and duplicate keys refused as everywhere.
    message = parseJsonBody(ctx.rawBody ?? new Uint8Array(), ctx.headers.contentType);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return rpcError(null, sdk.ErrorCode.ParseError, `Parse error: ${error.message}`, 400);
  }
  if (Array.isArray(message)) return rpcError(null, sdk.ErrorCode.InvalidRequest, 'Invalid Request: JSON-RPC batches are not supported (send one message per POST)', 400);
  const parsed = sdk.JSONRPCMessageSchema.safeParse(message);
  if (!parsed.success) {
    const id = typeof message === 'object' && message !== null && 'id' in message ? (message as { id: JsonRpcId }).id : null;
    return rpcError(typeof id === 'string' || typeof id === 'number' ? id : null, sdk.ErrorCode.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message', 400);
  }
  const rpc = parsed.data;
  const version = ctx.headers[VERSION_HEADER];
  if (version && !sdk.SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return rpcError('id' in rpc ? (rpc.id as JsonRpcId) : null, sdk.ErrorCode.InvalidRequest, `Unsupported MCP-Protocol-Version ${version}; supported: ${sdk.SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`, 400);
  }
  if (!('method' in rpc) || !('id' in rpc)) return { status: 202 }; // a notification or a response: accepted, nothing to answer
  const request = rpc as JSONRPCRequest;
  const caller: Caller = ctx.caller;
  if (request.method === 'initialize') {
    const init = sdk.InitializeRequestSchema.safeParse(request);
    if (!init.success) return rpcError(request.id, sdk.ErrorCode.InvalidParams, `Invalid initialize params: ${init.error.issues[0]?.message ?? 'malformed'}`);
    await ctx.chargeRate('read');
    const asked = init.data.params.protocolVersion;
    const protocolVersion = sdk.SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : sdk.LATEST_PROTOCOL_VERSION;
    const session = d.sessions.open(caller.tenant, caller.sub, protocolVersion);
    return rpcResult(request.id, {
      protocolVersion,
      capabilities: { tools: { listChanged: false } },
      serverInfo: MCP_SERVER_INFO,
      instructions: 'Tools over one tenant\'s industrial data: the asset graph (resources joined by typed edges under root resources), time series and their data points. Start with resource_search or timeseries_search, then resource_get to walk the graph.',
    }, { 'Mcp-Session-Id': session });
  }
  const sessionId = ctx.headers[SESSION_HEADER];
  if (!sessionId) return rpcError(request.id, sdk.ErrorCode.InvalidRequest, 'Bad Request: Mcp-Session-Id header required (initialize first)', 400);
  if (!d.sessions.use(sessionId, caller.tenant, caller.sub)) return rpcError(request.id, sdk.ErrorCode.InvalidRequest, 'Session not found: initialize a new session', 404);
  switch (request.method) {
    case 'ping':
      await ctx.chargeRate('read');
      return rpcResult(request.id, {});
    case 'tools/list':
      await ctx.chargeRate('read');
      return rpcResult(request.id, {
        tools: [...d.tools.values()].map((t) => ({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema, annotations: { readOnlyHint: t.budget === 'read' } })),
      });
    case 'tools/call':
      return callTool(d, ctx, request);
    default:
      return rpcError(request.id, sdk.ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
  }
}

export function mcpRoutes(engines: McpEngines, opts: { errorsBase: string; log: Logger; sessions?: McpSessions }): Route[] {
  const d: Dispatch = { tools: new Map(mcpTools(engines).map((t) => [t.name, t])), sessions: opts.sessions ?? new McpSessions(), errorsBase: opts.errorsBase, log: opts.log };
  const description = 'The Model Context Protocol over Streamable HTTP (JSON-RPC 2.0, one message per POST, answered as application/json). `initialize` answers `protocolVersion` (the client\'s when supported, else the latest), `capabilities.tools`, `serverInfo`, and an `Mcp-Session-Id` header every later request must send (400 without, 404 for an unknown or expired session: initialize again). Methods: initialize, ping, tools/list, tools/call; notifications are accepted with 202. Tools: edge_get, edge_create, edge_delete, edge_list_types, edge_create_type, resource_search, resource_get, timeseries_search, datapoints_list, datapoints_latest. Each tool call is charged to the REST rate budget as a read or a write by what it does (other methods as reads); a refused call is a tool result with `isError`, carrying REST\'s error body. Sessions are held per process for an hour idle.';
  return [
    {
      method: 'post', path: '/mcp', operationId: 'mcp', tag: TAG, summary: 'MCP tool endpoint (JSON-RPC 2.0)', description,
      rawBody: true, rawBodyJson: true, chargesPerCall: true, requestHeaders: [SESSION_HEADER, VERSION_HEADER],
      rawBodySchema: Type.Object({ jsonrpc: Type.Literal('2.0'), id: Type.Optional(Type.Union([Type.String(), Type.Integer()])), method: Type.String(), params: Type.Optional(Type.Unknown()) }),
      responses: {
        200: { description: 'a JSON-RPC response' }, 202: { description: 'a notification, accepted' },
        400: { description: 'a parse error, an invalid message, a missing session header' }, 401: { description: 'no valid token' }, 404: { description: 'unknown session' },
      },
      handle: (ctx) => handlePost(d, ctx),
    },
    {
      method: 'get', path: '/mcp', operationId: 'mcpStream', tag: TAG, summary: 'No server-initiated stream: 405', chargesPerCall: true,
      responses: { 405: { description: 'this server offers no SSE stream' } },
      handle: async () => ({ status: 405, headers: { Allow: 'POST, DELETE' }, body: { error: { type: 'MethodNotAllowed', code: 405, message: 'GET /mcp: this server offers no event stream; POST JSON-RPC messages' } } }),
    },
    {
      method: 'delete', path: '/mcp', operationId: 'mcpEndSession', tag: TAG, summary: 'End an MCP session', chargesPerCall: true,
      requestHeaders: [SESSION_HEADER],
      responses: { 204: { description: 'ended' }, 400: { description: 'no Mcp-Session-Id' }, 404: { description: 'unknown session' } },
      async handle(ctx) {
        const sdk = await mcpSdk();
        const id = ctx.headers[SESSION_HEADER];
        if (!id) return rpcError(null, sdk.ErrorCode.InvalidRequest, 'Bad Request: Mcp-Session-Id header required', 400);
        return d.sessions.close(id, ctx.caller.tenant, ctx.caller.sub) ? { status: 204 } : rpcError(null, sdk.ErrorCode.InvalidRequest, 'Session not found', 404);
      },
    },
  ];
}
