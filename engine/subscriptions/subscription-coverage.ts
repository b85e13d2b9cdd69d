// Which subscriptions a tenant's series reach: per tenant, the subscriptions bound
// to each series and those covering each data set (its descendants included), loaded from
// PostgreSQL and held for COVERAGE_TTL_MS. The broker's commit path reads it without waiting
// (peek: a tenant known to have no subscription costs a map lookup); its flush loads it.
import { DESCENDANT_DATA_SETS } from '../grants/access.sql.ts';
import type { Queryable } from '../stores/queryable.ts';
import { COVERAGE_DATA_SETS, COVERAGE_SERIES } from './subscription-coverage.sql.ts';

/** A tenant's coverage is reloaded at least this often (data sets created under a covered one). */
const COVERAGE_TTL_MS = 5_000;

export interface Coverage {
  loadedAtMs: number;
  /** Series id → the subscriptions naming it. */
  bySeries: Map<number, number[]>;
  /** Data set id → the subscriptions covering it (directly or through an ancestor). */
  byDataSet: Map<number, number[]>;
  empty: boolean;
}

export class SubscriptionCoverage {
  private readonly byTenant = new Map<string, Coverage>();

  constructor(private readonly db: Queryable) {}

  /** The tenant has no subscription, as last loaded and still fresh: its batches need not be queued. */
  knownEmpty(tenant: string): boolean {
    const known = this.byTenant.get(tenant);
    return known !== undefined && known.empty && Date.now() - known.loadedAtMs < COVERAGE_TTL_MS;
  }

  /** Forgets a tenant's coverage (a subscription write, here or elsewhere), or every tenant's. */
  invalidate(tenant?: string): void {
    if (tenant === undefined) this.byTenant.clear();
    else this.byTenant.delete(tenant);
  }

  /** The tenant's coverage, loaded when missing or older than COVERAGE_TTL_MS. */
  async of(tenant: string): Promise<Coverage> {
    const held = this.byTenant.get(tenant);
    if (held && Date.now() - held.loadedAtMs < COVERAGE_TTL_MS) return held;
    const loadedAtMs = Date.now();
    const [{ rows: bound }, { rows: sets }] = await Promise.all([
      this.db.query<{ subscription_id: number; series_id: number }>(COVERAGE_SERIES, [tenant]),
      this.db.query<{ id: number; data_set_id: number }>(COVERAGE_DATA_SETS, [tenant]),
    ]);
    const bySeries = new Map<number, number[]>();
    for (const row of bound) bySeries.set(row.series_id, [...(bySeries.get(row.series_id) ?? []), row.subscription_id]);
    const byDataSet = new Map<number, number[]>();
    for (const sub of sets) {
      const { rows } = await this.db.query<{ id: string }>(DESCENDANT_DATA_SETS, [tenant, [sub.data_set_id], []]);
      for (const { id } of rows) byDataSet.set(Number(id), [...(byDataSet.get(Number(id)) ?? []), sub.id]);
    }
    const coverage: Coverage = { loadedAtMs, bySeries, byDataSet, empty: bySeries.size === 0 && byDataSet.size === 0 };
    // Kept unless invalidated while loading (a newer load will follow).
    if (!this.byTenant.has(tenant) || this.byTenant.get(tenant) === held) this.byTenant.set(tenant, coverage);
    return coverage;
  }
}
