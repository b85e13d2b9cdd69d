// Goal: the in-memory read contexts (read-context-index.ts) drop a dirty range only where a
// folded mark of its family covers it and only for writes settled at the fold's clock, keep
// remainders, merge duplicates, replace settled items from table rows, stay within memory for
// 100 000 series, and past their bound stop holding new series rather than evict. Method: the
// index alone (no engine), one line per case.
import t from 'tap';
import { ReadContextIndex, type DirtyMark } from './read-context-index.ts';

const H = 3_600_000;
const M = 60_000;
const mark = (seriesId: number, beginMs: number, endMs: number, family = 'float', tenant = 'a'): DirtyMark => ({ tenant, seriesId, family, beginMs, endMs });
const dirtyOf = (index: ReadContextIndex, seriesId: number, tenant = 'a') =>
  (index.context(tenant, seriesId)?.dirty ?? []).map(([b, e]) => [b, e]).sort((x, y) => (x[0] as number) - (y[0] as number));

t.test('a fold removes what its folded marks cover, of settled writes only', async (t) => {
  const index = new ReadContextIndex();
  const first = index.begin([mark(1, 0, 2 * H), mark(2, 0, H)]);
  index.settle(first);
  const held = index.begin([mark(1, 3 * H, 4 * H)]); // still being written at the clock
  const clock = index.clock();
  const later = index.begin([mark(2, 0, H)]); // the same range again, after the clock
  index.settle(later);
  index.applyFold(clock, [mark(1, 0, H), mark(1, 3 * H, 4 * H), mark(2, 0, H)], []);
  t.same(dirtyOf(index, 1), [[H, 2 * H], [3 * H, 4 * H]], 'the uncovered part and the unsettled write stay');
  t.same(dirtyOf(index, 2), [[0, H]], 'a write after the clock keeps its (merged) range');
  index.settle(held);
  index.applyFold(index.clock(), [mark(1, 0, 5 * H), mark(2, 0, H)], []);
  t.same(dirtyOf(index, 1), [], 'then all of it goes');
  t.same(index.size, { items: 0, complete: true }, 'empty series are not stored');
});

t.test('family, alignment and remainders', async (t) => {
  const index = new ReadContextIndex();
  index.settle(index.begin([mark(1, 5 * M, 7 * M), mark(1, 0, H, '')]));
  const clock = index.clock();
  index.applyFold(clock, [mark(1, 6 * M, 30 * M, 'float')], []);
  t.same(dirtyOf(index, 1), [[0, H], [5 * M, 6 * M]], 'a float mark leaves the every-family range; minutes are cut exactly');
  index.applyFold(clock, [mark(1, 0, H, '')], [mark(1, 50 * M, H, '')]);
  t.same(dirtyOf(index, 1), [[50 * M, H]], 'an every-family mark covers every family; its hot remainder stays');
  index.applyFold(index.clock(), [mark(1, 50 * M, H, '')], []);
  t.same(dirtyOf(index, 1), [], 'the remainder goes at the next fold');
});

t.test('tombstones and replace()', async (t) => {
  const index = new ReadContextIndex();
  index.settle(index.begin([mark(1, 0, H)], [{ tenant: 'a', seriesId: 1, beginMs: 10, endMs: 20, version: 5n }]));
  const running = index.begin([mark(3, 0, H)], [{ tenant: 'a', seriesId: 3, beginMs: 1, endMs: 2, version: 6n }]);
  const clock = index.clock();
  index.replace(clock, [mark(2, H, 2 * H)], [{ tenant: 'a', seriesId: 1, beginMs: 10, endMs: 20, version: 5n }, { tenant: 'b', seriesId: 1, beginMs: 0, endMs: 1, version: 7n }]);
  t.same(index.context('a', 1), { dirty: [], tombstones: [{ seriesId: 1, begin: 10, end: 20, version: 5n }] }, 'settled items become the rows');
  t.same(dirtyOf(index, 2), [[H, 2 * H]]);
  t.same(index.context('a', 3), { dirty: [[0, H]], tombstones: [{ seriesId: 3, begin: 1, end: 2, version: 6n }] }, 'an unsettled write is kept');
  t.same(index.context('b', 1)?.tombstones, [{ seriesId: 1, begin: 0, end: 1, version: 7n }]);
  index.settle(running);
  t.same(index.context('a', 99), { dirty: [], tombstones: [] }, 'a series never written has an empty context');
});

t.test('past the bound, new series are not held (read from the tables), held ones are never evicted', async (t) => {
  const index = new ReadContextIndex(3);
  index.settle(index.begin([mark(1, 0, H), mark(2, 0, H), mark(3, 0, H)]));
  index.settle(index.begin([mark(4, 0, H), mark(1, H, 2 * H)]));
  t.same(index.size, { items: 4, complete: false });
  t.equal(index.context('a', 4), undefined, 'not held');
  t.equal(index.context('a', 5), undefined, 'absence no longer means empty');
  t.same(dirtyOf(index, 1), [[0, H], [H, 2 * H]], 'a held series still takes its ranges');
  index.applyFold(index.clock(), [mark(2, 0, H)], []);
  t.equal(index.context('a', 2), undefined, 'a series emptied while incomplete is let go (the tables answer)');
});

t.test('100 000 series with three ranges and a tombstone each fit in a few tens of MB', async (t) => {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage().heapUsed;
  const index = new ReadContextIndex();
  for (let id = 1; id <= 100_000; id++) {
    const seq = index.begin([mark(id, 0, M), mark(id, 10 * M, 12 * M), mark(id, H, 2 * H)], [{ tenant: 'a', seriesId: id, beginMs: 5, endMs: 9, version: 3n }]);
    index.settle(seq);
  }
  gc?.();
  const bytes = process.memoryUsage().heapUsed - before;
  t.equal(index.size.items, 400_000);
  t.comment(`heap for 100 000 series, 400 000 items: ${(bytes / 1048576).toFixed(1)} MiB${gc ? '' : ' (no --expose-gc: an upper estimate)'}`);
  t.ok(bytes < 80 * 1048576, `under 80 MiB (${(bytes / 1048576).toFixed(1)} MiB)`);
});
