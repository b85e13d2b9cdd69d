// What this process last learned about the series a tenant writes to (id or externalId ->
// seriesId and valueType), handed to the parse worker with a body so it can encode the points
// in the same task as the scan: the second worker round trip cost ~4 ms of a ~40 ms insert.
// Only a guess: the insert still resolves every target in PostgreSQL (existence,
// grants) and encodes again whenever one differs from what the worker assumed.
import type { ValueType } from '../datapoints/types.ts';
import type { SeriesTarget } from '../meta/series-targets.ts';
import type { ScannedItemView, SeriesHints } from './datapoint-body-parser.ts';

/** Hints kept per tenant (past it the tenant starts over), and tenants kept. */
export const TARGET_HINTS_PER_TENANT_MAX = 4096;
export const TARGET_HINT_TENANTS_MAX = 1024;

export class TargetHints {
  private readonly byTenant = new Map<string, Map<string, { seriesId: number; valueType: ValueType }>>();
  /**
   * The snapshot hintsFor last gave, per tenant, until learn() changes the tenant's hints: the
   * same object while nothing changes, so the parser can keep its own form of it (the workers'
   * shared copy, datapoint-pool.ts) instead of redoing it for every body.
   */
  private readonly snapshots = new Map<string, SeriesHints>();

  /** `hintKey` is the workers' (DatapointBodyLayout.hintKey): hints are looked up by it there. */
  constructor(private readonly hintKey: (item: ScannedItemView) => string) {}

  /** The tenant's hints as the worker takes them, or undefined when there are none. */
  hintsFor(tenant: string): SeriesHints | undefined {
    const kept = this.snapshots.get(tenant);
    if (kept) return kept;
    const known = this.byTenant.get(tenant);
    if (!known || known.size === 0) return undefined;
    const hints: SeriesHints = { keys: [], seriesIds: [], valueTypes: [] };
    for (const [key, target] of known) {
      hints.keys.push(key);
      hints.seriesIds.push(target.seriesId);
      hints.valueTypes.push(target.valueType);
    }
    this.snapshots.set(tenant, Object.freeze(hints));
    return hints;
  }

  /** Remembers the resolved targets of a request's items (parallel arrays). */
  learn(tenant: string, items: readonly ScannedItemView[], targets: readonly (SeriesTarget | null)[]): void {
    let known = this.byTenant.get(tenant);
    if (!known) {
      if (this.byTenant.size >= TARGET_HINT_TENANTS_MAX) {
        const oldest = this.byTenant.keys().next().value as string;
        this.byTenant.delete(oldest);
        this.snapshots.delete(oldest);
      }
      this.byTenant.set(tenant, (known = new Map()));
    }
    let changed = false;
    items.forEach((item, i) => {
      const target = targets[i];
      const key = this.hintKey(item);
      if (!target) {
        changed = known.delete(key) || changed;
        return;
      }
      const held = known.get(key);
      if (held?.seriesId === target.seriesId && held.valueType === target.valueType) return;
      if (known.size >= TARGET_HINTS_PER_TENANT_MAX && !held) known.clear();
      known.set(key, { seriesId: target.seriesId, valueType: target.valueType });
      changed = true;
    });
    if (changed) this.snapshots.delete(tenant);
  }
}
