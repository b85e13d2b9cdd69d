// Goal: `make bench` cannot rot: the suites other than metadata and data points (run.test.ts
// runs those). Method: the orchestrator at the tiny size, each suite's service as a child
// process, the report written to temp files; every answer must check out. No figure is
// asserted: timings depend on the machine.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { parseBenchOptions, runBench } from './run.ts';

t.test('tiny run of the graph, events, files, subscriptions, CDF, console and functions suites, answers checked', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const opts = {
    ...parseBenchOptions(['--suite', 'graph,events,files,subscriptions,cdf,console,functions', '--size', 'tiny', '--no-install', '--results', path.join(dir, 'RESULTS.md'), '--html', path.join(dir, 'report.html')], {}),
    log: (line: string) => t.comment(line),
  };
  const { result } = await runBench(opts);
  t.same(result.suites.map((s) => s.suite), ['graph', 'events', 'files', 'subscriptions', 'cdf', 'console', 'functions']);

  const graph = result.suites[0];
  t.same(graph?.metrics.map((m) => [m.key, m.figures.plantdata?.checked]), [
    ['create-rate', true], ['cross-rate', true], ['byids', true], ['filter', true], ['delete-leaf', true], ['delete-subtree', true], ['delete-refused', true],
  ], 'graph answers checked');

  const events = result.suites[1];
  t.same(events?.metrics.map((m) => [m.key, m.figures.plantdata?.checked]), [
    ['create-rate', true], ['copy-rate', true], ['create-vs-copy', true], ['filter-type-window', true], ['stream', true], ['advanced', true],
    ['search', true], ['count', true], ['distinct', true], ['rss-start', undefined], ['rss-peak', undefined], ['rss-end', undefined],
  ], 'events answers checked');
  t.ok((events?.metrics.find((m) => m.key === 'rss-peak')?.figures.plantdata?.value ?? 0) > 0, 'events: RSS sampled during the load');

  const files = result.suites[2];
  t.same(files?.metrics.map((m) => [m.key, m.figures.plantdata?.checked]), [['upload', true], ['download', true], ['rss-growth', undefined]], 'files: SHA-256 checked both ways');
  t.same(files?.notes, [], 'files: no wrong answer');

  const subscriptions = result.suites[3];
  t.same(subscriptions?.metrics.map((m) => [m.key, m.figures.plantdata?.checked]), [
    ['latency-p50', true], ['latency-p99', true], ['ingest-ratio', true], ['lost-after-kill', true],
  ], 'subscriptions: every delivered point checked against what was written');
  t.equal(subscriptions?.metrics.find((m) => m.key === 'lost-after-kill')?.figures.plantdata?.value, 0, 'subscriptions: no acknowledged write lost across kill -9');

  const consoleSuite = result.suites[5];
  if (existsSync('/usr/bin/chromium')) {
    t.same(consoleSuite?.metrics.map((m) => [m.key, m.figures.plantdata?.checked]), [
      ['chart-whole-range', true], ['chart-window', true], ['live-lag', true], ['live-heap-growth', true],
    ], 'console: every drawn chart checked, no live point lost');
  } else {
    t.match(consoleSuite?.notes.join('\n') ?? '', /not measured: \/usr\/bin\/chromium is missing/, 'console: not measured without chromium, and says why');
  }

  const functions = result.suites[6];
  t.same(functions?.metrics.map((m) => [m.key, m.figures.plantdata?.checked]), [
    ['call-ratio', true], ['target-lag-p99', true], ['target-ingest-kept', true],
  ], 'functions: the call\'s and the reads\' point counts checked, the target reached every input write');
  t.same(functions?.notes, [], 'functions: no wrong answer');
});
