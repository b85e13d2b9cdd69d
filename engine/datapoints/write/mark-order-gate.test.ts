// Goal: the fold's clock is never read while an insert of points and marks is running, and
// inserts that arrive while the clock is being read wait for it; nothing waits otherwise.
// Method: inserts and clock reads whose completion the test controls, recording the order.
import t from 'tap';
import { MarkOrderGate } from './mark-order-gate.ts';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => { resolve = r; });
  return { promise, resolve };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

t.test('the clock waits for running inserts, and holds new ones back while it is read', async (t) => {
  const gate = new MarkOrderGate();
  const events: string[] = [];
  const first = deferred();
  const second = deferred();
  const insertA = gate.insert(async () => { events.push('A start'); await first.promise; events.push('A end'); });
  const insertB = gate.insert(async () => { events.push('B start'); await second.promise; events.push('B end'); });
  await tick();
  const clockRead = deferred();
  const clock = gate.clock(async () => { events.push('clock start'); await clockRead.promise; events.push('clock end'); return 42; });
  await tick();
  const insertC = gate.insert(async () => { events.push('C start'); });
  first.resolve();
  await tick();
  t.notOk(events.includes('clock start'), 'not while B still runs');
  second.resolve();
  await tick();
  t.ok(events.includes('clock start'), 'once both inserts ended');
  t.notOk(events.includes('C start'), 'C waits while the clock is read');
  clockRead.resolve();
  t.equal(await clock, 42);
  await Promise.all([insertA, insertB, insertC]);
  t.same(events, ['A start', 'B start', 'A end', 'B end', 'clock start', 'clock end', 'C start']);
});

t.test('without inserts the clock is read at once; a failing insert still lets the clock through', async (t) => {
  const gate = new MarkOrderGate();
  t.equal(await gate.clock(async () => 'now'), 'now');
  await t.rejects(gate.insert(async () => { throw new Error('disk full (test)'); }), /disk full/);
  t.equal(await gate.clock(async () => 'later'), 'later');
  const failingClock = gate.clock(async () => { throw new Error('engine gone (test)'); });
  await t.rejects(failingClock, /engine gone/);
  t.equal(await gate.insert(async () => 'inserted'), 'inserted', 'a failed clock read releases waiting inserts');
});

t.test('two folds take the clock one after the other', async (t) => {
  const gate = new MarkOrderGate();
  const order: number[] = [];
  const slow = deferred();
  const one = gate.clock(async () => { await slow.promise; order.push(1); });
  const two = gate.clock(async () => { order.push(2); });
  await tick();
  t.same(order, []);
  slow.resolve();
  await Promise.all([one, two]);
  t.same(order, [1, 2]);
});

t.test('onClock runs once per clock, after running inserts ended and before the clock is read', async (t) => {
  const events: string[] = [];
  const gate = new MarkOrderGate(() => events.push('onClock'));
  const running = deferred();
  const insert = gate.insert(async () => { events.push('insert start'); await running.promise; events.push('insert end'); });
  await tick();
  const clock = gate.clock(async () => { events.push('clock read'); });
  await tick();
  t.same(events, ['insert start'], 'not while the insert runs');
  running.resolve();
  await Promise.all([insert, clock]);
  t.same(events, ['insert start', 'insert end', 'onClock', 'clock read']);
});
