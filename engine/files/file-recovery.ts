// Recovery of the files store at start (a crash mid-upload leaves no partial file
// visible, and no blob behind): staging leftovers are removed by the blob store, and every
// blob noted in file_blobs_pending is one no index row names (file-write.ts notes a blob
// before it is durable and drops the note in the transaction that indexes it), so it is
// removed. Assumes one process per blob store, as the directory under DATA_DIR is; a shared
// object store would note the process that staged a blob and recover only its own.
import type { Logger } from '../log.ts';
import type { RelationalStore } from '../stores/relational.ts';
import type { BlobStore } from './blob-store.ts';
import { ALL_PENDING_BLOBS, DELETE_PENDING_BLOBS } from './file-write.sql.ts';

/** Pending blobs read per round. */
const RECOVERY_BATCH_MAX = 1_000;

/** Returns the number of unreferenced blobs removed. */
export async function recoverFiles(relational: RelationalStore, blobs: BlobStore, log: Logger): Promise<number> {
  await blobs.recover();
  let removed = 0;
  for (;;) {
    const { rows } = await relational.pool.query<{ tenant: string; blob_key: string }>(ALL_PENDING_BLOBS, [RECOVERY_BATCH_MAX]);
    if (rows.length === 0) break;
    const byTenant = new Map<string, string[]>();
    for (const row of rows) (byTenant.get(row.tenant) ?? byTenant.set(row.tenant, []).get(row.tenant) as string[]).push(row.blob_key);
    for (const [tenant, keys] of byTenant) {
      for (const key of keys) await blobs.remove(key); // throws: a start must not pass a store it cannot clean
      await relational.pool.query(DELETE_PENDING_BLOBS, [tenant, keys]);
      removed += keys.length;
    }
  }
  if (removed > 0) log.info({ removed }, 'removed file blobs left unreferenced by a crash');
  return removed;
}
