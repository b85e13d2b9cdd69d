// The function records' use cases bound to PostgreSQL: list, byIds, create, update, delete,
// with the rules, grants and quota of the time series records, and calls (function-call.ts),
// which the data point engine evaluates.
import type { Identifier } from '../errors.ts';
import type { Access } from '../grants/access.ts';
import type { Quotas } from '../quotas/quotas.ts';
import type { RelationalStore } from '../stores/relational.ts';
import { functionCallArrow } from './function-call-arrow.ts';
import { FUNCTION_AGGREGATES, functionAggregatesOf } from './function-aggregate.ts';
import { callFunctions, type Evaluate, type FunctionCallItem, type FunctionCallResult } from './function-call.ts';
import { functionsByIds, listFunctions } from './function-read.ts';
import { toFunctionRecord, type FunctionCreate, type FunctionPage, type FunctionRecord, type FunctionUpdateItem } from './function-records.ts';
import { createFunctions, deleteFunctions, updateFunctions } from './function-write.ts';

export type { FunctionCreate, FunctionPage, FunctionRecord, FunctionTarget, FunctionUpdateFields, FunctionUpdateItem } from './function-records.ts';

export interface FunctionEngine {
  /** A page, newest created first; `dataSetId` includes descendants, unreadable data sets are silently omitted. */
  list(access: Access, query: { dataSetId?: number; limit: number; cursor?: string }): Promise<FunctionPage>;
  /** In request order, each once; a miss (unknown or unreadable) is omitted with `ignoreUnknownIds`, else a NotFoundError listing every one. */
  byIds(access: Access, identifiers: Identifier[], ignoreUnknownIds: boolean): Promise<FunctionRecord[]>;
  /** All-or-nothing, in request order; charges the tenant's daily `nodes` quota first, as a time series create does. */
  create(access: Access, items: FunctionCreate[]): Promise<FunctionRecord[]>;
  /** All-or-nothing; the functions after the update, in request order. */
  update(access: Access, items: FunctionUpdateItem[]): Promise<FunctionRecord[]>;
  /** A miss is skipped with `ignoreUnknownIds`, else a NotFoundError listing every one and nothing deleted. */
  delete(access: Access, identifiers: Identifier[], ignoreUnknownIds: boolean): Promise<void>;
  /** Each item's function evaluated over its window, a page with a cursor (function-call.ts). */
  call(access: Access, items: FunctionCallItem[], ignoreUnknownIds: boolean): Promise<FunctionCallResult[]>;
  /** call's answer as an Arrow IPC stream (function-call-arrow.ts), its chunks. */
  callArrow(access: Access, items: FunctionCallItem[], ignoreUnknownIds: boolean): Promise<Uint8Array[]>;
}

export interface FunctionEngineDeps {
  relational: RelationalStore;
  quotas: Quotas;
  /** The data point engine's evaluation of expressions. */
  evaluate: Evaluate;
  /** What keeps targets up to date: told of every write of functions, which it then reloads. */
  targets?: { functionsWritten(tenant: string): void };
}

export function bindFunctionEngine({ relational, quotas, evaluate, targets }: FunctionEngineDeps): FunctionEngine {
  const db = relational.pool;
  /** Runs a write, then has the targets' index reload the tenant (also when the write failed halfway: it cannot have, but reloading is cheap). */
  const written = async <T>(tenant: string, write: () => Promise<T>): Promise<T> => {
    try {
      return await write();
    } finally {
      targets?.functionsWritten(tenant);
    }
  };
  return {
    list: (access, query) => listFunctions(db, access, query),
    byIds: (access, identifiers, ignoreUnknownIds) => functionsByIds(db, access, identifiers, ignoreUnknownIds),
    async create(access, items) {
      // SPEC Limits: functions count in the daily `nodes` quota. They are not among the
      // objects SPEC's lifetime ceiling counts, so only the daily quota is charged.
      await quotas.chargeDaily(access.tenant, 'nodes', items.length);
      return written(access.tenant, async () => (await createFunctions(relational, access, items)).map(toFunctionRecord));
    },
    update: (access, items) => written(access.tenant, async () => (await updateFunctions(relational, access, items)).map(toFunctionRecord)),
    delete: (access, identifiers, ignoreUnknownIds) => written(access.tenant, () => deleteFunctions(relational, access, identifiers, ignoreUnknownIds)),
    call: (access, items, ignoreUnknownIds) => callFunctions(db, access, items, ignoreUnknownIds, evaluate, Date.now()),
    async callArrow(access, items, ignoreUnknownIds) {
      const results = await callFunctions(db, access, items, ignoreUnknownIds, evaluate, Date.now());
      const asked = new Set(items.flatMap((item) => (item.aggregates ? functionAggregatesOf(item.aggregates, 'items') : [])));
      return [functionCallArrow(results, FUNCTION_AGGREGATES.filter((name) => asked.has(name)))];
    },
  };
}
