// Daily ingest quotas and lifetime ceilings (SPEC "Limits"), checked in one place with the
// errors SPEC names: a daily quota is a 429 with Retry-After until 00:00 UTC, a ceiling a 403
// without. Usage lives in PostgreSQL, so every API instance charges the same counters. The
// counters commit without waiting for the WAL flush (RelationalStore.counterPool): after a
// crash of PostgreSQL a tenant may find the last fraction of a second of its usage uncounted.
import { settingsFor, type ServiceConfig } from '../config.ts';
import { IngestQuotaError, TenantLimitError } from '../errors.ts';
import type { Queryable } from '../stores/queryable.ts';
import { CHARGE_DAILY, CHARGE_LIFETIME, LIVE_OBJECTS } from './quotas.sql.ts';
import { QuotaLeases } from './quota-lease.ts';

export type DailyMetric = 'events' | 'nodes' | 'relationships' | 'datapoints' | 'ingestedBytes';
export type LifetimeMetric = 'events' | 'datapoints' | 'textDatapoints';

const DAY_MS = 86_400_000;

export function secondsUntilUtcMidnight(now: number): number {
  return Math.max(1, Math.ceil((DAY_MS - (now % DAY_MS)) / 1000));
}

/** The UTC day of `now`, YYYY-MM-DD (kept: every data point request asks for it twice). */
let dayNumber = Number.NaN;
let dayText = '';
function utcDay(now: number): string {
  const number = Math.floor(now / DAY_MS);
  if (number !== dayNumber) {
    dayText = new Date(number * DAY_MS).toISOString().slice(0, 10);
    dayNumber = number;
  }
  return dayText;
}

/** Metrics charged on every data point request: charged in leases (quota-lease.ts). */
const LEASED: ReadonlySet<DailyMetric> = new Set(['datapoints', 'ingestedBytes']);

export class Quotas {
  private readonly leases = new QuotaLeases();

  constructor(private readonly db: Queryable, private readonly config: Pick<ServiceConfig, 'policy'>) {}

  /** Charges `amount` to today's `metric`; throws IngestQuotaError when it would pass the quota. */
  async chargeDaily(tenant: string, metric: DailyMetric, amount: number, now = Date.now()): Promise<void> {
    if (amount <= 0) return;
    const limit = settingsFor(this.config, tenant).dailyQuotas[metric];
    const day = utcDay(now);
    const refuse = () => new IngestQuotaError(metric, limit, secondsUntilUtcMidnight(now));
    if (amount > limit) throw refuse();
    const charge = async (units: number) => (await this.db.query(CHARGE_DAILY, [tenant, day, metric, units, limit])).rows.length > 0;
    const fits = LEASED.has(metric) ? await this.leases.spend(`${tenant}\u0000${metric}`, day, amount, limit, charge) : await charge(amount);
    if (!fits) throw refuse();
  }

  /** Charges a cumulative ceiling when the deployment enables ceilings for the tenant. */
  async chargeLifetime(tenant: string, metric: LifetimeMetric, amount: number): Promise<void> {
    const limit = settingsFor(this.config, tenant).ceilings?.[metric];
    if (limit === undefined || amount <= 0) return;
    if (amount > limit) throw new TenantLimitError(metric, limit);
    const { rows } = await this.db.query(CHARGE_LIFETIME, [tenant, metric, amount, limit]);
    if (rows.length === 0) throw new TenantLimitError(metric, limit);
  }

  /** SPEC: objects are counted on live rows, so deleting frees room. */
  async assertObjectRoom(tenant: string, adding: number): Promise<void> {
    const limit = settingsFor(this.config, tenant).ceilings?.objects;
    if (limit === undefined || adding <= 0) return;
    const { rows } = await this.db.query<{ objects: number }>(LIVE_OBJECTS, [tenant]);
    if ((rows[0]?.objects ?? 0) + adding > limit) throw new TenantLimitError('objects', limit);
  }

  /** New nodes (time series, data sets, labels): the daily `nodes` quota and the objects ceiling. */
  async chargeNodes(tenant: string, count: number): Promise<void> {
    await this.assertObjectRoom(tenant, count);
    await this.chargeDaily(tenant, 'nodes', count);
  }

  /** Data points of one insert: daily quota, then cumulative ceilings (all and TEXT/MIXED). */
  async chargeDatapoints(tenant: string, count: number, textCount: number): Promise<void> {
    await this.chargeDaily(tenant, 'datapoints', count);
    await this.chargeLifetime(tenant, 'datapoints', count);
    await this.chargeLifetime(tenant, 'textDatapoints', textCount);
  }
}
