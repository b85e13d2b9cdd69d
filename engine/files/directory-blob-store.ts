// The embedded default of the files storage seam (blob-store.ts): blobs as files under
// DATA_DIR/files. A blob is written to staging/<key>, fsync'd, renamed to blobs/<xx>/<key>
// (xx: the key's first two hex digits, so no directory grows past a few thousand entries per
// million files) and the directory fsync'd; only then is it durable under its key. A crash
// mid-write leaves a staging file, removed at the next start. Reads open the file and read by
// position from that descriptor, so a blob removed meanwhile (a replace, a delete) is still
// read whole by whoever opened it (POSIX unlink semantics).
import { mkdir, open, readdir, rename, rm, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { BlobSource, BlobStore, BlobWriter } from './blob-store.ts';

/** Bytes read per chunk of a download: large enough for few syscalls, one buffer per reader. */
export const BLOB_READ_CHUNK_BYTES = 1024 * 1024;
/** Body chunks (512 KiB at most) gathered before one write() to the file. */
const WRITE_BATCH_BYTES = 2 * 1024 * 1024;
/**
 * Written bytes after which a flush to disk starts in the background while the upload goes
 * on: the disk writes as the bytes arrive instead of all at the final fsync (a 2 GiB upload
 * would otherwise wait seconds for it after its last byte), and dirty pages stay bounded.
 */
const BACKGROUND_SYNC_BYTES = 64 * 1024 * 1024;

const KEY = /^[0-9a-f]{32}$/;

function assertKey(key: string): void {
  if (!KEY.test(key)) throw new Error(`blob key must be 32 lower-case hex digits, got "${key.slice(0, 40)}"`);
}

async function fsyncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export class DirectoryBlobStore implements BlobStore {
  readonly kind = 'directory';
  private readonly staging: string;
  private readonly blobs: string;
  /** Fan-out directories known to exist (and fsync'd into their parent). */
  private readonly fanOut = new Set<string>();

  constructor(readonly root: string) {
    this.staging = path.join(root, 'staging');
    this.blobs = path.join(root, 'blobs');
  }

  /** Creates the directories; call before use. */
  async open(): Promise<this> {
    await mkdir(this.staging, { recursive: true });
    await mkdir(this.blobs, { recursive: true });
    return this;
  }

  blobPath(key: string): string {
    assertKey(key);
    return path.join(this.blobs, key.slice(0, 2), key);
  }

  async recover(): Promise<void> {
    for (const entry of await readdir(this.staging)) await rm(path.join(this.staging, entry), { force: true, recursive: true });
  }

  async createWriter(key: string): Promise<BlobWriter> {
    const final = this.blobPath(key);
    const staged = path.join(this.staging, key);
    const handle = await open(staged, 'wx', 0o600);
    return new DirectoryBlobWriter(handle, staged, final, () => this.ensureFanOut(path.dirname(final)));
  }

  async openRead(key: string, start: number, endExclusive: number): Promise<BlobSource | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(this.blobPath(key), 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    return new FileSource(handle, start, endExclusive);
  }

  async remove(key: string): Promise<void> {
    try {
      await unlink(this.blobPath(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }

  private async ensureFanOut(dir: string): Promise<void> {
    if (this.fanOut.has(dir)) return;
    await mkdir(dir, { recursive: true });
    await fsyncDirectory(this.blobs); // the new directory's entry is durable before a blob is renamed into it
    this.fanOut.add(dir);
  }
}

class DirectoryBlobWriter implements BlobWriter {
  private position = 0;
  private closed = false;
  /**
   * Chunks are lent by the caller: gathered into one of two buffers. A full buffer is written
   * while the other fills, so the body keeps arriving while the disk writes.
   */
  private readonly buffers = [Buffer.allocUnsafe(WRITE_BATCH_BYTES), Buffer.allocUnsafe(WRITE_BATCH_BYTES)];
  private filling = 0;
  private batchBytes = 0;
  private writing: Promise<void> | undefined;
  private unsyncedBytes = 0;
  private syncing: Promise<void> | undefined;
  private syncFailure: unknown;

  constructor(private readonly handle: FileHandle, private readonly staged: string, private readonly final: string, private readonly ensureDir: () => Promise<void>) {}

  async write(chunk: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < chunk.byteLength) {
      const take = Math.min(chunk.byteLength - offset, WRITE_BATCH_BYTES - this.batchBytes);
      (this.buffers[this.filling] as Buffer).set(chunk.subarray(offset, offset + take), this.batchBytes);
      this.batchBytes += take;
      offset += take;
      if (this.batchBytes === WRITE_BATCH_BYTES) await this.flush();
    }
  }

  /** Starts writing the buffer being filled (after the write before it is done) and switches buffers. */
  private async flush(): Promise<void> {
    await this.writing;
    if (this.batchBytes === 0) return;
    const buffer = this.buffers[this.filling] as Buffer;
    const bytes = this.batchBytes;
    const position = this.position;
    this.position += bytes;
    this.filling = 1 - this.filling;
    this.batchBytes = 0;
    this.writing = this.writeAt(buffer, bytes, position);
    // Seen by the next flush or by commit; until then, a failure is not unhandled.
    this.writing.catch(() => undefined);
  }

  private async writeAt(buffer: Buffer, bytes: number, position: number): Promise<void> {
    let written = 0;
    while (written < bytes) written += (await this.handle.write(buffer, written, bytes - written, position + written)).bytesWritten;
    this.unsyncedBytes += bytes;
    if (this.unsyncedBytes >= BACKGROUND_SYNC_BYTES && !this.syncing) {
      this.unsyncedBytes = 0;
      this.syncing = this.handle.datasync().catch((error: unknown) => { this.syncFailure ??= error; }).finally(() => { this.syncing = undefined; });
    }
  }

  async commit(): Promise<void> {
    await this.flush();
    await this.writing;
    await this.syncing;
    if (this.syncFailure) throw new Error('flushing an upload to disk failed', { cause: this.syncFailure });
    await this.handle.sync();
    await this.handle.close();
    this.closed = true;
    await this.ensureDir();
    await rename(this.staged, this.final);
    await fsyncDirectory(path.dirname(this.final));
  }

  async abort(): Promise<void> {
    await this.writing?.catch(() => undefined);
    await this.syncing;
    if (!this.closed) {
      this.closed = true;
      await this.handle.close().catch(() => undefined);
    }
    await rm(this.staged, { force: true });
  }
}

/**
 * Bytes [start, end) of an open file, read by position into two reused buffers (a 2 GiB
 * download makes no garbage): the next chunk is read while the current one is sent. The
 * descriptor is closed when the iteration ends, breaks, or destroy() is called, whichever
 * comes first.
 */
class FileSource implements BlobSource {
  private closed = false;

  constructor(private readonly handle: FileHandle, private readonly start: number, private readonly end: number) {}

  destroy(): void {
    if (this.closed) return;
    this.closed = true;
    void this.handle.close().catch(() => undefined);
  }

  private read(buffer: Buffer, position: number): Promise<number> {
    const want = Math.min(buffer.byteLength, this.end - position);
    return this.handle.read(buffer, 0, want, position).then(({ bytesRead }) => {
      if (bytesRead === 0 && want > 0) throw new Error(`blob ended at byte ${position} of the ${this.end} its index names`);
      return bytesRead;
    });
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    const chunkBytes = Math.min(BLOB_READ_CHUNK_BYTES, Math.max(1, this.end - this.start));
    const buffers = [Buffer.allocUnsafe(chunkBytes), Buffer.allocUnsafe(chunkBytes)];
    let position = this.start;
    let current = 0;
    let reading: Promise<number> | undefined = position < this.end ? this.read(buffers[0] as Buffer, position) : undefined;
    try {
      while (reading && !this.closed) {
        const bytes = await reading;
        if (this.closed) return;
        const chunk = (buffers[current] as Buffer).subarray(0, bytes);
        position += bytes;
        current = 1 - current;
        // The other buffer is free: the consumer gave it back when it asked for this chunk.
        reading = position < this.end ? this.read(buffers[current] as Buffer, position) : undefined;
        reading?.catch(() => undefined);
        yield chunk;
      }
    } finally {
      await reading?.catch(() => undefined);
      this.destroy();
    }
  }
}
