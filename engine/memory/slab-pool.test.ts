// Goal: SlabPool hands out SharedArrayBuffers by power-of-two size class from bytesMin (finer
// above FINE_CLASSES_FROM), reuses a released slab for its own class or for one up to half its
// size when that class has none free, stays within bytesMax (past it: unpooled slabs of
// exactly the size asked for, counted and never pooled), refuses a second release and a bad
// size, and tells its owner what its idle trims let go. Method: small pools (1 KiB classes, a
// few KiB bound) driven through each case, checking buffer identity and stats().
import t from 'tap';
import { FINE_CLASSES_FROM, SlabPool } from './slab-pool.ts';

const KIB = 1024;
const MIB = 1024 * KIB;

t.test('size classes: powers of two from bytesMin', async (t) => {
  const pool = new SlabPool({ bytesMin: KIB, bytesMax: 64 * KIB });
  const size = (bytes: number) => pool.acquire(bytes).buffer.byteLength;
  t.equal(size(0), KIB, 'acquire(0) gives bytesMin');
  t.equal(size(1), KIB, 'acquire(1) gives bytesMin');
  t.equal(size(KIB), KIB, 'acquire(bytesMin) gives bytesMin');
  t.equal(size(KIB + 1), 2 * KIB, 'acquire(bytesMin + 1) gives 2 * bytesMin');
  t.equal(size(2 * KIB + 1), 4 * KIB);
  t.equal(size(5 * KIB), 8 * KIB);
  t.ok(pool.acquire(1).buffer instanceof SharedArrayBuffer, 'a slab is shared memory');
  t.match(pool.stats(), { pooledBytes: (1 + 1 + 1 + 2 + 4 + 8 + 1) * KIB, unpooledAcquires: 0 });
});

t.test('defaults: 64 KiB smallest class', async (t) => {
  t.equal(new SlabPool().acquire(1).buffer.byteLength, 64 * KIB);
});

t.test('a released slab is reused for its class, never for a larger one', async (t) => {
  const pool = new SlabPool({ bytesMin: KIB, bytesMax: 64 * KIB });
  const first = pool.acquire(100);
  const firstBuffer = first.buffer;
  first.release();
  const bigger = pool.acquire(KIB + 1);
  t.not(bigger.buffer, firstBuffer, 'another class does not get it');
  t.equal(bigger.buffer.byteLength, 2 * KIB);
  const again = pool.acquire(KIB);
  t.equal(again.buffer, firstBuffer, 'the same class gets the same SharedArrayBuffer back');
  const another = pool.acquire(1);
  t.not(another.buffer, firstBuffer, 'a slab on loan is not handed out twice');
  t.match(pool.stats(), { pooledBytes: (1 + 2 + 1) * KIB, unpooledAcquires: 0 }, 'reuse adds no bytes');

  bigger.release();
  t.equal(pool.acquire(2 * KIB).buffer, bigger.buffer, 'the larger class gets its own slab back');
  t.not(pool.acquire(KIB).buffer, bigger.buffer, 'and the small class does not');
});

t.test('contents survive reuse (the caller zeroes what it needs)', async (t) => {
  const pool = new SlabPool({ bytesMin: KIB, bytesMax: 64 * KIB });
  const slab = pool.acquire(8);
  new Uint8Array(slab.buffer).fill(7);
  slab.release();
  const again = pool.acquire(8);
  t.equal(again.buffer, slab.buffer);
  t.equal(new Uint8Array(again.buffer)[KIB - 1], 7);
});

t.test('bytesMax bound: unpooled slabs of exactly the size asked, counted, never pooled', async (t) => {
  const pool = new SlabPool({ bytesMin: KIB, bytesMax: 4 * KIB });
  const pooled = pool.acquire(3 * KIB); // class 4 KiB: the bound exactly
  t.equal(pooled.buffer.byteLength, 4 * KIB);
  t.match(pool.stats(), { pooledBytes: 4 * KIB, unpooledAcquires: 0 }, 'at the bound is still pooled');

  const over = pool.acquire(10);
  t.equal(over.buffer.byteLength, 10, 'past the bound: exactly the requested size');
  t.match(pool.stats(), { pooledBytes: 4 * KIB, unpooledAcquires: 1 });
  over.release();
  t.match(pool.stats(), { pooledBytes: 4 * KIB, unpooledAcquires: 1 }, 'releasing it changes no stats');
  const next = pool.acquire(10);
  t.not(next.buffer, over.buffer, 'a released unpooled slab did not enter the pool');
  t.equal(next.buffer.byteLength, 10);
  t.match(pool.stats(), { pooledBytes: 4 * KIB, unpooledAcquires: 2 });
  next.release();

  const huge = pool.acquire(5 * KIB + 3);
  t.equal(huge.buffer.byteLength, 5 * KIB + 3, 'a request larger than bytesMax itself is unpooled, exact size');
  t.equal(pool.stats().unpooledAcquires, 3);
  huge.release();

  pooled.release();
  t.equal(pool.acquire(4 * KIB).buffer, pooled.buffer, 'a free pooled slab is still reused at the bound');
  t.match(pool.stats(), { pooledBytes: 4 * KIB, unpooledAcquires: 3 });
});

t.test('a fresh pool past a small bound: the first slab larger than bytesMax is unpooled', async (t) => {
  const pool = new SlabPool({ bytesMin: KIB, bytesMax: KIB });
  const slab = pool.acquire(KIB + 1);
  t.equal(slab.buffer.byteLength, KIB + 1);
  t.match(pool.stats(), { pooledBytes: 0, unpooledAcquires: 1 });
});

t.test('releasing twice throws, for pooled and unpooled slabs, and pools the slab once', async (t) => {
  const pool = new SlabPool({ bytesMin: KIB, bytesMax: KIB });
  const pooled = pool.acquire(1);
  const unpooled = pool.acquire(1);
  t.equal(pool.stats().unpooledAcquires, 1);
  pooled.release();
  t.throws(() => pooled.release(), /released twice/);
  unpooled.release();
  t.throws(() => unpooled.release(), /released twice/);
  const a = pool.acquire(1);
  const b = pool.acquire(1);
  t.equal(a.buffer, pooled.buffer, 'the slab came back once');
  t.not(b.buffer, pooled.buffer, 'not twice: the failed second release left the free list alone');
  t.equal(pool.stats().unpooledAcquires, 2);
  a.release();
  const c = pool.acquire(1);
  t.equal(c.buffer, pooled.buffer);
  t.throws(() => a.release(), /released twice/, 'an old loan cannot release the slab out from under its new holder');
  t.not(pool.acquire(1).buffer, pooled.buffer);
});

t.test('a negative or non-integer size throws RangeError', async (t) => {
  const pool = new SlabPool({ bytesMin: KIB, bytesMax: 4 * KIB });
  for (const bytes of [-1, 1.5, NaN, Infinity, -Infinity, 2 ** 53]) {
    t.throws(() => pool.acquire(bytes), RangeError, `acquire(${bytes})`);
  }
  t.match(pool.stats(), { pooledBytes: 0, unpooledAcquires: 0 }, 'nothing was allocated');
});

t.test('onLoanBytes counts slabs between acquire and release, pooled or not', async (t) => {
  const pool = new SlabPool({ bytesMin: 1024, bytesMax: 8192 });
  const a = pool.acquire(1000);
  const b = pool.acquire(3000);
  const unpooled = pool.acquire(10_000);
  t.equal(pool.stats().onLoanBytes, 1024 + 4096 + 10_000);
  a.release();
  unpooled.release();
  t.equal(pool.stats().onLoanBytes, 4096);
  b.release();
  t.equal(pool.stats().onLoanBytes, 0);
  pool.acquire(1000).release();
  t.equal(pool.stats().onLoanBytes, 0, 'a reused slab is counted while on loan only');
});

t.test('trimIdle drops the slabs free for idleMs, never one on loan or released since', async (t) => {
  const pool = new SlabPool({ bytesMin: KIB, bytesMax: 64 * KIB });
  const old = pool.acquire(KIB);
  const recent = pool.acquire(KIB);
  const onLoan = pool.acquire(2 * KIB);
  const oldBuffer = old.buffer;
  const recentBuffer = recent.buffer;
  const t0 = Date.now();
  old.release();
  t.equal(pool.trimIdle(1_000, t0 + 500), 0, 'nothing free for long enough yet');
  recent.release();
  // `old` and `recent` were released at about t0: as of t0 + 1000 + 50 both are idle past 1000 ms.
  t.equal(pool.trimIdle(60_000, t0 + 1_050), 0, 'with a longer idleMs, nothing');
  t.equal(pool.trimIdle(1_000, t0 + 60_000), 2 * KIB, 'both free slabs dropped');
  t.match(pool.stats(), { pooledBytes: 2 * KIB, onLoanBytes: 2 * KIB }, 'the slab on loan stays counted');
  const again = pool.acquire(KIB);
  t.ok(again.buffer !== oldBuffer && again.buffer !== recentBuffer, 'a dropped slab is not handed out again');
  onLoan.release();
  t.equal(pool.acquire(2 * KIB).buffer, onLoan.buffer, 'a slab released after the trim is reused');
});

t.test('the slab released last is reused first, so the idle ones are those trimmed', async (t) => {
  const pool = new SlabPool({ bytesMin: KIB, bytesMax: 64 * KIB });
  const a = pool.acquire(KIB);
  const b = pool.acquire(KIB);
  const aBuffer = a.buffer;
  a.release();
  await new Promise((resolve) => setTimeout(resolve, 20));
  b.release();
  // As of 10 ms after b's release: a is idle past 15 ms, b is not.
  t.equal(pool.trimIdle(15, Date.now() + 10), KIB, 'only the slab idle longer is dropped');
  t.equal(pool.acquire(KIB).buffer, b.buffer, 'the one kept is handed out');
  t.not(pool.acquire(KIB).buffer, aBuffer);
});

t.test('with idleMs the pool trims itself; stop() ends it', async (t) => {
  const pool = new SlabPool({ bytesMin: KIB, bytesMax: 64 * KIB, idleMs: 20 });
  t.teardown(() => pool.stop());
  pool.acquire(KIB).release();
  t.equal(pool.stats().pooledBytes, KIB);
  await new Promise((resolve) => setTimeout(resolve, 80));
  t.equal(pool.stats().pooledBytes, 0, 'dropped by its own timer');
  t.throws(() => new SlabPool({ idleMs: 1 }), /idleMs/);
});

t.test('onTrimmed hears of each timer trim that dropped slabs, with their bytes, and of no other', async (t) => {
  const heard: number[] = [];
  const pool = new SlabPool({ bytesMin: KIB, bytesMax: 64 * KIB, idleMs: 20, onTrimmed: (bytes) => heard.push(bytes) });
  t.teardown(() => pool.stop());
  const kept = pool.acquire(4 * KIB); // on loan throughout: never dropped
  pool.acquire(KIB).release();
  pool.acquire(2 * KIB).release();
  await new Promise((resolve) => setTimeout(resolve, 80));
  t.same(heard, [3 * KIB], 'one trim, both free slabs');
  await new Promise((resolve) => setTimeout(resolve, 40));
  t.same(heard, [3 * KIB], 'ticks that dropped nothing are not reported');
  kept.release();
});

t.test('above FINE_CLASSES_FROM classes step by a quarter of the power of two below', async (t) => {
  const pool = new SlabPool({ bytesMax: 1024 * MIB });
  const size = (bytes: number) => pool.acquire(bytes).buffer.byteLength;
  t.equal(size(FINE_CLASSES_FROM), 8 * MIB, 'up to it: powers of two');
  t.equal(size(8 * MIB + 1), 10 * MIB, 'just above: 10 MiB, not 16');
  t.equal(size(11_100_000), 12 * MIB);
  t.equal(size(17_600_000), 20 * MIB, 'a commit of 475,000 points: 20 MiB, not 32');
  t.equal(size(74_000_000), 80 * MIB, 'a commit of 2,000,000 points (37 bytes each): 80 MiB, not 128');
  t.equal(size(64 * MIB), 64 * MIB, 'a power of two is its own class');
  t.equal(size(100 * MIB + 1), 112 * MIB);
  t.equal(new SlabPool({ bytesMin: 16 * MIB }).acquire(1).buffer.byteLength, 16 * MIB, 'never below bytesMin');
});

t.test('a class with no free slab takes the smallest free one up to twice its size', async (t) => {
  const pool = new SlabPool({ bytesMin: KIB, bytesMax: 64 * KIB });
  const two = pool.acquire(2 * KIB);
  const four = pool.acquire(4 * KIB);
  const eight = pool.acquire(8 * KIB);
  two.release();
  four.release();
  eight.release();
  const borrowed = pool.acquire(KIB);
  t.equal(borrowed.buffer, two.buffer, '1 KiB takes the free 2 KiB slab');
  const small = pool.acquire(KIB);
  t.not(small.buffer, four.buffer, 'but not one of 4 KiB: a new 1 KiB slab');
  t.equal(small.buffer.byteLength, KIB);
  t.equal(pool.acquire(3 * KIB).buffer, four.buffer, 'its own class first');
  t.equal(pool.acquire(4 * KIB).buffer, eight.buffer, '4 KiB, none free of its own, takes 8 KiB');
  t.match(pool.stats(), { pooledBytes: (2 + 4 + 8 + 1) * KIB }, 'one new slab in all');
  borrowed.release();
  small.release();
  t.equal(pool.acquire(2 * KIB).buffer, two.buffer, 'a borrowed slab goes back to its own class');
  t.equal(pool.acquire(KIB).buffer, small.buffer, 'and the 1 KiB class gets its own back');
});
