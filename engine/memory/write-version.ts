// Write versions: the monotonic bigint every ingest batch and every delete carries,
// so the store keeps the newest point per timestamp and a delete beats any older point, even
// one replayed later. Versions are wall-clock microseconds, bumped by one when the clock
// stalls or steps back, and never below a high-water mark persisted ahead of use: after a
// restart (or on another process sharing the mark) no version is handed out twice or lower.
/** Where the high-water mark lives (the data point store keeps it in datapoint_state). */
export interface WriteVersionPersistence {
  /** The highest mark saved by any process; 0n when none. */
  loadHighWater(): Promise<bigint>;
  /** Saves a mark; a lower one than already saved must not win. */
  saveHighWater(version: bigint): Promise<void>;
}

export interface WriteVersionClockOptions {
  /**
   * Versions reserved per save: saves run about every reserve / 2 of clock time, and after a
   * quick restart versions may run up to this far ahead of the wall clock. @default 10 s
   */
  reserveMicros?: bigint;
  /** @default wall clock in µs */
  nowMicros?: () => bigint;
}

function wallClockMicros(): bigint {
  // performance.timeOrigin + now() gives sub-millisecond resolution on one clock.
  return BigInt(Math.floor((performance.timeOrigin + performance.now()) * 1000));
}

export class WriteVersionClock {
  private last: bigint;
  private saved: bigint;
  private saving: Promise<void> | undefined;
  private readonly reserve: bigint;
  private readonly now: () => bigint;

  private constructor(private readonly persistence: WriteVersionPersistence, floor: bigint, options: WriteVersionClockOptions) {
    this.reserve = options.reserveMicros ?? 10_000_000n;
    this.now = options.nowMicros ?? wallClockMicros;
    this.last = floor;
    this.saved = floor;
  }

  /** Loads the mark and saves a first reservation before any version is handed out. */
  static async open(persistence: WriteVersionPersistence, options: WriteVersionClockOptions = {}): Promise<WriteVersionClock> {
    const floor = await persistence.loadHighWater();
    const clock = new WriteVersionClock(persistence, floor, options);
    await clock.reserveAhead();
    return clock;
  }

  /** The next version: greater than every version handed out before, here or before a restart. */
  next(): bigint {
    const now = this.now();
    this.last = now > this.last ? now : this.last + 1n;
    if (this.last + this.reserve / 2n > this.saved && !this.saving) {
      this.saving = this.reserveAhead().finally(() => { this.saving = undefined; });
      this.saving.catch(() => { /* retried by the next call; versions stay monotonic in this process */ });
    }
    return this.last;
  }

  /** The mark is saved past every version handed out (awaited by close and by tests). */
  async flush(): Promise<void> {
    while (this.saving) await this.saving.catch(() => undefined);
    if (this.last >= this.saved) await this.reserveAhead();
  }

  private async reserveAhead(): Promise<void> {
    const mark = (this.last > this.now() ? this.last : this.now()) + this.reserve;
    await this.persistence.saveHighWater(mark);
    if (mark > this.saved) this.saved = mark;
  }
}
