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
    return this.carve(Float64Array, 8, length);
  }

  bigint64(length: number): BigInt64Array {
    return this.carve(BigInt64Array, 8, length);
  }

  uint32(length: number): Uint32Array {
    return this.carve(Uint32Array, 4, length);
  }

  int32(length: number): Int32Array {
    return this.carve(Int32Array, 4, length);
  }

  uint8(length: number): Uint8Array {
    return this.carve(Uint8Array, 1, length);
  }

  /** Bytes an arena needs for these column byte sizes (alignment included). */
  static bytesFor(columnBytes: readonly number[]): number {
    return columnBytes.reduce((sum, bytes) => sum + ColumnArena.bytesForColumn(bytes), 0);
  }

  /** Bytes one column of this size takes in an arena (alignment included). */
  static bytesForColumn(bytes: number): number {
    return Math.ceil(bytes / ALIGN) * ALIGN;
  }

  /** The next `length` entries of `width` bytes, or a column of its own when the buffer has no room. */
  private carve<Column>(Type: new (buffer: ArrayBufferLike, byteOffset: number, length: number) => Column, width: number, length: number): Column {
    const at = this.take(length * width);
    if (at === undefined) return new Type(new ArrayBuffer(length * width), 0, length);
    if (this.zero) new Uint8Array(this.buffer as ArrayBufferLike, at, length * width).fill(0);
    return new Type(this.buffer as ArrayBufferLike, at, length);
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
