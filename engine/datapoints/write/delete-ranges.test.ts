// Goal: coalesceDeleteRanges merges exactly the ranges that overlap or touch within a series
// and deletes the same timestamps as the input. Method: cases one per line, then a seeded
// random comparison of "is this timestamp deleted" before and after coalescing.
import t from 'tap';
import { TIMESTAMP_MS_MAX, TIMESTAMP_MS_MIN } from '../../limits.ts';
import { coalesceDeleteRanges } from './delete-ranges.ts';
import type { DeleteRange } from '../datapoint-store.ts';

const r = (seriesId: number, inclusiveBeginMs?: number, exclusiveEndMs?: number): DeleteRange => ({ seriesId, inclusiveBeginMs, exclusiveEndMs });
const check = (name: string, input: DeleteRange[], expected: DeleteRange[]) => t.strictSame(coalesceDeleteRanges(input), expected, name);

check('nothing', [], []);
check('one range', [r(1, 5, 10)], [r(1, 5, 10)]);
check('touching ranges merge', [r(1, 10, 20), r(1, 0, 10)], [r(1, 0, 20)]);
check('overlapping ranges merge', [r(1, 0, 15), r(1, 10, 20), r(1, 12, 13)], [r(1, 0, 20)]);
check('a gap keeps them apart', [r(1, 0, 10), r(1, 11, 20)], [r(1, 0, 10), r(1, 11, 20)]);
check('other series stay apart', [r(2, 0, 10), r(1, 10, 20)], [r(1, 10, 20), r(2, 0, 10)]);
check('omitted bounds are the window edges', [r(1), r(1, 5, 6)], [r(1, TIMESTAMP_MS_MIN, TIMESTAMP_MS_MAX + 1)]);
check('only a begin', [r(1, 100), r(1, 50, 60)], [r(1, 50, 60), r(1, 100, TIMESTAMP_MS_MAX + 1)]);
check('empty and inverted ranges are dropped', [r(1, 5, 5), r(1, 9, 3)], []);
check('10 000 consecutive windows become one', Array.from({ length: 10_000 }, (_, i) => r(7, i, i + 1)), [r(7, 0, 10_000)]);

t.test('the same timestamps are deleted before and after coalescing (seeded random)', async (t) => {
  let seed = 42;
  const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
  for (let round = 0; round < 200; round++) {
    const ranges = Array.from({ length: 1 + Math.floor(random() * 8) }, () => {
      const begin = Math.floor(random() * 60);
      return r(1 + Math.floor(random() * 2), begin, begin + Math.floor(random() * 10) - 2);
    });
    const merged = coalesceDeleteRanges(ranges);
    const covered = (list: DeleteRange[], s: number, ts: number) => list.some((x) => x.seriesId === s && ts >= (x.inclusiveBeginMs as number) && ts < (x.exclusiveEndMs as number));
    for (const s of [1, 2]) for (let ts = -5; ts < 75; ts++) {
      if (covered(ranges, s, ts) !== covered(merged, s, ts)) t.fail(`round ${round}, series ${s}, ts ${ts}: ${JSON.stringify(ranges)} -> ${JSON.stringify(merged)}`);
    }
  }
  t.pass('200 random requests agree timestamp by timestamp');
});
