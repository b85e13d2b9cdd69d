// Goal: the read barriers' per-series lists of uninserted appends stay exact as appends leave
// them in any order: a read waits for (and reads from memory) exactly the appends of its series
// still uninserted within its window, whichever of a series' appends went in first, including
// one inserted while an earlier one still runs.
// Method: ReadBarriers alone (no store), three appends of one series over disjoint hours and a
// fourth of another series; appends inserted front first, from the middle, and ahead of an
// earlier running insert, then a new append after all were in; throughIndex and queued()
// checked after each step.
import t from 'tap';
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
