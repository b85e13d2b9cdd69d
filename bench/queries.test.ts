// Goal: the workload is deterministic and the answer checks accept exactly the right answers.
// Method: a tiny workload; answers built from the workload itself pass, and one altered field
// of each kind (a value, a timestamp, a count, a missing series) is named as wrong.
import t from 'tap';
import { checkAnswer, type AnsweredBucket, type QueryAnswer } from './queries.ts';
import { Q1_SERIES, Q3_SERIES, Workload } from './workload.ts';

const size = { seriesCount: 3, pointsPerSeries: 7_300, requestPoints: 1_000, senderCount: 2, warmupCount: 0, runCount: 1 };
const NOW = Date.UTC(2030, 0, 10, 12);

t.test('the workload is deterministic and realistic', async (t) => {
  const a = new Workload(size, NOW);
  const b = new Workload(size, NOW);
  t.equal(a.startMs, Date.UTC(2030, 0, 8), 'starts at UTC midnight two days back');
  t.equal(a.valueText(2, 4321), b.valueText(2, 4321), 'same value for the same point');
  t.match(a.valueText(0, 0), /^\d+\.\d{3}$/, 'a decimal string with three decimals');
  t.equal(a.requests().length, 3 * 8, 'requests of at most requestPoints');
  t.equal(a.requests().reduce((sum, [, , count]) => sum + count, 0), a.pointCount, 'requests cover every point once');
  const hourly = a.hourly(0);
  t.equal(hourly.length, 3, '7,300 s spans three hours');
  t.same(hourly.map((h) => h.count), [3600, 3600, 100]);
});

t.test('answer checks', async (t) => {
  const w = new Workload(size, NOW);
  const strip = (b: AnsweredBucket & { sum?: number }) => ({ timestamp: b.timestamp, average: b.average, min: b.min, max: b.max, count: b.count });
  const q1: QueryAnswer = { query: 'q1', buckets: w.hourly(Q1_SERIES).map(strip) };
  const q2: QueryAnswer = { query: 'q2', series: new Map([0, 1, 2].map((s) => [w.externalId(s), w.daily(s).map((b) => ({ timestamp: b.timestamp, average: b.average }))])) };
  const values = Array.from(w.values(Q3_SERIES));
  const q3: QueryAnswer = { query: 'q3', timestamps: values.map((_, i) => w.timestamp(i)), values };
  const last = size.pointsPerSeries - 1;
  const q4: QueryAnswer = { query: 'q4', latest: new Map([0, 1, 2].map((s) => [w.externalId(s), { timestamp: w.timestamp(last), value: w.values(s)[last] as number }])) };
  for (const answer of [q1, q2, q3, q4]) t.equal(checkAnswer(w, answer), undefined, `${answer.query} right`);

  const check = (answer: QueryAnswer, expected: RegExp) => t.match(checkAnswer(w, answer), expected);
  check({ query: 'q1', buckets: q1.buckets.map((b, k) => (k === 1 ? { ...b, count: 3599 } : b)) }, /bucket 1: count 3599, expected 3600/);
  check({ query: 'q1', buckets: q1.buckets.map((b, k) => (k === 2 ? { ...b, average: (b.average ?? 0) * 1.001 } : b)) }, /bucket 2: average/);
  check({ query: 'q1', buckets: q1.buckets.slice(1) }, /2 buckets, expected 3/);
  check({ query: 'q1', buckets: q1.buckets.map(({ timestamp, average, min, count }) => ({ timestamp, average, min, count })) }, /no max/);
  check({ query: 'q2', series: new Map([...q2.series].slice(0, 2)) }, /answered 2 series, expected 3/);
  check({ query: 'q3', timestamps: q3.timestamps.map((ts, i) => (i === 5 ? ts + 1 : ts)), values: q3.values }, /point 5: timestamp/);
  check({ query: 'q3', timestamps: q3.timestamps, values: q3.values.map((v, i) => (i === 9 ? v + 0.001 : v)) }, /point 9: value/);
  check({ query: 'q4', latest: new Map([...q4.latest].map(([k, v]) => [k, { ...v, value: v.value + 1 }])) }, /Q4 bench-dp-0000: value/);
  t.equal(checkAnswer(w, { query: 'q3', timestamps: q3.timestamps, values: q3.values.map((v) => v * (1 + 1e-8)) }, 1e-6), undefined, 'peer tolerance takes float noise');
});
