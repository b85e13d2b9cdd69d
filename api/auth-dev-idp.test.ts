// Goal: CONTRACT "Tokens": the dev identity provider at POST /oauth/token (client-credentials
// grant for clients in SERVICE_CONFIG.oauthClients) and `npm run token` both issue HS256
// tokens the service accepts. Method: one real server; the token CLI run as a child process.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { startTestServer } from './testing/test-server.ts';

const dev = await startTestServer({
  serviceConfig: { oauthClients: { 'plant-a-ingest': { clientSecret: 's3cret', organization: 'plant-a', datasets: { read: ['*'], write: [] } } } },
});
t.teardown(() => dev.close());

t.test('dev identity provider: client credentials', async (t) => {
  const form = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
    dev.request('POST', '/oauth/token', { rawBody: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });
  const good = await form({ grant_type: 'client_credentials', client_id: 'plant-a-ingest', client_secret: 's3cret' });
  t.equal(good.status, 200);
  t.equal(good.body.token_type, 'Bearer');
  t.equal(good.body.expires_in, 3600);
  const list = await dev.request('GET', '/timeseries', { token: good.body.access_token });
  t.equal(list.status, 200, 'the issued token works');
  const create = await dev.request('POST', '/timeseries/create', { token: good.body.access_token, body: { items: [{ externalId: 'x', name: 'x', valueType: 'FLOAT' }] } });
  t.equal(create.status, 201, 'a series without data set is writable by every token of the tenant');
  const basic = await form({ grant_type: 'client_credentials' }, { authorization: `Basic ${Buffer.from('plant-a-ingest:s3cret').toString('base64')}` });
  t.equal(basic.status, 200, 'HTTP Basic client authentication');
  const json = await dev.request('POST', '/oauth/token', { body: { grant_type: 'client_credentials', client_id: 'plant-a-ingest', client_secret: 's3cret' } });
  t.equal(json.status, 200, 'JSON body');
  t.equal((await form({ grant_type: 'client_credentials', client_id: 'plant-a-ingest', client_secret: 'wrong' })).status, 401);
  t.equal((await form({ grant_type: 'client_credentials', client_id: 'nobody', client_secret: 's3cret' })).status, 401);
  const grant = await form({ grant_type: 'password', client_id: 'plant-a-ingest', client_secret: 's3cret' });
  t.equal(grant.status, 400);
  t.equal(grant.body.error, 'unsupported_grant_type');
});

t.test('npm run token prints a working token', async (t) => {
  const org = dev.newTenant();
  const out = execFileSync(process.execPath, ['--import', 'tsx', 'api/token-cli.ts', '--org', org, '--sub', 'alice', '--read', '12,plant-a', '--write', 'plant-b'], {
    env: { ...process.env, AUTH_JWT_SECRET: dev.secret, LOG_LEVEL: 'silent' },
  }).toString().trim();
  const claims = JSON.parse(Buffer.from(out.split('.')[1] as string, 'base64url').toString());
  t.match(claims, { organization: org, sub: 'alice', datasets: { read: [12, 'plant-a'], write: ['plant-b'] } });
  t.equal((await dev.request('GET', '/timeseries', { token: out })).status, 200);
});
