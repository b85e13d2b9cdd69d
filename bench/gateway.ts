// The load rows (bench/README.md), on a fresh system per run (ours, then VictoriaMetrics): gateway
// ingest (many series per request, many tenants and users, 16 keep-alive connections) with
// V1 every 200 ms on a separate base data set while it runs, the CPU spent after the last
// acknowledgement until idle, then a high-cardinality load with a metadata filter page while
// it runs and V4 over 1,000 random series after it. Every answer is checked.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { IngestFigures } from './load.ts';
import { ingest, loadInBulk } from './load-writes.ts';
import { cpuUntilIdle, treeCpuCores, treeCpuSeconds, type CatchUpCpu } from './proc-stats.ts';
import type { LoadSystem, PreparedWrite, SystemProcess, WriteItem } from './datapoint-system.ts';
import { PEER_TOLERANCE } from './queries.ts';
import type { Figure, Metric, SystemName, Target } from './results.ts';
import { summarize, type TimingSummary } from './stats.ts';
import { timeVaried, variedEvery, VariedPicker, type VariedSize, type VariedSummary } from './varied.ts';
import { Workload, type DatapointSize } from './workload.ts';

export interface LoadSize {
  /** Series V1 reads while idle and during the gateway ingest (loaded in bulk first). */
  base: { seriesCount: number; pointsPerSeries: number; requestPoints: number };
  gateway: { seriesCount: number; pointsPerSeries: number; itemsPerRequest: number; pointsPerItem: number; connectionCount: number; usersPerTenant: number };
  queryEveryMs: number;
  highCardinality: { seriesCount: number; pointsPerSeries: number; seriesPerRequest: number; tenantCount: number; senderCount: number; v4SeriesCount: number };
  /** Bound on the wait for idle after the gateway's last acknowledgement. */
  catchUpSecondsMax: number;
  /** Bound on a system's own wait for its background work after a load (ours: rollups and merges). */
  afterIngestSecondsMax: number;
  /** The one-tenant rows (one-tenant.ts): the gateway's series in one tenant, paced then flat out. */
  oneTenant: OneTenantSize;
}

export interface OneTenantSize {
  /** The steady sender's rate, and each gateway series' points sent at it. */
  pacedPointsPerSecond: number;
  pacedPointsPerSeries: number;
  /** Each gateway series' points sent flat out after the paced run (later timestamps). */
  flatOutPointsPerSeries: number;
  /** Gateway series that also hold a history written before the load, which V1 (b) reads. */
  writtenSeriesCount: number;
}

/** Above the tree's idle baseline by less than this many cores: idle. */
const IDLE_MARGIN_CORES = 0.05;

export const LOAD_SIZES: Record<'full' | 'small' | 'tiny' | 'large', LoadSize> = {
  full: {
    base: { seriesCount: 10, pointsPerSeries: 43_200, requestPoints: 43_200 },
    gateway: { seriesCount: 1_000, pointsPerSeries: 10_000, itemsPerRequest: 100, pointsPerItem: 10, connectionCount: 16, usersPerTenant: 4 },
    queryEveryMs: 200,
    highCardinality: { seriesCount: 100_000, pointsPerSeries: 100, seriesPerRequest: 1_000, tenantCount: 4, senderCount: 4, v4SeriesCount: 1_000 },
    catchUpSecondsMax: 120,
    afterIngestSecondsMax: 90,
    oneTenant: { pacedPointsPerSecond: 250_000, pacedPointsPerSeries: 10_000, flatOutPointsPerSeries: 10_000, writtenSeriesCount: 10 },
  },
  small: {
    base: { seriesCount: 10, pointsPerSeries: 43_200, requestPoints: 43_200 },
    gateway: { seriesCount: 1_000, pointsPerSeries: 2_000, itemsPerRequest: 100, pointsPerItem: 10, connectionCount: 16, usersPerTenant: 4 },
    queryEveryMs: 200,
    highCardinality: { seriesCount: 20_000, pointsPerSeries: 100, seriesPerRequest: 1_000, tenantCount: 2, senderCount: 4, v4SeriesCount: 1_000 },
    catchUpSecondsMax: 60,
    afterIngestSecondsMax: 60,
    oneTenant: { pacedPointsPerSecond: 250_000, pacedPointsPerSeries: 2_000, flatOutPointsPerSeries: 2_000, writtenSeriesCount: 10 },
  },
  tiny: {
    base: { seriesCount: 4, pointsPerSeries: 7_200, requestPoints: 7_200 },
    gateway: { seriesCount: 200, pointsPerSeries: 200, itemsPerRequest: 100, pointsPerItem: 10, connectionCount: 16, usersPerTenant: 2 },
    queryEveryMs: 200,
    highCardinality: { seriesCount: 2_000, pointsPerSeries: 100, seriesPerRequest: 500, tenantCount: 2, senderCount: 4, v4SeriesCount: 100 },
    catchUpSecondsMax: 6,
    afterIngestSecondsMax: 3,
    oneTenant: { pacedPointsPerSecond: 20_000, pacedPointsPerSeries: 100, flatOutPointsPerSeries: 100, writtenSeriesCount: 4 },
  },
  /** The full load rows with the large data point set as V1's base (the same data the bulk rows load). */
  large: {
    base: { seriesCount: 1_000, pointsPerSeries: 100_000, requestPoints: 100_000 },
    gateway: { seriesCount: 1_000, pointsPerSeries: 10_000, itemsPerRequest: 100, pointsPerItem: 10, connectionCount: 16, usersPerTenant: 4 },
    queryEveryMs: 200,
    highCardinality: { seriesCount: 100_000, pointsPerSeries: 100, seriesPerRequest: 1_000, tenantCount: 4, senderCount: 4, v4SeriesCount: 1_000 },
    catchUpSecondsMax: 180,
    afterIngestSecondsMax: 300,
    oneTenant: { pacedPointsPerSecond: 250_000, pacedPointsPerSeries: 10_000, flatOutPointsPerSeries: 10_000, writtenSeriesCount: 10 },
  },
};

/** Generator series numbers of the gateway and high-cardinality sets (distinct values from the base's). */
export const GATEWAY_GEN = 100_000;
const HIGH_CARDINALITY_GEN = 1_000_000;

export function gatewayExternalId(g: number): string {
  return `bench-gw-${String(g).padStart(5, '0')}`;
}

export function highCardinalityExternalId(h: number): string {
  return `bench-hc-${String(h).padStart(6, '0')}`;
}

export interface LoadRun {
  system: SystemName;
  v1Idle?: VariedSummary;
  /** The tree's CPU per V1 query while idle: an estimate of what V1 adds to the gateway's CPU. */
  v1CpuSecondsPerQuery?: number;
  gateway?: IngestFigures & { catchUp: CatchUpCpu; idleCores: number };
  v1UnderIngest?: TimingSummary & { problem?: string };
  /** The longest the timing thread's own event loop was late while V1 ran under ingest (its pauses count in every pick). */
  v1ClientDelayMaxMs?: number;
  highCardinality?: IngestFigures;
  v4HighCardinality?: VariedSummary;
  filterUnderIngest?: TimingSummary & { problem?: string };
  /** What the system's catch-up after the high-cardinality load said (ours: how long it took). */
  afterHighCardinalityNote?: string;
  error?: string;
}

export class LoadPlan {
  readonly base: Workload;
  readonly gatewayWorkload: Workload;
  readonly highCardinalityWorkload: Workload;
  readonly gatewayTenantCount: number;

  constructor(readonly size: LoadSize, readonly varied: VariedSize, readonly runTag: string, readonly seed: number, nowMs = Date.now()) {
    const workloadSize = (seriesCount: number, pointsPerSeries: number): DatapointSize => ({ seriesCount, pointsPerSeries, requestPoints: pointsPerSeries, senderCount: 1, warmupCount: 0, runCount: 0 });
    this.base = new Workload(workloadSize(size.base.seriesCount, size.base.pointsPerSeries), nowMs);
    this.gatewayWorkload = new Workload(workloadSize(size.gateway.seriesCount, size.gateway.pointsPerSeries), nowMs);
    this.highCardinalityWorkload = new Workload(workloadSize(size.highCardinality.seriesCount, size.highCardinality.pointsPerSeries), nowMs);
    if (size.gateway.seriesCount % size.gateway.itemsPerRequest !== 0) throw new Error('gateway: series must fill whole requests');
    // One request carries every series of one tenant: a tenant per itemsPerRequest series.
    this.gatewayTenantCount = size.gateway.seriesCount / size.gateway.itemsPerRequest;
  }

  get baseTenant(): string {
    return `${this.runTag}-base`;
  }

  gatewayTenant(t: number): string {
    return `${this.runTag}-gw${t}`;
  }

  highCardinalityTenant(t: number): string {
    return `${this.runTag}-hc${t}`;
  }

  get highCardinalityPerTenant(): number {
    return Math.ceil(this.size.highCardinality.seriesCount / this.size.highCardinality.tenantCount);
  }

  /** Requests per tenant and per user of the gateway load (the rate-limit arithmetic). */
  gatewayRequestsPer(): { tenant: number; user: number } {
    const g = this.size.gateway;
    const perTenant = g.pointsPerSeries / g.pointsPerItem;
    return { tenant: perTenant, user: Math.ceil(perTenant / g.usersPerTenant) };
  }

  describe(): string {
    const { base, gateway: g, highCardinality: h } = this.size;
    const per = this.gatewayRequestsPer();
    return `load rows on a fresh system with SPEC's default rate limits and quotas: base ${base.seriesCount} series x ${base.pointsPerSeries} points for V1; `
      + `gateway ${g.seriesCount} series x ${g.pointsPerSeries} points (${g.seriesCount * g.pointsPerSeries} points) as ${g.itemsPerRequest * g.pointsPerItem}-point requests (${g.itemsPerRequest} items x ${g.pointsPerItem} points), time-major, `
      + `${this.gatewayTenantCount} tenants x ${g.usersPerTenant} users (${per.tenant} writes per tenant, ${per.user} per user), ${g.connectionCount} keep-alive connections; `
      + `V1 every ${this.size.queryEveryMs} ms during it; high cardinality ${h.seriesCount} series x ${h.pointsPerSeries} points in ${h.seriesPerRequest}-series requests over ${h.tenantCount} tenants, ${h.senderCount} senders`;
  }
}

/**
 * The phases of the load rows on one system; a failure keeps what was measured before it.
 * `more` runs on the same system after them, before it stops (whatever it measures is its own).
 */
export async function runLoadSystem(target: LoadSystem, plan: LoadPlan, opts: { log: (line: string) => void; more?: (proc: SystemProcess) => Promise<void> }): Promise<LoadRun> {
  const { log } = opts;
  const run: LoadRun = { system: target.system };
  let proc: SystemProcess | undefined;
  try {
    proc = await target.start();
    log(`${target.system} load: started at ${proc.url} (pid ${proc.mainPid})`);
    const phase: LoadPhase = {
      target, plan, proc, run, log: (line) => log(`${target.system} load: ${line}`),
      tolerance: target.system === 'plantdata' ? undefined : PEER_TOLERANCE,
      afterIngest: { waitMsMax: plan.size.afterIngestSecondsMax * 1000 },
    };
    const basePicker = await loadBaseAndTimeIdle(phase);
    await gatewayIngest(phase, basePicker);
    await highCardinality(phase);
  } catch (error) {
    run.error = (error as Error).message;
    log(`${target.system} load: FAILED: ${run.error}`);
  }
  try {
    if (opts.more && proc) await opts.more(proc).catch((error: unknown) => log(`${target.system}: after the load rows, FAILED: ${(error as Error).message}`));
  } finally {
    await target.stop().catch((error: unknown) => log(`${target.system} load: stop failed: ${(error as Error).message}`));
  }
  return run;
}

interface LoadPhase {
  target: LoadSystem;
  plan: LoadPlan;
  proc: { url: string; rootPid: number; mainPid: number };
  run: LoadRun;
  log: (line: string) => void;
  tolerance: number | undefined;
  afterIngest: { waitMsMax: number };
}

/** The base set in bulk, the system's catch-up, then V1 idle; returns the picker V1 goes on with. */
async function loadBaseAndTimeIdle({ target, plan, proc, run, log, tolerance, afterIngest }: LoadPhase): Promise<VariedPicker> {
  const baseIds = Array.from({ length: plan.base.size.seriesCount }, (_, s) => plan.base.externalId(s));
  await target.createSeries(plan.baseTenant, baseIds);
  await loadInBulk(target, proc, plan.base, plan.baseTenant, baseIds.map((externalId, gen) => ({ externalId, gen })), plan.size.base.requestPoints);
  await target.afterIngest(afterIngest);
  const basePicker = new VariedPicker(plan.base, plan.varied, plan.seed);
  const cpuBefore = treeCpuSeconds(proc.rootPid);
  run.v1Idle = await timeVaried((pick) => target.variedQuery(pick, plan.baseTenant), basePicker, 'v1', { warmupCount: plan.varied.warmupCount, pickCount: plan.varied.pickCount, ...(tolerance ? { tolerance } : {}) });
  run.v1CpuSecondsPerQuery = (treeCpuSeconds(proc.rootPid) - cpuBefore) / (plan.varied.warmupCount + plan.varied.pickCount);
  log(`V1 idle median ${run.v1Idle.medianMs.toFixed(2)} ms, p99 ${run.v1Idle.p99Ms.toFixed(2)} ms, ${(run.v1CpuSecondsPerQuery * 1000).toFixed(1)} CPU ms per query`);
  return basePicker;
}

/** Gateway ingest with V1 every queryEveryMs on the base set while it runs, then the catch-up CPU. */
async function gatewayIngest({ target, plan, proc, run, log, tolerance }: LoadPhase, basePicker: VariedPicker): Promise<void> {
  const g = plan.size.gateway;
  for (let t = 0; t < plan.gatewayTenantCount; t++) {
    await target.createSeries(plan.gatewayTenant(t), Array.from({ length: g.itemsPerRequest }, (_, k) => gatewayExternalId(t * g.itemsPerRequest + k)));
  }
  log('building gateway requests');
  const requests: PreparedWrite[] = [];
  for (let step = 0; step * g.pointsPerItem < g.pointsPerSeries; step++) {
    const first = step * g.pointsPerItem;
    for (let t = 0; t < plan.gatewayTenantCount; t++) {
      const items: WriteItem[] = Array.from({ length: g.itemsPerRequest }, (_, k) => {
        const series = t * g.itemsPerRequest + k;
        return { externalId: gatewayExternalId(series), gen: GATEWAY_GEN + series, first, count: Math.min(g.pointsPerItem, g.pointsPerSeries - first) };
      });
      requests.push(target.writeRequest(plan.gatewayWorkload, plan.gatewayTenant(t), `gw-user-${step % g.usersPerTenant}`, items));
    }
  }
  const idleCores = await treeCpuCores(proc.rootPid, 2);
  log(`gateway ingest of ${requests.length} requests, V1 every ${plan.size.queryEveryMs} ms (idle baseline ${idleCores.toFixed(3)} cores)`);
  const done = { value: false };
  // The senders run on a thread of their own (runIngestApart); what is left on this one, and
  // counted in every pick, is measured.
  const clientDelay = monitorEventLoopDelay({ resolution: 1 });
  // V1 starts with the first request (the worker takes a moment to start).
  let underIngest: ReturnType<typeof variedEvery> = Promise.resolve({ samples: [] });
  const startV1 = () => {
    clientDelay.enable();
    underIngest = variedEvery((pick) => target.variedQuery(pick, plan.baseTenant), basePicker, 'v1', plan.size.queryEveryMs, done, tolerance);
    underIngest.catch(() => undefined); // awaited below; a failing ingest must not leave it unhandled
  };
  let figures: IngestFigures;
  try {
    figures = await ingest(target, proc, requests, g.connectionCount, startV1);
  } finally {
    done.value = true;
  }
  requests.length = 0;
  const catchUp = cpuUntilIdle(proc.rootPid, figures.treeCpuAtEndSeconds, { boundSeconds: plan.size.catchUpSecondsMax, idleCores: idleCores + IDLE_MARGIN_CORES });
  const v1 = await underIngest;
  clientDelay.disable();
  run.v1ClientDelayMaxMs = clientDelay.max / 1e6;
  run.v1UnderIngest = { ...summarize(v1.samples), ...(v1.problem ? { problem: v1.problem } : {}) };
  run.gateway = { ...figures, catchUp: await catchUp, idleCores };
  log(`gateway ${Math.round(figures.pointsPerSecond)} points/s, ${figures.cpuSecondsPerMillionPoints.toFixed(2)} CPU s per M points, catch-up ${run.gateway.catchUp.cpuSeconds.toFixed(2)} CPU s over ${run.gateway.catchUp.busySeconds.toFixed(1)} s; V1 under ingest median ${run.v1UnderIngest.medianMs.toFixed(2)} ms, p99 ${run.v1UnderIngest.p99Ms.toFixed(2)} ms (${v1.samples.length} runs)`);
}

/** Series in several tenants, 1,000-series requests, a filter page while it runs; V4 after it. */
async function highCardinality({ target, plan, proc, run, log, tolerance, afterIngest }: LoadPhase): Promise<void> {
  const h = plan.size.highCardinality;
  const perTenant = plan.highCardinalityPerTenant;
  const tenantOf = (series: number) => Math.floor(series / perTenant);
  for (let t = 0; t < h.tenantCount; t++) {
    const ids = [];
    for (let s = t * perTenant; s < Math.min(h.seriesCount, (t + 1) * perTenant); s++) ids.push(highCardinalityExternalId(s));
    await target.createSeries(plan.highCardinalityTenant(t), ids);
  }
  log('building high-cardinality requests');
  const requests: PreparedWrite[] = [];
  for (let from = 0; from < h.seriesCount;) {
    // A request never spans tenants: it stops at the tenant's last series.
    const to = Math.min(from + h.seriesPerRequest, h.seriesCount, (tenantOf(from) + 1) * perTenant);
    const items: WriteItem[] = [];
    for (let s = from; s < to; s++) items.push({ externalId: highCardinalityExternalId(s), gen: HIGH_CARDINALITY_GEN + s, first: 0, count: h.pointsPerSeries });
    requests.push(target.writeRequest(plan.highCardinalityWorkload, plan.highCardinalityTenant(tenantOf(from)), 'hc-user', items));
    from = to;
  }
  const filterPage = target.filterPage?.bind(target);
  const done = { value: false };
  let filter: ReturnType<typeof pageEvery> | undefined;
  const startFilter = () => {
    if (!filterPage) return;
    filter = pageEvery(() => filterPage(plan.highCardinalityTenant(0), Math.min(1000, perTenant)), plan.size.queryEveryMs, done);
    filter.catch(() => undefined); // awaited below
  };
  try {
    run.highCardinality = await ingest(target, proc, requests, h.senderCount, startFilter);
  } finally {
    done.value = true;
  }
  requests.length = 0;
  const pages = await filter;
  if (pages && pages.samples.length > 0) run.filterUnderIngest = { ...summarize(pages.samples), ...(pages.problem ? { problem: pages.problem } : {}) };
  log(`high cardinality ${Math.round(run.highCardinality.pointsPerSecond)} points/s${run.filterUnderIngest ? `, filter page under ingest median ${run.filterUnderIngest.medianMs.toFixed(2)} ms (${pages?.samples.length} runs)` : ''}`);
  const note = await target.afterIngest(afterIngest);
  if (note) run.afterHighCardinalityNote = note;
  const picker = new VariedPicker(plan.highCardinalityWorkload, { ...plan.varied, v4SeriesCount: h.v4SeriesCount }, plan.seed + 1, {
    seriesCount: Math.min(perTenant, h.seriesCount), pointsPerSeries: h.pointsPerSeries,
    ref: (s) => ({ externalId: highCardinalityExternalId(s), gen: HIGH_CARDINALITY_GEN + s }),
  });
  // A peer's search may race its index right after 100,000 new series: one more flush and ask, noted.
  const reaskAfter = target.system === 'plantdata' ? undefined : async () => { await target.afterIngest(afterIngest); };
  run.v4HighCardinality = await timeVaried((pick) => target.variedQuery(pick, plan.highCardinalityTenant(0)), picker, 'v4', {
    warmupCount: plan.varied.warmupCount, pickCount: plan.varied.pickCount, ...(tolerance ? { tolerance } : {}), ...(reaskAfter ? { reaskAfter } : {}),
  });
  log(`V4 over ${h.v4SeriesCount} random series median ${run.v4HighCardinality.medianMs.toFixed(2)} ms`);
}

/** `once` every `everyMs` (start to start, never two at once) until `done` is set. */
async function pageEvery(once: () => Promise<{ elapsedMs: number; problem?: string }>, everyMs: number, done: { value: boolean }): Promise<{ samples: number[]; problem?: string }> {
  const samples: number[] = [];
  let problem: string | undefined;
  while (!done.value) {
    const started = Date.now();
    const page = await once();
    samples.push(page.elapsedMs);
    problem ??= page.problem;
    const wait = everyMs - (Date.now() - started);
    if (wait > 0 && !done.value) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  return { samples, ...(problem ? { problem } : {}) };
}

/** Targets of the load rows (bench/README.md). */
const VM: SystemName = 'victoria-metrics';

/** The load rows of the data point table. */
export function loadMetrics(runs: LoadRun[], plan: LoadPlan): Metric[] {
  const metric = (key: string, label: string, unit: string, better: Metric['better'], target: Target | undefined, pick: (r: LoadRun) => Figure | undefined): Metric => {
    const figures: Metric['figures'] = {};
    for (const r of runs) {
      const figure = pick(r);
      if (figure) figures[r.system] = figure;
    }
    return { suite: 'datapoints', key, label, unit, better, ...(target ? { target } : {}), figures };
  };
  const timing = (t: (TimingSummary & { problem?: string }) | undefined, extra?: string): Figure | undefined => t && {
    value: t.medianMs, p99: t.p99Ms, runCount: t.runCount, checked: !t.problem, ...(t.problem || extra ? { note: t.problem ?? extra } : {}),
  };
  const g = plan.size.gateway;
  const h = plan.size.highCardinality;
  return [
    metric('gateway-rate', `gateway ingest ${g.itemsPerRequest}x${g.pointsPerItem}-point requests`, 'points/s', 'higher', { op: '>=', value: 1.0, peer: VM }, (r) => r.gateway && { value: r.gateway.pointsPerSecond }),
    metric('gateway-cpu', 'gateway CPU per M points', 'CPU s', 'lower', { op: '<=', value: 1.0, peer: VM }, (r) => r.gateway && {
      value: r.gateway.cpuSecondsPerMillionPoints,
      ...(r.v1UnderIngest && r.v1CpuSecondsPerQuery !== undefined ? { note: `includes the ${r.v1UnderIngest.runCount} V1 queries sent meanwhile: about ${(r.v1UnderIngest.runCount * r.v1CpuSecondsPerQuery).toFixed(2)} of its ${r.gateway.cpuSeconds.toFixed(2)} CPU s at their idle cost` } : {}),
    }),
    metric('gateway-ack', 'gateway ack latency p50', 'ms', 'lower', undefined, (r) => r.gateway && { value: r.gateway.ackP50Ms, p99: r.gateway.ackP99Ms }),
    metric('gateway-catch-up', 'gateway catch-up CPU after last ack', 'x ingest CPU', 'lower', { op: '<=', value: 0.3 }, (r) => r.gateway && {
      value: r.gateway.catchUp.cpuSeconds / r.gateway.cpuSeconds,
      note: `${r.gateway.catchUp.cpuSeconds.toFixed(2)} CPU s after the last acknowledgement over ${r.gateway.catchUp.busySeconds.toFixed(1)} s${r.gateway.catchUp.idle ? ' until idle' : ', still busy at the bound'} (ingest itself ${r.gateway.cpuSeconds.toFixed(2)} CPU s; idle baseline before the load ${r.gateway.idleCores.toFixed(3)} cores)`,
    }),
    metric('v1-idle', 'V1 idle (load-row base set)', 'ms', 'lower', undefined, (r) => timing(r.v1Idle)),
    metric('v1-under-ingest', `V1 every ${plan.size.queryEveryMs} ms during gateway ingest`, 'ms', 'lower', undefined, (r) => timing(r.v1UnderIngest, r.v1UnderIngest ? `${r.v1UnderIngest.runCount} runs while the gateway ingest ran${r.v1ClientDelayMaxMs !== undefined ? `; the timing thread's own event loop was late by ${r.v1ClientDelayMaxMs.toFixed(1)} ms at most (the senders run on another thread)` : ''}` : undefined)),
    metric('v1-under-ingest-p99-ratio', 'V1 p99 under ingest / idle p99', 'x', 'lower', { op: '<=', value: 3 }, (r) => (r.v1Idle && r.v1UnderIngest ? { value: r.v1UnderIngest.p99Ms / r.v1Idle.p99Ms } : undefined)),
    metric('high-cardinality-rate', `high cardinality ${h.seriesCount} series, ${h.seriesPerRequest}-series requests`, 'points/s', 'higher', undefined, (r) => r.highCardinality && { value: r.highCardinality.pointsPerSecond, note: `ack p50 ${r.highCardinality.ackP50Ms.toFixed(0)} ms, p99 ${r.highCardinality.ackP99Ms.toFixed(0)} ms; ${r.highCardinality.cpuSecondsPerMillionPoints.toFixed(2)} CPU s per M points` }),
    metric('high-cardinality-v4', `V4 latest of ${h.v4SeriesCount} random series of ${plan.highCardinalityPerTenant}`, 'ms', 'lower', undefined, (r) => timing(r.v4HighCardinality, r.v4HighCardinality ? `p90 ${r.v4HighCardinality.p90Ms.toFixed(2)} ms` : undefined)),
    metric('high-cardinality-filter', `filter page of ${Math.min(1000, plan.highCardinalityPerTenant)} series during high-cardinality ingest`, 'ms', 'lower', undefined, (r) => timing(r.filterUnderIngest, r.filterUnderIngest ? `${r.filterUnderIngest.runCount} runs while the ingest ran` : undefined)),
  ];
}
