// Goal: CONTRACT "Tokens" beyond HS256: RS256/ES256 tokens of an identity provider verified
// through AUTH_JWKS_URL with issuer and audience checks. Method: a real JWKS endpoint on
// loopback and a real server verifying against it.
import t from 'tap';
import { createServer } from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import { createSigner } from 'fast-jwt';
import { startTestServer } from './testing/test-server.ts';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwks = {
  keys: [
    { ...rsa.publicKey.export({ format: 'jwk' }), kid: 'rsa-1', alg: 'RS256', use: 'sig' },
    { ...ec.publicKey.export({ format: 'jwk' }), kid: 'ec-1', alg: 'ES256', use: 'sig' },
  ],
};
const idp = createServer((req, res) => {
  res.writeHead(req.url === '/.well-known/jwks.json' ? 200 : 404, { 'content-type': 'application/json' });
  res.end(req.url === '/.well-known/jwks.json' ? JSON.stringify(jwks) : '{}');
});
await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
const idpPort = (idp.address() as { port: number }).port;
t.teardown(() => new Promise<void>((resolve) => idp.close(() => resolve())));

const issuer = 'https://idp.test/';
const audience = 'plantdata';
const srv = await startTestServer({ env: { AUTH_JWKS_URL: `http://127.0.0.1:${idpPort}/.well-known/jwks.json`, AUTH_ISSUER: issuer, AUTH_AUDIENCE: audience } });
t.teardown(() => srv.close());

const sign = (key: string, algorithm: 'RS256' | 'ES256', kid: string, claims: Record<string, unknown>) =>
  createSigner({ key, algorithm, kid, expiresIn: 60_000 })(claims);
const rsaKey = rsa.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
const ecKey = ec.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

t.test('JWKS: RS256 and ES256 with issuer and audience', async (t) => {
  const org = srv.newTenant();
  const check = async (token: string, expected: number, name: string) =>
    t.equal((await srv.request('GET', '/timeseries', { token })).status, expected, name);
  await check(sign(rsaKey, 'RS256', 'rsa-1', { organization: org, sub: 'svc', iss: issuer, aud: audience }), 200, 'RS256');
  await check(sign(ecKey, 'ES256', 'ec-1', { organization: org, sub: 'svc', iss: issuer, aud: audience }), 200, 'ES256');
  await check(sign(rsaKey, 'RS256', 'rsa-1', { organization: org, sub: 'svc', iss: 'https://evil.test/', aud: audience }), 401, 'wrong issuer');
  await check(sign(rsaKey, 'RS256', 'rsa-1', { organization: org, sub: 'svc', iss: issuer, aud: 'other' }), 401, 'wrong audience');
  await check(sign(rsaKey, 'RS256', 'unknown-kid', { organization: org, sub: 'svc', iss: issuer, aud: audience }), 401, 'unknown key id');
  const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  await check(sign(otherKey, 'RS256', 'rsa-1', { organization: org, sub: 'svc', iss: issuer, aud: audience }), 401, 'signed by another key');
  await check(srv.token({ org }), 401, 'an HS256 token is refused when a JWKS is configured');
});

