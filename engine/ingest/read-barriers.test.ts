// Goal: the read barriers' per-series lists of uninserted appends stay exact as appends leave
// them in any order: a read waits for (and reads from memory) exactly the appends of its series
// still uninserted within its window, whichever of a series' appends went in first, including
// one inserted while an earlier one still runs.
// Method: ReadBarriers alone (no store), three appends of one series over disjoint hours and a
// fourth of another series; appends inserted front first, from the middle, and ahead of an
// earlier running insert, then a new append after all were in; throughIndex and queued()
// checked after each step. Then random runs of appends and inserts over a few series (fast-check),
// long enough that the lists fill, move their entries to the front and grow, each checked
// against a plain model of which appends are uninserted.
import t from 'tap';
import fc from 'fast-check';
import { PackedBatch } from '../datapoints/write/packed-batch.ts';
import { ReadBarriers } from './read-barriers.ts';

const HOUR = 3_600_000;
const T0 = 1_700_000_000_000;
const TENANT = 'plant';

/** An append of `seriesId` with points in hour `hour` after T0 (value = hour, one a minute). */
function append(seriesId: number, hour: number): PackedBatch {
  const timestampMs = Float64Array.from({ length: 60 }, (_, i) => T0 + hour * HOUR + i * 60_000);
  return new PackedBatch({ tenant: TENANT, writeVersion: BigInt(hour + 1), series: [{ seriesId, valueType: 'FLOAT', timestampMs, float: new Float64Array(60).fill(hour) }] });
}

const hourWindow = (hour: number) => ({ start: T0 + hour * HOUR, end: T0 + (hour + 1) * HOUR });
const everything = { start: -Infinity, end: Infinity };

/** The hours of the queued runs of series 7 in `window` (each run's first value is its hour). */
function queuedHours(barriers: ReadBarriers, window = everything): number[] {
  return (barriers.queued(TENANT, [7], [window])[0] ?? []).map((run) => run.points.float?.[0] as number);
}

function threeAppends(): ReadBarriers {
  const barriers = new ReadBarriers();
  barriers.added(append(7, 0), 1);
  barriers.added(append(7, 1), 2);
  barriers.added(append(9, 1), 3);
  barriers.added(append(7, 2), 4);
  return barriers;
}

t.test('the first append inserted: the others stay, with their own spans', async (t) => {
  const barriers = threeAppends();
  barriers.insertDone([{ batch: append(7, 0), index: 1 }], 2);
  t.equal(barriers.throughIndex(TENANT, [7], 4, [hourWindow(0)]), undefined, 'hour 0 is in the store');
  t.equal(barriers.throughIndex(TENANT, [7], 4, [hourWindow(1)]), 2, 'hour 1 waits for append 2');
  t.equal(barriers.throughIndex(TENANT, [7], 4, [hourWindow(2)]), 4, 'hour 2 waits for append 4');
  t.equal(barriers.throughIndex(TENANT, [9], 4, [hourWindow(1)]), 3, 'the other series keeps its append');
  t.same(queuedHours(barriers), [1, 2]);
  t.same(queuedHours(barriers, hourWindow(2)), [2]);
});

t.test('appends inserted from the middle of a series\' list, then its front', async (t) => {
  const barriers = threeAppends();
  // Appends 2 and 3 are inserted while the insert of append 1 still runs: they wait, ahead.
  barriers.insertStarted(1);
  barriers.insertDone([{ batch: append(7, 1), index: 2 }, { batch: append(9, 1), index: 3 }], barriers.lowestUninserted(4, 5));
  t.equal(barriers.throughIndex(TENANT, [7], 4, [hourWindow(1)]), 2, 'ahead of a running insert, append 2 still holds its reads');
  barriers.insertEnded(1);
  barriers.insertDone([{ batch: append(7, 0), index: 1 }], barriers.lowestUninserted(4, 5));
  for (const hour of [0, 1]) t.equal(barriers.throughIndex(TENANT, [7], 4, [hourWindow(hour)]), undefined, `hour ${hour} is in the store`);
  t.equal(barriers.throughIndex(TENANT, [9], 4, undefined), undefined, 'the other series has nothing left');
  t.equal(barriers.throughIndex(TENANT, [7], 4, [hourWindow(2)]), 4);
  t.same(queuedHours(barriers), [2], 'only the last append is read from memory');
  barriers.insertDone([{ batch: append(7, 2), index: 4 }], 5);
  t.equal(barriers.throughIndex(TENANT, [7], 5, undefined), undefined, 'all in: nothing to wait for');
  t.same(queuedHours(barriers), []);
  t.equal(barriers.throughIndex(TENANT, undefined, 5), undefined, 'nothing of the tenant waits');
  // The series' emptied list takes its next append.
  barriers.added(append(7, 3), 6);
  t.equal(barriers.throughIndex(TENANT, [7], 6, [hourWindow(3)]), 6);
  t.equal(barriers.throughIndex(TENANT, undefined, 6), 6);
  t.same(queuedHours(barriers), [3]);
});

t.test('long runs of appends and inserts: every series\' list holds exactly its uninserted appends', async (t) => {
  // A step appends to a series (0-2) in an hour (0-5), or inserts the oldest `count` uninserted appends.
  const step = fc.oneof(
    fc.record({ kind: fc.constant('append' as const), series: fc.integer({ min: 0, max: 2 }), hour: fc.integer({ min: 0, max: 5 }) }),
    fc.record({ kind: fc.constant('insert' as const), count: fc.integer({ min: 1, max: 12 }) }),
  );
  fc.assert(fc.property(fc.array(step, { minLength: 1, maxLength: 300 }), (steps) => {
    const barriers = new ReadBarriers();
    const uninserted: { index: number; series: number; hour: number; batch: PackedBatch }[] = [];
    let next = 1;
    for (const s of steps) {
      if (s.kind === 'append') {
        const batch = append(s.series, s.hour);
        barriers.added(batch, next);
        uninserted.push({ index: next++, series: s.series, hour: s.hour, batch });
      } else {
        const taken = uninserted.splice(0, s.count);
        barriers.insertDone(taken.map(({ batch, index }) => ({ batch, index })), uninserted[0]?.index ?? next);
        for (const { index } of taken) barriers.released(index);
      }
      for (let series = 0; series <= 2; series++) {
        for (let hour = 0; hour <= 5; hour++) {
          const mine = uninserted.filter((a) => a.series === series && a.hour === hour);
          const expected = mine.length === 0 ? undefined : (mine[mine.length - 1] as { index: number }).index;
          if (barriers.throughIndex(TENANT, [series], next - 1, [hourWindow(hour)]) !== expected) return false;
        }
        const queued = (barriers.queued(TENANT, [series], [everything])[0] ?? []).map((run) => run.points.float?.[0]);
        if (JSON.stringify(queued) !== JSON.stringify(uninserted.filter((a) => a.series === series).map((a) => a.hour))) return false;
      }
      if (barriers.throughIndex(TENANT, undefined, next - 1) !== (uninserted.length === 0 ? undefined : next - 1)) return false;
    }
    return true;
  }), { numRuns: 200 });
  t.pass('200 runs of up to 300 steps');
});
