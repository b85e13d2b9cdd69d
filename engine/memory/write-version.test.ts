// Goal: write versions only ever grow: within a process whatever the wall clock does, and
// across a restart even when the clock went back (a replayed or later batch must be
// ordered against deletes). Method: an in-memory high-water store and a clock under test
// control; the data point store's persistence is exercised by datapoint-store.test.ts.
import t from 'tap';
import { WriteVersionClock, type WriteVersionPersistence } from './write-version.ts';

class MemoryMark implements WriteVersionPersistence {
  mark = 0n;
  saves = 0;
  async loadHighWater(): Promise<bigint> { return this.mark; }
  async saveHighWater(version: bigint): Promise<void> { this.saves++; if (version > this.mark) this.mark = version; }
}

t.test('versions grow when the clock stalls or steps back', async (t) => {
  let now = 5_000_000n;
  const clock = await WriteVersionClock.open(new MemoryMark(), { nowMicros: () => now });
  const seen = [clock.next(), clock.next()];
  now = 4_000_000n;
  seen.push(clock.next());
  now = 9_000_000n;
  seen.push(clock.next());
  t.same(seen, [5_000_000n, 5_000_001n, 5_000_002n, 9_000_000n]);
});

t.test('the high-water mark is saved ahead, so a restart with the clock set back continues above', async (t) => {
  const mark = new MemoryMark();
  let now = 100_000_000n;
  const first = await WriteVersionClock.open(mark, { nowMicros: () => now, reserveMicros: 1_000_000n });
  t.ok(mark.mark >= 101_000_000n, 'a reservation exists before the first version');
  let last = 0n;
  for (let i = 0; i < 5; i++) { now += 700_000n; last = first.next(); }
  await first.flush();
  t.ok(mark.mark > last, 'the saved mark is past every version handed out');
  t.ok(mark.saves >= 2, 'the reservation was extended as the clock moved');
  now = 1n; // the clock went back across the restart
  const second = await WriteVersionClock.open(mark, { nowMicros: () => now, reserveMicros: 1_000_000n });
  t.ok(second.next() > last);
});

t.test('the default clock is wall-clock microseconds', async (t) => {
  const clock = await WriteVersionClock.open(new MemoryMark());
  const version = clock.next();
  t.ok(version > BigInt(Date.now() - 1000) * 1000n && version < BigInt(Date.now() + 12_000) * 1000n);
});
