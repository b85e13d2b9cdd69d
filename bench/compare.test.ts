// Goal: bench/compare.ts's pure parts and its interleaving (interleave.ts) hold: rounds alternate which side goes first, warm-ups
// are not measured, a differing item count reaches the check, the summary is median / p90 /
// ratio of medians, and a base lockfile is accepted only when this tree pins each of its
// packages the same. Method: fake sends (no service), small arrays with known figures.
import t from 'tap';
import { lockfileVerdict, parseCompareOptions } from './compare.ts';
import { compareTableRows, interleave, roundOrder, summarizeShape, type SideName } from './interleave.ts';

t.test('rounds alternate A, B, B, A, ...', async (t) => {
  t.same([0, 1, 2, 3].flatMap((i) => roundOrder(i)), ['A', 'B', 'B', 'A', 'A', 'B', 'B', 'A']);
});

t.test('interleave: one request per round to both sides, warm-ups left out', async (t) => {
  const sent: string[] = [];
  const checked: [number, Record<SideName, number>][] = [];
  const samples = await interleave(
    { warmupCount: 2, runCount: 3 },
    (round) => round,
    async (side, round) => {
      sent.push(`${side}${round}`);
      // A answers round+1 ms, B ten times that; B drops an item in round 3.
      return { elapsedMs: side === 'A' ? round + 1 : 10 * (round + 1), items: side === 'B' && round === 3 ? 999 : 1000 };
    },
    (round, _request, items) => checked.push([round, { ...items }]),
  );
  t.same(sent, ['A0', 'B0', 'B1', 'A1', 'A2', 'B2', 'B3', 'A3', 'A4', 'B4']);
  t.same(samples, { A: [3, 4, 5], B: [30, 40, 50] });
  t.same(checked.map(([round, items]) => [round, items.A, items.B]), [[0, 1000, 1000], [1, 1000, 1000], [2, 1000, 1000], [3, 1000, 999], [4, 1000, 1000]]);
});

t.test('summary: medians, nearest-rank p90, B/A of medians, the table', async (t) => {
  const tens = Array.from({ length: 10 }, (_, k) => 10 - k); // 10..1
  const s = summarizeShape('byids 1000 ids', { A: tens, B: tens.map((v) => v * 2) });
  t.same(s, { shape: 'byids 1000 ids', runCount: 10, a: { medianMs: 5.5, p90Ms: 9 }, b: { medianMs: 11, p90Ms: 18 }, ratio: 2 });
  t.same(compareTableRows([s]), [
    ['shape', 'A median', 'A p90', 'B median', 'B p90', 'B/A'],
    ['byids 1000 ids', '5.5 ms', '9.0 ms', '11.0 ms', '18.0 ms', '2.00'],
  ]);
});

t.test('lockfile: the same, or this tree only adds packages', async (t) => {
  const lock = (packages: Record<string, unknown>) => JSON.stringify({ name: 'x', lockfileVersion: 3, packages }, null, 2);
  const pg = { version: '8.23.1', resolved: 'https://registry.npmjs.org/pg/-/pg-8.23.1.tgz', integrity: 'sha512-a' };
  const base = lock({ '': { dependencies: { pg: '8.23.1' } }, 'node_modules/pg': pg });
  t.same(lockfileVerdict(base, base), { ok: true });
  const added = lockfileVerdict(base, lock({ '': { dependencies: { pg: '8.23.1', uplot: '1.6.32' } }, 'node_modules/pg': pg, 'node_modules/uplot': { version: '1.6.32' } }));
  t.ok(added.ok && /only by 1 package entries this tree adds/.test(added.note ?? ''), 'an added package is accepted, and said');
  const bumped = lockfileVerdict(base, lock({ '': {}, 'node_modules/pg': { ...pg, version: '8.24.0' } }));
  t.ok(!bumped.ok && /differs .*node_modules\/pg/.test(bumped.why), 'a package at another version stops it');
  const removed = lockfileVerdict(base, lock({ '': {} }));
  t.ok(!removed.ok, 'a package of the base missing here stops it');
});

t.test('options', async (t) => {
  const opts = parseCompareOptions(['--base', 'HEAD~2', '--shapes', 'events', '--runs', '20', '--events', '20000'], { BENCH_SEED: '7' });
  t.same([opts.base, opts.groups, opts.runCount, opts.eventCount, opts.seed], ['HEAD~2', ['events'], 20, 20_000, 7]);
  const defaults = parseCompareOptions(['--base', 'main'], {});
  t.same([defaults.groups, defaults.runCount, defaults.eventCount], [['metadata', 'events'], 150, 300_000]);
  t.throws(() => parseCompareOptions([], {}), /--base <rev> is required/);
  t.throws(() => parseCompareOptions(['--base', 'x', '--shapes', 'metadata,nope'], {}), /unknown shapes: nope/);
  t.throws(() => parseCompareOptions(['--base', 'x', '--runs', '0'], {}), /--runs must be a positive integer/);
});
