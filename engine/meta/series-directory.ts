// The keys of time series (id, externalId, valueType, data set, isStep) held in memory, so
// a data point request resolves its series without a PostgreSQL round trip: a gateway's
// 1,000-point request spent more CPU on that lookup than on storing its points. Only hits are
// kept; a miss asks PostgreSQL every time, so a series created by any process is found at once.
//
// Staying true: a change of a kept key (externalId, data set, valueType, isStep) or a delete fires a
// trigger that notifies every process (migration 004), which then forgets that tenant's
// series. The process that made the change forgets them itself once it commits (forgetTenant),
// so its own next request never sees the old keys. A lookup keeps what it fetched only if no
// forget of its tenant happened while it fetched (the tenant's epoch), so a row read just
// before a change commits is never kept after it. While the LISTEN connection is down,
// notifications may be missed: nothing is served from memory until it is back. Except where
// this process is PostgreSQL's sole client (the embedded one): there every change is made
// here and forgotten here, so what is held keeps being served while PostgreSQL is away (data
// point writes and reads of known series need no round trip), and everything held is dropped
// once the LISTEN connection is back, in case a change committed as the connection broke.
import type { Queryable } from '../stores/queryable.ts';
import type { RelationalStore } from '../stores/relational.ts';
import type { RecordFamily } from '../records/identifiers.ts';
import { LOOKUP_SERIES_KEYS } from './series-directory.sql.ts';

export interface SeriesKeyRow {
  id: number;
  external_id: string;
  value_type: string;
  data_set_id: number | null;
  /** Stepwise (the value holds until the next point) rather than linear: CDF's aggregates read it. */
  isStep: boolean;
}

/** Series kept across all tenants; past it a tenant being added to starts over (~150 B each). */
export const SERIES_KEPT_MAX = 500_000;

interface TenantSeries {
  epoch: number;
  byId: Map<number, SeriesKeyRow>;
  byExternalId: Map<string, SeriesKeyRow>;
}

export class SeriesDirectory {
  private readonly tenants = new Map<string, TenantSeries>();
  private kept = 0;
  /** False while notifications may be missed (no LISTEN connection): PostgreSQL answers. */
  private trusted: boolean;
  /** Sole client: the LISTEN connection was lost and what is held is dropped when it is back. */
  private lostSince = false;
  private readonly soleClient: boolean;

  /**
   * `listening`: whether changes of other processes reach forgetTenant (see attach).
   * `soleClient`: no other process changes PostgreSQL (see lost).
   */
  constructor(readonly db: Queryable, opts: { listening: boolean; soleClient?: boolean } = { listening: true }) {
    this.trusted = opts.listening;
    this.soleClient = opts.soleClient ?? false;
  }

  /** The tenant's series keys by ids or externalIds: from memory where held, the rest in one query. */
  async fetch(tenant: string, ids: readonly number[], externalIds: readonly string[]): Promise<SeriesKeyRow[]> {
    const held = this.held(tenant);
    const found = new Map<number, SeriesKeyRow>();
    const missingIds: number[] = [];
    const missingExternalIds: string[] = [];
    for (const id of ids) {
      const row = held?.byId.get(id);
      if (row) found.set(row.id, row);
      else missingIds.push(id);
    }
    for (const externalId of externalIds) {
      const row = held?.byExternalId.get(externalId);
      if (row) found.set(row.id, row);
      else missingExternalIds.push(externalId);
    }
    if (missingIds.length > 0 || missingExternalIds.length > 0) {
      const epoch = this.tenantOf(tenant).epoch;
      const wasTrusted = this.trusted;
      const { rows } = await this.db.query<SeriesKeyRow>({ name: 'lookup-series-keys', text: LOOKUP_SERIES_KEYS, values: [tenant, missingIds, missingExternalIds] });
      for (const row of rows) found.set(row.id, row);
      if (wasTrusted && this.trusted) this.keep(tenant, epoch, rows);
    }
    return [...found.values()];
  }

  /**
   * The tenant's series held in memory, or undefined while nothing may be served from it.
   * `epoch` counts the tenant's forgets: while it stays the same, no key held or learned of the
   * tenant's series has changed (a row is only ever added in between).
   */
  held(tenant: string): { readonly epoch: number; byId: ReadonlyMap<number, SeriesKeyRow>; byExternalId: ReadonlyMap<string, SeriesKeyRow> } | undefined {
    return this.trusted ? this.tenants.get(tenant) : undefined;
  }

  private readonly forgetListeners = new Set<(tenant: string) => void>();

  /** Calls `listener` whenever a tenant's series are forgotten (a key changed or a series was deleted, here or in another process). */
  onForget(listener: (tenant: string) => void): () => void {
    this.forgetListeners.add(listener);
    return () => this.forgetListeners.delete(listener);
  }

  /** Drops what is held of the tenant's series (after a change committed, or when notified). */
  forgetTenant(tenant: string): void {
    for (const listener of this.forgetListeners) listener(tenant);
    const held = this.tenants.get(tenant);
    if (!held) return;
    this.kept -= held.byId.size;
    held.byId.clear();
    held.byExternalId.clear();
    held.epoch++;
  }

  /** Notifications may have been missed (or cannot arrive): drop everything, serve from PostgreSQL. */
  distrust(): void {
    this.trusted = false;
    for (const tenant of this.tenants.keys()) this.forgetTenant(tenant);
  }

  /** Notifications arrive again. */
  trust(): void {
    this.trusted = true;
  }

  /**
   * The LISTEN connection failed. A sole client keeps serving what it holds (no other process
   * can change it); anything else distrusts.
   */
  lost(): void {
    if (this.soleClient && this.trusted) this.lostSince = true;
    else this.distrust();
  }

  /** The LISTEN connection is back: after a loss, what is held is dropped (see lost), then trusted. */
  listening(): void {
    if (this.lostSince) {
      for (const tenant of this.tenants.keys()) this.forgetTenant(tenant);
      this.lostSince = false;
    }
    this.trust();
  }

  /** How many series are held (metrics, tests). */
  size(): number {
    return this.kept;
  }

  /** The directory's lookups as a record family of the identifier resolver. */
  family(): RecordFamily<SeriesKeyRow> {
    return {
      fetch: (_db, tenant, ids, externalIds) => this.fetch(tenant, ids, externalIds),
      idOf: (row) => row.id,
      externalIdOf: (row) => row.external_id,
    };
  }

  private tenantOf(tenant: string): TenantSeries {
    let held = this.tenants.get(tenant);
    if (!held) this.tenants.set(tenant, (held = { epoch: 0, byId: new Map(), byExternalId: new Map() }));
    return held;
  }

  private keep(tenant: string, epoch: number, rows: readonly SeriesKeyRow[]): void {
    const held = this.tenantOf(tenant);
    if (held.epoch !== epoch) return;
    if (this.kept + rows.length > SERIES_KEPT_MAX) this.forgetTenant(tenant);
    if (this.kept + rows.length > SERIES_KEPT_MAX) return;
    for (const row of rows) {
      const before = held.byId.get(row.id);
      if (before) held.byExternalId.delete(before.external_id);
      else this.kept++;
      held.byId.set(row.id, row);
      held.byExternalId.set(row.external_id, row);
    }
  }
}

/** Opens a directory that forgets a tenant whenever PostgreSQL says its series changed. */
export async function openSeriesDirectory(relational: Pick<RelationalStore, 'pool' | 'listen'> & Partial<Pick<RelationalStore, 'soleClient'>>): Promise<{ directory: SeriesDirectory; close(): Promise<void> }> {
  const directory = new SeriesDirectory(relational.pool, { listening: false, soleClient: relational.soleClient });
  const stop = await relational.listen('series_changed', {
    notify: (tenant) => directory.forgetTenant(tenant),
    lost: () => directory.lost(),
    listening: () => directory.listening(),
  });
  return { directory, close: stop };
}
