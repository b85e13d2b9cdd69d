// Operational endpoints without token (CONTRACT): /health, /openapi.json, /metrics; the dev
// identity provider POST /oauth/token; and GET /settings and GET /token/inspect (token required).
import { timingSafeEqual } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { TenantSettings } from '../schemas/config.ts';
import type { ServiceConfig } from '../engine/config.ts';
import type { Engine } from '../engine/engine.ts';
import { mintToken } from './auth.ts';
import { tokenRequest } from './oauth-token-request.ts';
import { ok, type Reply, type Route } from './route.ts';

const TokenResponse = Type.Object({
  access_token: Type.String(), token_type: Type.Literal('Bearer'), expires_in: Type.Integer(),
});

function oauthError(status: number, error: string, description: string): Reply {
  return { status, body: { error, error_description: description } };
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

const DataSetRef = Type.Object({ id: Type.Integer(), externalId: Type.String(), name: Type.String() });
const GrantedDataSets = Type.Union([Type.Literal('all'), Type.Array(DataSetRef)]);
const TokenInspection = Type.Object({
  subject: Type.String({ description: 'the token\'s `sub`' }),
  organization: Type.String({ description: 'the tenant' }),
  expiresAt: Type.Optional(Type.Integer({ description: 'the token\'s `exp`, epoch ms' })),
  datasets: Type.Object({ read: GrantedDataSets, write: GrantedDataSets }, { description: '`all`, or the data sets the token may read (write), descendants included' }),
});

/** The `exp` claim of a token already verified, in epoch ms. */
function expiryOf(authorization: string): number | undefined {
  const payload = authorization.replace(/^Bearer\s+/i, '').split('.')[1] ?? '';
  try {
    const exp = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown }).exp;
    return typeof exp === 'number' && Number.isFinite(exp) ? Math.round(exp * 1000) : undefined;
  } catch {
    return undefined;
  }
}

/** What the operational routes read of the engine: store pings, metrics, tenant settings, the caller's data sets. */
export type OperationalEngine = Pick<Engine, 'healthChecks' | 'metrics' | 'settings' | 'datasets'>;

export function operationalRoutes(engine: OperationalEngine, config: Readonly<ServiceConfig>, openapi: () => unknown, secret: () => string | undefined): Route[] {
  const checks = engine.healthChecks;
  return [
    {
      method: 'get', path: '/health', operationId: 'health', tag: 'Operations', public: true,
      summary: 'ok once every store answers; 503 otherwise',
      responses: { 200: { description: 'every store answers', schema: Type.Object({ status: Type.Literal('ok') }) }, 503: { description: 'a store does not answer' } },
      async handle() {
        const failed: string[] = [];
        await Promise.all(checks.map((c) => c.ping().catch(() => failed.push(c.name))));
        return failed.length === 0 ? ok({ status: 'ok' }) : { status: 503, body: { status: 'unavailable', failing: failed } };
      },
    },
    {
      method: 'get', path: '/openapi.json', operationId: 'openapi', tag: 'Operations', public: true,
      summary: 'This OpenAPI 3.1 description, generated from the schemas the server validates with',
      responses: { 200: { description: 'OpenAPI document' } },
      async handle() {
        return ok(openapi());
      },
    },
    {
      method: 'get', path: '/metrics', operationId: 'metrics', tag: 'Operations', public: true,
      summary: 'Prometheus metrics',
      responses: { 200: { description: 'Prometheus text exposition', contentType: 'text/plain', schema: Type.String() } },
      async handle() {
        return { status: 200, body: await engine.metrics.registry.metrics(), contentType: engine.metrics.registry.contentType };
      },
    },
    {
      method: 'post', path: '/oauth/token', operationId: 'oauthToken', tag: 'Operations', public: true, rawBody: true,
      summary: 'Dev identity provider: OAuth 2.0 client-credentials grant for clients listed in SERVICE_CONFIG.oauthClients',
      description: 'Form (application/x-www-form-urlencoded) or JSON body with grant_type=client_credentials, client_id, client_secret (or HTTP Basic). Issues the same HS256 token as `npm run token`, with the client\'s organization, sub (default: the client id) and data set grants.',
      rawBodySchema: Type.Object({ grant_type: Type.Literal('client_credentials'), client_id: Type.String(), client_secret: Type.String(), scope: Type.Optional(Type.String()) }),
      responses: { 200: { description: 'token', schema: TokenResponse }, 400: { description: 'unsupported grant type, or a malformed request (invalid_request)' }, 401: { description: 'unknown client or wrong secret' } },
      async handle({ rawBody, headers }) {
        const request = tokenRequest(rawBody, headers.contentType, headers.authorization);
        if (!request.ok) return oauthError(400, 'invalid_request', request.description);
        const { fields } = request;
        if (fields['grant_type'] !== 'client_credentials') return oauthError(400, 'unsupported_grant_type', 'only client_credentials is supported');
        const client = config.policy.oauthClients?.[fields['client_id'] ?? ''];
        const key = secret();
        if (!client || !key || !sameSecret(client.clientSecret, fields['client_secret'] ?? '')) return oauthError(401, 'invalid_client', 'unknown client or wrong secret');
        const expiresIn = client.tokenTtlSeconds ?? 3600;
        const token = mintToken({
          secret: key, organization: client.organization, sub: client.sub ?? (fields['client_id'] as string),
          read: client.datasets?.read, write: client.datasets?.write, expiresInSeconds: expiresIn,
        });
        return ok({ access_token: token, token_type: 'Bearer', expires_in: expiresIn });
      },
    },
    {
      method: 'get', path: '/settings', operationId: 'tenantSettings', tag: 'Tenant settings',
      summary: "The caller's tenant settings in effect (rate limits, quotas, ceilings, WebSocket caps, files)",
      responses: { 200: { description: 'settings', schema: TenantSettings } },
      async handle({ access }) {
        return ok(engine.settings(access.tenant));
      },
    },
    {
      method: 'get', path: '/token/inspect', operationId: 'inspectToken', tag: 'Tenant settings',
      summary: 'Who the token speaks for: subject, organization, expiry and the data sets it may read and write',
      responses: { 200: { description: 'the token', schema: TokenInspection } },
      async handle({ caller, access, headers }) {
        const expiresAt = expiryOf(headers.authorization);
        return ok({ subject: caller.sub, organization: caller.tenant, ...(expiresAt !== undefined ? { expiresAt } : {}), datasets: await engine.datasets.grantsOf(access) });
      },
    },
  ];
}
