// Bearer token verification with fast-jwt (CONTRACT.md "Tokens"): HS256 with
// AUTH_JWT_SECRET, or RS256/ES256 from AUTH_JWKS_URL with issuer and audience checks.
import { createSigner, createVerifier } from 'fast-jwt';
import buildGetJwks from 'get-jwks';
import { callerFromClaims, ClaimError, type Caller } from '../engine/grants/claims.ts';

export class AuthError extends Error {}

export interface Authenticator {
  authenticate(authorization: string): Promise<Caller>;
}

/** Callers of verified tokens kept, at most (VerifiedTokens). */
const VERIFIED_TOKENS_MAX = 10_000;
/** How long a verified token's caller is kept at most, as fast-jwt's own cache would (its cacheTTL's default). */
const VERIFIED_TOKEN_TTL_MS = 600_000;

export interface AuthenticatorOptions {
  secret?: string;
  jwksUrl?: string;
  issuer?: string;
  audience?: string;
  /** Callers of verified tokens kept. @default 10,000 */
  verifiedTokensMax?: number;
  /** The clock, ms (tests). @default Date.now */
  nowMs?: () => number;
}

/**
 * The callers of tokens verified lately, by the token's text, each until the token expires and
 * at most VERIFIED_TOKEN_TTL_MS; the oldest goes first when full. fast-jwt's own cache keys a
 * token by its SHA-256 instead, which took 46 us a request on the bench's 2-core VM (3% of the event
 * loop under the paced gateway ingest, bench/probe.ts gateway --profile): a string key costs
 * a map lookup. Its callers are frozen, since every request with the token shares one.
 */
class VerifiedTokens {
  private readonly callers = new Map<string, { caller: Caller; untilMs: number }>();

  constructor(private readonly max: number) {}

  get(token: string, nowMs: number): Caller | undefined {
    const kept = this.callers.get(token);
    if (!kept) return undefined;
    if (nowMs < kept.untilMs) return kept.caller;
    this.callers.delete(token);
    return undefined;
  }

  set(token: string, caller: Caller, untilMs: number): void {
    if (this.max <= 0) return;
    if (this.callers.size >= this.max) this.callers.delete(this.callers.keys().next().value as string);
    this.callers.set(token, { caller, untilMs });
  }
}

function frozenCaller(caller: Caller): Caller {
  if (caller.datasetGrants) {
    Object.freeze(caller.datasetGrants.read);
    Object.freeze(caller.datasetGrants.write);
    Object.freeze(caller.datasetGrants);
  }
  return Object.freeze(caller);
}

export function createAuthenticator(opts: AuthenticatorOptions): Authenticator {
  const verify = opts.jwksUrl ? jwksVerifier(opts.jwksUrl, opts.issuer, opts.audience) : hsVerifier(opts.secret, opts.issuer, opts.audience);
  const verified = new VerifiedTokens(opts.verifiedTokensMax ?? VERIFIED_TOKENS_MAX);
  const now = opts.nowMs ?? Date.now;
  return {
    async authenticate(authorization) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      const token = match?.[1];
      if (!token) throw new AuthError('Missing bearer token: send Authorization: Bearer <JWT>');
      const known = verified.get(token, now());
      if (known) return known;
      let claims: Record<string, unknown>;
      try {
        claims = await verify(token);
      } catch (error) {
        const code = (error as { code?: string }).code ?? '';
        throw new AuthError(code === 'FAST_JWT_EXPIRED' ? 'The token has expired' : 'The token is malformed or its signature is invalid');
      }
      let caller: Caller;
      try {
        caller = frozenCaller(callerFromClaims(claims));
      } catch (error) {
        if (error instanceof ClaimError) throw new AuthError(error.message);
        throw error;
      }
      // `exp` is a required claim, in seconds; fast-jwt refuses the token from that instant on.
      verified.set(token, caller, Math.min(Number(claims['exp']) * 1000, now() + VERIFIED_TOKEN_TTL_MS));
      return caller;
    },
  };
}

function hsVerifier(secret: string | undefined, issuer?: string, audience?: string) {
  if (!secret) throw new Error('AUTH_JWT_SECRET is required when AUTH_JWKS_URL is not set');
  const verifier = createVerifier({
    key: secret,
    algorithms: ['HS256'],
    requiredClaims: ['exp'],
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
