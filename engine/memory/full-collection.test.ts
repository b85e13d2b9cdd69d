// Goal: collectFully returns the memory of shared buffers nothing references any more, though
// they had reached V8's old generation (where the slab pool's dropped slabs are), calls made
// while one collection runs share it, and later contexts do not see `gc`. Method: a 64 MiB
// SharedArrayBuffer kept through one full collection (so it is old), then dropped;
// process.memoryUsage().arrayBuffers before and after the next one.
import vm from 'node:vm';
import t from 'tap';
import { collectFully } from './full-collection.ts';

const MIB = 1024 * 1024;

t.test('a dropped old shared buffer is freed by the next full collection', async (t) => {
  let held: SharedArrayBuffer | undefined = new SharedArrayBuffer(64 * MIB);
  new Uint8Array(held).fill(1); // touched, as a slab is
  await collectFully(); // survives: promoted to the old generation
  const withIt = process.memoryUsage().arrayBuffers;
  t.equal(held.byteLength, 64 * MIB);
  held = undefined;
  await collectFully();
  const after = process.memoryUsage().arrayBuffers;
  // 60 of the 64 MiB: the test runner's own buffers come and go meanwhile.
  t.ok(withIt - after >= 60 * MIB, `array buffers ${(withIt / MIB).toFixed(0)} -> ${(after / MIB).toFixed(0)} MiB`);
});

t.test('no context made afterwards gets gc', async (t) => {
  await collectFully();
  t.equal(vm.runInNewContext('typeof gc'), 'undefined');
});

t.test('calls while a collection runs share it', async (t) => {
  const first = collectFully();
  const second = collectFully();
  t.equal(second, first, 'the same collection');
  await first;
  const next = collectFully();
  t.not(next, first, 'a call after it has finished starts another');
  await next;
});
