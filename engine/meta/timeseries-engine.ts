// The time series use cases (SPEC "Time series", other than the /timeseries/data family) bound
// to PostgreSQL: list, get, byIds, create, update, filter, search, delete. Reads that page
// answer with the JSON the database wrote (timeseries-rows.ts pageJson); deleting a series
// purges its points in the background. The same use cases over full records (isStep
// included), with the identifier rules the CDF surface needs, serve api/cdf/.
import type { TimeSeries, TimeSeriesCreate, TimeSeriesFilterRequest, TimeSeriesSearchRequest, TimeSeriesUpdateItem } from '../../schemas/timeseries.ts';
import type { Identifier } from '../errors.ts';
import type { Access } from '../grants/access.ts';
import type { GraphGuard } from '../graph/graph-guard.ts';
import type { PolicyEvaluator } from '../policies/policy-evaluation.ts';
import { TIMESERIES_LIST_LIMIT_DEFAULT, TIMESERIES_SEARCH_LIMIT_DEFAULT } from '../limits.ts';
import type { TableStats } from './table-stats.ts';
import {
  countTimeSeries, filterTimeSeriesJson, getTimeSeries, searchTimeSeries, searchTimeSeriesRows, timeSeriesByIdsJson, timeSeriesRecordsByIds, type TimeSeriesRecordFilter,
} from './timeseries-read.ts';
import { pageJson, TIMESERIES_RECORD_JSON, toTimeSeries, toTimeSeriesRecord, type JsonPage, type TimeSeriesRecord } from './timeseries-rows.ts';
import { createTimeSeries, deleteTimeSeries, updateTimeSeries, type IdentifierRules, type TimeSeriesCreateInput, type TimeSeriesUpdateInput } from './timeseries-write.ts';

export type { IdentifierRules, TimeSeriesCreateInput, TimeSeriesRecord, TimeSeriesRecordFilter, TimeSeriesUpdateInput };
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
  /**
   * Idempotent unless `rules.listMissing` (then unknown or unreadable series are a
   * NotFoundError listing them, nothing deleted); the points of deleted series are purged in
   * the background.
   */
  delete(access: Access, identifiers: Identifier[], rules?: IdentifierRules): Promise<void>;

  // Full records (TimeSeriesRecord: every stored field, isStep included) for the CDF surface.
  /** As create, taking `isStep` and an absent `name`; in request order. */
  createRecords(access: Access, items: TimeSeriesCreateInput[], rules?: IdentifierRules): Promise<TimeSeriesRecord[]>;
  /** As update, taking `isStep: {set}`. */
  updateRecords(access: Access, items: TimeSeriesUpdateInput[], rules?: IdentifierRules): Promise<TimeSeriesRecord[]>;
  /** Record JSON texts in request order; without `ignoreUnknownIds` a miss is a NotFoundError listing every one. */
  recordsByIds(access: Access, identifiers: Identifier[], ignoreUnknownIds: boolean): Promise<string[]>;
  /** A page of record JSON texts, newest first. */
  filterRecords(access: Access, query: { filter?: TimeSeriesRecordFilter; limit: number; cursor?: string }): Promise<JsonPage>;
  /** SPEC's search over name, externalId and description, as records. */
  searchRecords(access: Access, query: { search: string; filter?: TimeSeriesRecordFilter; limit: number }): Promise<TimeSeriesRecord[]>;
  /** How many readable series match. */
  count(access: Access, filter?: TimeSeriesRecordFilter): Promise<number>;
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
    async delete(access, identifiers, rules) {
      let ids: number[];
      try {
        ids = await deleteTimeSeries(relational, access, identifiers, deps.graph, rules);
      } finally {
        deps.series.forgetTenant(access.tenant);
      }
      if (ids.length > 0) deps.purgeSeries(access.tenant, ids);
    },
    async createRecords(access, items, rules) {
      await quotas.chargeNodes(access.tenant, items.length);
      const created = await createTimeSeries(relational, access, items, deps.policies, rules);
      nodeStats.noteWrites(created.length);
      return created.map(toTimeSeriesRecord);
    },
    async updateRecords(access, items, rules) {
      try {
        return (await updateTimeSeries(relational, access, items, deps.policies, rules)).map(toTimeSeriesRecord);
      } finally {
        deps.series.forgetTenant(access.tenant);
      }
    },
    recordsByIds: (access, identifiers, ignoreUnknownIds) => timeSeriesRecordsByIds(db, access, identifiers, ignoreUnknownIds),
    filterRecords: (access, query) => filterTimeSeriesJson(db, access, { ...query, recordJson: TIMESERIES_RECORD_JSON }),
    searchRecords: async (access, query) => (await searchTimeSeriesRows(db, access, query)).map(toTimeSeriesRecord),
    count: (access, filter) => countTimeSeries(db, access, filter),
  };
}
