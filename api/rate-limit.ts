// Per-minute rate limits (SPEC Limits): fixed one-minute windows per organization and per
// user, separate read and write budgets. Counted in this process; behind a load balancer each
// instance enforces the full budget (noted in docs/api.md).
import type { TenantSettings } from '../schemas/config.ts';
import { RateLimitError } from '../engine/errors.ts';
import type { Method } from './route.ts';

const WINDOW_MS = 60_000;

/** SPEC Limits: a POST whose last path segment is one of these is charged as a read. */
const READ_POST_SEGMENTS = new Set(['filter', 'search', 'byids', 'list', 'count', 'check', 'fetch-related', 'fetch-nearest', 'aggregate', 'latest']);

export type Budget = 'read' | 'write';

export function budgetOf(method: Method, path: string): Budget {
  if (method === 'get') return 'read';
  if (method !== 'post') return 'write';
  const last = path.split('/').filter(Boolean).pop() ?? '';
  return READ_POST_SEGMENTS.has(last) ? 'read' : 'write';
}

export class RateLimiter {
  private windowStart = 0;
  private counts = new Map<string, number>();

  /** Charges one request; throws RateLimitError (with the seconds left in the window) when over. */
  charge(tenant: string, sub: string, budget: Budget, settings: TenantSettings, now = Date.now()): void {
    const windowStart = now - (now % WINDOW_MS);
    if (windowStart !== this.windowStart) {
      this.windowStart = windowStart;
      this.counts.clear(); // bounded: one window's keys at most
    }
    const retryAfter = Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000));
    const perMinute = (scope: 'organization' | 'user') =>
      budget === 'read' ? settings.rateLimits[scope].readsPerMinute : settings.rateLimits[scope].writesPerMinute;
    const orgKey = `o\u0000${tenant}\u0000${budget}`;
    const userKey = `u\u0000${tenant}\u0000${sub}\u0000${budget}`;
    const orgCount = (this.counts.get(orgKey) ?? 0) + 1;
    const userCount = (this.counts.get(userKey) ?? 0) + 1;
    if (userCount > perMinute('user')) throw new RateLimitError('user', perMinute('user'), retryAfter, budget);
    if (orgCount > perMinute('organization')) throw new RateLimitError('tenant', perMinute('organization'), retryAfter, budget);
    this.counts.set(orgKey, orgCount);
    this.counts.set(userKey, userCount);
  }
}
