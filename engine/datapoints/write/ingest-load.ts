// How hard the store is being written to: background work that competes with the
// insert for the two cores (raw-table merges, the rollup fold) yields while a bulk load runs.
// Bulk means a sustained rate over a short window, so a plant streaming a few thousand points
// a second never counts as bulk and its merges and fold run as usual.
//
// The line sits well below the rates at which the ingest saturates the machine (300-800k points
// a second here), never near them: where it was (500,000 points/s) a load that the machine held
// just under it merged as it went, the merges took a fifth of the CPU, and the rate fell further
// below the line. A gateway load (1,000-point requests, 16 connections) on two cores shared with
// a busy process: 295-386k points/s at 2.59-3.52 CPU-s per million points with the merges running
// against 406-482k at 1.74-2.09 with them deferred; with the catch-up, 3.2-4.1 against 2.4-2.75
// CPU-s per million (bench/probe.ts gateway, 2026-11-29). Below the line the clients set the rate,
// not the CPU, and merging as the points come costs no throughput.

export interface IngestLoadOptions {
  /** Points per second over the window from which the load counts as bulk. @default 100_000 */
  bulkPointsPerSecond?: number;
  /** The window, ms. @default 2_000 */
  windowMs?: number;
}

export class IngestLoad {
  /** [time ms, points] per insert within the window, oldest first. */
  private readonly inserts: [number, number][] = [];
  private pointsInWindow = 0;
  private noted = 0;
  private lastNoteMs = Number.NEGATIVE_INFINITY;
  private readonly bulkPoints: number;
  /** The window, ms: a load stops counting as bulk this long after its last big insert. */
  readonly windowMs: number;

  constructor(options: IngestLoadOptions = {}) {
    this.windowMs = options.windowMs ?? 2_000;
    this.bulkPoints = ((options.bulkPointsPerSecond ?? 100_000) * this.windowMs) / 1000;
  }

  /** Records an insert of `points` at `nowMs` (a monotonic clock: performance.now()). */
  note(points: number, nowMs = performance.now()): void {
    this.inserts.push([nowMs, points]);
    this.pointsInWindow += points;
    this.noted++;
    this.lastNoteMs = nowMs;
    this.expire(nowMs);
  }

  /** Whether the points inserted within the window reach the bulk rate. */
  isBulk(nowMs = performance.now()): boolean {
    this.expire(nowMs);
    return this.pointsInWindow >= this.bulkPoints;
  }

  /** Inserts noted so far: a caller that saw this count knows whether any came since. */
  get insertCount(): number {
    return this.noted;
  }

  /** Whether no insert was noted in the last `ms`. */
  quietFor(ms: number, nowMs = performance.now()): boolean {
    return nowMs - this.lastNoteMs >= ms;
  }

  private expire(nowMs: number): void {
    while (this.inserts.length > 0 && (this.inserts[0] as [number, number])[0] <= nowMs - this.windowMs) {
      this.pointsInWindow -= (this.inserts.shift() as [number, number])[1];
    }
  }
}
