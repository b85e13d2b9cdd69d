// What this process last learned about the series a tenant writes to (id or externalId ->
// seriesId and valueType), handed to the parse worker with a body so it can encode the points
// in the same task as the scan: the second worker round trip cost ~4 ms of a ~40 ms insert.
// Hints learned in the series directory's current epoch of the tenant (series-directory.ts:
// no key has changed since) say exactly which series an item names, so the insert may take
// them as resolved (series-targets.ts hintedTargets); otherwise they are only a guess, and the
// insert resolves every target and encodes again wherever one differs from what was assumed.
import type { SeriesTarget } from '../meta/series-targets.ts';
import type { ScannedItemView, SeriesHints } from './datapoint-body-parser.ts';

/** Hints kept per tenant (past it the tenant starts over), and tenants kept. */
export const TARGET_HINTS_PER_TENANT_MAX = 4096;
export const TARGET_HINT_TENANTS_MAX = 1024;

/** A tenant's hints as given to an insert. */
export interface TenantHints {
  /** As the worker takes them. */
  hints: SeriesHints;
  /** The resolved target behind each hint (parallel to hints.keys). */
  targets: readonly SeriesTarget[];
  /**
   * The series directory's epoch of the tenant that every hint was learned in; undefined when
   * some were learned while the directory held nothing of the tenant (guesses only).
   */
  epoch: number | undefined;
}

interface Learned {
  epoch: number | undefined;
  known: Map<string, SeriesTarget>;
}

export class TargetHints {
  private readonly byTenant = new Map<string, Learned>();
  /**
   * The snapshot hintsFor last gave, per tenant, until learn() changes the tenant's hints: the
   * same object while nothing changes, so the parser can keep its own form of it (the workers'
   * shared copy, datapoint-pool.ts) instead of redoing it for every body.
   */
  private readonly snapshots = new Map<string, TenantHints>();

  /** `hintKey` is the workers' (DatapointBodyLayout.hintKey): hints are looked up by it there. */
  constructor(private readonly hintKey: (item: ScannedItemView) => string) {}

  /** The tenant's hints, or undefined when there are none. */
  hintsFor(tenant: string): TenantHints | undefined {
    const kept = this.snapshots.get(tenant);
    if (kept) return kept;
    const learned = this.byTenant.get(tenant);
    if (!learned || learned.known.size === 0) return undefined;
    const hints: SeriesHints = { keys: [], seriesIds: [], valueTypes: [] };
    const targets: SeriesTarget[] = [];
    for (const [key, target] of learned.known) {
      hints.keys.push(key);
      hints.seriesIds.push(target.seriesId);
      hints.valueTypes.push(target.valueType);
      targets.push(target);
    }
    const snapshot: TenantHints = Object.freeze({ hints: Object.freeze(hints), targets: Object.freeze(targets), epoch: learned.epoch });
    this.snapshots.set(tenant, snapshot);
    return snapshot;
  }

  /**
   * Remembers the resolved targets of a request's items (parallel arrays). `epoch`: the series
   * directory's epoch of the tenant when their resolution began (undefined when it held nothing
   * of the tenant). Hints of an older epoch are dropped before a newer one's are learned, and
   * a resolution that began before the tenant's last forget teaches nothing.
   */
  learn(tenant: string, items: readonly ScannedItemView[], targets: readonly (SeriesTarget | null)[], epoch: number | undefined): void {
    let learned = this.byTenant.get(tenant);
    if (!learned) {
      if (this.byTenant.size >= TARGET_HINT_TENANTS_MAX) {
        const oldest = this.byTenant.keys().next().value as string;
        this.byTenant.delete(oldest);
        this.snapshots.delete(oldest);
      }
      this.byTenant.set(tenant, (learned = { epoch, known: new Map() }));
    }
    let changed = false;
    if (learned.epoch !== epoch) {
      if (epoch === undefined) learned.epoch = undefined;
      else if (learned.epoch === undefined || epoch > learned.epoch) {
        learned.known.clear();
        learned.epoch = epoch;
      } else return;
      changed = true;
    }
    const known = learned.known;
    items.forEach((item, i) => {
      const target = targets[i];
      const key = this.hintKey(item);
      if (!target) {
        changed = known.delete(key) || changed;
        return;
      }
      const held = known.get(key);
      if (held === target || (held && sameTarget(held, target))) return;
      if (known.size >= TARGET_HINTS_PER_TENANT_MAX && !held) known.clear();
      known.set(key, target);
      changed = true;
    });
    if (changed) this.snapshots.delete(tenant);
  }
}

function sameTarget(a: SeriesTarget, b: SeriesTarget): boolean {
  return a.seriesId === b.seriesId && a.valueType === b.valueType && a.externalId === b.externalId && a.dataSetId === b.dataSetId && (a.isStep ?? false) === (b.isStep ?? false);
}
