// What route modules are handed: the stores and engine entry points, built once in server.ts.
import type { ServiceConfig } from '../engine/config.ts';
import type { Access } from '../engine/grants/access.ts';
import type { Caller } from '../engine/grants/claims.ts';
import type { Quotas } from '../engine/quotas/quotas.ts';
import type { TableStats } from '../engine/meta/table-stats.ts';
import type { RelationalStore } from '../engine/stores/relational.ts';
import type { Metrics } from '../engine/metrics.ts';

export interface Services {
  config: Readonly<ServiceConfig>;
  relational: RelationalStore;
  metrics: Metrics;
  /** Daily ingest quotas and lifetime ceilings (SPEC Limits). */
  quotas: Quotas;
  /** Keeps planner statistics of the node table fresh after bulk creates. */
  nodeStats: TableStats;
  /** Registers the tenant on first sight and resolves the caller's data set grants. */
  access(caller: Caller): Promise<Access>;
  /** Called after time series are deleted: their points are purged in the background. */
  onTimeSeriesDeleted(tenant: string, ids: number[]): void;
}
