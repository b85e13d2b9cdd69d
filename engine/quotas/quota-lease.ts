// Daily quota charged in leases: a gateway's 1,000-point request charged its points
// and its body bytes to PostgreSQL on every request, two round trips that cost more CPU than
// storing the points. A process now charges PostgreSQL a slice of the quota ahead (the lease)
// and spends it locally; PostgreSQL sees one charge per slice. The quota can still never be
// passed: a lease is taken only where the whole slice fits, and near the limit charges fall
// back to the exact amount. The cost: usage in PostgreSQL counts a process's unspent slice as
// used, so after a crash (or with several API processes each holding one) up to one slice
// per process of a day's quota is lost. Rate limits (rate-windows.ts) lease the same way, a
// minute window being their day.

/** A slice is this fraction of the day's limit; below one unit the charge is exact. */
export const LEASE_FRACTION = 0.01;

interface Lease {
  day: string;
  /** Units charged to PostgreSQL but not yet spent. */
  remaining: number;
}

/** `charge(amount)` charges PostgreSQL `amount` and says whether it fit under the limit. */
export type ChargeStore = (amount: number) => Promise<boolean>;

export class QuotaLeases {
  private readonly leases = new Map<string, Lease>();
  /** `fraction`: a slice is this fraction of the limit. */
  constructor(private readonly fraction = LEASE_FRACTION) {}

  /** One charge at a time per key: concurrent requests wait for the slice being taken. */
  private readonly taking = new Map<string, Promise<unknown>>();

  /**
   * Spends `amount` from the key's lease, taking a new slice (or the exact rest) from the
   * store when the lease is short. Resolves false when the amount does not fit the day's limit.
   */
  async spend(key: string, day: string, amount: number, limit: number, charge: ChargeStore): Promise<boolean> {
    for (;;) {
      const lease = this.leases.get(key);
      if (lease && lease.day === day && lease.remaining >= amount) {
        lease.remaining -= amount;
        return true;
      }
      const pending = this.taking.get(key);
      if (!pending) break;
      await pending.catch(() => undefined);
    }
    const taking = this.take(key, day, amount, limit, charge);
    this.taking.set(key, taking);
    try {
      return await taking;
    } finally {
      this.taking.delete(key);
    }
  }

  /** Gives back units spent on something another check then refused; they stay charged in the store, held here. */
  refund(key: string, day: string, amount: number): void {
    const lease = this.leases.get(key);
    if (lease && lease.day === day) lease.remaining += amount;
    else if (!lease) this.leases.set(key, { day, remaining: amount });
  }

  /** Forgets the leases of every day but `day` (their units are lost, as at a restart). */
  forgetAllBut(day: string): void {
    for (const [key, lease] of this.leases) if (lease.day !== day && !this.taking.has(key)) this.leases.delete(key);
  }

  private async take(key: string, day: string, amount: number, limit: number, charge: ChargeStore): Promise<boolean> {
    const lease = this.leases.get(key);
    // What is left of today's lease is claimed at once: requests that fit it keep spending
    // from it meanwhile and must not spend the same units.
    const held = lease && lease.day === day ? lease.remaining : 0;
    const claimed: Lease = { day, remaining: 0 };
    this.leases.set(key, claimed);
    const needed = amount - held;
    const slice = Math.floor(limit * this.fraction);
    try {
      // A slice ahead when it fits; otherwise exactly what is missing (the limit decides).
      if (slice > 0 && (await charge(needed + slice))) {
        claimed.remaining += slice;
        return true;
      }
      if (await charge(needed)) return true;
      claimed.remaining += held;
      return false;
    } catch (error) {
      claimed.remaining += held;
      throw error;
    }
  }
}
