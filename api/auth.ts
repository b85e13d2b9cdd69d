// Bearer token verification with fast-jwt (CONTRACT.md "Tokens"): HS256 with
// AUTH_JWT_SECRET, or RS256/ES256 from AUTH_JWKS_URL with issuer and audience checks.
import { createSigner, createVerifier } from 'fast-jwt';
import buildGetJwks from 'get-jwks';
import { callerFromClaims, ClaimError, type Caller } from '../engine/grants/claims.ts';

export class AuthError extends Error {}

export interface Authenticator {
  authenticate(authorization: string): Promise<Caller>;
}

/** Verified tokens kept by fast-jwt's own cache, keyed by the token. */
const VERIFIER_CACHE_SIZE = 10_000;

export function createAuthenticator(opts: { secret?: string; jwksUrl?: string; issuer?: string; audience?: string }): Authenticator {
  const verify = opts.jwksUrl ? jwksVerifier(opts.jwksUrl, opts.issuer, opts.audience) : hsVerifier(opts.secret, opts.issuer, opts.audience);
  return {
    async authenticate(authorization) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      if (!match?.[1]) throw new AuthError('Missing bearer token: send Authorization: Bearer <JWT>');
      let claims: Record<string, unknown>;
      try {
        claims = await verify(match[1]);
      } catch (error) {
        const code = (error as { code?: string }).code ?? '';
        throw new AuthError(code === 'FAST_JWT_EXPIRED' ? 'The token has expired' : 'The token is malformed or its signature is invalid');
      }
      try {
        return callerFromClaims(claims);
      } catch (error) {
        if (error instanceof ClaimError) throw new AuthError(error.message);
        throw error;
      }
    },
  };
}

function hsVerifier(secret: string | undefined, issuer?: string, audience?: string) {
  if (!secret) throw new Error('AUTH_JWT_SECRET is required when AUTH_JWKS_URL is not set');
  const verifier = createVerifier({
    key: secret,
    algorithms: ['HS256'],
    requiredClaims: ['exp'],
    cache: VERIFIER_CACHE_SIZE,
    ...(issuer ? { allowedIss: issuer } : {}),
    ...(audience ? { allowedAud: audience } : {}),
  });
  return async (token: string) => verifier(token) as Record<string, unknown>;
}

function jwksVerifier(jwksUrl: string, issuer?: string, audience?: string) {
  const url = new URL(jwksUrl);
  const getJwks = buildGetJwks({ jwksPath: url.pathname + url.search, providerDiscovery: false, ttl: 600_000 });
  const verifier = createVerifier({
    key: async (decoded: { header: { kid?: string; alg?: string } }) => {
      // get-jwks fetches `${domain}/${jwksPath}`.
      return getJwks.getPublicKey({ kid: decoded.header.kid, alg: decoded.header.alg, domain: url.origin });
    },
    algorithms: ['RS256', 'ES256'],
    requiredClaims: ['exp'],
    cache: VERIFIER_CACHE_SIZE,
    ...(issuer ? { allowedIss: issuer } : {}),
    ...(audience ? { allowedAud: audience } : {}),
  });
  return async (token: string) => (await verifier(token)) as Record<string, unknown>;
}

export interface MintOptions {
  secret: string;
  organization: string;
  sub: string;
  read?: (number | string)[];
  write?: (number | string)[];
  expiresInSeconds?: number;
}

/** HS256 token as `npm run token` and the dev identity provider issue it. */
export function mintToken(opts: MintOptions): string {
  const sign = createSigner({ key: opts.secret, algorithm: 'HS256', expiresIn: (opts.expiresInSeconds ?? 3600) * 1000 });
  const claims: Record<string, unknown> = { organization: opts.organization, sub: opts.sub };
  if (opts.read || opts.write) claims['datasets'] = { read: opts.read ?? [], write: opts.write ?? [] };
  return sign(claims);
}
