// Goal: the CDF surface's frame holds for the official SDK: a call without a token is a 401
// (the SDK sends none until it gets one, then asks its token provider and retries), token
// inspection answers CDF's shape with the capabilities of the token's grants, and errors on
// the CDF paths are CDF's `{"error": {"code", "message"}}` body, never SPEC's.
// Method: one real server; @cognite/sdk 10.5 as a user configures it; raw fetch where the point
// is what goes over the wire.
import t from 'tap';
import { startTestServer } from '../testing/test-server.ts';
import { cdfClient } from './testing/cdf-client.ts';

type Capability = Record<string, { actions: string[]; scope: unknown }>;

const srv = await startTestServer();
t.teardown(() => srv.close());

t.test('a call without a token is a 401 in CDF form, with WWW-Authenticate', async (t) => {
  const res = await srv.request('GET', '/api/v1/token/inspect');
  t.equal(res.status, 401);
  t.equal(res.headers.get('www-authenticate'), 'Bearer');
  t.equal(res.body.error.code, 401);
  t.type(res.body.error.message, 'string');
  t.notOk('type' in res.body.error, 'CDF form: no SPEC type field');
});

t.test('token inspection through the SDK: subject, the one project, capabilities by grant', async (t) => {
  const org = srv.newTenant();
  const client = cdfClient(srv, { org });
  await client.authenticate();
  const full = await client.get('/api/v1/token/inspect') as { status: number; data: { subject: string; projects: { projectUrlName: string }[]; capabilities: Capability[] } };
  t.equal(full.status, 200);
  t.equal(full.data.subject, 'tester');
  t.strictSame(full.data.projects.map((p: { projectUrlName: string }) => p.projectUrlName), [org]);
  const timeSeriesRead = full.data.capabilities.find((c: Capability) => c['timeSeriesAcl']?.actions.includes('READ'));
  t.strictSame(timeSeriesRead?.['timeSeriesAcl']?.scope, { all: {} }, 'no datasets claim: every data set');
  t.strictSame(timeSeriesRead?.['projectScope'], { projects: [org] });

  const created = await srv.request('POST', '/datasets/create', { token: srv.token({ org }), body: { items: [{ externalId: 'ds-a', name: 'a' }] } });
  t.equal(created.status, 201);
  const dataSetId = created.body.items[0].id as number;
  const limited = cdfClient(srv, { org, read: ['ds-a'], write: [] });
  await limited.authenticate();
  const inspected = await limited.get('/api/v1/token/inspect') as { data: { capabilities: Capability[] } };
  const scopes = (action: string) => inspected.data.capabilities.filter((c: Capability) => c['eventsAcl']?.actions.includes(action)).map((c: Capability) => c['eventsAcl']?.scope);
  t.strictSame(scopes('READ'), [{ datasetScope: { ids: [dataSetId] } }], 'read grant by externalId resolved to its id');
  t.strictSame(scopes('WRITE'), [{ datasetScope: { ids: [] } }], 'no write grant');
});

t.test('an unknown path under /api/v1 is a 404 in CDF form', async (t) => {
  const org = srv.newTenant();
  const res = await srv.request('POST', `/api/v1/projects/${org}/sequences/list`, { token: srv.token({ org }), body: {} });
  t.equal(res.status, 404);
  t.equal(res.body.error.code, 404);
  t.match(res.body.error.message, /sequences\/list/);
  const spec = await srv.request('POST', '/no/such/route', { token: srv.token({ org }), body: {} });
  t.equal(spec.body.error.type, 'NotFoundError', 'SPEC paths keep SPEC form');
});
