// Goal: SPEC "Limits" rate limits: fixed one-minute windows per organization and per user,
// separate read and write budgets (GET reads; POST reads when its last segment is filter,
// search, byids, list, ...; other POSTs, PUT, DELETE write); over budget a 429 problem
// document with scope, limit and retryAfter plus a Retry-After header; GET /settings shows
// the tenant's settings in effect, including per-tenant overrides from SERVICE_CONFIG.
// Method: one server started with a SERVICE_CONFIG of tiny budgets and one tenant override.
// Each scenario runs with fresh tenants and records its answers; should the minute turn in the
// middle (the window resets), it runs again with new tenants before anything is asserted.
import { randomBytes } from 'node:crypto';
import t, { type Test } from 'tap';
import { POLICY_DEFAULTS } from '../engine/config.ts';
import { responseSchemaProblems, schemaCheckedRequest } from './testing/response-schema.ts';
import { startTestServer, type TestResponse } from './testing/test-server.ts';

const ERRORS_BASE = 'https://errors.test.example';
const overridden = `t-${randomBytes(6).toString('hex')}`;
const srv = await startTestServer({
  serviceConfig: {
    errorsBase: ERRORS_BASE,
    rateLimits: { organization: { writesPerMinute: 4, readsPerMinute: 5 }, user: { writesPerMinute: 2, readsPerMinute: 3 } },
    dailyQuotas: { events: 50 },
    tenants: {
      [overridden]: {
        files: true,
        rateLimits: { organization: { readsPerMinute: 8 }, user: { readsPerMinute: 7 } },
        dailyQuotas: { nodes: 5 },
        ceilings: { objects: 10 },
      },
    },
  },
});
t.teardown(() => srv.close());
const call = schemaCheckedRequest(srv);

interface Step { name: string; res: TestResponse }

/**
 * Runs a scenario until one run falls within one rate window (at most three tries), then
 * returns its steps for the caller to assert.
 */
async function inOneWindow(scenario: (record: (name: string, res: Promise<TestResponse>) => Promise<TestResponse>) => Promise<void>): Promise<Step[]> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const steps: Step[] = [];
    const window = Math.floor(Date.now() / 60_000);
    await scenario(async (name, pending) => {
      const res = await pending;
      steps.push({ name, res });
      return res;
    });
    if (Math.floor(Date.now() / 60_000) === window) return steps;
  }
  throw new Error('three runs in a row crossed a minute boundary');
}

function assertSteps(t: Test, steps: Step[], expected: Record<string, number | { scope: 'user' | 'tenant'; limit: number }>) {
  t.strictSame(steps.map((s) => s.name), Object.keys(expected), 'every step ran');
  for (const { name, res } of steps) {
    const want = expected[name];
    if (typeof want === 'number') {
      t.equal(res.status, want, `${name}: ${want}`);
      continue;
    }
    t.equal(res.status, 429, `${name}: 429`);
    t.equal(res.headers.get('content-type'), 'application/problem+json', `${name}: problem+json`);
    const retryAfter = res.body?.retryAfter;
    t.match(res.body, { type: `${ERRORS_BASE}/rate-limit-exceeded`, title: String, status: 429, detail: String, scope: want?.scope, limit: want?.limit }, `${name}: problem document, scope ${want?.scope}, limit ${want?.limit}`);
    t.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `${name}: retryAfter ${retryAfter} within the minute`);
    t.equal(res.headers.get('retry-after'), String(retryAfter), `${name}: Retry-After header`);
  }
}

const series = (externalId: string) => ({ items: [{ externalId, name: externalId, valueType: 'FLOAT' }] });

t.test('per user: reads and writes are separate budgets; POST filter/search/byids are reads', async (t) => {
  const steps = await inOneWindow(async (step) => {
    const org = srv.newTenant();
    const alice = srv.token({ org, sub: 'alice' });
    await step('read 1 (GET)', srv.request('GET', '/timeseries', { token: alice }));
    await step('read 2 (POST filter)', srv.request('POST', '/timeseries/filter', { token: alice, body: {} }));
    await step('write 1 (POST create)', srv.request('POST', '/timeseries/create', { token: alice, body: series('a') }));
    await step('read 3 (POST byids)', srv.request('POST', '/timeseries/byids', { token: alice, body: { items: [{ externalId: 'a' }] } }));
    await step('read 4 (POST search)', srv.request('POST', '/timeseries/search', { token: alice, body: { search: { query: 'a' } } }));
    await step('read 5 (GET)', srv.request('GET', '/timeseries', { token: alice }));
    await step('write 2 (POST delete)', srv.request('POST', '/timeseries/delete', { token: alice, body: { items: [{ externalId: 'a' }] } }));
    await step('write 3 (DELETE delete)', srv.request('DELETE', '/timeseries/delete', { token: alice, body: { items: [{ externalId: 'a' }] } }));
    await step('write 4 (POST update)', srv.request('POST', '/timeseries/update', { token: alice, body: { items: [{ externalId: 'a', update: {} }] } }));
    await step('another user reads', srv.request('GET', '/timeseries', { token: srv.token({ org, sub: 'bob' }) }));
    await step('another tenant reads', srv.request('GET', '/timeseries', { token: srv.token({ org: srv.newTenant(), sub: 'alice' }) }));
    await step('health needs no budget', srv.request('GET', '/health'));
  });
  assertSteps(t, steps, {
    'read 1 (GET)': 200,
    'read 2 (POST filter)': 200,
    'write 1 (POST create)': 201,
    'read 3 (POST byids)': 200,
    'read 4 (POST search)': { scope: 'user', limit: 3 },
    'read 5 (GET)': { scope: 'user', limit: 3 },
    'write 2 (POST delete)': 204,
    'write 3 (DELETE delete)': { scope: 'user', limit: 2 },
    'write 4 (POST update)': { scope: 'user', limit: 2 },
    'another user reads': 200,
    'another tenant reads': 200,
    'health needs no budget': 200,
  });
});

t.test('per organization: users share the tenant budget', async (t) => {
  const steps = await inOneWindow(async (step) => {
    const org = srv.newTenant();
    const [a, b, c] = ['a', 'b', 'c'].map((sub) => srv.token({ org, sub }));
    for (let i = 1; i <= 3; i++) await step(`a reads ${i}`, srv.request('GET', '/timeseries', { token: a }));
    for (let i = 1; i <= 3; i++) await step(`b reads ${i}`, srv.request('POST', '/timeseries/filter', { token: b, body: {} }));
    for (let i = 1; i <= 2; i++) await step(`a writes ${i}`, srv.request('POST', '/timeseries/create', { token: a, body: series(`a${i}`) }));
    for (let i = 1; i <= 2; i++) await step(`b writes ${i}`, srv.request('POST', '/labels/create', { token: b, body: { items: [{ externalId: `b${i}` }] } }));
    await step('c writes', srv.request('POST', '/timeseries/create', { token: c, body: series('c') }));
    await step('c reads', srv.request('GET', '/labels', { token: c }));
  });
  assertSteps(t, steps, {
    'a reads 1': 200, 'a reads 2': 200, 'a reads 3': 200,
    'b reads 1': 200, 'b reads 2': 200, 'b reads 3': { scope: 'tenant', limit: 5 },
    'a writes 1': 201, 'a writes 2': 201,
    'b writes 1': 201, 'b writes 2': 201,
    'c writes': { scope: 'tenant', limit: 4 },
    'c reads': { scope: 'tenant', limit: 5 },
  });
});

t.test('GET /settings: the settings in effect, with tenant overrides', async (t) => {
  const plain = await call(t, 'GET', '/settings', { token: srv.token({ org: srv.newTenant() }) });
  t.equal(plain.status, 200);
  t.match(plain.body, {
    files: false,
    ceilings: null,
    rateLimits: { organization: { writesPerMinute: 4, readsPerMinute: 5 }, user: { writesPerMinute: 2, readsPerMinute: 3 } },
    dailyQuotas: { ...POLICY_DEFAULTS.dailyQuotas, events: 50 },
    websocket: POLICY_DEFAULTS.websocket,
  }, 'top-level SERVICE_CONFIG over SPEC defaults');
  const steps = await inOneWindow(async (step) => {
    const token = srv.token({ org: overridden, sub: `u-${randomBytes(4).toString('hex')}` });
    await step('settings', srv.request('GET', '/settings', { token }));
    for (let i = 2; i <= 8; i++) await step(`read ${i}`, srv.request('GET', '/timeseries', { token }));
  });
  const settings = steps[0]?.res as TestResponse;
  t.strictSame(responseSchemaProblems(srv.server.routes, 'GET', '/settings', settings), [], 'GET /settings 200 matches its response schema');
  t.match(settings.body, {
    organization: overridden,
    files: true,
    ceilings: { objects: 10 },
    rateLimits: { organization: { writesPerMinute: 4, readsPerMinute: 8 }, user: { writesPerMinute: 2, readsPerMinute: 7 } },
    dailyQuotas: { ...POLICY_DEFAULTS.dailyQuotas, events: 50, nodes: 5 },
  }, 'tenants.<org> overrides key by key');
  assertSteps(t, steps, {
    settings: 200, 'read 2': 200, 'read 3': 200, 'read 4': 200, 'read 5': 200, 'read 6': 200, 'read 7': 200,
    'read 8': { scope: 'user', limit: 7 },
  });
});
