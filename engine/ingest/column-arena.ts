// Typed columns carved one after another out of one buffer (a slab of slab-pool.ts), so a
// request's columns cost no allocation. When the buffer is missing or full, a column is
// allocated on its own instead: the arena is an optimisation, never a limit. Columns start
// zeroed, as with `new Float64Array(n)` (a reused slab holds the last request's bytes).

const ALIGN = 8;

export class ColumnArena {
  private offset = 0;

  constructor(private readonly buffer?: SharedArrayBuffer | ArrayBuffer) {}

  float64(length: number): Float64Array {
    const at = this.take(length * 8);
    return at === undefined ? new Float64Array(length) : new Float64Array(this.buffer as ArrayBufferLike, at, length).fill(0);
  }

  bigint64(length: number): BigInt64Array {
    const at = this.take(length * 8);
    return at === undefined ? new BigInt64Array(length) : new BigInt64Array(this.buffer as ArrayBufferLike, at, length).fill(0n);
  }

  uint32(length: number): Uint32Array {
    const at = this.take(length * 4);
    return at === undefined ? new Uint32Array(length) : new Uint32Array(this.buffer as ArrayBufferLike, at, length).fill(0);
  }

  int32(length: number): Int32Array {
    const at = this.take(length * 4);
    return at === undefined ? new Int32Array(length) : new Int32Array(this.buffer as ArrayBufferLike, at, length).fill(0);
  }

  uint8(length: number): Uint8Array {
    const at = this.take(length);
    if (at === undefined) return new Uint8Array(length);
    return new Uint8Array(this.buffer as ArrayBufferLike, at, length).fill(0);
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
