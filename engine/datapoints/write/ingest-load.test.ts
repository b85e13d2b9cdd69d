// Goal: IngestLoad calls a load bulk exactly when the points inserted within the sliding window
// reach bulkPointsPerSecond * windowMs / 1000, and forgets an insert once it is windowMs old.
// Method: pure unit test; every call passes an explicit nowMs, so no clock is involved.
import t from 'tap';
import { IngestLoad } from './ingest-load.ts';

const T0 = 1_700_000_000_000;

t.test('defaults: 100 000 points a second over 2 s, so 200 000 points in the window', async (t) => {
  const load = new IngestLoad();
  t.notOk(load.isBulk(T0), 'no inserts: not bulk');
  load.note(199_999, T0);
  t.notOk(load.isBulk(T0), 'one point below the threshold');
  load.note(1, T0 + 1);
  t.ok(load.isBulk(T0 + 1), 'at the threshold');
  t.ok(load.isBulk(T0 + 1_999), 'the first insert is still inside the 2 s window');
  t.notOk(load.isBulk(T0 + 2_000), 'the first insert left the window');
});

t.test('below and at the threshold with small options', async (t) => {
  // 1 000 points a second over 500 ms: 500 points.
  const load = new IngestLoad({ bulkPointsPerSecond: 1_000, windowMs: 500 });
  load.note(200, T0);
  load.note(299, T0 + 10);
  t.notOk(load.isBulk(T0 + 10), '499 points: below');
  load.note(1, T0 + 20);
  t.ok(load.isBulk(T0 + 20), '500 points: at the threshold counts as bulk');
  load.note(10_000, T0 + 30);
  t.ok(load.isBulk(T0 + 30), 'far above');
});

t.test('an insert expires exactly windowMs after it was noted', async (t) => {
  const load = new IngestLoad({ bulkPointsPerSecond: 1_000, windowMs: 1_000 });
  load.note(1_000, T0);
  t.ok(load.isBulk(T0), 'bulk when noted');
  t.ok(load.isBulk(T0 + 999), 'still inside the window 1 ms before its edge');
  t.notOk(load.isBulk(T0 + 1_000), 'gone at the edge: the window is (now - windowMs, now]');
  t.notOk(load.isBulk(T0 + 1_001), 'and after it');
});

t.test('expiry removes only the inserts past the edge and keeps counting the rest', async (t) => {
  const load = new IngestLoad({ bulkPointsPerSecond: 1_000, windowMs: 1_000 });
  load.note(600, T0);
  load.note(400, T0 + 500);
  t.ok(load.isBulk(T0 + 500), '1 000 points in the window');
  t.notOk(load.isBulk(T0 + 1_000), 'the first 600 left; 400 remain');
  load.note(599, T0 + 1_200);
  t.notOk(load.isBulk(T0 + 1_200), '400 + 599 = 999: below');
  load.note(1, T0 + 1_400);
  t.ok(load.isBulk(T0 + 1_400), '400 + 599 + 1 = 1 000: bulk');
  t.notOk(load.isBulk(T0 + 1_500), 'the 400 at T0 + 500 left at T0 + 1 500');
});

t.test('note() expires old inserts itself, so a later insert alone decides', async (t) => {
  const load = new IngestLoad({ bulkPointsPerSecond: 1_000, windowMs: 1_000 });
  load.note(999, T0);
  load.note(999, T0 + 5_000); // no isBulk in between
  t.notOk(load.isBulk(T0 + 5_000), 'the 999 from T0 no longer counts');
  load.note(1, T0 + 5_001);
  t.ok(load.isBulk(T0 + 5_001), '999 + 1 = 1 000 within the window');
});

t.test('many small inserts: a steady rate at the threshold stays bulk, below it never is', async (t) => {
  // 10 points every 10 ms is exactly 1 000 points a second.
  const atRate = new IngestLoad({ bulkPointsPerSecond: 1_000, windowMs: 1_000 });
  const bulkAt: boolean[] = [];
  for (let i = 0; i < 300; i++) {
    atRate.note(10, T0 + i * 10);
    bulkAt.push(atRate.isBulk(T0 + i * 10));
  }
  t.equal(bulkAt.indexOf(true), 99, 'bulk from the 100th insert, when the window first holds 1 000 points');
  t.ok(bulkAt.slice(99).every(Boolean), 'and bulk at every insert after it (one in, one out)');
  t.notOk(atRate.isBulk(T0 + 299 * 10 + 10), '10 ms after the last insert one insert has left: 990 points');
  t.notOk(atRate.isBulk(T0 + 299 * 10 + 1_000), 'a window after the last insert nothing is left');
  atRate.note(999, T0 + 10_000);
  t.notOk(atRate.isBulk(T0 + 10_000), 'the count went back to zero: 999 alone is below');

  // 10 points every 11 ms is about 909 points a second.
  const belowRate = new IngestLoad({ bulkPointsPerSecond: 1_000, windowMs: 1_000 });
  let everBulk = false;
  for (let i = 0; i < 300; i++) {
    belowRate.note(10, T0 + i * 11);
    everBulk ||= belowRate.isBulk(T0 + i * 11);
  }
  t.notOk(everBulk, 'never bulk');
});

t.test('a fractional threshold is compared as is', async (t) => {
  // 333 points a second over 1.5 s: 499.5 points.
  const load = new IngestLoad({ bulkPointsPerSecond: 333, windowMs: 1_500 });
  load.note(499, T0);
  t.notOk(load.isBulk(T0), '499 < 499.5');
  load.note(1, T0);
  t.ok(load.isBulk(T0), '500 >= 499.5');
});
