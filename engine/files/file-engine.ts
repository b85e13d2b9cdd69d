// The files use cases bound to PostgreSQL (the index) and a blob store (the bytes:
// DATA_DIR/files by default, blob-store.ts for the seam). Files are a per-tenant feature
// (SERVICE_CONFIG tenants.<organization>.files, default off): every call checks it first and
// is a 403 when it is off. Files have no data set, so any token of the tenant may use them.
import path from 'node:path';
import type { FileRecord } from '../../schemas/files.ts';
import { FeatureDisabledError, IngestQuotaError } from '../errors.ts';
import type { Access } from '../grants/access.ts';
import type { BlobStore } from './blob-store.ts';
import { DirectoryBlobStore } from './directory-blob-store.ts';
import { listFiles, openFile, type ByteRange, type FileListQuery, type OpenedFile } from './file-read.ts';
import { recoverFiles } from './file-recovery.ts';
import { deleteFiles, uploadFile, type Upload } from './file-write.ts';
import { logger } from '../log.ts';
import type { Metrics } from '../metrics.ts';
import type { HealthCheck } from '../health-check.ts';
import type { Quotas } from '../quotas/quotas.ts';
import type { RelationalStore } from '../stores/relational.ts';
import type { TenantSettings } from '../../schemas/config.ts';

const log = logger.child({ module: 'files' });

export interface FileEngine {
  /** Throws FeatureDisabledError (403) when files are off for the tenant; every call does this first. */
  assertEnabled(access: Access): void;
  /** Streams the upload to storage; answers once the bytes are durable and indexed. A PUT on a path replaces its file. */
  upload(access: Access, upload: Upload): Promise<FileRecord>;
  /** The record and, when chooseRange names bytes, a source of them pinned to this version. */
  open(access: Access, path: string, chooseRange: (record: FileRecord) => ByteRange): Promise<OpenedFile>;
  list(access: Access, query: FileListQuery): Promise<{ items: FileRecord[]; nextCursor?: string }>;
  /** Idempotent. */
  delete(access: Access, paths: string[]): Promise<void>;
  /** The blob store's probe for GET /health (`files`). */
  healthCheck: HealthCheck;
}

export interface FileEngineDeps {
  relational: RelationalStore;
  quotas: Quotas;
  /** limit_hits_total{limit="ingested-bytes"} counts uploads the daily quota refused, as for other write requests. */
  metrics: Pick<Metrics, 'limitHits'>;
  settings(tenant: string): TenantSettings;
  /** Where the bytes live; the directory store under DATA_DIR/files unless given. */
  blobs: BlobStore;
  /** Remove what a crash left at start (file-recovery.ts); only the process that serves files does. */
  recover: boolean;
}

/** The embedded default store, DATA_DIR/files, opened and recovered. */
export async function openDirectoryBlobStore(dataDir: string): Promise<DirectoryBlobStore> {
  return new DirectoryBlobStore(path.join(dataDir, 'files')).open();
}

/** Recovers what a crash left (file-recovery.ts), then binds the use cases. */
export async function openFileEngine(deps: FileEngineDeps): Promise<FileEngine> {
  if (deps.recover) await recoverFiles(deps.relational, deps.blobs, log);
  const writes = {
    relational: deps.relational, blobs: deps.blobs, log,
    async chargeIngestedBytes(tenant: string, bytes: number) {
      try {
        await deps.quotas.chargeDaily(tenant, 'ingestedBytes', bytes);
      } catch (error) {
        if (error instanceof IngestQuotaError) deps.metrics.limitHits.inc({ limit: 'ingested-bytes' });
        throw error;
      }
    },
  };
  const db = deps.relational.pool;
  const enabled = (access: Access): string => {
    if (!deps.settings(access.tenant).files) throw new FeatureDisabledError('files');
    return access.tenant;
  };
  return {
    assertEnabled: (access) => { enabled(access); },
    upload: async (access, upload) => uploadFile(writes, enabled(access), upload),
    open: async (access, filePath, chooseRange) => openFile(db, deps.blobs, enabled(access), filePath, chooseRange),
    list: async (access, query) => listFiles(db, enabled(access), query),
    delete: async (access, paths) => deleteFiles(writes, enabled(access), paths),
    healthCheck: { name: 'files', ping: () => deps.blobs.ping() },
  };
}
