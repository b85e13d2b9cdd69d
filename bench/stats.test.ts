// Goal: the bench's summary statistics are the textbook ones. Method: small arrays with known
// median and nearest-rank quantiles, including even lengths and one sample.
import t from 'tap';
import { median, quantile, summarize } from './stats.ts';

t.test('median', async (t) => {
  const check = (input: number[], expected: number) => t.equal(median(input), expected, `median(${input})`);
  check([3, 1, 2], 2);
  check([4, 1, 3, 2], 2.5);
  check([7], 7);
  t.ok(Number.isNaN(median([])), 'empty is NaN');
});

t.test('quantile by nearest rank', async (t) => {
  const hundred = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted
  const check = (samples: number[], q: number, expected: number) => t.equal(quantile(samples, q), expected, `q${q} of ${samples.length}`);
  check(hundred, 0.99, 99);
  check(hundred, 0.5, 50);
  check(hundred, 1, 100);
  check([5, 1, 9], 0.99, 9);
  check([5], 0.99, 5);
  t.same(summarize([1, 2, 3, 10]), { medianMs: 2.5, p99Ms: 10, minMs: 1, maxMs: 10, runCount: 4 });
});
