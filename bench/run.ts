// `make bench`: runs the macro suites against our service (a child process, as a user starts
// it) and the peers on the same data, prints the table, records the run as a file under
// bench/history/, regenerates bench/RESULTS.md from those files and writes bench/out/report.html.
//
//   npx tsx bench/run.ts [--suite metadata,datapoints,graph,events,files,subscriptions,cdf,console,functions,scaleout] [--size full|small|tiny]
//                        [--peers victoria-metrics,influxdb|none] [--no-install]
//                        [--results FILE|none] [--history DIR] [--html FILE]
// The same options as env: BENCH_SUITE, BENCH_SIZE, BENCH_PEERS, BENCH_NO_INSTALL=1,
// BENCH_RESULTS, BENCH_HISTORY, BENCH_HTML; BENCH_SEED replays the varied query picks of a run.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { datapointSuiteResult, runDatapointSystem, type SystemRun } from './datapoints.ts';
import type { DatapointSystem, SystemProcess } from './datapoint-system.ts';
import { METADATA_SIZES, metadataTenant, runMetadataSuite } from './metadata.ts';
import { GRAPH_SIZES, runGraphSuite } from './graph.ts';
import { runEventsSuite } from './events.ts';
import { EVENTS_SIZES } from './events-workload.ts';
import { FILES_SIZES, filesServiceConfig, runFilesSuite } from './files.ts';
import { CDF_SIZES, runCdfSuite } from './cdf.ts';
import { CONSOLE_SIZES, runConsoleSuite } from './console.ts';
import { FUNCTIONS_SIZES, runFunctionsSuite } from './functions.ts';
import { runScaleoutSuite, SCALEOUT_SIZES } from './scaleout.ts';
import { SUBSCRIPTIONS_SIZES, runSubscriptionsSuite } from './subscriptions.ts';
import { InfluxdbPeer } from './peers/influxdb.ts';
import { ensurePeerInstalled, hasCommand } from './peers/install.ts';
import { VictoriaMetricsPeer } from './peers/victoria-metrics.ts';
import { PlantdataTarget } from './plantdata-target.ts';
import { describeMachine, writeReport } from './report.ts';
import { formatTextTable, tableRows, type RunResult, type SuiteResult, type SystemName } from './results.ts';
import { startService } from './service.ts';
import { cpuUntilIdle, treeCpuSeconds } from './proc-stats.ts';
import { ARROW_SIZES, runArrowRows, type ArrowRun } from './arrow-rows.ts';
import { LOAD_SIZES, LoadPlan, runLoadSystem, type LoadRun } from './gateway.ts';
import { OneTenantPlan, oneTenantRows, oneTenantServiceConfig, runOneTenantSystem, type OneTenantRun } from './one-tenant.ts';
import { SPEC_DEFAULT_SERVICE_CONFIG } from './service.ts';
import { VARIED_SIZES } from './varied.ts';
import { DATAPOINT_SIZES, Workload } from './workload.ts';

const REPO_ROOT = path.resolve(import.meta.dirname, '..');
const SUITES = ['metadata', 'datapoints', 'graph', 'events', 'files', 'subscriptions', 'cdf', 'console', 'functions', 'scaleout'] as const;
const SIZES = ['full', 'small', 'tiny', 'large'] as const;
/** The size of a suite other than the data point suite (`large` runs that suite alone: parseBenchOptions). */
type SuiteSize = 'full' | 'small' | 'tiny';
const PEER_NAMES = ['victoria-metrics', 'influxdb'] as const;
/** Seconds to wait for background merges to settle (before any forced merge), per size. */
const SETTLE_SECONDS_MAX: Record<BenchOptions['size'], number> = { full: 60, small: 30, tiny: 0, large: 120 };

type Suite = (typeof SUITES)[number];
type PeerName = (typeof PEER_NAMES)[number];

export interface BenchOptions {
  suites: Suite[];
  size: (typeof SIZES)[number];
  peers: PeerName[];
  install: boolean;
  /** RESULTS.md to regenerate from the run files; undefined records nothing. */
  resultsFile?: string;
  /** Where each run's file goes (history.ts); by default history/ beside RESULTS.md. */
  historyDir?: string;
  htmlFile: string;
  logDir: string;
  log: (line: string) => void;
}

function suiteSize(size: BenchOptions['size']): SuiteSize {
  return size === 'large' ? 'full' : size;
}

export function parseBenchOptions(argv: string[], env: NodeJS.ProcessEnv): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      suite: { type: 'string' }, size: { type: 'string' }, peers: { type: 'string' },
      'no-install': { type: 'boolean' }, results: { type: 'string' }, history: { type: 'string' }, html: { type: 'string' },
    },
    strict: true,
  });
  const list = (raw: string | undefined, allowed: readonly string[], fallback: readonly string[], what: string) => {
    if (raw === undefined || raw === '') return [...fallback];
    if (raw === 'none') return [];
    const items = raw.split(',').map((s) => s.trim()).filter(Boolean);
    const bad = items.filter((i) => !allowed.includes(i));
    if (bad.length > 0) throw new Error(`unknown ${what}: ${bad.join(', ')} (one or more of ${allowed.join(', ')})`);
    return items;
  };
  const size = values.size ?? env['BENCH_SIZE'] ?? 'full';
  if (!(SIZES as readonly string[]).includes(size)) throw new Error(`unknown size ${size} (one of ${SIZES.join(', ')})`);
  const results = values.results ?? env['BENCH_RESULTS'] ?? path.join(REPO_ROOT, 'bench', 'RESULTS.md');
  // Size large is the data point suite's alone: the run's file is labelled by its one size.
  const suites = list(values.suite ?? env['BENCH_SUITE'], SUITES, size === 'large' ? ['datapoints'] : SUITES, 'suite') as Suite[];
  if (size === 'large' && suites.some((s) => s !== 'datapoints')) throw new Error(`size large is the datapoints suite's only (got --suite ${suites.join(',')})`);
  return {
    suites,
    size: size as BenchOptions['size'],
    peers: list(values.peers ?? env['BENCH_PEERS'], PEER_NAMES, PEER_NAMES, 'peer') as PeerName[],
    install: !(values['no-install'] ?? env['BENCH_NO_INSTALL'] === '1'),
    resultsFile: results === 'none' ? undefined : path.resolve(results),
    historyDir: results === 'none' ? undefined : path.resolve(values.history ?? env['BENCH_HISTORY'] ?? path.join(path.dirname(path.resolve(results)), 'history')),
    htmlFile: path.resolve(values.html ?? env['BENCH_HTML'] ?? path.join(REPO_ROOT, 'bench', 'out', 'report.html')),
    logDir: path.join(REPO_ROOT, 'bench', 'out', 'logs'),
    log: (line) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`),
  };
}

export async function runBench(opts: BenchOptions): Promise<{ result: RunResult; table: string; section: string }> {
  const machine = describeMachine();
  const result: RunResult = { startedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), size: opts.size, suites: [] };
  if (opts.suites.includes('metadata')) result.suites.push(await benchMetadata(opts));
  if (opts.suites.includes('datapoints')) result.suites.push(await benchDatapoints(opts));
  if (opts.suites.includes('graph')) result.suites.push(await benchGraph(opts));
  if (opts.suites.includes('events')) result.suites.push(await benchEvents(opts));
  if (opts.suites.includes('files')) result.suites.push(await benchFiles(opts));
  if (opts.suites.includes('subscriptions')) result.suites.push(await runSubscriptionsSuite({ size: SUBSCRIPTIONS_SIZES[suiteSize(opts.size)], log: opts.log }));
  if (opts.suites.includes('cdf')) result.suites.push(await benchCdf(opts));
  if (opts.suites.includes('console')) result.suites.push(await benchConsole(opts));
  if (opts.suites.includes('functions')) result.suites.push(await benchFunctions(opts));
  // The scale-out deployment starts its own processes (engine/testing/scaleout.ts).
  if (opts.suites.includes('scaleout')) result.suites.push(await runScaleoutSuite({ size: SCALEOUT_SIZES[suiteSize(opts.size)], log: opts.log, logDir: opts.logDir }));
  const table = formatTextTable(tableRows(result.suites));
  const { section } = writeReport(result, { resultsFile: opts.resultsFile, historyDir: opts.historyDir, htmlFile: opts.htmlFile, repoRoot: REPO_ROOT, machine });
  return { result, table, section };
}

async function benchMetadata(opts: BenchOptions): Promise<SuiteResult> {
  const service = await startService({ logDir: opts.logDir });
  opts.log(`metadata: service at ${service.url}, DATA_DIR ${service.dataDir}`);
  try {
    return await runMetadataSuite({ url: service.url, token: service.token(metadataTenant()), size: METADATA_SIZES[suiteSize(opts.size)], log: opts.log });
  } finally {
    await service.stop();
  }
}

/**
 * Waits until the service's process tree is idle after a bulk load (PostgreSQL's ANALYZE and GIN
 * pending-list cleaning), bounded per size (none at tiny); says how it ended, for the notes.
 */
function settleAfterLoad(rootPid: number, size: BenchOptions['size']): (() => Promise<string>) | undefined {
  const settleSeconds = SETTLE_SECONDS_MAX[size];
  if (settleSeconds === 0) return undefined;
  return async () => {
    const after = await cpuUntilIdle(rootPid, treeCpuSeconds(rootPid), { boundSeconds: settleSeconds });
    return after.idle ? `the service settled (${after.busySeconds.toFixed(0)} s of post-load work)` : `${settleSeconds} s, the service still busy`;
  };
}

async function benchGraph(opts: BenchOptions): Promise<SuiteResult> {
  const service = await startService({ logDir: opts.logDir });
  opts.log(`graph: service at ${service.url}, DATA_DIR ${service.dataDir}`);
  try {
    const settle = settleAfterLoad(service.rootPid, opts.size);
    return await runGraphSuite({ url: service.url, token: service.token(`bench-graph-${Date.now()}`), size: GRAPH_SIZES[suiteSize(opts.size)], log: opts.log, ...(settle ? { settle } : {}) });
  } finally {
    await service.stop();
  }
}

/**
 * the event log. The bench's SERVICE_CONFIG (service.ts) already raises the daily
 * `events` quota (1e9) and `ingestedBytes` (1e12) far above the load (1,000,000 events, about
 * 1.1 GB of request bodies, past SPEC's 100,000 events and 1 GiB a day).
 */
async function benchEvents(opts: BenchOptions): Promise<SuiteResult> {
  const service = await startService({ logDir: opts.logDir });
  opts.log(`events: service at ${service.url}, DATA_DIR ${service.dataDir}`);
  const tenant = `bench-events-${Date.now()}`;
  const seed = Number(process.env['BENCH_SEED'] ?? Date.now() % 2 ** 31);
  const settle = settleAfterLoad(service.rootPid, opts.size);
  try {
    return await runEventsSuite({
      url: service.url, token: service.token(tenant), dataDir: service.dataDir, mainPid: service.mainPid, tenant, size: EVENTS_SIZES[suiteSize(opts.size)], seed, log: opts.log,
      ...(settle ? { settle } : {}),
    });
  } finally {
    await service.stop();
  }
}

/** Files: the bench tenant has files on and a daily ingestedBytes quota far above the load. */
async function benchFiles(opts: BenchOptions): Promise<SuiteResult> {
  const tenant = `bench-files-${Date.now()}`;
  const service = await startService({ logDir: opts.logDir, serviceConfig: filesServiceConfig(tenant) });
  opts.log(`files: service at ${service.url}, DATA_DIR ${service.dataDir}`);
  try {
    return await runFilesSuite({ url: service.url, token: service.token(tenant), mainPid: service.mainPid, size: FILES_SIZES[suiteSize(opts.size)], log: opts.log });
  } finally {
    await service.stop();
  }
}

/** The CDF surface against SPEC's on the same data: a service of its own, the bench's raised limits. */
async function benchCdf(opts: BenchOptions): Promise<SuiteResult> {
  const service = await startService({ logDir: opts.logDir });
  opts.log(`cdf: service at ${service.url}, DATA_DIR ${service.dataDir}`);
  const tenant = `bench-cdf-${Date.now()}`;
  try {
    return await runCdfSuite({ url: service.url, token: service.token(tenant), tenant, size: CDF_SIZES[suiteSize(opts.size)], log: opts.log });
  } finally {
    await service.stop();
  }
}

/** Functions: a call against the raw reads it stands on, and a kept target under ingest; a service of its own, the bench's raised limits. */
async function benchFunctions(opts: BenchOptions): Promise<SuiteResult> {
  const service = await startService({ logDir: opts.logDir });
  opts.log(`functions: service at ${service.url}, DATA_DIR ${service.dataDir}`);
  try {
    return await runFunctionsSuite({ url: service.url, token: service.token(`bench-functions-${Date.now()}`), size: FUNCTIONS_SIZES[suiteSize(opts.size)], log: opts.log });
  } finally {
    await service.stop();
  }
}

/** The web console's chart in a browser: a service of its own, the bench's raised limits. */
async function benchConsole(opts: BenchOptions): Promise<SuiteResult> {
  const service = await startService({ logDir: opts.logDir });
  opts.log(`console: service at ${service.url}, DATA_DIR ${service.dataDir}`);
  try {
    return await runConsoleSuite({ url: service.url, token: service.token(`bench-console-${Date.now()}`), size: CONSOLE_SIZES[suiteSize(opts.size)], log: opts.log });
  } finally {
    await service.stop();
  }
}

async function benchDatapoints(opts: BenchOptions): Promise<SuiteResult> {
  const workload = new Workload(DATAPOINT_SIZES[opts.size]);
  opts.log(`datapoints: ${workload.describe()}`);
  const runs: SystemRun[] = [];
  const settleSecondsMax = SETTLE_SECONDS_MAX[opts.size];
  // The varied queries: picks seeded per run (BENCH_SEED replays one), the same on every system.
  const seed = Number(process.env['BENCH_SEED'] ?? Date.now() % 2 ** 31);
  const varied = { size: VARIED_SIZES[opts.size], seed };
  const runTag = `bench-${Date.now()}`;
  runs.push(await runDatapointSystem(new PlantdataTarget({ logDir: opts.logDir, tenant: `bench-dp-${Date.now()}` }), workload, { settleSecondsMax, log: opts.log, varied }));
  const skipped: string[] = [];
  for (const peer of opts.peers) {
    if (peer === 'influxdb' && opts.size === 'large') {
      skipped.push('influxdb: not run at size large (VictoriaMetrics is the reference there)');
      continue;
    }
    const [command, debianPackage] = peer === 'victoria-metrics' ? ['victoria-metrics', 'victoria-metrics'] : ['influxd', 'influxdb'];
    const installed = opts.install ? ensurePeerInstalled(command, debianPackage, opts.log) : hasCommand(command);
    if (!installed) {
      skipped.push(`${peer}: not installed (Debian ${debianPackage}), not measured`);
      continue;
    }
    let target: DatapointSystem;
    let alternateQueries: (() => void) | undefined;
    if (peer === 'victoria-metrics') {
      const vm = new VictoriaMetricsPeer({ logDir: opts.logDir });
      target = vm;
      alternateQueries = () => { vm.cache = false; };
    } else {
      target = new InfluxdbPeer({ logDir: opts.logDir });
    }
    runs.push(await runDatapointSystem(target, workload, { settleSecondsMax, log: opts.log, varied, ...(alternateQueries ? { alternateQueries } : {}) }));
  }
  // The load rows: a fresh system each, ours with SPEC's default rate limits and quotas. Then
  // one plant in one tenant with raised limits (one-tenant.ts), and on ours the Arrow rows in
  // that tenant after its one-tenant rows. At full size and above the one-tenant rows get a
  // fresh system of their own; at tiny they follow the load rows on theirs (a service's start
  // and stop cost ~15 s, and `make test` runs this size).
  const plan = new LoadPlan(LOAD_SIZES[opts.size], varied.size, runTag, seed, workload.startMs + 2 * 86_400_000);
  const one = new OneTenantPlan(plan);
  const arrowSize = ARROW_SIZES[opts.size];
  const oneTenantApart = opts.size !== 'tiny';
  opts.log(`datapoints load rows: ${plan.describe()}; then ${one.describe()}${oneTenantApart ? ', a fresh system each' : ', on the load rows\' systems after their rows'}`);
  const oneTenantRuns: OneTenantRun[] = [];
  let arrowRun: ArrowRun | undefined;
  // SPEC's defaults for every tenant of the load rows; at tiny the plant's raised limits beside
  // them; at large the base tenant's too (its 100M points are ten days of the default quota:
  // the load rows answered 429), the gateway tenants keeping the defaults.
  const baseTenant = `${runTag}-base`;
  const loadConfig = opts.size === 'large' ? oneTenantServiceConfig(baseTenant) : oneTenantApart ? SPEC_DEFAULT_SERVICE_CONFIG : oneTenantServiceConfig(one.tenant);
  const ours = new PlantdataTarget({ logDir: opts.logDir, tenant: baseTenant, serviceConfig: loadConfig });
  const oursOneTenant = async (target: PlantdataTarget, proc: SystemProcess) => {
    if (!oneTenantApart) oneTenantRuns.push(await oneTenantRows(target, proc, one, opts.log));
    arrowRun = await runArrowRows(target, proc, one.tenant, arrowSize, { nowMs: workload.startMs + 2 * 86_400_000, waitMsMax: plan.size.afterIngestSecondsMax * 1000 }, (line) => opts.log(`plantdata arrow: ${line}`));
  };
  const withVm = opts.peers.includes('victoria-metrics') && hasCommand('victoria-metrics');
  const loadRuns: LoadRun[] = [await runLoadSystem(ours, plan, { log: opts.log, ...(oneTenantApart ? {} : { more: (proc) => oursOneTenant(ours, proc) }) })];
  if (oneTenantApart) {
    const oursApart = new PlantdataTarget({ logDir: opts.logDir, tenant: one.tenant, serviceConfig: oneTenantServiceConfig(one.tenant) });
    oneTenantRuns.push(await runOneTenantSystem(oursApart, one, { log: opts.log, more: (proc) => oursOneTenant(oursApart, proc) }));
  }
  if (withVm) {
    const vm = new VictoriaMetricsPeer({ logDir: opts.logDir });
    loadRuns.push(await runLoadSystem(vm, plan, { log: opts.log, ...(oneTenantApart ? {} : { more: async (proc) => { oneTenantRuns.push(await oneTenantRows(vm, proc, one, opts.log)); } }) }));
    if (oneTenantApart) oneTenantRuns.push(await runOneTenantSystem(new VictoriaMetricsPeer({ logDir: opts.logDir }), one, { log: opts.log }));
  }
  const suite = datapointSuiteResult(workload, runs, { variedSize: varied.size, seed, plan, loadRuns, oneTenant: { plan: one, runs: oneTenantRuns }, arrow: { size: arrowSize, run: arrowRun } });
  suite.notes.push(...skipped);
  return suite;
}

async function main(): Promise<void> {
  let opts: BenchOptions;
  try {
    opts = parseBenchOptions(process.argv.slice(2), process.env);
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n`);
    process.exit(2);
  }
  const { table, result } = await runBench(opts);
  process.stdout.write(`\n${table}\n\n`);
  for (const suite of result.suites) for (const note of suite.notes) process.stdout.write(`- ${note}\n`);
  process.stdout.write(`\nreport: ${opts.htmlFile}${opts.resultsFile ? `, the run recorded in ${path.relative(process.cwd(), opts.historyDir ?? '')}, ${path.relative(process.cwd(), opts.resultsFile)} regenerated` : ''}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`bench failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
