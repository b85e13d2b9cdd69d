// The time series use cases (SPEC "Time series", other than the /timeseries/data family) bound
// to PostgreSQL: list, get, byIds, create, update, filter, search, delete. Reads that page
// answer with the JSON the database wrote (timeseries-rows.ts pageJson); deleting a series
// purges its points in the background.
import type { TimeSeries, TimeSeriesCreate, TimeSeriesFilterRequest, TimeSeriesSearchRequest, TimeSeriesUpdateItem } from '../../schemas/timeseries.ts';
import type { Identifier } from '../errors.ts';
import type { Access } from '../grants/access.ts';
import type { GraphGuard } from '../graph/graph-guard.ts';
import type { PolicyEvaluator } from '../policies/policy-evaluation.ts';
import { TIMESERIES_LIST_LIMIT_DEFAULT, TIMESERIES_SEARCH_LIMIT_DEFAULT } from '../limits.ts';
import type { TableStats } from './table-stats.ts';
import { filterTimeSeriesJson, getTimeSeries, searchTimeSeries, timeSeriesByIdsJson } from './timeseries-read.ts';
import { pageJson, toTimeSeries } from './timeseries-rows.ts';
import { createTimeSeries, deleteTimeSeries, updateTimeSeries } from './timeseries-write.ts';
import type { Quotas } from '../quotas/quotas.ts';
import type { SeriesDirectory } from './series-directory.ts';
import type { RelationalStore } from '../stores/relational.ts';

export interface TimeSeriesEngine {
  /** A page of `{"items":[...],"nextCursor"?}` JSON, newest first; `dataSetId` includes descendants. */
  list(access: Access, query: { dataSetId?: number; limit: number; cursor?: string }): Promise<string>;
  /** Throws NotFoundError when missing or unreadable (indistinguishable). */
  get(access: Access, id: number): Promise<TimeSeries>;
  /** `{"items":[...]}` JSON in request order; misses are omitted. */
  byIds(access: Access, identifiers: Identifier[]): Promise<string>;
  /** All-or-nothing; charges the tenant's node quota first. */
  create(access: Access, items: TimeSeriesCreate[]): Promise<TimeSeries[]>;
  update(access: Access, items: TimeSeriesUpdateItem[]): Promise<TimeSeries[]>;
  /** A page of JSON as `list`. */
  filter(access: Access, request: TimeSeriesFilterRequest): Promise<string>;
  search(access: Access, request: TimeSeriesSearchRequest): Promise<TimeSeries[]>;
  /** Idempotent; the points of deleted series are purged in the background. */
  delete(access: Access, identifiers: Identifier[]): Promise<void>;
}

export interface TimeSeriesEngineDeps {
  relational: RelationalStore;
  quotas: Quotas;
  /** Planner statistics of the node table, kept fresh after bulk creates. */
  nodeStats: TableStats;
  /** Purges the points of deleted series in the background. */
  purgeSeries(tenant: string, seriesIds: number[]): void;
  /** A delete takes the tenant's graph lock, so it cannot race an edge created from the series. */
  graph: GraphGuard;
  /** Naming policies, evaluated in every create and update transaction. */
  policies: PolicyEvaluator;
  /** Series keys held for data point requests: forgotten once a change here commits. */
  series: SeriesDirectory;
}

export function bindTimeSeriesEngine(deps: TimeSeriesEngineDeps): TimeSeriesEngine {
  const { relational, quotas, nodeStats } = deps;
  const db = relational.pool;
  return {
    async list(access, { dataSetId, limit, cursor }) {
      const filter = dataSetId !== undefined ? { dataSetId: { id: dataSetId } } : undefined;
      return pageJson(await filterTimeSeriesJson(db, access, { filter, limit, cursor }));
    },
    get: (access, id) => getTimeSeries(db, access, id),
    byIds: async (access, identifiers) => pageJson({ items: await timeSeriesByIdsJson(db, access, identifiers) }),
    async create(access, items) {
      await quotas.chargeNodes(access.tenant, items.length);
      const created = await createTimeSeries(relational, access, items, deps.policies);
      nodeStats.noteWrites(created.length);
      return created.map(toTimeSeries);
    },
    async update(access, items) {
      try {
        return (await updateTimeSeries(relational, access, items, deps.policies)).map(toTimeSeries);
      } finally {
        deps.series.forgetTenant(access.tenant);
      }
    },
    async filter(access, request) {
      return pageJson(await filterTimeSeriesJson(db, access, { filter: request.filter, limit: request.limit ?? TIMESERIES_LIST_LIMIT_DEFAULT, sort: request.sort, cursor: request.cursor }));
    },
    search: (access, request) => searchTimeSeries(db, access, { search: request.search.query, filter: request.filter, limit: request.limit ?? TIMESERIES_SEARCH_LIMIT_DEFAULT }),
    async delete(access, identifiers) {
      let ids: number[];
      try {
        ids = await deleteTimeSeries(relational, access, identifiers, deps.graph);
      } finally {
        deps.series.forgetTenant(access.tenant);
      }
      if (ids.length > 0) deps.purgeSeries(access.tenant, ids);
    },
  };
}
