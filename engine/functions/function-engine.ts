// The function records' use cases bound to PostgreSQL: list, byIds, create, update, delete,
// with the rules, grants and quota of the time series records. The expression language and
// evaluation are not this facade's: it checks an expression parses and stores its text.
import type { Identifier } from '../errors.ts';
import type { Access } from '../grants/access.ts';
import type { Quotas } from '../quotas/quotas.ts';
import type { RelationalStore } from '../stores/relational.ts';
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
}

export interface FunctionEngineDeps {
  relational: RelationalStore;
  quotas: Quotas;
}

export function bindFunctionEngine({ relational, quotas }: FunctionEngineDeps): FunctionEngine {
  const db = relational.pool;
  return {
    list: (access, query) => listFunctions(db, access, query),
    byIds: (access, identifiers, ignoreUnknownIds) => functionsByIds(db, access, identifiers, ignoreUnknownIds),
    async create(access, items) {
      // SPEC Limits: functions count in the daily `nodes` quota. They are not among the
      // objects SPEC's lifetime ceiling counts, so only the daily quota is charged.
      await quotas.chargeDaily(access.tenant, 'nodes', items.length);
      return (await createFunctions(relational, access, items)).map(toFunctionRecord);
    },
    update: async (access, items) => (await updateFunctions(relational, access, items)).map(toFunctionRecord),
    delete: (access, identifiers, ignoreUnknownIds) => deleteFunctions(relational, access, identifiers, ignoreUnknownIds),
  };
}
