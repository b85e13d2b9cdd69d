// Goal: `make bench` cannot rot. Method: the whole orchestrator at the tiny size, the service
// as a child process, the peers that are installed (nothing is installed from a test), the
// report written to temp files; every answer must check out. No figure is asserted: timings
// depend on the machine. The metadata and data point suites run here, the others in
// run-suites.test.ts: all of them in one file took 280-300 s of the runner's 300 s per file.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { parseBenchOptions, runBench } from './run.ts';

t.test('options', async (t) => {
  const opts = parseBenchOptions(['--suite', 'metadata', '--size', 'small', '--peers', 'none', '--results', 'none'], {});
  t.same([opts.suites, opts.size, opts.peers, opts.resultsFile], [['metadata'], 'small', [], undefined]);
  const fromEnv = parseBenchOptions([], { BENCH_SUITE: 'datapoints', BENCH_SIZE: 'tiny', BENCH_NO_INSTALL: '1' });
  t.same([fromEnv.suites, fromEnv.size, fromEnv.install, fromEnv.peers], [['datapoints'], 'tiny', false, ['victoria-metrics', 'influxdb']]);
  t.throws(() => parseBenchOptions(['--suite', 'metadata,nope'], {}), /unknown suite: nope/);
  t.throws(() => parseBenchOptions(['--size', 'huge'], {}), /unknown size huge/);
  t.same([parseBenchOptions(['--size', 'large'], {}).size, parseBenchOptions(['--size', 'large'], {}).suites], ['large', ['datapoints']], 'the data point suite\'s 100M-point size, that suite alone');
  t.throws(() => parseBenchOptions(['--size', 'large', '--suite', 'metadata'], {}), /size large is the datapoints suite's only/);
});

t.test('tiny run of the metadata and data point suites, answers checked, report written', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const opts = {
    ...parseBenchOptions(['--suite', 'metadata,datapoints', '--size', 'tiny', '--no-install', '--results', path.join(dir, 'RESULTS.md'), '--html', path.join(dir, 'report.html')], {}),
    log: (line: string) => t.comment(line),
  };
  const { result, table } = await runBench(opts);
  t.same(result.suites.map((s) => s.suite), ['metadata', 'datapoints']);

  const metadata = result.suites[0];
  t.same(metadata?.metrics.map((m) => [m.key, m.figures.plantdata?.checked]), [
    ['create-rate', true], ['filter-default', true], ['filter-pattern-sort', true], ['byids', true],
  ], 'metadata answers checked');

  const datapoints = result.suites[1];
  const failed = datapoints?.notes.filter((n) => / FAILED: /.test(n)) ?? [];
  const endpointsMissing = failed.some((n) => n.startsWith('plantdata FAILED') && /No route POST \/timeseries\/data/.test(n));
  t.same(failed.filter((n) => !(endpointsMissing && n.startsWith('plantdata'))), [], 'no system failed');
  t.same(datapoints?.notes.filter((n) => /WRONG/.test(n)), [], 'no wrong answer from any system');
  for (const key of ['q1', 'q2', 'q3', 'q4']) {
    const figures = datapoints?.metrics.find((m) => m.key === key)?.figures ?? {};
    for (const [system, figure] of Object.entries(figures)) t.equal(figure?.checked, true, `${key} ${system} answer checked`);
    if (!endpointsMissing) t.ok(figures.plantdata, `${key} measured on our service`);
  }
  // The varied queries V1-V5 (and their p90 rows) and the load rows, answers checked.
  for (const key of ['v1', 'v2', 'v3', 'v4', 'v5', 'v1-p90', 'v5-p90', 'v1-idle', 'v1-under-ingest', 'high-cardinality-v4', 'high-cardinality-filter']) {
    const figures = datapoints?.metrics.find((m) => m.key === key)?.figures ?? {};
    for (const [system, figure] of Object.entries(figures)) t.equal(figure?.checked, true, `${key} ${system} answer checked`);
    if (!endpointsMissing) t.ok(figures.plantdata, `${key} measured on our service`);
  }
  for (const key of ['gateway-rate', 'gateway-cpu', 'gateway-catch-up', 'v1-under-ingest-p99-ratio', 'high-cardinality-rate']) {
    const metric = datapoints?.metrics.find((m) => m.key === key);
    if (!endpointsMissing) t.ok(metric?.figures.plantdata, `${key} measured on our service`);
  }
  // The bulk load in two turns as at size large (JSON then Arrow on ours), its first stretch's rate, the tree's memory split.
  for (const key of ['ingest-rate-first', 'ingest-rate-vs-first', 'ingest-rate-turn-1', 'ingest-rate-turn-2', 'peak-rss-anon', 'peak-rss-file']) {
    if (!endpointsMissing) t.ok(datapoints?.metrics.find((m) => m.key === key)?.figures.plantdata, `${key} measured on our service`);
  }
  // One plant in one tenant: V1 (a) and (b) idle, paced and flat out, answers checked; (c), the window being written, measured.
  for (const key of ['one-tenant-v1-idle-base', 'one-tenant-v1-idle-written', 'one-tenant-v1-paced-base', 'one-tenant-v1-paced-written', 'one-tenant-v1-flat-base']) {
    const figures = datapoints?.metrics.find((m) => m.key === key)?.figures ?? {};
    for (const [system, figure] of Object.entries(figures)) t.equal(figure?.checked, true, `${key} ${system} answer checked`);
    if (!endpointsMissing) t.ok(figures.plantdata, `${key} measured on our service`);
  }
  for (const key of ['one-tenant-paced-rate', 'one-tenant-flat-rate', 'one-tenant-v1-paced-base-ratio', 'one-tenant-v1-paced-written-ratio', 'one-tenant-v1-paced-live', 'one-tenant-v1-paced-live-ratio']) {
    if (!endpointsMissing) t.ok(datapoints?.metrics.find((m) => m.key === key)?.figures.plantdata, `${key} measured on our service`);
  }
  // The Arrow rows: measured, or said to be not supported by this build.
  const notes = datapoints?.notes.join('\n') ?? '';
  const arrowIngestUnsupported = /Arrow ingest rows: not supported by this build/.test(notes);
  for (const key of ['arrow-bulk-rate', 'arrow-chdb-rate', 'arrow-bulk-vs-chdb', 'arrow-gateway-rate']) {
    const metric = datapoints?.metrics.find((m) => m.key === key);
    t.ok(metric, `${key} row present`);
    if (!endpointsMissing && !arrowIngestUnsupported) t.ok(metric?.figures.plantdata, `${key} measured on our service`);
  }
  const arrowEgressUnsupported = /Arrow egress row: not supported by this build/.test(notes);
  for (const key of ['arrow-egress', 'json-egress']) {
    const figure = datapoints?.metrics.find((m) => m.key === key)?.figures.plantdata;
    if (!endpointsMissing && !arrowEgressUnsupported) t.equal(figure?.checked, true, `${key}: every point checked`);
  }
  if (endpointsMissing) t.comment('POST /timeseries/data is not there yet: our data point figures are skipped, peers still ran');

  const runFiles = readdirSync(path.join(dir, 'history'));
  t.equal(runFiles.length, 1, 'the run recorded as one file under history/');
  const runFile = readFileSync(path.join(dir, 'history', runFiles[0] as string), 'utf8');
  t.match(runFile, /^# Bench run \d{4}-\d\d-\d\dT\S+Z · commit \S+/);
  t.match(runFile, /Machine: .+ cores, .+ GiB RAM, Node v20/);
  t.match(runFile, /\| filter 1000, default sort \| ms \|/);
  const markdown = readFileSync(path.join(dir, 'RESULTS.md'), 'utf8');
  t.match(markdown, /^# Bench results/);
  t.match(markdown, /Latest run: \[\d{4}-\d\d-\d\dT\S+Z · commit .+ · size tiny\]\(history\/\S+\.md\)/);
  t.match(markdown, /Machine: .+ cores, .+ GiB RAM, Node v20/);
  t.match(markdown, /\| filter 1000, default sort \| ms \|/);
  const html = readFileSync(path.join(dir, 'report.html'), 'utf8');
  t.match(html, /<svg [^>]+>.*filter 1000, default sort/s);
  t.match(table, /byids 1000 ids/);
});
