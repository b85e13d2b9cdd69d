// The storage seam of files: where a file's bytes live, behind a few calls, so an
// S3-compatible object store can replace the directory for scale-out. The index (paths,
// sizes, hashes, which blob a path names) is PostgreSQL's (file-write.sql.ts,
// file-read.sql.ts); a store only keeps blobs under keys the engine generates (random, never
// reused, never derived from a path), so it needs no rename, no listing and no atomic
// replace: a replace is a new blob and one index row switched in a transaction, and a blob
// is removed only once no index row names it.
//
// What a store must guarantee:
// - `commit()` resolves only once the blob's bytes are durable (a crash after it loses
//   nothing); until then nothing is readable under the key, and a crash leaves at most
//   staging leftovers that `recover()` removes at the next start.
// - `openRead` pins what it opened: a `remove` of the key afterwards must not cut a reader
//   short (POSIX: an open file outlives its unlink; S3: a GET in flight completes).
// - `remove` is idempotent.
//
// An S3-compatible store maps these as: createWriter → CreateMultipartUpload (parts of
// 8 MiB or more, buffered), write → UploadPart, commit → CompleteMultipartUpload, abort →
// AbortMultipartUpload; openRead → GetObject with a Range (the object is immutable, so no
// version pinning is needed); remove → DeleteObject; recover → abort the incomplete multipart
// uploads under the store's prefix (ListMultipartUploads) older than a day, since other
// processes may share the bucket; ping → HeadBucket. directory-blob-store.ts is the store of
// the embedded default.

/** A blob being written. Chunks are lent: a store copies what it keeps past write()'s promise. */
export interface BlobWriter {
  write(chunk: Uint8Array): Promise<void>;
  /** The bytes are durable and readable under the key once this resolves. */
  commit(): Promise<void>;
  /** Drops what was written; safe after a failed write or commit, and twice. */
  abort(): Promise<void>;
}

/**
 * Bytes of one blob, read as they are sent. A chunk is lent until the next is asked for.
 * destroy() releases what the source holds (a file descriptor); ending or breaking out of
 * the iteration does too.
 */
export interface BlobSource extends AsyncIterable<Uint8Array> {
  destroy(): void;
}

export interface BlobStore {
  /** What kind of store this is, for logs and /health: `directory`, `s3`. */
  readonly kind: string;
  createWriter(key: string): Promise<BlobWriter>;
  /**
   * Bytes [start, endExclusive) of a blob, or undefined when no blob has this key (removed
   * since the index was read: the caller reads the index again).
   */
  openRead(key: string, start: number, endExclusive: number): Promise<BlobSource | undefined>;
  remove(key: string): Promise<void>;
  /** Removes staging leftovers of uploads cut short by a crash; called once at start. */
  recover(): Promise<void>;
  /** Resolves when the store can take writes (GET /health); S3: HeadBucket. */
  ping(): Promise<void>;
}
