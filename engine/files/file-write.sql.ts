import { FILE_COLUMNS } from './file-rows.ts';

/** $1 tenant, $2 blob key, $3 state, $4 since: a blob that may be unreferenced (008-files.sql). */
export const INSERT_PENDING_BLOB = `
INSERT INTO file_blobs_pending (tenant, blob_key, state, since) VALUES ($1, $2, $3, $4)
ON CONFLICT (tenant, blob_key) DO UPDATE SET state = EXCLUDED.state, since = EXCLUDED.since`;

/** $1 tenant, $2 blob keys: once indexed, or once removed. */
export const DELETE_PENDING_BLOBS = 'DELETE FROM file_blobs_pending WHERE tenant = $1 AND blob_key = ANY($2::text[])';

/** $1 tenant, $2 path: the blob the path names now (and its hash, for preconditions), locked until the transaction ends. */
export const LOCK_FILE = 'SELECT blob_key, sha256 FROM files WHERE tenant = $1 AND path = $2 FOR UPDATE';

/** $1 tenant, $2 path: the current hash, read before an upload with a precondition streams. */
export const FILE_SHA256 = 'SELECT sha256 FROM files WHERE tenant = $1 AND path = $2';

/** $1 tenant, $2 path, $3 folder, $4 name, $5 size, $6 content type, $7 sha256, $8 blob key, $9 created time. */
export const UPDATE_FILE = `
UPDATE files SET folder = $3, name = $4, size = $5, content_type = $6, sha256 = $7, blob_key = $8, created_time = $9
 WHERE tenant = $1 AND path = $2
RETURNING ${FILE_COLUMNS}`;

/** Same parameters as UPDATE_FILE; no row when another request indexed the path first. */
export const INSERT_FILE = `
INSERT INTO files (tenant, path, folder, name, size, content_type, sha256, blob_key, created_time)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
ON CONFLICT (tenant, path) DO NOTHING
RETURNING ${FILE_COLUMNS}`;

/** $1 tenant, $2 paths: the blobs they named. */
export const DELETE_FILES = 'DELETE FROM files WHERE tenant = $1 AND path = ANY($2::text[]) RETURNING blob_key';

/** $1 tenant, $2 blob keys, $3 since: what a delete left behind. */
export const INSERT_GARBAGE_BLOBS = `
INSERT INTO file_blobs_pending (tenant, blob_key, state, since)
SELECT $1, key, 'garbage', $3 FROM unnest($2::text[]) AS key
ON CONFLICT (tenant, blob_key) DO UPDATE SET state = 'garbage'`;

/**
 * Every pending blob, of every tenant: read once at start by recovery (file-recovery.ts), a
 * maintenance pass over the whole store (the only statement without a tenant predicate).
 */
export const ALL_PENDING_BLOBS = 'SELECT tenant, blob_key FROM file_blobs_pending ORDER BY tenant, blob_key LIMIT $1';
