// Goal: the server starts on the real stores, answers the operational endpoints, and applies
// CONTRACT's token rules. Method: one real server in this process, requests over HTTP.
import t from 'tap';
import { createSigner } from 'fast-jwt';
import { startTestServer } from './testing/test-server.ts';

const srv = await startTestServer();
t.teardown(() => srv.close());

t.test('health and openapi need no token', async (t) => {
  const health = await srv.request('GET', '/health');
  t.equal(health.status, 200);
  t.same(health.body, { status: 'ok' });
  const doc = await srv.request('GET', '/openapi.json');
  t.equal(doc.status, 200);
  t.equal(doc.body.openapi, '3.1.0');
  t.same(doc.body.components.securitySchemes.bearerAuth, { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  for (const route of srv.server.routes) {
    t.ok(doc.body.paths[route.path]?.[route.method], `${route.method.toUpperCase()} ${route.path} is described`);
  }
  const metrics = await srv.request('GET', '/metrics');
  t.equal(metrics.status, 200);
  t.match(metrics.text, /http_requests_total/);
});

t.test('token rules: 401 for missing, malformed, badly signed, expired, or bad organization', async (t) => {
  const org = srv.newTenant();
  const check = async (authorization: string | undefined, expected: number, name: string) => {
    const res = await srv.request('GET', '/timeseries', { headers: authorization ? { authorization } : {} });
    t.equal(res.status, expected, name);
    if (expected === 401) t.equal(res.body.error.code, 401, `${name}: error body`);
  };
  await check(undefined, 401, 'missing');
  await check('Bearer not-a-jwt', 401, 'malformed');
  await check('Basic abc', 401, 'not bearer');
  const otherKey = createSigner({ key: 'another-secret', expiresIn: 60_000 });
  await check(`Bearer ${otherKey({ organization: org, sub: 'a' })}`, 401, 'bad signature');
  const sign = createSigner({ key: srv.secret });
  await check(`Bearer ${sign({ organization: org, sub: 'a', exp: Math.floor(Date.now() / 1000) - 10 })}`, 401, 'expired');
  await check(`Bearer ${sign({ organization: org, sub: 'a' })}`, 401, 'no exp');
  const exp = Math.floor(Date.now() / 1000) + 60;
  await check(`Bearer ${sign({ organization: [org, 'b'], sub: 'a', exp })}`, 401, 'two organizations');
  await check(`Bearer ${sign({ organization: 42, sub: 'a', exp })}`, 401, 'organization not a string');
  await check(`Bearer ${sign({ sub: 'a', exp })}`, 401, 'no organization');
  await check(`Bearer ${sign({ organization: org, exp })}`, 401, 'no sub');
  await check(`Bearer ${sign({ organization: [org], sub: 'a', exp })}`, 200, 'array of one organization');
  await check(`Bearer ${srv.token({ org })}`, 200, 'minted token');
});

t.test('request errors: invalid JSON, wrong content type, unknown route, body limit', async (t) => {
  const token = srv.token({ org: srv.newTenant() });
  const badJson = await srv.request('POST', '/timeseries/byids', { token, rawBody: '{"items": [', headers: { 'content-type': 'application/json' } });
  t.equal(badJson.status, 400);
  t.equal(badJson.body.error.type, 'BadRequestError');
  const wrongType = await srv.request('POST', '/timeseries/byids', { token, rawBody: '{"items":[{"id":1}]}', headers: { 'content-type': 'text/plain' } });
  t.equal(wrongType.status, 400);
  const unknown = await srv.request('GET', '/nope', { token });
  t.equal(unknown.status, 404);
  const big = 'x'.repeat(4 * 1024 * 1024 + 1);
  const tooLarge = await srv.request('POST', '/timeseries/byids', { token, rawBody: big, headers: { 'content-type': 'application/json' } });
  t.equal(tooLarge.status, 413);
  t.equal(tooLarge.headers.get('content-type'), 'application/problem+json');
  t.match(tooLarge.body, { type: /\/request-too-large$/, status: 413, limitBytes: 4 * 1024 * 1024 });
  t.notOk(JSON.stringify(tooLarge.body).includes('stack'));
});

t.test('body limit without Content-Length: counted as the chunks arrive', async (t) => {
  const token = srv.token({ org: srv.newTenant() });
  const chunk = new Uint8Array(256 * 1024).fill(32);
  let sent = 0;
  const body = new ReadableStream({
    pull(controller) {
      if (sent >= 6 * 1024 * 1024) return controller.close();
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
  const res = await fetch(`${srv.url}/timeseries/byids`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body, duplex: 'half',
  } as RequestInit);
  t.equal(res.status, 413);
  t.match(await res.json(), { status: 413, limitBytes: 4 * 1024 * 1024 });
  const small = new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode('{"items":[{"id":1}]}')); c.close(); } });
  const ok = await fetch(`${srv.url}/timeseries/byids`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: small, duplex: 'half',
  } as RequestInit);
  t.equal(ok.status, 200, 'a small chunked body is read whole');
});
