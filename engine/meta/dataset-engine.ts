// The data set and label use cases (shapes ours; SPEC names /datasets/create and /labels/create)
// bound to PostgreSQL. Creates charge the tenant's node quota first.
import type { DataSet, DataSetListRequest, DataSetUpdateItem } from '../../schemas/datasets.ts';
import { DuplicateError, type Identifier } from '../errors.ts';
import type { Access } from '../grants/access.ts';
import { countDataSets, createDataSets, dataSetsByIds, listDataSets, updateDataSets, type DataSetCreateInput, type DataSetFilter } from './datasets.ts';
import { assertNoRepeats, type IdentifierRules } from '../records/repeated-identifiers.ts';

export type { DataSetCreateInput, DataSetFilter };
import { createLabels, deleteLabels, listLabels, type Label } from './labels.ts';
import type { Quotas } from '../quotas/quotas.ts';
import type { RelationalStore } from '../stores/relational.ts';

/** Page size of data set and label lists without a `limit`. */
export const DATASET_LIST_LIMIT_DEFAULT = 100;

export interface DataSetEngine {
  /** All-or-nothing; a parent may be created earlier in the same batch. */
  create(access: Access, items: DataSetCreateInput[], rules?: IdentifierRules): Promise<DataSet[]>;
  /** Readable data sets by id order. */
  list(access: Access, request: DataSetListRequest): Promise<{ items: DataSet[]; nextCursor?: string }>;
  /** As list, with every filter field (metadata and times too). */
  filter(access: Access, query: DataSetFilter & { limit?: number; cursor?: string }): Promise<{ items: DataSet[]; nextCursor?: string }>;
  /** How many readable data sets match. */
  count(access: Access, filter?: DataSetFilter): Promise<number>;
  /** Misses and unreadable data sets are omitted, or listed in a NotFoundError (`rules.listMissing`). */
  byIds(access: Access, identifiers: Identifier[], rules?: IdentifierRules): Promise<DataSet[]>;
  update(access: Access, items: DataSetUpdateItem[], rules?: IdentifierRules): Promise<DataSet[]>;
  /** The data sets the caller may read and write: `all`, or each one named (descendants included). */
  grantsOf(access: Access): Promise<DataSetGrants>;
}

/** A data set as a grant names it. */
export interface DataSetRef { id: number; externalId: string; name: string }

export interface DataSetGrants { read: 'all' | DataSetRef[]; write: 'all' | DataSetRef[] }

export interface LabelEngine {
  /** All-or-nothing: DuplicateError lists the taken externalIds (with `rules.refuseRepeats`, repeats are a 422 first). */
  create(access: Access, items: { externalId: string; name?: string; description?: string }[], rules?: IdentifierRules): Promise<Label[]>;
  /** By externalId; `name` matches exactly. */
  list(access: Access, query: { prefix?: string; name?: string; limit?: number; cursor?: string }): Promise<{ items: Label[]; nextCursor?: string }>;
  /** Idempotent; records keep the label strings they carry. */
  delete(access: Access, externalIds: string[]): Promise<void>;
}

export function bindDataSetEngine(relational: RelationalStore, quotas: Quotas): DataSetEngine {
  const db = relational.pool;
  return {
    async create(access, items, rules) {
      await quotas.chargeNodes(access.tenant, items.length);
      return createDataSets(relational, access, items, rules);
    },
    list: (access, request) => listDataSets(db, access, { ...request.filter, limit: request.limit ?? DATASET_LIST_LIMIT_DEFAULT, cursor: request.cursor }),
    filter: (access, query) => listDataSets(db, access, { ...query, limit: query.limit ?? DATASET_LIST_LIMIT_DEFAULT }),
    count: (access, filter) => countDataSets(db, access, filter),
    byIds: (access, identifiers, rules) => dataSetsByIds(db, access, identifiers, rules),
    update: (access, items, rules) => updateDataSets(relational, access, items, rules),
    async grantsOf(access) {
      const named = async (ids: ReadonlySet<number> | null): Promise<'all' | DataSetRef[]> => {
        if (ids === null) return 'all';
        const sets = await dataSetsByIds(db, access, [...ids].map((id) => ({ id })));
        return sets.map(({ id, externalId, name }) => ({ id, externalId, name }));
      };
      return { read: await named(access.readable), write: await named(access.writable) };
    },
  };
}

export function bindLabelEngine(relational: RelationalStore, quotas: Quotas): LabelEngine {
  const db = relational.pool;
  return {
    async create(access, items, rules) {
      if (rules?.refuseRepeats) assertNoRepeats(items.map((i) => ({ externalId: i.externalId })));
      await quotas.chargeNodes(access.tenant, items.length);
      const { created, duplicated } = await createLabels(db, access.tenant, items);
      if (duplicated.length > 0) throw new DuplicateError(duplicated.map((externalId) => ({ externalId })));
      return created;
    },
    list: (access, query) => listLabels(db, access.tenant, { prefix: query.prefix, name: query.name, limit: query.limit ?? DATASET_LIST_LIMIT_DEFAULT, cursor: query.cursor }),
    delete: (access, externalIds) => deleteLabels(db, access.tenant, externalIds),
  };
}
