// Scale-out suite: the deployment `make scaleout-up` starts (engine/testing/scaleout.ts: two
// ROLE=api instances and one ROLE=ingester over librdkafka's mock broker, Debian's
// PostgreSQL and the ClickHouse HTTP fixture over chdb), loaded and read through one api
// instance and through both. Two cores carry all six processes, so no linear scaling is
// expected: the rows show what the split costs (Kafka between the acknowledgement and the
// store, an HTTP hop to ClickHouse, limits counted in PostgreSQL) and whether a second api
// instance adds or takes away.
//
// Ingest: the workload's series in 1,000-point requests (gateway-sized), the first half of
// the series through api-1 alone, the second half alternating over both instances with the
// same number of senders in all; points/s, acknowledgement p50/p99, CPU of every process of
// the deployment per million points from the first request until the points are readable, and
// how long after the last acknowledgement every series' last point is readable through the
// other instance (CONTRACT: "within a second or two"). Reads: V1-V5 (varied.ts) through api-1
// alone, then alternating over both, every answer checked against the generator.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { mintToken } from '../api/auth.ts';
import { startScaleout, stopScaleout, type ScaleoutState } from '../engine/testing/scaleout.ts';
import { HttpClient, parseJson } from './http-client.ts';
import { runIngest, type IngestFigures, type IngestRequest } from './load.ts';
import { PlantdataTarget, waitForBackgroundWork } from './plantdata-target.ts';
import { processTree, readProcStat } from './proc-stats.ts';
import type { Metric, SuiteResult } from './results.ts';
import { BENCH_SERVICE_CONFIG } from './service.ts';
import { timeVaried, VARIED_NAMES, VariedPicker, type VariedName, type VariedSize, type VariedSummary } from './varied.ts';
import { Workload, type DatapointSize } from './workload.ts';

export interface ScaleoutSize {
  data: DatapointSize;
  varied: VariedSize;
}

const HOUR = 3_600_000;
export const SCALEOUT_SIZES: Record<'full' | 'small' | 'tiny', ScaleoutSize> = {
  full: {
    data: { seriesCount: 40, pointsPerSeries: 50_000, requestPoints: 1_000, senderCount: 16, warmupCount: 0, runCount: 0 },
    varied: { v1WindowMs: 6 * HOUR, v2SeriesCount: 10, v2WindowMs: 12 * HOUR, v3Points: 10_000, v4SeriesCount: 40, warmupCount: 10, pickCount: 30 },
  },
  small: {
    data: { seriesCount: 20, pointsPerSeries: 20_000, requestPoints: 1_000, senderCount: 8, warmupCount: 0, runCount: 0 },
    varied: { v1WindowMs: 3 * HOUR, v2SeriesCount: 10, v2WindowMs: 3 * HOUR, v3Points: 10_000, v4SeriesCount: 20, warmupCount: 5, pickCount: 15 },
  },
  tiny: {
    data: { seriesCount: 4, pointsPerSeries: 4_000, requestPoints: 1_000, senderCount: 2, warmupCount: 0, runCount: 0 },
    varied: { v1WindowMs: HOUR, v2SeriesCount: 2, v2WindowMs: HOUR, v3Points: 1_000, v4SeriesCount: 4, warmupCount: 1, pickCount: 3 },
  },
};

/** How long the points of a phase may take to become readable before the suite gives up on them. */
const VISIBLE_WAIT_MS_MAX = 300_000;
/**
 * Polls for readable points every POLL_MS for the first POLL_FINE_MS, then every POLL_SLOW_MS:
 * at 20 ms all along, a wait of 84 s made 4,200 latest reads of 20 series, whose statements
 * took CPU from the very inserts being waited for.
 */
const POLL_MS = 20;
const POLL_FINE_MS = 2_000;
const POLL_SLOW_MS = 500;
const SEED = 7;

interface Phase {
  label: string;
  ingest: IngestFigures;
  /** From the last acknowledgement until every series' last point is readable through the other instance. */
  visibleMs: number;
  /** CPU of every process of the deployment per million points, from the first request until readable. */
  cpuPerMillion: number;
  /** Each process's share of that CPU. */
  cpuSplit: string;
}

export async function runScaleoutSuite(opts: { size: ScaleoutSize; log: (line: string) => void; logDir?: string }): Promise<SuiteResult> {
  const { size, log } = opts;
  const stateDir = mkdtempSync(path.join(tmpdir(), 'bench-scaleout-'));
  const workload = new Workload(size.data);
  const problems: string[] = [];
  let state: ScaleoutState | undefined;
  try {
    const started = performance.now();
    state = await startScaleout({ stateDir, apiCount: 2, serviceConfig: BENCH_SERVICE_CONFIG, logLevel: 'warn' });
    const urls = state.processes.filter((p) => p.name.startsWith('api-')).map((p) => p.url as string);
    if (urls.length !== 2) throw new Error(`the deployment started ${urls.length} api instances, not 2`);
    log(`scaleout: deployment up in ${((performance.now() - started) / 1000).toFixed(1)} s (api ${urls.join(', ')}; state ${stateDir})`);
    const token = mintToken({ secret: state.secret, organization: `bench-scaleout-${Date.now()}`, sub: 'bench', expiresInSeconds: 24 * 3600 });
    const [one, both] = urls.map((url) => {
      const target = new PlantdataTarget({ logDir: stateDir, tenant: 'unused' });
      target.attach(url, token);
      return target;
    }) as [PlantdataTarget, PlantdataTarget];
    try {
      await one.prepare(workload);
      const middle = Math.floor(size.data.seriesCount / 2);
      const phases = [
        await ingestPhase(state, urls, token, workload, (s) => s < middle, 1, log),
        await ingestPhase(state, urls, token, workload, (s) => s >= middle, 2, log),
      ];
      // As the data point suite waits for its service: the reads measure the steady state, after
      // the ingester's rollup fold has caught up (right after the load, an aggregate read in an
      // api instance can find points readable raw whose hours carry no dirty mark yet).
      const ingester = state.processes.find((p) => p.name === 'ingester');
      if (ingester?.url) {
        const http = new HttpClient(ingester.url);
        const work = await waitForBackgroundWork(http, VISIBLE_WAIT_MS_MAX).finally(() => http.close());
        log(`scaleout: the ingester's fold ${work.quiet ? 'quiet' : 'still busy'} after ${work.seconds} s`);
      }
      const reads = await readRows(workload, size.varied, one, both, log);
      for (const [name, pair] of Object.entries(reads)) {
        for (const [through, summary] of Object.entries(pair)) if (summary.problem) problems.push(`${name} through ${through}: ${summary.problem}`);
      }
      return suiteResult(size, workload, phases, reads, problems);
    } finally {
      await one.stop();
      await both.stop();
    }
  } finally {
    if (state && opts.logDir) {
      // The deployment's folder goes; its processes' logs stay with the bench's others.
      mkdirSync(opts.logDir, { recursive: true });
      for (const p of state.processes) if (existsSync(p.logFile)) copyFileSync(p.logFile, path.join(opts.logDir, `scaleout-${p.name}.log`));
    }
    if (state) {
      const stopped = await stopScaleout(stateDir).catch((error: unknown) => {
        log(`scaleout: stopping the deployment failed: ${(error as Error).message}`);
        return [];
      });
      log(`scaleout: stopped ${stopped.length} processes`);
    }
    rmSync(stateDir, { recursive: true, force: true });
  }
}

/** CPU seconds of each recorded process of the deployment with its children (PostgreSQL's backends), by name. */
function deploymentCpuSeconds(state: ScaleoutState): Map<string, number> {
  return new Map(state.processes.map((p) => [p.name, processTree(p.pid).reduce((sum, pid) => sum + (readProcStat(pid)?.cpuSeconds ?? 0), 0)]));
}

const total = (cpu: Map<string, number>) => [...cpu.values()].reduce((a, b) => a + b, 0);

/** Where the CPU of a phase went: each process's share of it. */
function cpuSplit(before: Map<string, number>, after: Map<string, number>): string {
  const spent = [...after].map(([name, s]) => [name, s - (before.get(name) ?? 0)] as const).sort((a, b) => b[1] - a[1]);
  const all = spent.reduce((sum, [, s]) => sum + s, 0);
  return spent.map(([name, s]) => `${name} ${s.toFixed(1)} s (${Math.round((100 * s) / all)}%)`).join(', ');
}

/** The series `pick` takes, sent in 1,000-point requests through `instances` api instances (round-robin by request). */
async function ingestPhase(state: ScaleoutState, urls: string[], token: string, workload: Workload, pick: (series: number) => boolean, instances: 1 | 2, log: (line: string) => void): Promise<Phase> {
  const target = new PlantdataTarget({ logDir: state.stateDir, tenant: 'unused' });
  const requests: IngestRequest[] = workload.requests().filter(([s]) => pick(s)).map(([s, from, count]) => ({ body: target.ingestBody(workload, s, from, count), pointCount: count }));
  const apis = state.processes.filter((p) => p.name.startsWith('api-'));
  const shares = Array.from({ length: instances }, (_, i) => requests.filter((_, k) => k % instances === i));
  const senders = Math.max(1, Math.floor(workload.size.senderCount / instances));
  const cpuBefore = deploymentCpuSeconds(state);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const figures = await Promise.all(shares.map((share, i) => runIngest({
    url: urls[i] as string, path: '/timeseries/data', headers, expectStatus: 204, requests: share, senderCount: senders,
    rootPid: (apis[i] as { pid: number }).pid, mainPid: (apis[i] as { pid: number }).pid,
  })));
  const lastAck = performance.now();
  const series = Array.from({ length: workload.size.seriesCount }, (_, s) => s).filter(pick);
  const visibleMs = await untilReadable(urls[instances === 1 ? 1 : 0] as string, token, workload, series, lastAck);
  const cpuAfter = deploymentCpuSeconds(state);
  const cpuSeconds = total(cpuAfter) - total(cpuBefore);
  const ingest = combine(figures);
  const label = instances === 1 ? 'one api instance' : 'two api instances';
  const split = cpuSplit(cpuBefore, cpuAfter);
  log(`scaleout: ${label}: ${Math.round(ingest.pointsPerSecond)} points/s, ack p50 ${ingest.ackP50Ms.toFixed(1)} ms p99 ${ingest.ackP99Ms.toFixed(1)} ms, readable ${visibleMs.toFixed(0)} ms after the last ack, ${(cpuSeconds / (ingest.pointCount / 1e6)).toFixed(2)} CPU-s per M points (${split})`);
  return { label, ingest, visibleMs, cpuPerMillion: cpuSeconds / (ingest.pointCount / 1e6), cpuSplit: split };
}

/** The figures of senders that ran side by side: points over the longest elapsed time, the worse latency of each. */
function combine(figures: IngestFigures[]): IngestFigures {
  const first = figures[0] as IngestFigures;
  const pointCount = figures.reduce((sum, f) => sum + f.pointCount, 0);
  const elapsedSeconds = Math.max(...figures.map((f) => f.elapsedSeconds));
  return {
    ...first, pointCount, elapsedSeconds, pointsPerSecond: pointCount / elapsedSeconds,
    ackP50Ms: Math.max(...figures.map((f) => f.ackP50Ms)), ackP99Ms: Math.max(...figures.map((f) => f.ackP99Ms)),
  };
}

/** Polls the latest point of every series through `url` until each is the series' last; ms after `since`. */
async function untilReadable(url: string, token: string, workload: Workload, series: number[], since: number): Promise<number> {
  const http = new HttpClient(url, { headers: { authorization: `Bearer ${token}` } });
  const lastTs = workload.timestamp(workload.size.pointsPerSeries - 1);
  try {
    for (;;) {
      const answer = await http.postJson('/timeseries/data/latest', { items: series.map((s) => ({ externalId: workload.externalId(s) })) });
      const items = parseJson<{ items: { datapoints: { timestamp: number }[] }[] }>(answer).items;
      if (items.every((item) => item.datapoints[0]?.timestamp === lastTs)) return performance.now() - since;
      if (performance.now() - since > VISIBLE_WAIT_MS_MAX) throw new Error(`the points were not all readable through ${url} ${VISIBLE_WAIT_MS_MAX / 1000} s after the last acknowledgement`);
      await new Promise((resolve) => setTimeout(resolve, performance.now() - since < POLL_FINE_MS ? POLL_MS : POLL_SLOW_MS));
    }
  } finally {
    http.close();
  }
}

type ReadRows = Record<VariedName, { one: VariedSummary; both: VariedSummary }>;

/** V1-V5 through api-1 alone, then alternating over both (new picks for each, from one seed). */
async function readRows(workload: Workload, size: VariedSize, one: PlantdataTarget, other: PlantdataTarget, log: (line: string) => void): Promise<ReadRows> {
  const picker = new VariedPicker(workload, size, SEED);
  const rows = {} as ReadRows;
  for (const name of VARIED_NAMES) {
    const alone = await timeVaried((pick) => one.variedQuery(pick), picker, name, size);
    let turn = 0;
    const spread = await timeVaried((pick) => (turn++ % 2 === 0 ? one : other).variedQuery(pick), picker, name, size);
    rows[name] = { one: alone, both: spread };
    log(`scaleout: ${name} median ${alone.medianMs.toFixed(2)} ms through one, ${spread.medianMs.toFixed(2)} ms through both`);
  }
  return rows;
}

function suiteResult(size: ScaleoutSize, workload: Workload, phases: Phase[], reads: ReadRows, problems: string[]): SuiteResult {
  const checked = problems.length === 0;
  const [single, double] = phases as [Phase, Phase];
  const count = (n: number) => n.toLocaleString('en-US');
  const metrics: Metric[] = [];
  const pair = (key: string, label: string, unit: string, better: Metric['better'], one: number, two: number, notes: [string, string]) => {
    metrics.push({ suite: 'scaleout', key: `${key}-one`, label: `${label}, through one api instance`, unit, better, figures: { plantdata: { value: one, checked, runCount: 1, note: notes[0] } } });
    metrics.push({ suite: 'scaleout', key: `${key}-two`, label: `${label}, through two api instances`, unit, better, figures: { plantdata: { value: two, checked, runCount: 1, note: notes[1] } } });
  };
  const ingestNote = (p: Phase) => `${count(p.ingest.pointCount)} points, ack p50 ${p.ingest.ackP50Ms.toFixed(1)} ms, p99 ${p.ingest.ackP99Ms.toFixed(1)} ms`;
  pair('ingest', 'ingest, 1,000-point requests', 'points/s', 'higher', single.ingest.pointsPerSecond, double.ingest.pointsPerSecond, [ingestNote(single), ingestNote(double)]);
  pair('ingest-cpu', 'CPU of the whole deployment per million points ingested, until readable', 'CPU-s', 'lower', single.cpuPerMillion, double.cpuPerMillion, [single.cpuSplit, double.cpuSplit]);
  pair('readable', 'last acknowledgement to every point readable through the other instance', 'ms', 'lower', single.visibleMs, double.visibleMs, [`polled every ${POLL_MS} ms for ${POLL_FINE_MS / 1000} s, then every ${POLL_SLOW_MS} ms`, `polled every ${POLL_MS} ms for ${POLL_FINE_MS / 1000} s, then every ${POLL_SLOW_MS} ms`]);
  for (const name of VARIED_NAMES) {
    const { one, both } = reads[name];
    metrics.push({ suite: 'scaleout', key: `${name}-one`, label: `${name.toUpperCase()} through one api instance`, unit: 'ms', better: 'lower', figures: { plantdata: { value: one.medianMs, p99: one.p99Ms, checked: !one.problem, runCount: one.runCount } } });
    metrics.push({ suite: 'scaleout', key: `${name}-two`, label: `${name.toUpperCase()} alternating over two api instances`, unit: 'ms', better: 'lower', figures: { plantdata: { value: both.medianMs, p99: both.p99Ms, checked: !both.problem, runCount: both.runCount } } });
  }
  return {
    suite: 'scaleout',
    dataset: `${count(workload.size.seriesCount)} series x ${count(workload.size.pointsPerSeries)} points at 1 s in 1,000-point requests from ${workload.size.senderCount} senders, half the series through one api instance, half alternating over two; V1-V5: ${size.varied.pickCount} picks after ${size.varied.warmupCount} warm-up each way; two ROLE=api, one ROLE=ingester, librdkafka's mock broker, PostgreSQL, the ClickHouse HTTP fixture over chdb, all on this machine`,
    metrics,
    notes: problems.map((p) => `scaleout answer WRONG: ${p}`),
  };
}
