// Per-minute rate limits (SPEC Limits): fixed one-minute windows per organization and per
// user, separate read and write budgets. The service counts them through PostgreSQL, once for
// every API instance (engine/quotas/rate-windows.ts).
import type { TenantSettings } from '../schemas/config.ts';
import { localRateWindows, RATE_WINDOW_MS, type RateBudget, type RateWindows } from '../engine/quotas/rate-windows.ts';
import { RateLimitError } from '../engine/errors.ts';
import type { Method } from './route.ts';

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
  /** `windows`: where the windows are counted (shared through PostgreSQL by the service; one process alone by default). */
  constructor(private readonly windows: RateWindows = localRateWindows()) {}

  /** Charges one request; throws RateLimitError (with the seconds left in the window) when over. */
  async charge(tenant: string, sub: string, budget: Budget, settings: TenantSettings, now = Date.now()): Promise<void> {
    const windowStart = now - (now % RATE_WINDOW_MS);
    const retryAfter = Math.max(1, Math.ceil((windowStart + RATE_WINDOW_MS - now) / 1000));
    const perMinute = (scope: 'organization' | 'user') =>
      budget === 'read' ? settings.rateLimits[scope].readsPerMinute : settings.rateLimits[scope].writesPerMinute;
    const user: RateBudget = { tenant, scope: 'user', subject: sub, budget };
    if (!(await this.windows.spend(user, windowStart, perMinute('user')))) throw new RateLimitError('user', perMinute('user'), retryAfter, budget);
    if (!(await this.windows.spend({ tenant, scope: 'organization', subject: '', budget }, windowStart, perMinute('organization')))) {
      this.windows.refund(user, windowStart); // a refused request uses no budget
      throw new RateLimitError('tenant', perMinute('organization'), retryAfter, budget);
    }
  }
}
