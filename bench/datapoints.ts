// Data point suite: the same workload sent to our service and to each peer in turn
// (never at once: two cores), ingest figures from /proc, then Q1-Q4 timed as the median of
// runs after warm-up, every answer checked against the workload's own computation.
import { runIngest, type IngestFigures, type IngestRequest } from './load.ts';
import { diskBytes } from './proc-stats.ts';
import type { DatapointSystem, SystemProcess, WriteItem } from './datapoint-system.ts';
import { UnexpectedAnswerError } from './http-client.ts';
import { checkAnswer, PEER_TOLERANCE, QUERY_LABELS, type QueryName } from './queries.ts';
import type { Figure, Metric, SuiteResult, SystemName, Target } from './results.ts';
import { summarize, type TimingSummary } from './stats.ts';
import { arrowMetrics, arrowNotes, type ArrowRun, type ArrowSize } from './arrow-rows.ts';
import { loadMetrics, type LoadPlan, type LoadRun } from './gateway.ts';
import { oneTenantMetrics, oneTenantNotes, type OneTenantPlan, type OneTenantRun } from './one-tenant.ts';
import { timeVaried, VARIED_NAMES, variedLabels, VariedPicker, type VariedName, type VariedSize, type VariedSummary } from './varied.ts';
import type { Workload } from './workload.ts';

/** Targets of Q1-Q4 (bench/README.md): query times as ratios to VictoriaMetrics on the same data. */
const QUERY_TARGETS: Record<QueryName, Target> = {
  q1: { op: '<=', value: 1.0, peer: 'victoria-metrics' },
  q2: { op: '<=', value: 0.5, peer: 'victoria-metrics' },
  q3: { op: '<=', value: 1.0, peer: 'victoria-metrics' },
  q4: { op: '<=', value: 0.2, peer: 'victoria-metrics' },
};

/**
 * Targets of the bulk rows (bench/README.md): ingest at least 1.1x VictoriaMetrics, peak RSS
 * at most 2x its, bytes per point on disk at most 1.0x its (they replaced absolute bounds of
 * >= 1.0x VM, <= 1536 MiB and <= 3 bytes/point once those were met).
 */
const BULK_TARGETS = {
  ingest: { op: '>=', value: 1.1, peer: 'victoria-metrics' },
  peakRss: { op: '<=', value: 2.0, peer: 'victoria-metrics' },
  disk: { op: '<=', value: 1.0, peer: 'victoria-metrics' },
} satisfies Record<string, Target>;

/** Targets of the varied queries (bench/README.md): medians and p90s as ratios to VictoriaMetrics. */
const VARIED_TARGETS: Record<VariedName, Target> = {
  v1: { op: '<=', value: 1.0, peer: 'victoria-metrics' },
  v2: { op: '<=', value: 1.0, peer: 'victoria-metrics' },
  v3: { op: '<=', value: 1.0, peer: 'victoria-metrics' },
  v4: { op: '<=', value: 1.0, peer: 'victoria-metrics' },
  v5: { op: '<=', value: 0.5, peer: 'victoria-metrics' },
};

export interface SystemRun {
  system: SystemName;
  ingest?: IngestFigures;
  queries: Partial<Record<QueryName, TimingSummary & { problem?: string; alternate?: TimingSummary }>>;
  /** The varied queries V1-V5, on systems that answer them. */
  varied: Partial<Record<VariedName, VariedSummary>>;
  diskBytes?: number;
  /** Right after the last acknowledgement (and flush), before any wait for merges. */
  diskBytesAfterIngest?: number;
  diskNote?: string;
  /** What afterIngest did, when it says. */
  afterIngestNote?: string;
  /** A load in turns (arrowHalf): each turn's own figures. */
  turns?: { label: string; figures: IngestFigures }[];
  /** The points whose acknowledgement ingest.markSeconds timed (the workload's markPointCount). */
  markPointCount?: number;
  error?: string;
  ingestNote: string;
}

export async function runDatapointSystem(target: DatapointSystem, workload: Workload, opts: { settleSecondsMax: number; log: (line: string) => void; alternateQueries?: () => void; varied?: { size: VariedSize; seed: number } }): Promise<SystemRun> {
  const { log } = opts;
  const run: SystemRun = { system: target.system, queries: {}, varied: {}, ingestNote: target.ingestNote, ...(workload.size.markPointCount ? { markPointCount: workload.size.markPointCount } : {}) };
  try {
    const proc = await target.start();
    log(`${target.system}: started at ${proc.url} (pid ${proc.mainPid})`);
    await target.prepare(workload);
    run.ingest = await datapointsIngest(target, proc, workload, run, log);
    log(`${target.system}: ${Math.round(run.ingest.pointsPerSecond)} points/s, ${run.ingest.cpuSecondsPerMillionPoints.toFixed(2)} CPU s per M points`);
    run.afterIngestNote = await target.afterIngest();
    if (run.afterIngestNote) log(`${target.system}: ${run.afterIngestNote}`);
    run.diskBytesAfterIngest = diskBytes(target.storageDir());
    const tolerance = target.system === 'plantdata' ? undefined : PEER_TOLERANCE;
    for (const name of Object.keys(QUERY_LABELS) as QueryName[]) {
      run.queries[name] = await datapointsTimeQuery(target, workload, name, tolerance);
      log(`${target.system}: ${name} median ${run.queries[name]?.medianMs.toFixed(2)} ms${run.queries[name]?.problem ? ` WRONG: ${run.queries[name]?.problem}` : ''}`);
    }
    if (opts.alternateQueries) {
      opts.alternateQueries();
      for (const name of Object.keys(QUERY_LABELS) as QueryName[]) {
        const alternate = await datapointsTimeQuery(target, workload, name, tolerance);
        const entry = run.queries[name];
        if (entry) entry.alternate = alternate;
      }
    }
    if (opts.varied && target.variedQuery) {
      // The same seed on every system: the same picks, each new within the run.
      const picker = new VariedPicker(workload, opts.varied.size, opts.varied.seed);
      const query = target.variedQuery.bind(target);
      for (const name of VARIED_NAMES) {
        const v = await timeVaried((pick) => query(pick), picker, name, { warmupCount: opts.varied.size.warmupCount, pickCount: opts.varied.size.pickCount, ...(tolerance ? { tolerance } : {}) });
        run.varied[name] = v;
        log(`${target.system}: ${name} median ${v.medianMs.toFixed(2)} ms, p90 ${v.p90Ms.toFixed(2)} ms${v.problem ? ` WRONG: ${v.problem}` : ''}`);
      }
    }
    const disk = await target.settleStorage({ settleSecondsMax: opts.settleSecondsMax });
    run.diskBytes = disk.bytes;
    run.diskNote = disk.note;
    log(`${target.system}: ${(disk.bytes / workload.pointCount).toFixed(2)} bytes/point (${disk.note})`);
  } catch (error) {
    run.error = (error as Error).message;
    log(`${target.system}: FAILED: ${run.error}`);
  } finally {
    await target.stop().catch((error: unknown) => log(`${target.system}: stop failed: ${(error as Error).message}`));
  }
  return run;
}

/**
 * The bulk load, timed: in one go, or (arrowHalf) in two turns built and sent one after the
 * other (a large load's bodies whole would not fit beside the systems), their figures summed.
 */
async function datapointsIngest(target: DatapointSystem, proc: SystemProcess, workload: Workload, run: SystemRun, log: (line: string) => void): Promise<IngestFigures> {
  const ingestTarget = target.ingestTarget();
  const bulk = (series: (s: number) => boolean): IngestRequest[] => workload.requests().filter(([s]) => series(s)).map(([s, from, count]) => ({ body: target.ingestBody(workload, s, from, count), pointCount: count }));
  const send = async (requests: IngestRequest[], markPointCount?: number) => {
    log(`${target.system}: ingesting ${requests.reduce((sum, r) => sum + r.pointCount, 0)} points in ${requests.length} requests`);
    return runIngest({ url: proc.url, ...ingestTarget, requests, senderCount: workload.size.senderCount, rootPid: proc.rootPid, mainPid: proc.mainPid, ...(markPointCount ? { markPointCount } : {}) });
  };
  const half = workload.size.arrowHalf;
  if (!half) return send(bulk(() => true), workload.size.markPointCount);
  const middle = Math.floor(workload.size.seriesCount / 2);
  const first = await send(bulk((s) => s < middle), workload.size.markPointCount);
  run.turns = [{ label: `first half (${middle} series) as ${target.ingestNote}`, figures: first }];
  const arrow = target.arrowIngestRequest?.bind(target);
  let second: IngestFigures | undefined;
  if (arrow) {
    const requests: IngestRequest[] = [];
    for (let group = middle; group < workload.size.seriesCount; group += half.seriesPerRequest) {
      for (let from = 0; from < workload.size.pointsPerSeries; from += half.pointsPerItem) {
        const items: WriteItem[] = [];
        for (let s = group; s < Math.min(group + half.seriesPerRequest, workload.size.seriesCount); s++) items.push({ externalId: workload.externalId(s), gen: s, first: from, count: Math.min(half.pointsPerItem, workload.size.pointsPerSeries - from) });
        requests.push(arrow(workload, items));
      }
    }
    try {
      second = await send(requests);
      run.turns.push({ label: `second half as Arrow, ${half.seriesPerRequest} series x ${half.pointsPerItem} points a request`, figures: second });
    } catch (error) {
      // A build without the Arrow route refuses every request alike (415): nothing was written.
      if (!(error instanceof UnexpectedAnswerError && error.answer.status === 415)) throw error;
      log(`${target.system}: Arrow not supported by this build (415); the second half as the first`);
    }
  }
  if (!second) {
    second = await send(bulk((s) => s >= middle));
    run.turns.push({ label: `second half as the first${arrow ? ' (Arrow not supported by this build: 415)' : ''}`, figures: second });
  }
  return sumIngestFigures(first, second);
}

/** Two turns' figures as one load: counts, times and CPU summed, peaks the larger, ack latency the first turn's. */
function sumIngestFigures(a: IngestFigures, b: IngestFigures): IngestFigures {
  const pointCount = a.pointCount + b.pointCount;
  const elapsedSeconds = a.elapsedSeconds + b.elapsedSeconds;
  const cpuSeconds = a.cpuSeconds + b.cpuSeconds;
  return {
    pointCount, elapsedSeconds, pointsPerSecond: pointCount / elapsedSeconds, cpuSeconds, cpuSecondsPerMillionPoints: cpuSeconds / (pointCount / 1e6),
    ackP50Ms: a.ackP50Ms, ackP99Ms: a.ackP99Ms,
    peakRssBytes: Math.max(a.peakRssBytes, b.peakRssBytes), treeRssPeakBytes: Math.max(a.treeRssPeakBytes, b.treeRssPeakBytes),
    treeRssAnonPeakBytes: Math.max(a.treeRssAnonPeakBytes, b.treeRssAnonPeakBytes), treeRssFilePeakBytes: Math.max(a.treeRssFilePeakBytes, b.treeRssFilePeakBytes),
    bodyBytes: a.bodyBytes + b.bodyBytes, treeCpuAtEndSeconds: b.treeCpuAtEndSeconds,
    ...(a.markSeconds !== undefined ? { markSeconds: a.markSeconds } : {}),
  };
}

async function datapointsTimeQuery(target: DatapointSystem, workload: Workload, name: QueryName, tolerance: number | undefined) {
  let problem: string | undefined;
  const samples: number[] = [];
  for (let i = 0; i < workload.size.warmupCount + workload.size.runCount; i++) {
    const { elapsedMs, answer } = await target.query(name, workload);
    problem ??= checkAnswer(workload, answer, tolerance);
    if (i >= workload.size.warmupCount) samples.push(elapsedMs);
  }
  return { ...summarize(samples), ...(problem ? { problem } : {}) };
}

/** The suite's table rows from each system's run. */
export function datapointMetrics(runs: SystemRun[], variedSize?: VariedSize): Metric[] {
  const metric = (key: string, label: string, unit: string, better: Metric['better'], target: Target | undefined, pick: (r: SystemRun) => Figure | undefined): Metric => {
    const figures: Metric['figures'] = {};
    for (const r of runs) {
      const figure = pick(r);
      if (figure) figures[r.system] = figure;
    }
    return { suite: 'datapoints', key, label, unit, better, ...(target ? { target } : {}), figures };
  };
  const ingest = (r: SystemRun) => r.ingest;
  return [
    metric('ingest-rate', 'ingest', 'points/s', 'higher', BULK_TARGETS.ingest, (r) => ingest(r) && { value: (ingest(r) as IngestFigures).pointsPerSecond }),
    metric('ingest-cpu', 'CPU per M points', 'CPU s', 'lower', undefined, (r) => ingest(r) && { value: (ingest(r) as IngestFigures).cpuSecondsPerMillionPoints }),
    metric('ingest-ack', 'ack latency p50', 'ms', 'lower', undefined, (r) => ingest(r) && { value: (ingest(r) as IngestFigures).ackP50Ms, p99: (ingest(r) as IngestFigures).ackP99Ms }),
    metric('peak-rss', 'peak RSS', 'MiB', 'lower', BULK_TARGETS.peakRss, (r) => ingest(r) && { value: (ingest(r) as IngestFigures).peakRssBytes / 2 ** 20, note: `process tree peak ${((ingest(r) as IngestFigures).treeRssPeakBytes / 2 ** 20).toFixed(0)} MiB` }),
    metric('peak-rss-anon', 'peak RSS of the process tree, anonymous (RssAnon)', 'MiB', 'lower', undefined, (r) => ingest(r) && { value: (ingest(r) as IngestFigures).treeRssAnonPeakBytes / 2 ** 20 }),
    metric('peak-rss-file', 'peak RSS of the process tree, file-backed (RssFile)', 'MiB', 'lower', undefined, (r) => ingest(r) && { value: (ingest(r) as IngestFigures).treeRssFilePeakBytes / 2 ** 20 }),
    ...turnMetrics(runs, metric),
    metric('disk', 'on disk', 'bytes/point', 'lower', BULK_TARGETS.disk, (r) => (r.diskBytes !== undefined && r.ingest ? { value: r.diskBytes / r.ingest.pointCount, ...(r.diskBytesAfterIngest !== undefined ? { note: `${(r.diskBytesAfterIngest / r.ingest.pointCount).toFixed(2)} bytes/point right after ingest` } : {}) } : undefined)),
    ...(Object.keys(QUERY_LABELS) as QueryName[]).map((name) => metric(name, QUERY_LABELS[name], 'ms', 'lower', QUERY_TARGETS[name], (r) => {
      const q = r.queries[name];
      if (!q) return undefined;
      const note = q.problem ?? (q.alternate ? `without result cache: median ${q.alternate.medianMs.toFixed(2)} ms, p99 ${q.alternate.p99Ms.toFixed(2)} ms` : undefined);
      return { value: q.medianMs, p99: q.p99Ms, runCount: q.runCount, checked: !q.problem, ...(note ? { note } : {}) };
    })),
    ...(variedSize ? VARIED_NAMES.flatMap((name) => {
      const label = variedLabels(variedSize)[name];
      return [
        metric(name, label, 'ms', 'lower', VARIED_TARGETS[name], (r) => {
          const v = r.varied[name];
          return v && { value: v.medianMs, p99: v.p99Ms, runCount: v.runCount, checked: !v.problem, ...(v.problem ? { note: v.problem } : {}) };
        }),
        metric(`${name}-p90`, `${label.slice(0, 2)} p90`, 'ms', 'lower', VARIED_TARGETS[name], (r) => {
          const v = r.varied[name];
          const warmup = v?.warmup && `its ${v.warmup.count} warm-up picks before (the first after the load): median ${v.warmup.medianMs.toFixed(2)} ms, p90 ${v.warmup.p90Ms.toFixed(2)} ms`;
          return v && { value: v.p90Ms, runCount: v.runCount, checked: !v.problem, ...(warmup ? { note: warmup } : {}) };
        }),
      ];
    }) : []),
  ];
}

type MetricOf = (key: string, label: string, unit: string, better: Metric['better'], target: Target | undefined, pick: (r: SystemRun) => Figure | undefined) => Metric;

/** A load in turns or with a mark (size large): each turn's rate, and the first stretch's rate against the whole. */
function turnMetrics(runs: SystemRun[], metric: MetricOf): Metric[] {
  const out: Metric[] = [];
  const marked = runs.find((r) => r.ingest?.markSeconds !== undefined);
  if (marked) {
    const markRate = (r: SystemRun) => (r.ingest?.markSeconds !== undefined && r.markPointCount ? r.markPointCount / r.ingest.markSeconds : undefined);
    out.push(
      metric('ingest-rate-first', `ingest, the first ${marked.markPointCount ?? 0} points`, 'points/s', 'higher', undefined, (r) => { const v = markRate(r); return v === undefined ? undefined : { value: v }; }),
      metric('ingest-rate-vs-first', 'ingest rate over the whole load / over its first stretch', 'x', 'higher', undefined, (r) => { const v = markRate(r); return v === undefined || !r.ingest ? undefined : { value: r.ingest.pointsPerSecond / v }; }),
    );
  }
  const turnCount = Math.max(0, ...runs.map((r) => r.turns?.length ?? 0));
  for (let k = 0; k < turnCount; k++) {
    out.push(metric(`ingest-rate-turn-${k + 1}`, `ingest, turn ${k + 1} of ${turnCount}`, 'points/s', 'higher', undefined, (r) => {
      const turn = r.turns?.[k];
      return turn && { value: turn.figures.pointsPerSecond, note: `${turn.label}: ${turn.figures.pointCount} points, ${turn.figures.cpuSecondsPerMillionPoints.toFixed(2)} CPU s per M points, ack p50 ${turn.figures.ackP50Ms.toFixed(1)} ms, p99 ${turn.figures.ackP99Ms.toFixed(1)} ms` };
    }));
  }
  return out;
}

/** The varied queries and the load rows of a run, beside the bulk rows and Q1-Q4. */
export interface VariedAndLoadRows {
  variedSize: VariedSize;
  seed: number;
  plan: LoadPlan;
  loadRuns: LoadRun[];
  /** The one-tenant rows (one-tenant.ts), ours and VictoriaMetrics. */
  oneTenant?: { plan: OneTenantPlan; runs: OneTenantRun[] };
  /** The Arrow rows (arrow-rows.ts), ours only; undefined run: they did not run. */
  arrow?: { size: ArrowSize; run: ArrowRun | undefined };
}

export function datapointSuiteResult(workload: Workload, runs: SystemRun[], variedAndLoad?: VariedAndLoadRows): SuiteResult {
  const notes: string[] = [
    'CPU: utime+stime from /proc of the system\'s whole process tree during ingest (for ours: node with its worker threads and embedded PostgreSQL); peak RSS: VmHWM of its main process since start',
    'ack latency: per request, from the first byte sent to the whole answer read; queries: the same, client-side JSON parsing and answer checks excluded',
  ];
  for (const r of runs) {
    notes.push(`${r.system}: ingest via ${r.ingestNote}${r.diskNote ? `; disk: ${r.diskNote}` : ''}`);
    if (r.afterIngestNote) notes.push(`${r.system}: before the queries, ${r.afterIngestNote}`);
    if (r.error) notes.push(`${r.system} FAILED: ${r.error}`);
    for (const [name, q] of Object.entries(r.queries)) if (q?.problem) notes.push(`${r.system} ${name} answer WRONG: ${q.problem}`);
    for (const [name, v] of Object.entries(r.varied)) if (v?.problem) notes.push(`${r.system} ${name} answer WRONG: ${v.problem}`);
  }
  if (!variedAndLoad) return { suite: 'datapoints', dataset: workload.describe(), metrics: datapointMetrics(runs), notes };
  const { variedSize, seed, plan, loadRuns } = variedAndLoad;
  notes.push(
    `V1-V5: seed ${seed}; ${variedSize.pickCount} picks each after ${variedSize.warmupCount} warm-up picks (their median and p90 in the notes), no pick repeated within the run, the same picks on every system; median in the row (p99 beside it), p90 in the row below; VictoriaMetrics asked with nocache=1; InfluxDB is not asked V1-V5 nor the load rows (VictoriaMetrics is the reference)`,
    `load rows: ${plan.describe()}`,
    'gateway CPU: the tree\'s CPU from the first request to the last acknowledgement (it includes the V1 queries sent every 200 ms meanwhile); catch-up: the CPU after the last acknowledgement until the tree stays within 5% of a core of its idle baseline (measured for 2 s before the load) for 3 s',
  );
  for (const r of loadRuns) {
    if (r.error) notes.push(`${r.system} load rows FAILED: ${r.error}`);
    if (r.afterHighCardinalityNote) notes.push(`${r.system}: before V4 over the high-cardinality set, ${r.afterHighCardinalityNote}`);
    for (const [what, t] of [['V1 idle', r.v1Idle], ['V1 under ingest', r.v1UnderIngest], ['V4 high cardinality', r.v4HighCardinality], ['filter page under ingest', r.filterUnderIngest]] as const) {
      if (t?.problem) notes.push(`${r.system} ${what} answer WRONG: ${t.problem}`);
      if (t && 'reasked' in t && t.reasked) notes.push(`${r.system} ${what}: one answer wrong (${t.reasked}), right when asked again after another flush`);
    }
  }
  const metrics = [...datapointMetrics(runs, variedSize), ...loadMetrics(loadRuns, plan)];
  if (variedAndLoad.oneTenant) {
    metrics.push(...oneTenantMetrics(variedAndLoad.oneTenant.runs, variedAndLoad.oneTenant.plan));
    notes.push(...oneTenantNotes(variedAndLoad.oneTenant.runs, variedAndLoad.oneTenant.plan));
  }
  if (variedAndLoad.arrow) {
    const vm = {
      bulkRate: runs.find((r) => r.system === 'victoria-metrics')?.ingest?.pointsPerSecond,
      gatewayRate: loadRuns.find((r) => r.system === 'victoria-metrics')?.gateway?.pointsPerSecond,
    };
    metrics.push(...arrowMetrics(variedAndLoad.arrow.run, variedAndLoad.arrow.size, vm));
    notes.push(...arrowNotes(variedAndLoad.arrow.run));
  }
  return { suite: 'datapoints', dataset: workload.describe(), metrics, notes };
}
