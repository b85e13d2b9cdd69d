// The data set and label use cases (shapes ours; SPEC names /datasets/create and /labels/create)
// bound to PostgreSQL. Creates charge the tenant's node quota first.
import type { DataSet, DataSetCreate, DataSetListRequest, DataSetUpdateItem } from '../../schemas/datasets.ts';
import { DuplicateError, type Identifier } from '../errors.ts';
import type { Access } from '../grants/access.ts';
import { createDataSets, dataSetsByIds, listDataSets, updateDataSets } from './datasets.ts';
import { createLabels, deleteLabels, listLabels, type Label } from './labels.ts';
import type { Quotas } from '../quotas/quotas.ts';
import type { RelationalStore } from '../stores/relational.ts';

/** Page size of data set and label lists without a `limit`. */
export const DATASET_LIST_LIMIT_DEFAULT = 100;

export interface DataSetEngine {
  /** All-or-nothing; a parent may be created earlier in the same batch. */
  create(access: Access, items: DataSetCreate[]): Promise<DataSet[]>;
  /** Readable data sets by id order. */
  list(access: Access, request: DataSetListRequest): Promise<{ items: DataSet[]; nextCursor?: string }>;
  /** Misses and unreadable data sets are omitted. */
  byIds(access: Access, identifiers: Identifier[]): Promise<DataSet[]>;
  update(access: Access, items: DataSetUpdateItem[]): Promise<DataSet[]>;
}

export interface LabelEngine {
  /** All-or-nothing: DuplicateError lists the taken externalIds. */
  create(access: Access, items: { externalId: string; name?: string; description?: string }[]): Promise<Label[]>;
  list(access: Access, query: { prefix?: string; limit?: number; cursor?: string }): Promise<{ items: Label[]; nextCursor?: string }>;
  /** Idempotent; records keep the label strings they carry. */
  delete(access: Access, externalIds: string[]): Promise<void>;
}

export function bindDataSetEngine(relational: RelationalStore, quotas: Quotas): DataSetEngine {
  const db = relational.pool;
  return {
    async create(access, items) {
      await quotas.chargeNodes(access.tenant, items.length);
      return createDataSets(relational, access, items);
    },
    list: (access, request) => listDataSets(db, access, { ...request.filter, limit: request.limit ?? DATASET_LIST_LIMIT_DEFAULT, cursor: request.cursor }),
    byIds: (access, identifiers) => dataSetsByIds(db, access, identifiers),
    update: (access, items) => updateDataSets(relational, access, items),
  };
}

export function bindLabelEngine(relational: RelationalStore, quotas: Quotas): LabelEngine {
  const db = relational.pool;
  return {
    async create(access, items) {
      await quotas.chargeNodes(access.tenant, items.length);
      const { created, duplicated } = await createLabels(db, access.tenant, items);
      if (duplicated.length > 0) throw new DuplicateError(duplicated.map((externalId) => ({ externalId })));
      return created;
    },
    list: (access, query) => listLabels(db, access.tenant, { prefix: query.prefix, limit: query.limit ?? DATASET_LIST_LIMIT_DEFAULT, cursor: query.cursor }),
    delete: (access, externalIds) => deleteLabels(db, access.tenant, externalIds),
  };
}
