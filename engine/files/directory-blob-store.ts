// The embedded default of the files storage seam (blob-store.ts): blobs as files under
// DATA_DIR/files. A blob is written to staging/<key>, fsync'd, renamed to blobs/<xx>/<key>
// (xx: the key's first two hex digits, so no directory grows past a few thousand entries per
// million files) and the directory fsync'd; only then is it durable under its key. A crash
// mid-write leaves a staging file, removed at the next start. Reads open the file and read by
// position from that descriptor, so a blob removed meanwhile (a replace, a delete) is still
// read whole by whoever opened it (POSIX unlink semantics). Both directions use O_DIRECT with
// aligned buffers when the file system takes it and a pool slot is free (aligned-buffers.ts
// says why), the page cache otherwise.
import { constants } from 'node:fs';
import { access, mkdir, open, readdir, rename, rm, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { AlignedBufferPool, alignUp, DIRECT_IO_ALIGN_BYTES } from './aligned-buffers.ts';
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
/**
 * Aligned write buffers for uploads written with O_DIRECT (aligned-buffers.ts): two per
 * upload, so 8 uploads at once write directly; more go through the page cache.
 */
const DIRECT_BUFFER_SLOTS = 16;
/** Aligned read buffers for downloads read with O_DIRECT: two per download, 16 downloads at once. */
const DIRECT_READ_SLOTS = 32;

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
  private readonly aligned = new AlignedBufferPool(WRITE_BATCH_BYTES, DIRECT_BUFFER_SLOTS);
  private readonly alignedReads = new AlignedBufferPool(BLOB_READ_CHUNK_BYTES, DIRECT_READ_SLOTS);
  /** Whether the file system takes O_DIRECT writes (probed at open; tmpfs does not). */
  private direct = false;

  constructor(readonly root: string) {
    this.staging = path.join(root, 'staging');
    this.blobs = path.join(root, 'blobs');
  }

  /** Creates the directories; call before use. */
  async open(): Promise<this> {
    await mkdir(this.staging, { recursive: true });
    await mkdir(this.blobs, { recursive: true });
    this.direct = await this.probeDirectIo();
    return this;
  }

  /** Writes one aligned block with O_DIRECT into staging; false when the file system refuses. */
  private async probeDirectIo(): Promise<boolean> {
    const probe = path.join(this.staging, 'direct-io-probe');
    const buffers = this.aligned.take(1);
    if (!buffers) return false;
    try {
      const handle = await open(probe, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_DIRECT, 0o600);
      try {
        await handle.write(buffers[0] as Buffer, 0, DIRECT_IO_ALIGN_BYTES, 0);
      } finally {
        await handle.close();
      }
      return true;
    } catch {
      return false;
    } finally {
      this.aligned.give(buffers);
      await rm(probe, { force: true });
    }
  }

  blobPath(key: string): string {
    assertKey(key);
    return path.join(this.blobs, key.slice(0, 2), key);
  }

  async ping(): Promise<void> {
    await access(this.staging, constants.W_OK);
    await access(this.blobs, constants.W_OK);
  }

  async recover(): Promise<void> {
    for (const entry of await readdir(this.staging)) await rm(path.join(this.staging, entry), { force: true, recursive: true });
  }

  async createWriter(key: string): Promise<BlobWriter> {
    const final = this.blobPath(key);
    const staged = path.join(this.staging, key);
    const aligned = this.direct ? this.aligned.take(2) : undefined;
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (aligned ? constants.O_DIRECT : 0);
    let handle: FileHandle;
    try {
      handle = await open(staged, flags, 0o600);
    } catch (error) {
      if (aligned) this.aligned.give(aligned);
      throw error;
    }
    const buffers = aligned ?? [Buffer.allocUnsafeSlow(WRITE_BATCH_BYTES), Buffer.allocUnsafeSlow(WRITE_BATCH_BYTES)];
    return new DirectoryBlobWriter(handle, staged, final, buffers, aligned !== undefined, {
      ensureDir: () => this.ensureFanOut(path.dirname(final)),
      release: () => { if (aligned) this.aligned.give(aligned); },
    });
  }

  async openRead(key: string, start: number, endExclusive: number): Promise<BlobSource | undefined> {
    // Read with O_DIRECT too when buffers are free: the page cache would cost a fresh page per
    // 4 KiB read here as it does written (aligned-buffers.ts); a busy pool reads through it.
    const aligned = this.direct ? this.alignedReads.take(2) : undefined;
    const release = () => { if (aligned) this.alignedReads.give(aligned); };
    let handle: FileHandle;
    try {
      handle = await open(this.blobPath(key), constants.O_RDONLY | (aligned ? constants.O_DIRECT : 0));
    } catch (error) {
      release();
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const chunkBytes = Math.min(BLOB_READ_CHUNK_BYTES, Math.max(1, endExclusive - start));
    const buffers = aligned ?? [Buffer.allocUnsafeSlow(chunkBytes), Buffer.allocUnsafeSlow(chunkBytes)];
    return new FileSource(handle, start, endExclusive, buffers, aligned !== undefined, release);
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

/**
 * One upload's writer. Chunks are lent by the caller: gathered into one of two buffers; a
 * full buffer is written while the other fills, so the body keeps arriving while the disk
 * writes. With O_DIRECT (`direct`) the buffers are aligned and every write but the last is a
 * whole buffer at an aligned offset; the last is padded to the alignment and the file cut to
 * its size. Through the page cache, a background fdatasync every 64 MiB keeps the final fsync
 * short.
 */
class DirectoryBlobWriter implements BlobWriter {
  private position = 0;
  private closed = false;
  private released = false;
  private filling = 0;
  private batchBytes = 0;
  private writing: Promise<void> | undefined;
  private unsyncedBytes = 0;
  private syncing: Promise<void> | undefined;
  private syncFailure: unknown;

  constructor(
    private readonly handle: FileHandle, private readonly staged: string, private readonly final: string,
    private readonly buffers: Buffer[], private readonly direct: boolean,
    private readonly hooks: { ensureDir(): Promise<void>; release(): void },
  ) {}

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
    // A direct write of the last, partial buffer is padded to the alignment (cut in commit).
    this.writing = this.writeAt(buffer, this.direct ? alignUp(bytes) : bytes, position);
    // Seen by the next flush or by commit; until then, a failure is not unhandled.
    this.writing.catch(() => undefined);
  }

  private async writeAt(buffer: Buffer, bytes: number, position: number): Promise<void> {
    let written = 0;
    while (written < bytes) written += (await this.handle.write(buffer, written, bytes - written, position + written)).bytesWritten;
    if (this.direct) return;
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
    if (this.direct && this.position % DIRECT_IO_ALIGN_BYTES !== 0) await this.handle.truncate(this.position);
    await this.handle.sync();
    await this.close();
    await this.hooks.ensureDir();
    await rename(this.staged, this.final);
    await fsyncDirectory(path.dirname(this.final));
  }

  async abort(): Promise<void> {
    await this.writing?.catch(() => undefined);
    await this.syncing;
    await this.close().catch(() => undefined);
    await rm(this.staged, { force: true });
  }

  /** Closes the file and gives the buffers back, once. */
  private async close(): Promise<void> {
    if (!this.released) {
      this.released = true;
      this.hooks.release();
    }
    if (this.closed) return;
    this.closed = true;
    await this.handle.close();
  }
}

/**
 * Bytes [start, end) of an open file, read by position into two reused buffers (a 2 GiB
 * download makes no garbage): the next chunk is read while the current one is sent. With
 * O_DIRECT (`direct`) every read starts at an aligned offset for a whole buffer; the first
 * skips what lies before `start`. The descriptor is closed and the buffers given back when
 * the iteration ends, breaks, or destroy() is called, whichever comes first.
 */
class FileSource implements BlobSource {
  private closed = false;
  private reading: Promise<number> | undefined;

  constructor(
    private readonly handle: FileHandle, private readonly start: number, private readonly end: number,
    private readonly buffers: Buffer[], private readonly direct: boolean, private readonly release: () => void,
  ) {}

  destroy(): void {
    if (this.closed) return;
    this.closed = true;
    // The buffers go back once no read fills them any more.
    void (this.reading ?? Promise.resolve(0)).catch(() => 0).then(() => {
      this.release();
      return this.handle.close();
    }).catch(() => undefined);
  }

  /** Bytes read into `buffer` from `from` (aligned down when direct); the chunk starts at `skip`. */
  private read(buffer: Buffer, position: number): { skip: number; done: Promise<number> } {
    const from = this.direct ? position - (position % DIRECT_IO_ALIGN_BYTES) : position;
    const want = this.direct ? buffer.byteLength : Math.min(buffer.byteLength, this.end - position);
    return { skip: position - from, done: this.handle.read(buffer, 0, want, from).then(({ bytesRead }) => bytesRead) };
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    let position = this.start;
    let current = 0;
    let next = position < this.end ? this.read(this.buffers[0] as Buffer, position) : undefined;
    this.reading = next?.done;
    try {
      while (next && !this.closed) {
        const bytesRead = await next.done;
        if (this.closed) return;
        const bytes = Math.min(bytesRead - next.skip, this.end - position);
        if (bytes <= 0) throw new Error(`blob ended at byte ${position} of the ${this.end} its index names`);
        const chunk = (this.buffers[current] as Buffer).subarray(next.skip, next.skip + bytes);
        position += bytes;
        current = 1 - current;
        // The other buffer is free: the consumer gave it back when it asked for this chunk.
        next = position < this.end ? this.read(this.buffers[current] as Buffer, position) : undefined;
        next?.done.catch(() => undefined);
        this.reading = next?.done;
        yield chunk;
      }
    } finally {
      this.destroy();
    }
  }
}
