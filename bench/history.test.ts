// Goal: bench/RESULTS.md is generated from the run files under bench/history/ alone: each
// suite's latest run at size full first (its machine, dataset and table), every other run
// listed as a link, newest first; a run file is named by its start and commit and reads back
// as written. Method: run files written to a temp dir by report.ts's own runMarkdown, in an
// order other than their dates, then RESULTS.md written from the dir and read.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { parseRunFile, readHistory, runFileName, writeResults } from './history.ts';
import { runMarkdown, type Machine } from './report.ts';
import type { RunResult, SuiteResult } from './results.ts';

const machine: Machine = { cpuModel: 'Test CPU', coreCount: 2, memoryGiB: 8, node: 'v20.0.0', kernel: 'Linux', loadAverage: '0.00 0.00 0.00' };
const suite = (name: SuiteResult['suite'], ours: number, vm: number): SuiteResult => ({
  suite: name, dataset: `${name} data of ${ours}`, notes: [`note of ${ours}`],
  metrics: [{ suite: name, key: 'k', label: `${name} row`, unit: 'ms', better: 'lower', target: { op: '<=', value: 1, peer: 'victoria-metrics' }, figures: { plantdata: { value: ours }, 'victoria-metrics': { value: vm } } }],
});

function record(dir: string, run: RunResult, commit: string): string {
  const file = path.join(dir, runFileName(run.startedAt, commit));
  writeFileSync(file, runMarkdown(run, machine, commit));
  return file;
}

t.test('RESULTS.md shows the latest run of each suite first, then the earlier runs', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-history-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const history = path.join(dir, 'history');
  mkdirSync(history);
  record(history, { startedAt: '2026-11-22T10:00:00Z', size: 'full', suites: [suite('datapoints', 3, 4)] }, 'bbbbbbbbbbbb');
  record(history, { startedAt: '2026-11-21T10:00:00Z', size: 'full', suites: [suite('metadata', 1, 2), suite('datapoints', 8, 4)] }, 'aaaaaaaaaaaa (with uncommitted changes)');
  record(history, { startedAt: '2026-11-23T10:00:00Z', size: 'tiny', suites: [suite('datapoints', 99, 1)] }, 'cccccccccccc');
  writeFileSync(path.join(history, 'README.txt'), 'not a run');

  t.same(readHistory(history).map((r) => r.startedAt), ['2026-11-21T10:00:00Z', '2026-11-22T10:00:00Z', '2026-11-23T10:00:00Z'], 'runs read back oldest first');
  const resultsFile = path.join(dir, 'RESULTS.md');
  writeResults(history, resultsFile);
  const text = readFileSync(resultsFile, 'utf8');
  t.match(text, /^# Bench results\n/);

  const metadataAt = text.indexOf('## metadata');
  const datapointsAt = text.indexOf('## datapoints');
  const earlierAt = text.indexOf('## Earlier runs');
  t.ok(metadataAt > 0 && metadataAt < datapointsAt && datapointsAt < earlierAt, 'suites first, in suite order, then the earlier runs');
  const datapoints = text.slice(datapointsAt, earlierAt);
  t.match(datapoints, 'Latest run: [2026-11-22T10:00:00Z · commit bbbbbbbbbbbb · size full](history/2026-11-22T10-00-00Z-bbbbbbbbbbbb.md)', 'the latest full-size run, not the later tiny one');
  t.match(datapoints, 'Dataset: datapoints data of 3.');
  t.match(datapoints, '| datapoints row | ms | 3.00 | - | 4.00 | 0.75x | <= 1.0x VM: met | - |', 'its table with ratio and target');
  t.notMatch(datapoints, 'note of 3', 'notes stay in the run file');
  const metadata = text.slice(metadataAt, datapointsAt);
  t.match(metadata, 'Latest run: [2026-11-21T10:00:00Z · commit aaaaaaaaaaaa (with uncommitted changes) · size full](history/2026-11-21T10-00-00Z-aaaaaaaaaaaa.md)');
  t.match(metadata, 'Machine: Test CPU, 2 cores, 8.0 GiB RAM, Node v20.0.0');
  const earlier = text.slice(earlierAt).split('\n').filter((l) => l.startsWith('- '));
  t.same(earlier, ['- [2026-11-23T10:00:00Z · commit cccccccccccc · size tiny](history/2026-11-23T10-00-00Z-cccccccccccc.md): datapoints'], 'runs shown above are not listed again');
});

t.test('a suite with runs of other sizes only shows its latest', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-history-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  record(dir, { startedAt: '2026-11-21T10:00:00Z', size: 'tiny', suites: [suite('files', 1, 1)] }, 'aaaaaaaaaaaa');
  record(dir, { startedAt: '2026-11-22T10:00:00Z', size: 'small', suites: [suite('files', 2, 1)] }, 'bbbbbbbbbbbb');
  const resultsFile = path.join(dir, 'out', 'RESULTS.md');
  writeResults(dir, resultsFile);
  const text = readFileSync(resultsFile, 'utf8');
  t.match(text, 'Latest run: [2026-11-22T10:00:00Z · commit bbbbbbbbbbbb · size small](../2026-11-22T10-00-00Z-bbbbbbbbbbbb.md)');
  t.match(text, '- [2026-11-21T10:00:00Z · commit aaaaaaaaaaaa · size tiny](../2026-11-21T10-00-00Z-aaaaaaaaaaaa.md): files');
});

t.test('a suite\'s latest size-large run gets a section of its own after its full-size one', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-history-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  record(dir, { startedAt: '2026-11-21T10:00:00Z', size: 'full', suites: [suite('datapoints', 1, 1)] }, 'aaaaaaaaaaaa');
  record(dir, { startedAt: '2026-11-22T10:00:00Z', size: 'large', suites: [suite('datapoints', 2, 1)] }, 'bbbbbbbbbbbb');
  record(dir, { startedAt: '2026-11-20T10:00:00Z', size: 'large', suites: [suite('datapoints', 3, 1)] }, 'cccccccccccc');
  const resultsFile = path.join(dir, 'RESULTS.md');
  writeResults(dir, resultsFile);
  const text = readFileSync(resultsFile, 'utf8');
  const fullAt = text.indexOf('## datapoints\n');
  const largeAt = text.indexOf('## datapoints, size large');
  t.ok(fullAt > 0 && largeAt > fullAt, 'the full-size section first, then the large one');
  t.match(text.slice(fullAt, largeAt), 'size full](2026-11-21T10-00-00Z-aaaaaaaaaaaa.md)');
  t.match(text.slice(largeAt), 'Latest run: [2026-11-22T10:00:00Z · commit bbbbbbbbbbbb · size large](2026-11-22T10-00-00Z-bbbbbbbbbbbb.md)');
  t.match(text.slice(largeAt), '| datapoints row | ms | 2.00 |');
  t.same(text.slice(text.indexOf('## Earlier runs')).split('\n').filter((l) => l.startsWith('- ')), ['- [2026-11-20T10:00:00Z · commit cccccccccccc · size large](2026-11-20T10-00-00Z-cccccccccccc.md): datapoints'], 'the older large run is listed');
});

t.test('a run file reads back as written', async (t) => {
  const run: RunResult = { startedAt: '2026-11-21T10:00:00Z', size: 'full', suites: [suite('graph', 1, 2), suite('events', 3, 4)] };
  const back = parseRunFile('x.md', runMarkdown(run, machine, 'abc123def456'));
  t.same([back?.startedAt, back?.commit, back?.size], ['2026-11-21T10:00:00Z', 'abc123def456', 'full']);
  t.same(back?.suites.map((s) => [s.suite, s.dataset, s.table.length]), [['graph', 'Dataset: graph data of 1.', 3], ['events', 'Dataset: events data of 3.', 3]]);
  t.equal(parseRunFile('y.md', '# Something else\n'), undefined, 'a file without a run heading is not a run');
  t.equal(runFileName('2026-11-21T10:00:00Z', 'abc123def456 (with uncommitted changes)'), '2026-11-21T10-00-00Z-abc123def456.md');
});
