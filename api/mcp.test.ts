// Goal: /mcp: the Streamable HTTP handshake and session rules, malformed JSON-RPC
// (parse error, invalid request, batch, unknown method, unknown tool) never a 500, tools/list
// with input schemas, every tool's success and refusal (isError carrying REST's error body),
// the same token and grants as REST, and every tool call charged to the REST rate budget as a
// read or a write. Method: one real server, real HTTP; a plant built through REST first.
import t, { type Test } from 'tap';
import { startTestServer, type TestResponse } from './testing/test-server.ts';

const LIMITED_ORG = `mcp-limited-${process.pid}`;
const srv = await startTestServer({ serviceConfig: { tenants: { [LIMITED_ORG]: { rateLimits: { user: { readsPerMinute: 6, writesPerMinute: 2 } } } } } });
t.teardown(() => srv.close());

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);

/** A JSON-RPC client over real HTTP: one session per instance. */
class McpClient {
  session: string | undefined;
  private nextId = 1;

  constructor(private readonly token: string) {}

  async post(message: unknown, headers: Record<string, string> = {}): Promise<TestResponse> {
    return srv.request('POST', '/mcp', {
      token: this.token, body: message,
      headers: { accept: 'application/json, text/event-stream', ...(this.session ? { 'mcp-session-id': this.session } : {}), ...headers },
    });
  }

  async initialize(t: Test): Promise<TestResponse> {
    const res = await this.post({ jsonrpc: '2.0', id: this.nextId++, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } } });
    t.equal(res.status, 200, 'initialize: 200');
    this.session = res.headers.get('mcp-session-id') ?? undefined;
    t.ok(this.session, 'a session id');
    t.equal((await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status, 202, 'initialized notification: 202');
    return res;
  }

  async rpc(method: string, params?: unknown): Promise<TestResponse> {
    return this.post({ jsonrpc: '2.0', id: this.nextId++, method, ...(params !== undefined ? { params } : {}) });
  }

  /** tools/call; returns the tool result. */
  async call(name: string, args: unknown): Promise<{ structuredContent: any; content: { type: string; text: string }[]; isError?: boolean }> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const res = await this.rpc('tools/call', { name, arguments: args });
    if (res.status !== 200 || !res.body.result) throw new Error(`tools/call ${name}: ${res.status} ${res.text}`);
    return res.body.result;
  }
}

async function plant(t: Test) {
  const org = srv.newTenant();
  const admin = srv.token({ org });
  const post = async (path: string, body: unknown, status = 201) => {
    const res = await srv.request('POST', path, { token: admin, body });
    if (res.status !== status) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  const [A] = (await post('/datasets/create', { items: [{ externalId: 'A', name: 'A' }] })).items;
  const graph = await post('/resources/create', {
    nodes: [{ externalId: 'site', name: 'Oslo site', isRoot: true }, { externalId: 'pump-1', name: 'Feed pump', description: 'Centrifugal feed pump' }, { externalId: 'tank', name: 'Buffer tank', dataSetId: A.id }],
    relations: [{ fromExternalId: 'site', toExternalId: 'pump-1', relationshipType: 'CONTAINS' }, { fromExternalId: 'site', toExternalId: 'tank', relationshipType: 'CONTAINS' }],
  });
  await post('/timeseries/create', { items: [{ externalId: 'pump-1/flow', name: 'Feed pump flow', valueType: 'FLOAT', unit: 'm3/h' }] });
  await post('/timeseries/data', { items: [{ externalId: 'pump-1/flow', datapoints: [{ timestamp: T0, value: 1 }, { timestamp: T0 + 60_000, value: 3 }, { timestamp: T0 + HOUR, value: 5 }] }] }, 204);
  return { org, admin, A, graph };
}

t.test('handshake, sessions and malformed messages: JSON-RPC errors, never a 500', async (t) => {
  const p = await plant(t);
  t.equal((await srv.request('POST', '/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'ping' } })).status, 401, 'no token: 401');
  const client = new McpClient(p.admin);
  const init = await client.initialize(t);
  t.match(init.body, { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'plantdata' } } });
  const old = await new McpClient(p.admin).post({ jsonrpc: '2.0', id: 9, method: 'initialize', params: { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
  t.equal(old.body.result.protocolVersion, '2025-11-25', 'an unknown version is answered with the latest');
  t.same((await client.rpc('ping')).body.result, {}, 'ping');
  const noSession = await new McpClient(p.admin).rpc('tools/list');
  t.equal(noSession.status, 400, 'no session header: 400');
  t.equal(noSession.body.error.code, -32600);
  const stranger = new McpClient(p.admin);
  stranger.session = 'not-a-session';
  t.equal((await stranger.rpc('tools/list')).status, 404, 'unknown session: 404');
  const otherTenant = new McpClient(srv.token({ org: srv.newTenant() }));
  otherTenant.session = client.session;
  t.equal((await otherTenant.rpc('tools/list')).status, 404, 'another tenant presenting the session id: 404');
  const badVersion = await client.post({ jsonrpc: '2.0', id: 5, method: 'ping' }, { 'mcp-protocol-version': '1999-01-01' });
  t.equal(badVersion.status, 400, 'an unsupported MCP-Protocol-Version: 400');
  const parse = await srv.request('POST', '/mcp', { token: p.admin, rawBody: '{"jsonrpc": "2.0", "id": 1, "method":', headers: { 'content-type': 'application/json', 'mcp-session-id': client.session as string } });
  t.equal(parse.status, 400, 'unparsable JSON: 400');
  t.equal(parse.body.error.code, -32700, 'parse error');
  const invalid = await client.post({ jsonrpc: '1.0', id: 1, method: 'ping' });
  t.equal(invalid.body.error.code, -32600, 'not JSON-RPC 2.0: invalid request');
  const batch = await client.post([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
  t.equal(batch.status, 400, 'a batch: 400');
  t.equal((await client.rpc('resources/list')).body.error.code, -32601, 'an unknown method: -32601');
  t.equal((await client.rpc('tools/call', { name: 'no_such_tool', arguments: {} })).body.error.code, -32602, 'an unknown tool: -32602');
  t.equal((await client.rpc('tools/call', { arguments: {} })).body.error.code, -32602, 'tools/call without a name: -32602');
  t.equal((await srv.request('GET', '/mcp', { token: p.admin })).status, 405, 'GET: no stream, 405');
  t.equal((await srv.request('DELETE', '/mcp', { token: p.admin, headers: { 'mcp-session-id': client.session as string } })).status, 204, 'DELETE ends the session');
  t.equal((await client.rpc('ping')).status, 404, 'then it is gone');
});

t.test('tools/list: every tool with an input schema', async (t) => {
  const p = await plant(t);
  const client = new McpClient(p.admin);
  await client.initialize(t);
  const tools = (await client.rpc('tools/list')).body.result.tools as { name: string; inputSchema: { type: string } }[];
  t.same(tools.map((x) => x.name).sort(), [
    'datapoints_latest', 'datapoints_list', 'edge_create', 'edge_create_type', 'edge_delete', 'edge_get', 'edge_list_types', 'resource_get', 'resource_search', 'timeseries_search',
  ]);
  t.ok(tools.every((x) => x.inputSchema.type === 'object'), 'each input schema is an object schema');
});

t.test('the tools act on the same graph and data as REST, with the same rules and errors', async (t) => {
  const p = await plant(t);
  const client = new McpClient(p.admin);
  await client.initialize(t);
  const found = await client.call('resource_search', { query: 'centrifugal' });
  t.same(found.structuredContent.items.map((r: { externalId: string }) => r.externalId), ['pump-1'], 'resource_search');
  t.same(JSON.parse(found.content[0]?.text ?? ''), found.structuredContent, 'the text is the structured content');
  const site = await client.call('resource_get', { externalId: 'site' });
  t.equal(site.structuredContent.item.externalId, 'site');
  t.equal(site.structuredContent.relations.length, 2, 'resource_get brings its edges');
  const created = await client.call('edge_create', { items: [{ fromExternalId: 'pump-1', toExternalId: 'tank', relationshipType: 'Feeds' }] });
  t.notOk(created.isError);
  const edge = created.structuredContent.items[0];
  t.match(edge, { type: 'FEEDS' });
  t.equal((await srv.request('GET', `/edges/${edge.id}`, { token: p.admin })).status, 200, 'REST sees the edge the tool made');
  t.match((await client.call('edge_get', { id: edge.id })).structuredContent.edge, { id: edge.id });
  const dup = await client.call('edge_create', { items: [{ fromExternalId: 'pump-1', toExternalId: 'tank', relationshipType: 'FEEDS' }] });
  t.equal(dup.isError, true, 'a duplicate: isError');
  t.match(dup.structuredContent, { status: 409, error: { type: 'DuplicateError' } }, 'carrying REST\'s error body');
  const strand = await client.call('edge_delete', { ids: [site.structuredContent.relations.find((e: { end: number }) => e.end !== edge.end)?.id] });
  t.equal(strand.isError, true, 'deleting pump-1\'s only path: isError');
  t.match(strand.structuredContent, { status: 400, error: { fields: [{ externalId: 'pump-1' }] } });
  t.same((await client.call('edge_delete', { ids: [edge.id] })).structuredContent, { deleted: [edge.id] });
  const types = await client.call('edge_create_type', { items: [{ name: 'powered by' }] });
  t.equal(types.structuredContent.items[0].name, 'POWERED_BY');
  t.equal((await client.call('edge_create_type', { items: [{ name: 'POWERED_BY' }] })).isError, true, 'no find-or-create');
  t.ok((await client.call('edge_list_types', {})).structuredContent.items.some((x: { name: string }) => x.name === 'POWERED_BY'));
  t.match((await client.call('edge_get', { id: 987654321 })).structuredContent, { status: 404 }, 'a missing edge');
  t.match((await client.call('edge_get', { id: 'seven' })).structuredContent, { status: 400 }, 'bad arguments: REST\'s 400');
  const series = await client.call('timeseries_search', { query: 'flow', filter: { unit: 'm3/h' } });
  t.same(series.structuredContent.items.map((s: { externalId: string }) => s.externalId), ['pump-1/flow']);
  const raw = await client.call('datapoints_list', { items: [{ externalId: 'pump-1/flow', start: T0, end: T0 + 2 * HOUR }] });
  t.same(raw.structuredContent.items[0].datapoints.map((d: { value: string }) => d.value), ['1', '3', '5'], 'raw points');
  const hourly = await client.call('datapoints_list', { items: [{ externalId: 'pump-1/flow', start: T0, end: T0 + 2 * HOUR, aggregates: ['AVG', 'COUNT'], granularity: '1h' }] });
  t.match(hourly.structuredContent.items[0].datapoints, [{ timestamp: T0, average: '2', count: 2 }, { timestamp: T0 + HOUR, average: '5', count: 1 }], 'aggregates');
  const latest = await client.call('datapoints_latest', { items: [{ externalId: 'pump-1/flow' }] });
  t.match(latest.structuredContent.items[0].datapoints, [{ timestamp: T0 + HOUR, value: '5' }]);
});

t.test('grants: the same token and data set grants as REST', async (t) => {
  const p = await plant(t);
  const outsider = srv.token({ org: p.org, sub: 'outsider', read: [] });
  const client = new McpClient(outsider);
  await client.initialize(t);
  t.match((await client.call('resource_get', { externalId: 'tank' })).structuredContent, { status: 404 }, 'a resource in an unreadable data set is missing');
  t.same((await client.call('resource_search', { query: 'tank' })).structuredContent.items, [], 'and never found');
  t.match((await client.call('edge_create', { items: [{ fromExternalId: 'site', toExternalId: 'tank', relationshipType: 'X' }] })).structuredContent, { status: 400 }, 'an unreadable end is a missing end');
  const reader = new McpClient(srv.token({ org: p.org, sub: 'reader', read: [p.A.id] }));
  await reader.initialize(t);
  t.equal((await reader.call('resource_get', { externalId: 'tank' })).structuredContent.item.externalId, 'tank', 'a reader of A reads it');
  t.match((await reader.call('edge_create', { items: [{ fromExternalId: 'site', toExternalId: 'tank', relationshipType: 'X' }] })).structuredContent, { status: 403 }, 'but may not write an edge to it: 403');
});

t.test('every tool call is charged to the REST rate budget, as a read or a write', async (t) => {
  const token = srv.token({ org: LIMITED_ORG });
  const client = new McpClient(token);
  await client.initialize(t); // one read (initialize)
  await client.call('edge_list_types', {}); // read 2
  await client.call('resource_search', { query: 'x' }); // read 3
  await client.call('edge_create_type', { items: [{ name: 'A' }] }); // write 1
  await client.call('edge_create_type', { items: [{ name: 'B' }] }); // write 2
  const thirdWrite = await client.call('edge_create_type', { items: [{ name: 'C' }] });
  t.equal(thirdWrite.isError, true, 'the third write in a minute is refused (2 per minute)');
  t.match(thirdWrite.structuredContent, { status: 429, scope: 'user', limit: 2 });
  t.notOk((await client.call('edge_list_types', {})).isError, 'reads have their own budget');
  const rest = await srv.request('POST', '/edges/types/create', { token, body: { items: [{ name: 'D' }] } });
  t.equal(rest.status, 429, 'REST writes share the budget the tools spent');
});
