// Goal: the paced sender's schedule sends each request when the points before it, at the asked
// rate, are due. Method: known point counts and rates; the due times exactly.
import t from 'tap';
import { paceSchedule } from './load.ts';

t.test('pace schedule', async (t) => {
  const check = (counts: number[], rate: number, expected: number[]) => t.same(Array.from(paceSchedule(counts, rate)), expected, `${counts} at ${rate}/s`);
  check([1000, 1000, 1000], 250_000, [0, 4, 8]);
  check([1000, 500, 1000], 1000, [0, 1000, 1500]);
  check([], 1000, []);
});
