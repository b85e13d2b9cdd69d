// Goal: varied picks stay inside the data, never repeat, are the same for the same seed, and
// their checks accept exactly the right answers. Method: a small workload; answers built from
// the generator pass, one altered field of each kind is named as wrong.
import t from 'tap';
import type { AnsweredBucket } from './queries.ts';
import { checkVaried, DAY_MS, HOUR_MS, timeVaried, VARIED_NAMES, VariedPicker, type VariedAnswer, type VariedPick, type VariedSize } from './varied.ts';
import { Workload } from './workload.ts';

const size = { seriesCount: 6, pointsPerSeries: 4 * 3600, requestPoints: 3600, senderCount: 1, warmupCount: 0, runCount: 1 };
const varied: VariedSize = { v1WindowMs: HOUR_MS, v2SeriesCount: 3, v2WindowMs: 2 * HOUR_MS, v3Points: 500, v4SeriesCount: 3, warmupCount: 0, pickCount: 20 };
const NOW = Date.UTC(2030, 0, 10, 12);

/** The right answer to a pick, from the generator. */
function answerOf(w: Workload, pick: VariedPick): VariedAnswer {
  const strip = (b: AnsweredBucket) => ({ timestamp: b.timestamp, average: b.average, min: b.min, max: b.max, count: b.count });
  switch (pick.query) {
    case 'v1':
      return { query: 'v1', buckets: w.bucketsIn(pick.series.gen, 60_000, pick.fromMs, pick.toMs).map(strip) };
    case 'v2':
    case 'v5': {
      const bucketMs = pick.query === 'v2' ? HOUR_MS : DAY_MS;
      return { query: pick.query, series: new Map(pick.series.map((r) => [r.externalId, w.bucketsIn(r.gen, bucketMs, pick.fromMs, pick.toMs).map((b) => ({ timestamp: b.timestamp, average: b.average }))])) };
    }
    case 'v3': {
      const values = Array.from(w.values(pick.series.gen).subarray(pick.first, pick.first + pick.count));
      return { query: 'v3', timestamps: values.map((_, k) => w.timestamp(pick.first + k)), values };
    }
    case 'v4':
      return { query: 'v4', latest: new Map(pick.series.map((r) => [r.externalId, { timestamp: w.timestamp(pick.last), value: Number(w.valueText(r.gen, pick.last)) }])) };
  }
}

t.test('picks: inside the data, never repeated, seeded', async (t) => {
  const w = new Workload(size, NOW);
  const a = new VariedPicker(w, varied, 42);
  const b = new VariedPicker(w, varied, 42);
  const seen = new Set<string>();
  for (const name of VARIED_NAMES) {
    for (let i = 0; i < varied.pickCount; i++) {
      const pick = a.pick(name);
      t.same(b.pick(name), pick, 'same seed, same pick');
      const key = JSON.stringify(pick);
      t.notOk(seen.has(key), `${name} pick ${i} is new`);
      seen.add(key);
      if (pick.query === 'v1' || pick.query === 'v2') {
        t.ok(pick.fromMs >= w.startMs && pick.toMs <= w.endMs, `${name} window inside the data`);
        t.equal(pick.toMs - pick.fromMs, pick.query === 'v1' ? varied.v1WindowMs : varied.v2WindowMs);
      }
      if (pick.query === 'v2' || pick.query === 'v4') t.equal(new Set(pick.series.map((r) => r.gen)).size, 3, `${name} distinct series`);
      if (pick.query === 'v3') t.ok(pick.first + pick.count <= size.pointsPerSeries && pick.fromMs === w.timestamp(pick.first));
      if (pick.query === 'v5') t.equal(pick.series.length, size.seriesCount, 'V5 reads every series');
      t.equal(checkVaried(w, pick, answerOf(w, pick)), undefined, `${name} right answer passes`);
    }
  }
  t.not(JSON.stringify(new VariedPicker(w, varied, 43).pick('v1')), JSON.stringify(new VariedPicker(w, varied, 42).pick('v1')), 'another seed, other picks');
  const narrow = new VariedPicker(new Workload({ ...size, seriesCount: 1, pointsPerSeries: 3600 }), { ...varied, v1WindowMs: HOUR_MS }, 1);
  narrow.pick('v1');
  t.throws(() => narrow.pick('v1'), /no new pick left/, 'an exhausted space says so instead of repeating');
});

t.test('checks name what is wrong', async (t) => {
  const w = new Workload(size, NOW);
  const picker = new VariedPicker(w, varied, 7);
  const check = (pick: VariedPick, answer: VariedAnswer, expected: RegExp) => t.match(checkVaried(w, pick, answer), expected);
  const v1 = picker.pick('v1');
  const v1Right = answerOf(w, v1) as Extract<VariedAnswer, { query: 'v1' }>;
  check(v1, { query: 'v1', buckets: v1Right.buckets.map((b, k) => (k === 3 ? { ...b, count: 59 } : b)) }, /bucket 3: count 59, expected 60/);
  check(v1, { query: 'v1', buckets: v1Right.buckets.slice(1) }, /59 buckets, expected 60/);
  const v2 = picker.pick('v2');
  const v2Right = answerOf(w, v2) as Extract<VariedAnswer, { query: 'v2' | 'v5' }>;
  check(v2, { query: 'v2', series: new Map([...v2Right.series].slice(1)) }, /answered 2 series, expected 3/);
  const v3 = picker.pick('v3');
  const v3Right = answerOf(w, v3) as Extract<VariedAnswer, { query: 'v3' }>;
  check(v3, { ...v3Right, timestamps: v3Right.timestamps.map((ts, k) => (k === 7 ? ts + 1000 : ts)) }, /point \d+: timestamp/);
  check(v3, { ...v3Right, values: v3Right.values.slice(0, -1), timestamps: v3Right.timestamps.slice(0, -1) }, /499 points, expected 500/);
  const v4 = picker.pick('v4');
  const v4Right = answerOf(w, v4) as Extract<VariedAnswer, { query: 'v4' }>;
  check(v4, { query: 'v4', latest: new Map([...v4Right.latest].map(([k, v]) => [k, { value: v.value + 0.001 }])) }, /V4 bench-dp-\d+: value/);
  check(v4, { query: 'v1', buckets: [] }, /v4: answered as v1/);
  t.equal(checkVaried(w, v4, { query: 'v4', latest: new Map([...v4Right.latest].map(([k, v]) => [k, { value: v.value * (1 + 1e-8) }])) }, 1e-6), undefined, 'peer tolerance takes float noise');
});

t.test('warm-up picks are timed apart: the rows hold the measured picks, the warm-up its own median and p90', async (t) => {
  const w = new Workload(size, NOW);
  const picker = new VariedPicker(w, varied, 7);
  // Warm-up picks "take" 100 + i ms, measured ones 1 + i ms: a mix-up shows in either summary.
  let i = 0;
  const summary = await timeVaried(async (pick) => ({ elapsedMs: i < 10 ? 100 + i++ : 1 + (i++ - 10), answer: answerOf(w, pick) }), picker, 'v1', { warmupCount: 10, pickCount: 20 });
  t.equal(summary.runCount, 20);
  t.equal(summary.maxMs, 20);
  t.equal(summary.p90Ms, 18);
  t.same(summary.warmup, { medianMs: 104.5, p90Ms: 108, count: 10 });
  t.equal(summary.problem, undefined, 'every answer checked and right');
  const none = await timeVaried(async (pick) => ({ elapsedMs: 1, answer: answerOf(w, pick) }), picker, 'v1', { warmupCount: 0, pickCount: 3 });
  t.equal(none.warmup, undefined);
});

t.test("a peer's wrong answer is asked again once after its settling step; a second wrong answer counts", async (t) => {
  const w = new Workload(size, NOW);
  const empty: VariedAnswer = { query: 'v4', latest: new Map() };
  // The first ask of the run answers no series (a search racing the index), later asks are right.
  let asks = 0;
  let settled = 0;
  const racing = async (pick: VariedPick) => ({ elapsedMs: 1, answer: asks++ === 0 ? empty : answerOf(w, pick) });
  const reasked = await timeVaried(racing, new VariedPicker(w, varied, 9), 'v4', { warmupCount: 0, pickCount: 3, reaskAfter: async () => { settled++; } });
  t.equal(reasked.problem, undefined, 'right when asked again: not wrong');
  t.match(reasked.reasked, /V4/, 'the first wrong answer is kept');
  t.equal(settled, 1, 'settled once before the second ask');
  t.equal(reasked.runCount, 3, 'one sample per pick');

  asks = 0;
  const notReasked = await timeVaried(racing, new VariedPicker(w, varied, 9), 'v4', { warmupCount: 0, pickCount: 3 });
  t.match(notReasked.problem, /V4/, 'without a settling step (ours) the wrong answer counts');

  const alwaysWrong = await timeVaried(async () => ({ elapsedMs: 1, answer: empty }), new VariedPicker(w, varied, 9), 'v4', { warmupCount: 0, pickCount: 3, reaskAfter: async () => undefined });
  t.match(alwaysWrong.problem, /V4/, 'wrong again after settling: wrong');
});
