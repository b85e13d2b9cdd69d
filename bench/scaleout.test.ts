// Goal: the scale-out suite of `make bench` cannot rot: at the tiny size it starts the
// deployment `make scaleout-up` starts, loads through one api instance and through two, reads
// V1-V5 both ways with every answer checked against the generator, and stops every process.
// Method: the orchestrator with `--suite scaleout --size tiny`, the report written to temp
// files. No figure is asserted: timings depend on the machine.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { parseBenchOptions, runBench } from './run.ts';

t.test('tiny run of the scale-out suite, answers checked', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-scaleout-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const opts = {
    ...parseBenchOptions(['--suite', 'scaleout', '--size', 'tiny', '--no-install', '--peers', 'none', '--results', path.join(dir, 'RESULTS.md'), '--html', path.join(dir, 'report.html')], {}),
    log: (line: string) => t.comment(line),
  };
  const { result } = await runBench(opts);
  const suite = result.suites[0];
  t.equal(suite?.suite, 'scaleout');
  const keys = ['ingest', 'ingest-cpu', 'readable', 'v1', 'v2', 'v3', 'v4', 'v5'].flatMap((key) => [`${key}-one`, `${key}-two`]);
  t.same(suite?.metrics.map((m) => m.key).sort(), keys.sort(), 'every row, one instance and two');
  t.ok(suite?.metrics.every((m) => m.figures.plantdata?.checked === true && Number.isFinite(m.figures.plantdata.value)), 'every figure measured and its answers checked');
  t.same(suite?.notes, [], 'no wrong answer');
});
