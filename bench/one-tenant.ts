// The one-tenant load rows (bench/README.md): one plant in one tenant whose rate limits and
// quotas SERVICE_CONFIG raises, as a large customer's contract would. The gateway's series, the
// base set and a history of some gateway series all live in that tenant; V1 reads it while the
// gateway writes it, (a) on base series the ingest does not write and (b) on gateway series it
// does write, idle, under a paced ingest and under a flat-out one; (c) is a live chart, V1 of
// one gateway series over the 6 h its gateway is writing, refreshed (its newest points still
// queued or being inserted). Ours and VictoriaMetrics get the same writes (VictoriaMetrics as CSV, one
// namespace) and the same picks. Answers of (a) and (b) are checked: (b) reads windows of the
// history written before the load, whose answers are fixed; (c)'s change as it is written.
import type { EventLoopLag, LoadSystem, PreparedWrite, SystemProcess, WriteItem } from './datapoint-system.ts';
import { GATEWAY_GEN, type LoadPlan } from './gateway.ts';
import { ingest, loadInBulk } from './load-writes.ts';
import type { IngestFigures } from './load.ts';
import { PEER_TOLERANCE } from './queries.ts';
import type { Figure, Metric, SystemName, Target } from './results.ts';
import { summarize, type TimingSummary } from './stats.ts';
import { checkVaried, timeVaried, VariedPicker, type VariedPick, type VariedQuery, type VariedSummary } from './varied.ts';
import { mulberry32 } from './prng.ts';
import { SPACING_MS, Workload } from './workload.ts';

const DAY_MS = 86_400_000;

/**
 * The plant's own series names: VictoriaMetrics has no tenants, and at tiny these rows follow the
 * load rows on the same system, whose base and gateway series must stay apart from these.
 */
export function plantBaseExternalId(s: number): string {
  return `bench-plant-dp-${String(s).padStart(4, '0')}`;
}

export function plantGatewayExternalId(s: number): string {
  return `bench-plant-gw-${String(s).padStart(5, '0')}`;
}
/** Generator numbers of the written series' history (distinct values from the gateway's own). */
const HISTORY_GEN = 200_000;

/**
 * The plant tenant's contract: writes and reads far above any rate the bench reaches (flat out,
 * ~5,000 requests a second would be 300,000 a minute), daily quotas above the run's points,
 * series and body bytes. Every other tenant keeps SPEC's defaults.
 */
export function oneTenantServiceConfig(tenant: string): object {
  const rates = { writesPerMinute: 10_000_000, readsPerMinute: 1_000_000 };
  return {
    tenants: {
      [tenant]: {
        rateLimits: { organization: rates, user: rates },
        dailyQuotas: { datapoints: 1_000_000_000_000, ingestedBytes: 10_000_000_000_000, nodes: 10_000_000 },
      },
    },
  };
}

type UnderIngest = TimingSummary & { problem?: string };

export interface OneTenantPhase {
  ingest?: IngestFigures;
  /** V1 (a) on the base set, (b) on the written series' history, (c) on the window being written, while the ingest ran. */
  base?: UnderIngest;
  written?: UnderIngest;
  live?: UnderIngest;
  /** The service's event-loop delay over the ingest, where it reports one. */
  loop?: EventLoopLag;
}

export interface OneTenantRun {
  system: SystemName;
  idleBase?: VariedSummary;
  idleWritten?: VariedSummary;
  paced?: OneTenantPhase;
  flatOut?: OneTenantPhase;
  /** What the system's catch-up after the paced run said (ours: how long it took). */
  afterPacedNote?: string;
  error?: string;
}

/** The plant's series and the workloads behind them, from the load plan. */
export class OneTenantPlan {
  readonly gatewayWorkload: Workload;
  /** The written series' history: as long as the base set's series, whole days before the gateway's points start. */
  readonly history: Workload;

  constructor(readonly plan: LoadPlan) {
    const g = plan.size.gateway;
    const o = plan.size.oneTenant;
    const sized = (seriesCount: number, pointsPerSeries: number) => ({ seriesCount, pointsPerSeries, requestPoints: pointsPerSeries, senderCount: 1, warmupCount: 0, runCount: 0 });
    const nowMs = plan.base.startMs + 2 * DAY_MS;
    this.gatewayWorkload = new Workload(sized(g.seriesCount, o.pacedPointsPerSeries + o.flatOutPointsPerSeries), nowMs);
    const daysBack = Math.ceil((plan.size.base.pointsPerSeries * SPACING_MS) / DAY_MS);
    this.history = new Workload(sized(o.writtenSeriesCount, plan.size.base.pointsPerSeries), nowMs - daysBack * DAY_MS);
    if (o.pacedPointsPerSeries % g.pointsPerItem !== 0 || o.flatOutPointsPerSeries % g.pointsPerItem !== 0) throw new Error('one tenant: each phase must be whole steps of pointsPerItem');
  }

  get tenant(): string {
    return `${this.plan.runTag}-plant`;
  }

  describe(): string {
    const g = this.plan.size.gateway;
    const o = this.plan.size.oneTenant;
    return `one tenant with raised rate limits and quotas: the base set (${this.plan.base.size.seriesCount} series), ${g.seriesCount} gateway series of which ${o.writtenSeriesCount} hold a ${this.history.size.pointsPerSeries}-point history written before the load; `
      + `${g.seriesCount} x ${o.pacedPointsPerSeries} points paced at ${o.pacedPointsPerSecond} points/s, then ${g.seriesCount} x ${o.flatOutPointsPerSeries} flat out, ${g.itemsPerRequest * g.pointsPerItem}-point requests (${g.itemsPerRequest} items x ${g.pointsPerItem} points), ${g.connectionCount} connections; `
      + `V1 (a) on the base set, (b) on the written series' history and (c) on the window being written by turns, each every ${this.plan.size.queryEveryMs} ms`;
  }

  /**
   * A live chart, V1 (c): one gateway series' 6 h 1m chart refreshed over and over while its
   * gateway writes it (the paced and flat-out points span 5.6 h at full), as a plant's
   * dashboard does; the window starts at a random one of the series' first 30 minutes so
   * that repeated reads are not the same request.
   */
  livePicker(seed: number): () => VariedPick {
    const random = mulberry32(seed);
    const s = Math.floor(random() * this.plan.size.gateway.seriesCount);
    const start = this.gatewayWorkload.startMs;
    return () => {
      const fromMs = start + Math.floor(random() * 30) * 60_000;
      return { query: 'v1', series: { externalId: plantGatewayExternalId(s), gen: GATEWAY_GEN + s }, fromMs, toMs: fromMs + 6 * 3_600_000 };
    };
  }

  /** The gateway requests of steps [fromStep, toStep): each step writes the next pointsPerItem points of every series. */
  requests(target: LoadSystem, fromStep: number, toStep: number): PreparedWrite[] {
    const g = this.plan.size.gateway;
    const out: PreparedWrite[] = [];
    for (let step = fromStep; step < toStep; step++) {
      for (let group = 0; group < g.seriesCount / g.itemsPerRequest; group++) {
        const items: WriteItem[] = Array.from({ length: g.itemsPerRequest }, (_, k) => {
          const series = group * g.itemsPerRequest + k;
          return { externalId: plantGatewayExternalId(series), gen: GATEWAY_GEN + series, first: step * g.pointsPerItem, count: g.pointsPerItem };
        });
        out.push(target.writeRequest(this.gatewayWorkload, this.tenant, `gw-user-${step % g.usersPerTenant}`, items));
      }
    }
    return out;
  }
}

/** The one-tenant rows on one fresh system; `more` runs on it before it stops (ours: the Arrow rows). */
export async function runOneTenantSystem(target: LoadSystem, one: OneTenantPlan, opts: { log: (line: string) => void; more?: (proc: SystemProcess) => Promise<void> }): Promise<OneTenantRun> {
  const run: OneTenantRun = { system: target.system };
  try {
    const proc = await target.start();
    opts.log(`${target.system} one tenant: started at ${proc.url} (pid ${proc.mainPid})`);
    Object.assign(run, await oneTenantRows(target, proc, one, opts.log));
    if (!run.error) await opts.more?.(proc);
  } catch (error) {
    run.error = (error as Error).message;
    opts.log(`${target.system} one tenant: FAILED: ${run.error}`);
  } finally {
    await target.stop().catch((error: unknown) => opts.log(`${target.system} one tenant: stop failed: ${(error as Error).message}`));
  }
  return run;
}

/**
 * The one-tenant rows on a running system (a fresh one, or at tiny the load rows' own after
 * their rows): the plant's series and history loaded, V1 idle, paced, flat out. A failure keeps
 * what was measured before it.
 */
export async function oneTenantRows(target: LoadSystem, proc: SystemProcess, one: OneTenantPlan, logLine: (line: string) => void): Promise<OneTenantRun> {
  const log = (line: string) => logLine(`${target.system} one tenant: ${line}`);
  const run: OneTenantRun = { system: target.system };
  const { plan } = one;
  const tolerance = target.system === 'plantdata' ? undefined : PEER_TOLERANCE;
  const afterIngest = { waitMsMax: plan.size.afterIngestSecondsMax * 1000 };
  try {
    const base = Array.from({ length: plan.base.size.seriesCount }, (_, s) => ({ externalId: plantBaseExternalId(s), gen: s }));
    await target.createSeries(one.tenant, [...base.map((ref) => ref.externalId), ...Array.from({ length: plan.size.gateway.seriesCount }, (_, s) => plantGatewayExternalId(s))]);
    await loadInBulk(target, proc, plan.base, one.tenant, base, plan.size.base.requestPoints);
    const written = Array.from({ length: plan.size.oneTenant.writtenSeriesCount }, (_, s) => ({ externalId: plantGatewayExternalId(s), gen: HISTORY_GEN + s }));
    await loadInBulk(target, proc, one.history, one.tenant, written, plan.size.base.requestPoints);
    await target.afterIngest(afterIngest);
    const pickers = {
      base: new VariedPicker(plan.base, plan.varied, plan.seed + 10, { seriesCount: base.length, pointsPerSeries: plan.base.size.pointsPerSeries, ref: (s) => base[s] as { externalId: string; gen: number } }),
      written: new VariedPicker(one.history, plan.varied, plan.seed + 11, { seriesCount: written.length, pointsPerSeries: one.history.size.pointsPerSeries, ref: (s) => written[s] as { externalId: string; gen: number } }),
      live: one.livePicker(plan.seed + 12),
    };
    const query: VariedQuery = (pick) => target.variedQuery(pick, one.tenant);
    const counts = { warmupCount: plan.varied.warmupCount, pickCount: plan.varied.pickCount, ...(tolerance ? { tolerance } : {}) };
    run.idleBase = await timeVaried(query, pickers.base, 'v1', counts);
    run.idleWritten = await timeVaried(query, pickers.written, 'v1', counts);
    log(`V1 idle (a) p99 ${run.idleBase.p99Ms.toFixed(2)} ms, (b) p99 ${run.idleWritten.p99Ms.toFixed(2)} ms`);
    const g = plan.size.gateway;
    const o = plan.size.oneTenant;
    const pacedSteps = o.pacedPointsPerSeries / g.pointsPerItem;
    run.paced = await oneTenantPhase(target, proc, one.requests(target, 0, pacedSteps), { query, pickers, everyMs: plan.size.queryEveryMs, tolerance, connectionCount: g.connectionCount, pace: { ratePointsPerSecond: o.pacedPointsPerSecond } });
    log(`paced ${Math.round(run.paced.ingest?.pointsPerSecond ?? 0)} points/s (asked ${o.pacedPointsPerSecond}); V1 (a) p99 ${run.paced.base?.p99Ms.toFixed(2) ?? '-'} ms, (b) p99 ${run.paced.written?.p99Ms.toFixed(2) ?? '-'} ms, (c) p99 ${run.paced.live?.p99Ms.toFixed(2) ?? '-'} ms`);
    const note = await target.afterIngest(afterIngest);
    if (note) run.afterPacedNote = note;
    run.flatOut = await oneTenantPhase(target, proc, one.requests(target, pacedSteps, pacedSteps + o.flatOutPointsPerSeries / g.pointsPerItem), { query, pickers, everyMs: plan.size.queryEveryMs, tolerance, connectionCount: g.connectionCount });
    log(`flat out ${Math.round(run.flatOut.ingest?.pointsPerSecond ?? 0)} points/s; V1 (a) p99 ${run.flatOut.base?.p99Ms.toFixed(2) ?? '-'} ms, (b) p99 ${run.flatOut.written?.p99Ms.toFixed(2) ?? '-'} ms, (c) p99 ${run.flatOut.live?.p99Ms.toFixed(2) ?? '-'} ms`);
    await target.afterIngest(afterIngest);
  } catch (error) {
    run.error = (error as Error).message;
    log(`FAILED: ${run.error}`);
  }
  return run;
}

type Pickers = { base: VariedPicker; written: VariedPicker; live: () => VariedPick };
type TurnSamples = { base: number[]; written: number[]; live: number[]; problem: { base?: string; written?: string } };

/** One ingest with V1 (a), (b) and (c) by turns meanwhile: each every everyMs, one query at a time. */
async function oneTenantPhase(target: LoadSystem, proc: SystemProcess, requests: PreparedWrite[], opts: {
  query: VariedQuery; pickers: Pickers; everyMs: number; tolerance: number | undefined; connectionCount: number; pace?: { ratePointsPerSecond: number };
}): Promise<OneTenantPhase> {
  const done = { value: false };
  let reads: Promise<TurnSamples> = Promise.resolve({ base: [], written: [], live: [], problem: {} });
  const startReads = () => {
    reads = v1ByTurns(opts.query, opts.pickers, opts.everyMs / 3, done, opts.tolerance);
    reads.catch(() => undefined); // awaited below
  };
  let figures: IngestFigures;
  await target.eventLoopLag?.(); // the delay so far: the phase's own starts here
  try {
    figures = await ingest(target, proc, requests, opts.connectionCount, startReads, opts.pace);
  } finally {
    done.value = true;
  }
  const loop = await target.eventLoopLag?.();
  const samples = await reads;
  const summary = (list: number[], problem: string | undefined): UnderIngest | undefined => (list.length > 0 ? { ...summarize(list), ...(problem ? { problem } : {}) } : undefined);
  const base = summary(samples.base, samples.problem.base);
  const written = summary(samples.written, samples.problem.written);
  const live = summary(samples.live, undefined);
  return { ingest: figures, ...(base ? { base } : {}), ...(written ? { written } : {}), ...(live ? { live } : {}), ...(loop ? { loop } : {}) };
}

/**
 * V1 (a), (b) and (c) by turns, one query every `turnMs` (start to start), until `done` and each
 * has been read once: an ingest shorter than three reads (tiny, on a loaded host) would otherwise
 * leave (c) unmeasured. Past the first round the reads stop with the ingest.
 */
async function v1ByTurns(query: VariedQuery, pickers: Pickers, turnMs: number, done: { value: boolean }, tolerance: number | undefined): Promise<TurnSamples> {
  const out: TurnSamples = { base: [], written: [], live: [], problem: {} };
  for (let turn = 0; !done.value || turn < 3; turn++) {
    const which = (['base', 'written', 'live'] as const)[turn % 3] as 'base' | 'written' | 'live';
    const started = performance.now();
    if (which === 'live') {
      // The window is being written: its answer changes as it is read, and is not checked.
      out.live.push((await query(pickers.live())).elapsedMs);
    } else {
      const pick = pickers[which].pick('v1');
      const { elapsedMs, answer } = await query(pick);
      out.problem[which] ??= checkVaried(pickers[which].workload, pick, answer, tolerance);
      out[which].push(elapsedMs);
    }
    const wait = turnMs - (performance.now() - started);
    if (wait > 0 && !done.value) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  return out;
}

const VM: SystemName = 'victoria-metrics';

/** Targets of the one-tenant rows (bench/README.md). */
const ONE_TENANT_TARGETS = {
  pacedBaseRatio: { op: '<=', value: 3 },
  pacedWrittenRatio: { op: '<=', value: 5 },
  flatOutBaseP99: { op: '<=', value: 1.0, peer: VM },
} satisfies Record<string, Target>;

/** The one-tenant rows of the data point table. */
export function oneTenantMetrics(runs: OneTenantRun[], one: OneTenantPlan): Metric[] {
  const metric = (key: string, label: string, unit: string, better: Metric['better'], target: Target | undefined, pick: (r: OneTenantRun) => Figure | undefined): Metric => {
    const figures: Metric['figures'] = {};
    for (const r of runs) {
      const figure = pick(r);
      if (figure) figures[r.system] = figure;
    }
    return { suite: 'datapoints', key, label, unit, better, ...(target ? { target } : {}), figures };
  };
  const timing = (t: UnderIngest | undefined): Figure | undefined => t && { value: t.medianMs, p99: t.p99Ms, runCount: t.runCount, checked: !t.problem, ...(t.problem ? { note: t.problem } : {}) };
  // (c)'s window is being written as it is read: timed, its answers not checked.
  const unchecked = (t: UnderIngest | undefined): Figure | undefined => t && { value: t.medianMs, p99: t.p99Ms, runCount: t.runCount, note: 'the window is being written: answers not checked' };
  const ratio = (under: UnderIngest | undefined, idle: VariedSummary | undefined): Figure | undefined => (under && idle ? { value: under.p99Ms / idle.p99Ms } : undefined);
  const rate = (phase: OneTenantPhase | undefined): Figure | undefined => phase?.ingest && {
    value: phase.ingest.pointsPerSecond,
    note: `ack p50 ${phase.ingest.ackP50Ms.toFixed(1)} ms, p99 ${phase.ingest.ackP99Ms.toFixed(1)} ms; ${phase.ingest.cpuSecondsPerMillionPoints.toFixed(2)} CPU s per M points`
      + (phase.ingest.pace ? `; paced at ${phase.ingest.pace.pointsPerSecond} points/s, requests left at most ${phase.ingest.pace.lateMsMax.toFixed(0)} ms behind their schedule (p99 ${phase.ingest.pace.lateMsP99.toFixed(0)} ms)` : ''),
  };
  const paced = one.plan.size.oneTenant.pacedPointsPerSecond;
  return [
    metric('one-tenant-v1-idle-base', 'one tenant: V1 idle, (a) series the ingest does not write', 'ms', 'lower', undefined, (r) => timing(r.idleBase)),
    metric('one-tenant-v1-idle-written', 'one tenant: V1 idle, (b) series the ingest writes', 'ms', 'lower', undefined, (r) => timing(r.idleWritten)),
    metric('one-tenant-paced-rate', `one tenant: gateway ingest paced at ${paced} points/s`, 'points/s', 'higher', undefined, (r) => rate(r.paced)),
    metric('one-tenant-v1-paced-base', `one tenant: V1 (a) during the paced ingest`, 'ms', 'lower', undefined, (r) => timing(r.paced?.base)),
    metric('one-tenant-v1-paced-base-ratio', 'one tenant: V1 (a) p99 paced / idle p99', 'x', 'lower', ONE_TENANT_TARGETS.pacedBaseRatio, (r) => ratio(r.paced?.base, r.idleBase)),
    metric('one-tenant-v1-paced-written', `one tenant: V1 (b) during the paced ingest`, 'ms', 'lower', undefined, (r) => timing(r.paced?.written)),
    metric('one-tenant-v1-paced-written-ratio', 'one tenant: V1 (b) p99 paced / idle p99', 'x', 'lower', ONE_TENANT_TARGETS.pacedWrittenRatio, (r) => ratio(r.paced?.written, r.idleWritten)),
    metric('one-tenant-v1-paced-live', `one tenant: V1 (c), a live chart of the window being written, during the paced ingest`, 'ms', 'lower', undefined, (r) => unchecked(r.paced?.live)),
    metric('one-tenant-v1-paced-live-ratio', 'one tenant: V1 (c) p99 paced / (b) idle p99', 'x', 'lower', ONE_TENANT_TARGETS.pacedWrittenRatio, (r) => ratio(r.paced?.live, r.idleWritten)),
    metric('one-tenant-flat-rate', 'one tenant: gateway ingest flat out', 'points/s', 'higher', undefined, (r) => rate(r.flatOut)),
    metric('one-tenant-v1-flat-base', 'one tenant: V1 (a) during the flat-out ingest', 'ms', 'lower', undefined, (r) => timing(r.flatOut?.base)),
    metric('one-tenant-v1-flat-base-p99', 'one tenant: V1 (a) p99 during the flat-out ingest', 'ms', 'lower', ONE_TENANT_TARGETS.flatOutBaseP99, (r) => r.flatOut?.base && { value: r.flatOut.base.p99Ms, runCount: r.flatOut.base.runCount, checked: !r.flatOut.base.problem }),
    metric('one-tenant-v1-flat-base-ratio', 'one tenant: V1 (a) p99 flat out / idle p99', 'x', 'lower', undefined, (r) => ratio(r.flatOut?.base, r.idleBase)),
    metric('one-tenant-v1-flat-written', 'one tenant: V1 (b) during the flat-out ingest', 'ms', 'lower', undefined, (r) => timing(r.flatOut?.written)),
    metric('one-tenant-v1-flat-written-ratio', 'one tenant: V1 (b) p99 flat out / idle p99', 'x', 'lower', undefined, (r) => ratio(r.flatOut?.written, r.idleWritten)),
    metric('one-tenant-v1-flat-live', 'one tenant: V1 (c), a live chart, during the flat-out ingest', 'ms', 'lower', undefined, (r) => unchecked(r.flatOut?.live)),
    metric('one-tenant-v1-flat-live-ratio', 'one tenant: V1 (c) p99 flat out / (b) idle p99', 'x', 'lower', undefined, (r) => ratio(r.flatOut?.live, r.idleWritten)),
  ];
}

/** The notes of the one-tenant rows: the plan, failures, wrong answers. */
export function oneTenantNotes(runs: OneTenantRun[], one: OneTenantPlan): string[] {
  const notes = [`one-tenant rows: ${one.describe()}; (b) reads windows of the history only (a window still being written has no fixed answer), in series the ingest writes meanwhile; (c) reads the 6 h the gateway is writing, unchecked, its ratio against (b)'s idle p99 (an idle read of a window not yet written would read nothing)`];
  for (const r of runs) {
    if (r.error) notes.push(`${r.system} one-tenant rows FAILED: ${r.error}`);
    if (r.afterPacedNote) notes.push(`${r.system}: between the paced and the flat-out ingest, ${r.afterPacedNote}`);
    for (const [phase, loop] of [['paced', r.paced?.loop], ['flat-out', r.flatOut?.loop]] as const) {
      if (loop) notes.push(`${r.system} one tenant: the service's event loop during the ${phase} ingest ran late by p50 ${loop.p50Ms.toFixed(1)} ms, p99 ${loop.p99Ms.toFixed(1)} ms, max ${loop.maxMs.toFixed(1)} ms (a 10 ms timer: idle reads ~10)`);
    }
    const checked: [string, { problem?: string } | undefined][] = [
      ['V1 (a) idle', r.idleBase], ['V1 (b) idle', r.idleWritten], ['V1 (a) paced', r.paced?.base], ['V1 (b) paced', r.paced?.written], ['V1 (a) flat out', r.flatOut?.base], ['V1 (b) flat out', r.flatOut?.written],
    ];
    for (const [what, t] of checked) if (t?.problem) notes.push(`${r.system} one tenant ${what} answer WRONG: ${t.problem}`);
  }
  return notes;
}
