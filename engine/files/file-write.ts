// Writing files: an upload streams into a new blob (hashed and charged to the
// daily ingestedBytes quota chunk by chunk, so a refused upload stops at the chunk that passes
// the quota), then one transaction points the path at it. A replace is that same transaction
// on an existing row: a reader sees the old blob or the new one, never a mix, and a reader
// that opened the old one reads it to the end (blob-store.ts). Blobs that may have no index
// row are noted in file_blobs_pending first, so a crash leaks none (file-recovery.ts).
import { createHash, randomUUID } from 'node:crypto';
import type { FileRecord } from '../../schemas/files.ts';
import { ConflictError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { RelationalStore } from '../stores/relational.ts';
import type { BlobStore } from './blob-store.ts';
import type { FilePath } from './file-path.ts';
import { fileRecordOf, type FileRow } from './file-rows.ts';
import {
  DELETE_FILES, DELETE_PENDING_BLOBS, FILE_SHA256, INSERT_FILE, INSERT_GARBAGE_BLOBS, INSERT_PENDING_BLOB, LOCK_FILE, UPDATE_FILE,
} from './file-write.sql.ts';

export interface FileWriteDeps {
  relational: RelationalStore;
  blobs: BlobStore;
  /** Charges bytes to the tenant's daily ingestedBytes quota; throws IngestQuotaError past it. */
  chargeIngestedBytes(tenant: string, bytes: number): Promise<void>;
  log: Logger;
}

export interface Upload {
  target: FilePath;
  contentType: string;
  /** The body, chunk by chunk; a chunk is lent until the next is asked for. */
  chunks: AsyncIterable<Uint8Array>;
  /** Conditions on the file the path holds now (HTTP If-Match / If-None-Match); none by default. */
  precondition?: UploadPrecondition;
}

/**
 * `ifMatch`: the path must hold a file (`*`) or one of these SHA-256s; `ifNoneMatch`: it must
 * hold no file (`*`) or none of these. Checked before the body is read and again, under the
 * row's lock, when the upload is indexed; a failure is a 409 ConflictError and stores nothing.
 */
export interface UploadPrecondition {
  ifMatch?: '*' | string[];
  ifNoneMatch?: '*' | string[];
}

/** Throws ConflictError when the file the path holds (its hash, or none) fails the precondition. */
export function assertUploadPrecondition(path: string, current: string | undefined, precondition: UploadPrecondition | undefined): void {
  const { ifMatch, ifNoneMatch } = precondition ?? {};
  const shown = path.slice(0, 200);
  if (ifMatch !== undefined && (current === undefined || (ifMatch !== '*' && !ifMatch.includes(current)))) {
    throw new ConflictError(current === undefined
      ? `If-Match: there is no file at "${shown}"; nothing was stored.`
      : `If-Match: the file at "${shown}" has changed (its ETag is "${current}"); nothing was stored. Re-read it and retry.`);
  }
  if (ifNoneMatch !== undefined && current !== undefined && (ifNoneMatch === '*' || ifNoneMatch.includes(current))) {
    throw new ConflictError(ifNoneMatch === '*'
      ? `If-None-Match: *: a file exists at "${shown}"; nothing was stored.`
      : `If-None-Match: the file at "${shown}" has a listed ETag; nothing was stored.`);
  }
}

/**
 * Index attempts of one upload: each lost only to another request creating the path between
 * our lock and our insert, and that one's delete before our next lock; a path that keeps
 * doing that is a 409.
 */
const INDEX_ATTEMPTS_MAX = 10;

/** A fresh blob key: random, never reused, never derived from a path (blob-store.ts). */
export function newBlobKey(): string {
  return randomUUID().replace(/-/g, '');
}

/** Streams an upload into a new blob and indexes it under its path; answers the stored record. */
export async function uploadFile(deps: FileWriteDeps, tenant: string, upload: Upload, now = Date.now): Promise<FileRecord> {
  const { target, precondition } = upload;
  if (precondition) {
    // Refused before the body is read when it already fails; checked again when indexed.
    const { rows } = await deps.relational.pool.query<{ sha256: string }>(FILE_SHA256, [tenant, target.path]);
    assertUploadPrecondition(target.path, rows[0]?.sha256, precondition);
  }
  const key = newBlobKey();
  const { size, sha256 } = await uploadFileToBlob(deps, tenant, key, upload.chunks);
  let indexed: { row: FileRow; replaced: string | undefined };
  try {
    indexed = await deps.relational.transaction(async (tx) => {
      const values = [tenant, target.path, target.folder, target.name, size, upload.contentType, sha256, key, now()];
      for (let attempt = 0; attempt < INDEX_ATTEMPTS_MAX; attempt++) {
        const current = await tx.query<{ blob_key: string; sha256: string }>(LOCK_FILE, [tenant, target.path]);
        assertUploadPrecondition(target.path, current.rows[0]?.sha256, precondition);
        const replaced = current.rows[0]?.blob_key;
        const written = await tx.query<FileRow>(replaced !== undefined ? UPDATE_FILE : INSERT_FILE, values);
        const row = written.rows[0];
        if (!row) continue; // another upload indexed the path since LOCK_FILE: lock its row and replace it
        await tx.query(DELETE_PENDING_BLOBS, [tenant, [key]]);
        if (replaced !== undefined) await tx.query(INSERT_PENDING_BLOB, [tenant, replaced, 'garbage', now()]);
        return { row, replaced };
      }
      throw new ConflictError(`The file at "${target.path.slice(0, 200)}" was created and removed by other requests ${INDEX_ATTEMPTS_MAX} times while this upload was indexed; retry.`);
    });
  } catch (error) {
    await removeBlobs(deps, tenant, [key]);
    throw error;
  }
  // Off the answer's path: removing a large file takes the file system a while, and the
  // note in file_blobs_pending covers a crash meanwhile.
  if (indexed.replaced !== undefined) void removeBlobs(deps, tenant, [indexed.replaced]);
  return fileRecordOf(indexed.row);
}

/** The body into a committed blob noted as staged; on any failure nothing is left behind. */
async function uploadFileToBlob(deps: FileWriteDeps, tenant: string, key: string, chunks: AsyncIterable<Uint8Array>): Promise<{ size: number; sha256: string }> {
  const writer = await deps.blobs.createWriter(key);
  const hash = createHash('sha256');
  let size = 0;
  let staged = false;
  try {
    for await (const chunk of chunks) {
      await deps.chargeIngestedBytes(tenant, chunk.byteLength);
      hash.update(chunk);
      await writer.write(chunk);
      size += chunk.byteLength;
    }
    // Noted before the blob becomes durable under its key: a crash from here on leaks nothing.
    await deps.relational.pool.query(INSERT_PENDING_BLOB, [tenant, key, 'staged', Date.now()]);
    staged = true;
    await writer.commit();
  } catch (error) {
    await writer.abort().catch((cause: unknown) => deps.log.warn({ err: cause }, 'dropping a staged upload failed'));
    if (staged) await removeBlobs(deps, tenant, [key]);
    throw error;
  }
  return { size, sha256: hash.digest('hex') };
}

/**
 * Removes blobs no index row names, then their pending notes. A failure is logged and left to
 * the next start's recovery: the answer to the client does not depend on it.
 */
export async function removeBlobs(deps: Pick<FileWriteDeps, 'relational' | 'blobs' | 'log'>, tenant: string, keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  try {
    for (const key of keys) await deps.blobs.remove(key);
    await deps.relational.pool.query(DELETE_PENDING_BLOBS, [tenant, keys]);
  } catch (error) {
    deps.log.warn({ err: error, blobs: keys.length }, 'removing unreferenced file blobs failed; the next start retries');
  }
}

/** Idempotent: paths with no file are skipped. */
export async function deleteFiles(deps: Pick<FileWriteDeps, 'relational' | 'blobs' | 'log'>, tenant: string, paths: string[], now = Date.now): Promise<void> {
  const unique = [...new Set(paths)];
  const removed = await deps.relational.transaction(async (tx) => {
    const { rows } = await tx.query<{ blob_key: string }>(DELETE_FILES, [tenant, unique]);
    const keys = rows.map((row) => row.blob_key);
    if (keys.length > 0) await tx.query(INSERT_GARBAGE_BLOBS, [tenant, keys, now()]);
    return keys;
  });
  void removeBlobs(deps, tenant, removed); // off the answer's path, as for a replace
}
