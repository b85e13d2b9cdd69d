// Long synchronous work cut into slices (reads during ingest). Everything a request
// needs from the event loop waits while one job holds it: a gateway's group commit of ~400,000
// points held it for 45-80 ms at a time, twice a second, and a chart's query arriving then
// waited for all of it (bench/probe.ts gateway, 2026-11-25). A job that may run long asks at its loop
// boundaries whether its slice is used up and, if so, lets waiting I/O run before it goes on.

/** The longest stretch a sliced job holds the event loop, ms: a V1 read takes ~1.5 ms idle. */
export const SLICE_MS_DEFAULT = 4;

export class EventLoopTurns {
  private sliceStart = performance.now();
  private turnCount = 0;

  /** sliceMs 0: a turn at every check (tests count them). */
  constructor(private readonly sliceMs = SLICE_MS_DEFAULT) {}

  /** Whether the slice is used up: checked where a loop can stop, the caller then awaits turn(). */
  due(): boolean {
    return performance.now() - this.sliceStart >= this.sliceMs;
  }

  /** One turn of the event loop (setImmediate: waiting I/O callbacks and timers run first), then a new slice. */
  async turn(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.turnCount++;
    this.sliceStart = performance.now();
  }

  /** A turn if the slice is used up. */
  async maybe(): Promise<void> {
    if (this.due()) await this.turn();
  }

  /** Turns taken so far. */
  get turns(): number {
    return this.turnCount;
  }
}
