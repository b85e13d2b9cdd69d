// Per-minute rate limits (SPEC "Limits") counted once for a tenant however many API instances
// serve it. Each budget (organization or user, read or write) has fixed one-minute windows
// whose use is kept in PostgreSQL, which every instance already shares. A request does not
// go to PostgreSQL each time: an instance charges a slice of the window's limit ahead
// (RATE_LEASE_FRACTION, the daily quotas' lease in quota-lease.ts) and spends it locally, so
// PostgreSQL sees one charge per slice and instance, whatever the request rate.
//
// What it gives: the limit is never passed, whatever the number of instances (a slice is
// taken only where it fits whole; near the limit charges are exact). A budget may be refused
// up to one slice per other instance early (slices taken and not spent when the window
// runs out), 5% of the limit each. When PostgreSQL cannot be reached, an instance counts the
// window alone (the limit then holds per instance, as it would with one) rather than refuse
// or admit everything; a warning says so.
import type { Logger } from '../log.ts';
import type { Queryable } from '../stores/queryable.ts';
import { QuotaLeases } from './quota-lease.ts';
import { CHARGE_WINDOW, FORGET_WINDOWS_BEFORE } from './rate-windows.sql.ts';

/** A slice is this fraction of a window's limit: the most a budget may be refused early per other instance. */
export const RATE_LEASE_FRACTION = 0.05;

export const RATE_WINDOW_MS = 60_000;

/** After PostgreSQL failed a charge, how long an instance counts alone before it asks again. */
const RETRY_SHARED_MS = 1_000;

export interface RateBudget {
  tenant: string;
  scope: 'organization' | 'user';
  /** The user (token `sub`) for a user budget, '' for the organization's. */
  subject: string;
  budget: 'read' | 'write';
}

export interface RateWindows {
  /** Spends one request of the budget in the window starting at `windowStart`; false when that passes `limit`. */
  spend(budget: RateBudget, windowStart: number, limit: number): Promise<boolean>;
  /** Gives back the request `spend` took when another budget then refused it. */
  refund(budget: RateBudget, windowStart: number): void;
}

const keyOf = (b: RateBudget) => `${b.tenant}\u0000${b.scope}\u0000${b.subject}\u0000${b.budget}`;

/** Windows counted in this process only: a deployment of one instance, and the fallback when PostgreSQL is away. */
export function localRateWindows(): RateWindows {
  let current = 0;
  const used = new Map<string, number>();
  const windowOf = (windowStart: number) => {
    if (windowStart !== current) {
      current = windowStart;
      used.clear(); // bounded: one window's budgets at most
    }
  };
  return {
    async spend(budget, windowStart, limit) {
      windowOf(windowStart);
      const key = keyOf(budget);
      const count = (used.get(key) ?? 0) + 1;
      if (count > limit) return false;
      used.set(key, count);
      return true;
    },
    refund(budget, windowStart) {
      if (windowStart !== current) return;
      const key = keyOf(budget);
      used.set(key, Math.max(0, (used.get(key) ?? 0) - 1));
    },
  };
}

/** Windows shared through PostgreSQL's `rate_windows` (migration 017), charged in slices. */
export function sharedRateWindows(db: Queryable, log: Logger): RateWindows {
  const leases = new QuotaLeases(RATE_LEASE_FRACTION);
  const alone = localRateWindows();
  let current = 0;
  let warnedAt = 0;
  let aloneUntil = 0;
  /**
   * Budgets PostgreSQL refused a single request in the current window: a window's count only
   * grows, so they stay full, and a client sending on past its limit costs no statement.
   */
  const full = new Set<string>();
  const turn = (windowStart: number) => {
    if (windowStart <= current) return;
    current = windowStart;
    full.clear();
    leases.forgetAllBut(String(windowStart));
    // The previous window stays: an instance whose clock is a little behind may still charge it.
    db.query(FORGET_WINDOWS_BEFORE, [windowStart - RATE_WINDOW_MS]).catch(() => undefined);
  };
  return {
    async spend(budget, windowStart, limit) {
      turn(windowStart);
      if (Date.now() < aloneUntil) return alone.spend(budget, windowStart, limit);
      const key = keyOf(budget);
      const charge = async (units: number) => {
        if (windowStart === current && full.has(key)) return false;
        const fits = (await db.query(CHARGE_WINDOW, [budget.tenant, budget.scope, budget.subject, budget.budget, windowStart, units, limit])).rows.length > 0;
        if (!fits && units <= 1 && windowStart === current) full.add(key);
        return fits;
      };
      try {
        return await leases.spend(key, String(windowStart), 1, limit, charge);
      } catch (error) {
        aloneUntil = Date.now() + RETRY_SHARED_MS;
        if (Date.now() - warnedAt > RATE_WINDOW_MS) {
          warnedAt = Date.now();
          log.warn({ err: error }, 'rate limits: PostgreSQL unreachable; this instance counts its windows alone until it answers');
        }
        return alone.spend(budget, windowStart, limit);
      }
    },
    refund(budget, windowStart) {
      leases.refund(keyOf(budget), String(windowStart), 1);
    },
  };
}
