// Reused shared memory for the ingest path (ingest CPU). Every POST /timeseries/data
// used to allocate ~15 MB of ArrayBuffers per 100,000 points (the body, the scanned columns,
// the encoded columns, the insert's columns); V8 answers that much external memory with full
// garbage collections, which took a third of the service's CPU during bulk ingest. Slabs are
// SharedArrayBuffers, so a worker reads and writes them in place: no transfer, no copy.
// Bounded (STYLE §5): past bytesMax, acquire hands out unpooled slabs that are simply dropped.
// A slab left free for idleMs is dropped too (trimIdle), so a burst's memory (162 MiB after a
// 2M-point bulk load, bench/probe.ts bulk) is not held for good once the load has stopped; a
// steady load reuses its slabs long before that. What the pool drops is freed at V8's next full
// collection (in every thread that held it); onTrimmed is where the owner may ask for one.

/**
 * Above this, size classes step by a quarter of a power of two, not by doubling: the insert's
 * columns of a large commit (37 bytes a point: 74 MB for 2,000,000 points) took a 128 MiB slab,
 * and each commit size a class of its own. A request finds no free slab of its class takes one
 * up to twice its size (popLarger), so a load of varying commits shares a few slabs.
 */
export const FINE_CLASSES_FROM = 8 * 1024 * 1024;

/** A slab on loan: `buffer` holds at least the bytes asked for; release it exactly once. */
export interface Slab {
  readonly buffer: SharedArrayBuffer;
  release(): void;
}

export interface SlabPoolOptions {
  /** Bytes of slabs kept (on loan or free), at most. @default 512 MiB */
  bytesMax?: number;
  /** Smallest slab, bytes (sizes are powers of two from here, finer above FINE_CLASSES_FROM). @default 64 KiB */
  bytesMin?: number;
  /** With it, free slabs unused for this long are dropped, checked every idleMs / 2 (an unref'd timer; stop() ends it). */
  idleMs?: number;
  /** Called after the timer's trim dropped slabs, with their bytes (the memory returns once V8 collects them). */
  onTrimmed?: (bytesDropped: number) => void;
}

export interface SlabPoolStats {
  /** Bytes of pooled slabs, on loan or free. */
  pooledBytes: number;
  /** Bytes of slabs on loan now (pooled or not). */
  onLoanBytes: number;
  /** Slabs handed out beyond bytesMax (not reused). */
  unpooledAcquires: number;
}

interface FreeSlab {
  buffer: SharedArrayBuffer;
  /** Date.now() at its release. */
  releasedAtMs: number;
}

export class SlabPool {
  /** By size class, a stack: the slab released last is reused first, so idle ones sink to the bottom. */
  private readonly free = new Map<number, FreeSlab[]>();
  private pooledBytes = 0;
  private onLoanBytes = 0;
  private unpooledAcquires = 0;
  private readonly bytesMax: number;
  private readonly bytesMin: number;
  private readonly trimTimer: NodeJS.Timeout | undefined;

  constructor(options: SlabPoolOptions = {}) {
    this.bytesMax = options.bytesMax ?? 512 * 1024 * 1024;
    this.bytesMin = options.bytesMin ?? 64 * 1024;
    if (!Number.isSafeInteger(this.bytesMin) || this.bytesMin < 1) throw new RangeError(`bytesMin must be a positive integer, got ${this.bytesMin}`);
    if (!Number.isSafeInteger(this.bytesMax) || this.bytesMax < 0) throw new RangeError(`bytesMax must be a non-negative integer, got ${this.bytesMax}`);
    const idleMs = options.idleMs;
    if (idleMs !== undefined) {
      if (!Number.isSafeInteger(idleMs) || idleMs < 2) throw new RangeError(`idleMs must be an integer >= 2, got ${idleMs}`);
      const onTrimmed = options.onTrimmed;
      this.trimTimer = setInterval(() => {
        const dropped = this.trimIdle(idleMs);
        if (dropped > 0) onTrimmed?.(dropped);
      }, Math.floor(idleMs / 2));
      this.trimTimer.unref();
    }
  }

  /**
   * Drops the free slabs released before `nowMs - idleMs`: they leave the pool, and their memory
   * goes back once V8 collects them. Returns the bytes dropped.
   */
  trimIdle(idleMs: number, nowMs = Date.now()): number {
    let dropped = 0;
    for (const list of this.free.values()) {
      let stale = 0;
      while (stale < list.length && (list[stale] as FreeSlab).releasedAtMs <= nowMs - idleMs) stale++;
      for (const slab of list.splice(0, stale)) dropped += slab.buffer.byteLength;
    }
    this.pooledBytes -= dropped;
    return dropped;
  }

  /** Ends the idle trimming (the pool still works). */
  stop(): void {
    if (this.trimTimer) clearInterval(this.trimTimer);
  }

  /** A slab of at least `bytes` bytes (its contents are whatever the last user left). */
  acquire(bytes: number): Slab {
    if (!Number.isSafeInteger(bytes) || bytes < 0) throw new RangeError(`slab size must be a non-negative integer, got ${bytes}`);
    const size = this.sizeClass(bytes);
    const reused = this.free.get(size)?.pop() ?? this.popLarger(size);
    if (reused) return this.loan(reused.buffer, true);
    if (this.pooledBytes + size > this.bytesMax) {
      this.unpooledAcquires++;
      return this.loan(new SharedArrayBuffer(bytes), false);
    }
    this.pooledBytes += size;
    return this.loan(new SharedArrayBuffer(size), true);
  }

  stats(): SlabPoolStats {
    return { pooledBytes: this.pooledBytes, onLoanBytes: this.onLoanBytes, unpooledAcquires: this.unpooledAcquires };
  }

  /** Powers of two from bytesMin; above FINE_CLASSES_FROM, steps of a quarter of the power of two below (at most 20% unused). */
  private sizeClass(bytes: number): number {
    let size = this.bytesMin;
    while (size < bytes) size *= 2;
    const eighth = size / 8; // bytes lies in (size / 2, size]: its classes are 5, 6, 7 or 8 eighths of size
    if (size <= FINE_CLASSES_FROM || size === this.bytesMin || !Number.isInteger(eighth)) return size;
    return Math.ceil(bytes / eighth) * eighth;
  }

  /** The smallest free slab of a larger class up to twice `size`, taken off its list. */
  private popLarger(size: number): FreeSlab | undefined {
    // Up to FINE_CLASSES_FROM the classes are powers of two: the one class that may serve is
    // the next. (Looking through every class's entry allocated for each of a gateway
    // request's acquires whose class was empty.)
    if (size < FINE_CLASSES_FROM) return this.free.get(2 * size)?.pop();
    let best: FreeSlab[] | undefined;
    let bestSize = Infinity;
    this.free.forEach((list, classSize) => {
      if (classSize > size && classSize <= 2 * size && classSize < bestSize && list.length > 0) {
        best = list;
        bestSize = classSize;
      }
    });
    return (best as FreeSlab[] | undefined)?.pop();
  }

  private loan(buffer: SharedArrayBuffer, pooled: boolean): Slab {
    let released = false;
    this.onLoanBytes += buffer.byteLength;
    return {
      buffer,
      release: () => {
        if (released) throw new Error('slab released twice');
        released = true;
        this.onLoanBytes -= buffer.byteLength;
        if (!pooled) return;
        let list = this.free.get(buffer.byteLength);
        if (!list) this.free.set(buffer.byteLength, (list = []));
        list.push({ buffer, releasedAtMs: Date.now() });
      },
    };
  }
}
