// Which functions keep which targets, and which series they read: held in memory per tenant so
// that every committed batch and every hand write asks a map, not PostgreSQL. A tenant's entry
// is loaded from PostgreSQL on first use and reloaded in the background once older than
// TARGET_INDEX_TTL_MS (another instance's writes, a series created since with an externalId an
// expression names); this instance's own function writes drop it at once (invalidate).
// Every load reports the functions that are new or changed since the last one (all of them on
// a tenant's first load), for which the maintainer computes the whole target afresh.
import type { ValueType } from '../datapoints/types.ts';
import type { Logger } from '../log.ts';
import type { Queryable } from '../stores/queryable.ts';
import { parseExpression } from './expression.ts';
import type { RunGrants } from './run-grants.ts';
import { INPUT_SERIES, KEPT_FUNCTIONS, TENANTS_WITH_TARGETS } from './target-index.sql.ts';

/** How old a tenant's entry may be before a use reloads it (in the background). */
export const TARGET_INDEX_TTL_MS = 2_000;
/** Least time between two reloads looking for a newly created input series. */
const UNRESOLVED_RELOAD_MS = 200;

/** A function that keeps a target, as the maintainer needs it. */
export interface KeptFunction {
  id: number;
  externalId: string;
  /** The function record's own data set: who may see the function at all. */
  dataSetId: number | null;
  expression: string;
  targetSeriesId: number;
  /** Null when the target series is gone (deleted since). */
  targetValueType: ValueType | null;
  runGrants: RunGrants;
  targetStatus: Record<string, unknown> | null;
  lastUpdatedTime: number;
  /** The series it reads, resolved now (an externalId no series has yet resolves to none). */
  inputs: KeptInput[];
  /** Whether some input named by externalId has no series yet. */
  unresolved: boolean;
}

export interface KeptInput {
  seriesId: number;
  /** The series' isStep at the load. */
  isStep: boolean;
  /** The granularity of an aggregate input (its changes reach whole buckets and their neighbours). */
  granularity?: string;
}

export interface TenantTargets {
  /** By function id. */
  functions: ReadonlyMap<number, KeptFunction>;
  /** The functions reading each series. */
  byInput: ReadonlyMap<number, readonly KeptFunction[]>;
  /** The function keeping each target series. */
  byTarget: ReadonlyMap<number, KeptFunction>;
  /** Whether some function names an input no series has yet (a series created later may be it). */
  unresolved: boolean;
}

const EMPTY: TenantTargets = { functions: new Map(), byInput: new Map(), byTarget: new Map(), unresolved: false };

interface Entry {
  targets: TenantTargets;
  /** When `targets` was loaded; -Infinity when never, or dropped by invalidate. */
  loadedAt: number;
  /** Whether `targets` came from a load (a reload then reports only what changed). */
  loaded: boolean;
  /** Counts invalidations: a load that began before the last one is not fresh when it ends. */
  generation: number;
  /** A reload looking for newly created inputs, due. */
  newInputsReload?: NodeJS.Timeout;
  reloading?: Promise<TenantTargets>;
}

interface KeptRow {
  id: number;
  external_id: string;
  data_set_id: number | null;
  expression: string;
  target_series_id: number;
  run_grants: RunGrants;
  target_status: Record<string, unknown> | null;
  last_updated_time: number;
  target_value_type: ValueType | null;
}

export interface TargetIndexOptions {
  /** Called after a load with the functions new or changed since the previous load of the tenant, and the ids gone. */
  onChanged(tenant: string, changed: readonly KeptFunction[], removed: readonly number[]): void;
  log: Logger;
  ttlMs?: number;
  now?: () => number;
}

/** Whether two loads of a function differ in what its target's points depend on. */
function sameFunction(a: KeptFunction, b: KeptFunction): boolean {
  return a.expression === b.expression && a.targetSeriesId === b.targetSeriesId && a.lastUpdatedTime === b.lastUpdatedTime
    && a.targetValueType === b.targetValueType && JSON.stringify(a.inputs) === JSON.stringify(b.inputs);
}

export class TargetIndex {
  private readonly entries = new Map<string, Entry>();
  /** Tenants known to have a kept target; undefined until first read. Others skip the per-tenant load. */
  private tenantsWithTargets: Set<string> | undefined;
  private tenantsLoadedAt = -Infinity;
  private tenantsLoading: Promise<Set<string>> | undefined;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(private readonly db: Queryable, private readonly options: TargetIndexOptions) {
    this.ttlMs = options.ttlMs ?? TARGET_INDEX_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  /** The tenant's kept targets: from memory when loaded (reloaded in the background when old), else loaded first. */
  async of(tenant: string): Promise<TenantTargets> {
    const entry = this.entries.get(tenant);
    if (!entry) return (await this.tenants()).has(tenant) ? this.reload(tenant) : EMPTY;
    if (entry.loadedAt === -Infinity) return this.reload(tenant);
    if (this.now() - entry.loadedAt > this.ttlMs) void this.reload(tenant).catch((error: unknown) => this.options.log.warn({ err: error, tenant }, 'reloading the functions that keep targets failed'));
    return entry.targets;
  }

  /** The tenants with kept targets, from PostgreSQL (for the start, which computes them all afresh). */
  async allTenants(): Promise<string[]> {
    return [...await this.tenants(true)];
  }

  /** After this instance wrote functions of `tenant`: the next use waits for a fresh load. */
  invalidate(tenant: string): void {
    this.tenantsWithTargets?.add(tenant);
    const entry = this.entries.get(tenant);
    if (entry) {
      entry.loadedAt = -Infinity;
      entry.generation++;
    } else {
      this.entries.set(tenant, { targets: EMPTY, loadedAt: -Infinity, loaded: false, generation: 1 });
    }
    // A write may have removed the tenant's last target: the set is read again soon.
    this.tenantsLoadedAt = -Infinity;
  }

  /**
   * After a series of `tenant` changed a key (externalId, data set, valueType, isStep) or was
   * deleted, here or in another process: the next use waits for a fresh load, which reports
   * the functions whose inputs resolve otherwise or changed isStep (every value between an
   * input's points changes with it).
   */
  seriesChanged(tenant: string): void {
    const entry = this.entries.get(tenant);
    if (!entry) return;
    entry.loadedAt = -Infinity;
    entry.generation++;
    void this.reload(tenant).catch((error: unknown) => this.options.log.warn({ err: error, tenant }, 'reloading the functions that keep targets failed'));
  }

  /**
   * A batch wrote series no function of the tenant is known to read, while some function
   * names an input no series had at the last load: the series may be new and be that input.
   * Reloads (at most every UNRESOLVED_RELOAD_MS), which reports the function as changed.
   */
  maybeNewInputs(tenant: string, seriesIds: readonly number[]): void {
    const entry = this.entries.get(tenant);
    if (!entry?.targets.unresolved || entry.newInputsReload) return;
    if (seriesIds.every((id) => entry.targets.byInput.has(id) || entry.targets.byTarget.has(id))) return;
    // The last load may have run before the series was created: one more, soon, in any case.
    entry.newInputsReload = setTimeout(() => {
      const current = this.entries.get(tenant);
      if (current) current.newInputsReload = undefined;
      void this.reload(tenant).catch((error: unknown) => this.options.log.warn({ err: error, tenant }, 'reloading the functions that keep targets failed'));
    }, Math.max(0, UNRESOLVED_RELOAD_MS - (this.now() - entry.loadedAt)));
    entry.newInputsReload.unref();
  }

  /** Loads the tenant's entry now (one load at a time per tenant) and reports what changed. */
  reload(tenant: string): Promise<TenantTargets> {
    const entry = this.entries.get(tenant);
    if (entry?.reloading) return entry.reloading;
    const generation = entry?.generation ?? 0;
    const loading = this.load(tenant).then((targets) => {
      const previous = this.entries.get(tenant);
      const before = previous?.loaded ? previous.targets : undefined;
      const current = previous?.generation ?? 0;
      this.entries.set(tenant, { targets, loadedAt: current === generation ? this.now() : -Infinity, loaded: true, generation: current, newInputsReload: previous?.newInputsReload });
      const changed = [...targets.functions.values()].filter((f) => {
        const was = before?.functions.get(f.id);
        return !was || !sameFunction(was, f);
      });
      const removed = before ? [...before.functions.keys()].filter((id) => !targets.functions.has(id)) : [];
      if (changed.length > 0 || removed.length > 0) this.options.onChanged(tenant, changed, removed);
      return targets;
    }).finally(() => {
      const now = this.entries.get(tenant);
      if (!now) return;
      now.reloading = undefined;
      // Invalidated while loading: what was loaded may predate the change; load once more.
      if (now.generation !== generation) void this.reload(tenant).catch((error: unknown) => this.options.log.warn({ err: error, tenant }, 'reloading the functions that keep targets failed'));
    });
    if (entry) entry.reloading = loading;
    else this.entries.set(tenant, { targets: EMPTY, loadedAt: -Infinity, loaded: false, generation: 0, reloading: loading });
    return loading;
  }

  private async tenants(fresh = false): Promise<Set<string>> {
    const known = this.tenantsWithTargets;
    if (known && !fresh && this.now() - this.tenantsLoadedAt <= this.ttlMs) return known;
    this.tenantsLoading ??= this.db.query<{ tenant: string }>(TENANTS_WITH_TARGETS).then(({ rows }) => {
      const tenants = new Set(rows.map((r) => r.tenant));
      this.tenantsWithTargets = tenants;
      this.tenantsLoadedAt = this.now();
      return tenants;
    }).finally(() => {
      this.tenantsLoading = undefined;
    });
    // A known set is good enough while the next one loads, unless the caller asked for now's.
    return known && !fresh ? known : this.tenantsLoading;
  }

  private async load(tenant: string): Promise<TenantTargets> {
    const { rows } = await this.db.query<KeptRow>(KEPT_FUNCTIONS, [tenant]);
    const parsed = rows.map((row) => ({ row, parsed: parseExpression(row.expression) }));
    const externalIds = new Set<string>();
    const ids = new Set<number>();
    for (const { parsed: p } of parsed) {
      if (!p.ok) continue;
      for (const input of p.inputs) {
        if (input.externalId !== undefined) externalIds.add(input.externalId);
        if (input.id !== undefined) ids.add(input.id);
      }
    }
    const idOf = new Map<string, number>();
    const isStepOf = new Map<number, boolean>();
    if (externalIds.size > 0 || ids.size > 0) {
      const { rows: series } = await this.db.query<{ id: number; external_id: string; is_step: boolean }>(INPUT_SERIES, [tenant, [...externalIds], [...ids]]);
      for (const s of series) {
        idOf.set(s.external_id, Number(s.id));
        isStepOf.set(Number(s.id), s.is_step);
      }
    }
    const functions = new Map<number, KeptFunction>();
    const byInput = new Map<number, KeptFunction[]>();
    const byTarget = new Map<number, KeptFunction>();
    let anyUnresolved = false;
    for (const { row, parsed: p } of parsed) {
      const inputs: KeptInput[] = [];
      let unresolved = false;
      if (p.ok) {
        for (const input of p.inputs) {
          const seriesId = input.id ?? idOf.get(input.externalId as string);
          const isStep = seriesId === undefined ? undefined : isStepOf.get(seriesId);
          if (seriesId === undefined || isStep === undefined) unresolved = true;
          else inputs.push(input.granularity !== undefined ? { seriesId, isStep, granularity: input.granularity } : { seriesId, isStep });
        }
      }
      anyUnresolved ||= unresolved;
      const kept: KeptFunction = {
        id: Number(row.id), externalId: row.external_id, dataSetId: row.data_set_id === null ? null : Number(row.data_set_id), expression: row.expression, targetSeriesId: Number(row.target_series_id),
        targetValueType: row.target_value_type, runGrants: row.run_grants, targetStatus: row.target_status,
        lastUpdatedTime: Number(row.last_updated_time), inputs, unresolved,
      };
      functions.set(kept.id, kept);
      byTarget.set(kept.targetSeriesId, kept);
      for (const seriesId of new Set(inputs.map((i) => i.seriesId))) {
        const list = byInput.get(seriesId);
        if (list) list.push(kept);
        else byInput.set(seriesId, [kept]);
      }
    }
    return { functions, byInput, byTarget, unresolved: anyUnresolved };
  }
}
