// Goal: disjointTombstones (datapoint-read-context.ts) leaves out exactly the points the
// tombstones it was given leave out, so reads may bind the disjoint form (and look up one range
// per point) instead of every tombstone. Method: fast-check draws overlapping tombstones of
// several series and versions; at every timestamp around them and every point version, "some
// covering tombstone's version is at least the point's" must agree between the given list and
// the disjoint one, which must also be sorted, disjoint and free of empty ranges. bindTombstones'
// form follows the count.
import fc from 'fast-check';
import t from 'tap';
import { bindTombstones, disjointTombstones, TOMBSTONE_LIST_MAX } from './datapoint-read-context.ts';
import type { Tombstone } from './series-context.ts';

const dead = (list: readonly Tombstone[], seriesId: number, ts: number, version: bigint) =>
  list.some((t) => t.seriesId === seriesId && t.begin <= ts && ts < t.end && version <= t.version);

const tombstone = fc.record({
  seriesId: fc.integer({ min: 1, max: 3 }), begin: fc.integer({ min: -5, max: 60 }), length: fc.integer({ min: 0, max: 25 }), version: fc.bigInt({ min: 1n, max: 6n }),
}).map(({ seriesId, begin, length, version }): Tombstone => ({ seriesId, begin, end: begin + length, version }));

t.test('the disjoint form deletes exactly what the tombstones delete', async (t) => {
  const seed = 4242;
  t.comment(`fast-check seed ${seed}`);
  fc.assert(fc.property(fc.array(tombstone, { maxLength: 40 }), (given) => {
    const disjoint = disjointTombstones(given);
    for (let i = 0; i < disjoint.length; i++) {
      const d = disjoint[i] as Tombstone;
      if (d.begin >= d.end) return false;
      const prev = disjoint[i - 1];
      if (prev && (prev.seriesId > d.seriesId || (prev.seriesId === d.seriesId && prev.end > d.begin))) return false;
    }
    for (const seriesId of [1, 2, 3, 4]) {
      for (let ts = -6; ts <= 90; ts++) {
        for (let version = 1n; version <= 7n; version++) {
          if (dead(given, seriesId, ts, version) !== dead(disjoint, seriesId, ts, version)) return false;
        }
      }
    }
    return true;
  }), { seed, numRuns: 300 });
  t.pass('every drawn list agreed');
});

t.test('ranges that touch with one version merge; another version stays apart', async (t) => {
  t.same(disjointTombstones([
    { seriesId: 1, begin: 0, end: 10, version: 2n }, { seriesId: 1, begin: 10, end: 20, version: 2n },
    { seriesId: 1, begin: 5, end: 8, version: 5n }, { seriesId: 2, begin: 0, end: 1, version: 1n }, { seriesId: 1, begin: 30, end: 30, version: 9n },
  ]), [
    { seriesId: 1, begin: 0, end: 5, version: 2n }, { seriesId: 1, begin: 5, end: 8, version: 5n }, { seriesId: 1, begin: 8, end: 20, version: 2n },
    { seriesId: 2, begin: 0, end: 1, version: 1n },
  ]);
});

t.test('bindTombstones: none, a list up to TOMBSTONE_LIST_MAX disjoint ranges, the join past it; only those touching the window', async (t) => {
  const context = (n: number) => ({ dirty: [], tombstones: Array.from({ length: n }, (_, k): Tombstone => ({ seriesId: 1, begin: 2 * k, end: 2 * k + 1, version: 1n })) });
  t.equal(bindTombstones([context(0)]).form, 'none');
  t.equal(bindTombstones([context(TOMBSTONE_LIST_MAX)]).form, 'list');
  t.equal(bindTombstones([context(TOMBSTONE_LIST_MAX + 1)]).form, 'join');
  t.equal(bindTombstones([context(TOMBSTONE_LIST_MAX + 1)], 0, 2).form, 'list', 'one range touches [0, 2)');
  t.equal(bindTombstones([context(TOMBSTONE_LIST_MAX + 1)], 1000, 2000).form, 'none');
  t.same(bindTombstones([context(1)]).params, { tomb_series: [1n], tomb_begin: [0], tomb_end: [1], tomb_version: [1n] });
});
