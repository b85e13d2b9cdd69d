// Typed columns carved one after another out of one buffer (a slab of slab-pool.ts), so a
// request's columns cost no allocation. When the buffer is missing or full, a column is
// allocated on its own instead: the arena is an optimisation, never a limit. Columns start
// zeroed, as with `new Float64Array(n)` (a reused slab holds the last request's bytes),
// unless the caller writes every entry itself and says so (`zero: false`).

const ALIGN = 8;

export class ColumnArena {
  private offset = 0;

  private readonly zero: boolean;

  constructor(private readonly buffer?: SharedArrayBuffer | ArrayBuffer, options: { zero?: boolean } = {}) {
    this.zero = options.zero ?? true;
  }

  float64(length: number): Float64Array {
    const at = this.take(length * 8);
    if (at === undefined) return new Float64Array(length);
    const column = new Float64Array(this.buffer as ArrayBufferLike, at, length);
    return this.zero ? column.fill(0) : column;
  }

  bigint64(length: number): BigInt64Array {
    const at = this.take(length * 8);
    if (at === undefined) return new BigInt64Array(length);
    const column = new BigInt64Array(this.buffer as ArrayBufferLike, at, length);
    return this.zero ? column.fill(0n) : column;
  }

  uint32(length: number): Uint32Array {
    const at = this.take(length * 4);
    if (at === undefined) return new Uint32Array(length);
    const column = new Uint32Array(this.buffer as ArrayBufferLike, at, length);
    return this.zero ? column.fill(0) : column;
  }

  int32(length: number): Int32Array {
    const at = this.take(length * 4);
    if (at === undefined) return new Int32Array(length);
    const column = new Int32Array(this.buffer as ArrayBufferLike, at, length);
    return this.zero ? column.fill(0) : column;
  }

  uint8(length: number): Uint8Array {
    const at = this.take(length);
    if (at === undefined) return new Uint8Array(length);
    const column = new Uint8Array(this.buffer as ArrayBufferLike, at, length);
    return this.zero ? column.fill(0) : column;
  }

  /** Bytes an arena needs for these column byte sizes (alignment included). */
  static bytesFor(columnBytes: readonly number[]): number {
    return columnBytes.reduce((sum, bytes) => sum + Math.ceil(bytes / ALIGN) * ALIGN, 0);
  }

  private take(bytes: number): number | undefined {
    if (this.buffer === undefined) return undefined;
    const at = this.offset;
    const end = at + Math.ceil(bytes / ALIGN) * ALIGN;
    if (end > this.buffer.byteLength) return undefined;
    this.offset = end;
    return at;
  }
}
