// Lets an insert write its points and their dirty marks at the same time (ack
// latency: the marks' own synced part took ~10 ms after the points' part). The fold may drop
// a mark older than its clock only if it saw the mark's points (rollup-fold.ts); written
// together, a mark can be visible before its points. So the fold takes its clock only while
// no insert is between the two: it waits for running inserts, and inserts arriving meanwhile
// wait for the clock (one short query). In-process only: valid when this process is the only
// writer of its engine (the embedded one); with a ClickHouse server, inserts stay sequential.
// Deletes pass here too, and `onClock` runs at the very moment no write is running: the store
// records there which writes the fold will see (read-context-index.ts, clock()).

export class MarkOrderGate {
  private inserting = 0;
  /** Set while a fold waits for inserts to finish or reads its clock. */
  private clockTaking: Promise<void> | undefined;
  private insertsDrained: (() => void) | undefined;

  /** `onClock`: called once per clock(), after running writes ended and before readClock starts. */
  constructor(private readonly onClock?: () => void) {}

  /** Runs an insert of points and marks; waits first if a fold is taking its clock. */
  async insert<T>(write: () => Promise<T>): Promise<T> {
    while (this.clockTaking) await this.clockTaking;
    this.inserting++;
    try {
      return await write();
    } finally {
      this.inserting--;
      if (this.inserting === 0) this.insertsDrained?.();
    }
  }

  /** Runs `readClock` once no insert is running, holding new ones back until it returns. */
  async clock<T>(readClock: () => Promise<T>): Promise<T> {
    while (this.clockTaking) await this.clockTaking;
    let done!: () => void;
    this.clockTaking = new Promise((resolve) => { done = resolve; });
    try {
      if (this.inserting > 0) await new Promise<void>((resolve) => { this.insertsDrained = resolve; });
      this.insertsDrained = undefined;
      this.onClock?.();
      return await readClock();
    } finally {
      this.clockTaking = undefined;
      done();
    }
  }
}
