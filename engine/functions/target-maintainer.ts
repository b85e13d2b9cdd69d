// Keeps functions' targets up to date as their inputs change. Each committed batch and each
// delete marks, for every function reading one of its series, the span of that series that
// changed; shortly after (TARGET_DEBOUNCE_MS, so a burst of batches is one recompute), the
// function's target is recomputed over the windows those spans reach (target-recompute.ts),
// one recompute per function at a time and TARGET_RECOMPUTES_MAX at once. A function new or
// changed, or whose recompute had stopped, is computed over its whole history; so is every
// function when the service starts, which makes a target exact again after a crash between an
// input's commit and its recompute.
//
// Every recompute runs with the function's grants expanded anew (run-grants.ts). One that the
// grants, the inputs or the expression refuse stops, and the function record's `targetStatus`
// says why; a later change of an input retries it (whole history), and clears the status once
// it runs. Other failures (the store, a quota) are retried with a growing delay.
import type { Logger } from '../log.ts';
import type { CommittedBatch } from '../ingest/ingest-log.ts';
import { committedSpans } from '../ingest/commit-listeners.ts';
import type { DeleteRange } from '../datapoints/datapoint-store.ts';
import { TIMESTAMP_MS_MAX, TIMESTAMP_MS_MIN } from '../limits.ts';
import type { Queryable } from '../stores/queryable.ts';
import { accessOfRun } from './run-grants.ts';
import { TARGET_INDEX_TTL_MS, TargetIndex, type KeptFunction } from './target-index.ts';
import { SET_TARGET_STATUS } from './target-index.sql.ts';
import { reachedWindows, recomputeTarget, stopsRecompute, WHOLE_HISTORY, type ChangedSpan, type RecomputeDeps } from './target-recompute.ts';

/** How long a change waits for the ones right behind it before its recompute starts. */
export const TARGET_DEBOUNCE_MS = 20;
/**
 * A function's next recompute waits at least as long as its last one took: under a steady
 * ingest each recompute then takes the changes of twice its own time, and one function keeps
 * at most half a core busy, whatever the rate of its inputs' batches.
 */
const DUTY_SHARE = 0.5;
/** Recomputes running at once, over all functions (each one is several engine statements). */
export const TARGET_RECOMPUTES_MAX = 2;
/** Changed spans of one input kept apart; beyond, a new one joins the nearest (addSpan). */
const SPANS_PER_SERIES = 4;
const RETRY_MS_MIN = 1_000;
const RETRY_MS_MAX = 30_000;
/** A recompute longer than this is logged with where its time went. */
const SLOW_RECOMPUTE_MS = 1_000;

export interface TargetMaintainerDeps extends RecomputeDeps {
  db: Queryable;
  log: Logger;
}

/** Why a function's recompute stopped, as `targetStatus` shows it. */
export interface TargetStopped {
  status: 'stopped';
  reason: string;
  /** Epoch ms. */
  since: number;
}

interface Work {
  tenant: string;
  functionId: number;
  spans: ChangedSpan[];
  whole: boolean;
  /** Whether the record says stopped, as last written or read, and why. */
  stopped: boolean | undefined;
  reason?: string;
  timer?: NodeJS.Timeout;
  state: 'idle' | 'waiting' | 'queued' | 'running';
  retryMs: number;
  removed: boolean;
  /** Before when the next recompute may not start (DUTY_SHARE), epoch ms. */
  restUntil: number;
}

export class TargetMaintainer {
  readonly index: TargetIndex;
  private readonly works = new Map<string, Work>();
  private readonly queue: Work[] = [];
  private running = 0;
  private closed = false;
  /** Whether this process keeps targets (start was called), or only answers the write guard from the index. */
  private started = false;
  /** Loads the tenants again while others write functions (start's othersWriteFunctions). */
  private poll: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;

  /** The recompute's deps: its deletes of stale target points reach the functions reading the target, as the API's deletes do. */
  private readonly recomputeDeps: RecomputeDeps;

  constructor(private readonly deps: TargetMaintainerDeps) {
    this.recomputeDeps = { ...deps, deleted: (tenant, ranges) => this.deleted(tenant, ranges) };
    this.index = new TargetIndex(deps.db, { log: deps.log, onChanged: (tenant, changed, removed) => this.changed(tenant, changed, removed) });
  }

  /**
   * Loads every tenant with kept targets: each of their functions is computed afresh.
   * `othersWriteFunctions`: function records are also written by other processes (a shared
   * PostgreSQL: the ingester keeps the targets of functions the API instances create). This
   * process hears of its own writes only (functionsWritten), and of others' only when an input
   * batch of the tenant comes by, so a function created elsewhere over inputs already written
   * would never be computed: every TARGET_INDEX_TTL_MS the tenants are loaded again, which
   * reports new and changed functions. It costs a query per tenant with kept targets each time.
   */
  async start(options: { othersWriteFunctions?: boolean } = {}): Promise<void> {
    this.started = true;
    await this.loadAllTenants();
    if (options.othersWriteFunctions && !this.closed) {
      this.poll = setInterval(() => {
        if (this.polling) return; // the last round is still loading
        this.polling = this.loadAllTenants().catch((error: unknown) => this.deps.log.warn({ err: error }, 'looking for functions written by other processes failed'))
          .finally(() => { this.polling = undefined; });
      }, TARGET_INDEX_TTL_MS);
      this.poll.unref();
    }
  }

  private async loadAllTenants(): Promise<void> {
    for (const tenant of await this.index.allTenants()) {
      if (this.closed) return;
      await this.index.reload(tenant).catch((error: unknown) => this.deps.log.warn({ err: error, tenant }, 'loading the functions that keep targets failed'));
    }
  }

  /** After this process wrote functions of `tenant`: reloads them, and what changed is computed afresh. */
  functionsWritten(tenant: string): void {
    this.index.invalidate(tenant);
    if (this.started && !this.closed) void this.index.reload(tenant).catch((error: unknown) => this.deps.log.warn({ err: error, tenant }, 'reloading the functions that keep targets failed'));
  }

  /** The commit listener: marks the spans the batch changed. */
  committed(batch: CommittedBatch): void {
    if (this.closed) return;
    // Every request a gateway sends passes here: its spans are kept as numbers (the batch's
    // memory goes back once it is inserted) and made objects only when some function of the
    // tenant may read them. As objects they were ~5% of all a gateway request allocated.
    const flat = committedSpans(batch);
    const n = flat.length;
    if (n === 0) return;
    this.markSpans(batch.tenant, () => {
      const spans: ChangedSpan[] = [];
      for (let at = 0; at < n; at += 3) spans.push({ seriesId: flat[at] as number, first: flat[at + 1] as number, last: flat[at + 2] as number });
      return spans;
    });
  }

  /** After points were deleted: marks the deleted ranges. */
  deleted(tenant: string, ranges: readonly DeleteRange[]): void {
    if (this.closed) return;
    this.markSpans(tenant, () => ranges.map((r): ChangedSpan => ({
      seriesId: r.seriesId, first: r.inclusiveBeginMs ?? TIMESTAMP_MS_MIN, last: (r.exclusiveEndMs ?? TIMESTAMP_MS_MAX + 1) - 1,
    })));
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.poll);
    await this.polling;
    for (const work of this.works.values()) clearTimeout(work.timer);
    this.queue.length = 0;
    while (this.running > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  /** `changedSpans` is called only when the tenant has functions (the spans may be many). */
  private markSpans(tenant: string, changedSpans: () => readonly ChangedSpan[]): void {
    const at = Date.now();
    this.index.of(tenant).then((targets) => {
      if (!targets.unresolved && targets.byInput.size === 0) return;
      const spans = changedSpans();
      if (spans.length === 0) return;
      if (targets.unresolved) this.index.maybeNewInputs(tenant, spans.map((s) => s.seriesId));
      if (targets.byInput.size === 0) return;
      for (const span of spans) {
        for (const fn of targets.byInput.get(span.seriesId) ?? []) this.mark(tenant, fn, at, span);
      }
    }).catch((error: unknown) => this.deps.log.warn({ err: error, tenant }, 'finding the functions that read changed series failed'));
  }

  private changed(tenant: string, changed: readonly KeptFunction[], removed: readonly number[]): void {
    const at = Date.now();
    for (const fn of changed) this.mark(tenant, fn, at, 'whole');
    for (const id of removed) {
      const work = this.works.get(`${tenant}/${id}`);
      if (!work) continue;
      work.removed = true;
      clearTimeout(work.timer);
      if (work.state !== 'running') this.forget(work);
    }
  }

  private mark(tenant: string, fn: KeptFunction, at: number, change: ChangedSpan | 'whole'): void {
    if (this.closed || !this.started) return;
    const key = `${tenant}/${fn.id}`;
    let work = this.works.get(key);
    if (!work) {
      work = { tenant, functionId: fn.id, spans: [], whole: false, stopped: fn.targetStatus?.['status'] === 'stopped', reason: fn.targetStatus?.['reason'] as string | undefined, state: 'idle', retryMs: RETRY_MS_MIN, removed: false, restUntil: 0 };
      this.works.set(key, work);
    }
    work.removed = false;
    if (change === 'whole') work.whole = true;
    else if (!work.whole) addSpan(work.spans, change);
    if (work.state === 'idle') this.wait(work, Math.max(TARGET_DEBOUNCE_MS, work.restUntil - at));
  }

  private wait(work: Work, delayMs: number): void {
    work.state = 'waiting';
    work.timer = setTimeout(() => {
      work.timer = undefined;
      work.state = 'queued';
      this.queue.push(work);
      this.next();
    }, delayMs);
  }

  private next(): void {
    while (!this.closed && this.running < TARGET_RECOMPUTES_MAX && this.queue.length > 0) {
      const work = this.queue.shift() as Work;
      this.running++;
      work.state = 'running';
      void this.run(work).finally(() => {
        this.running--;
        this.next();
      });
    }
  }

  private async run(work: Work): Promise<void> {
    const { spans } = work;
    const whole = work.whole || work.stopped === true;
    work.spans = [];
    work.whole = false;
    const fn = work.removed ? undefined : (await this.index.of(work.tenant).catch(() => undefined))?.functions.get(work.functionId);
    if (!fn) return this.forget(work);
    const started = Date.now();
    try {
      const access = await accessOfRun(this.deps.db, work.tenant, fn.runGrants);
      const windows = whole ? [WHOLE_HISTORY] : await reachedWindows(this.deps, access, fn, spans);
      const reachMs = Date.now() - started;
      const report = await recomputeTarget(this.recomputeDeps, access, fn, windows);
      const tookMs = Date.now() - started;
      if (tookMs > SLOW_RECOMPUTE_MS) {
        this.deps.log.info({ tenant: work.tenant, function: fn.externalId, ms: { total: tookMs, reach: reachMs, ...mapValues(report.ms, Math.round) }, windows: windows.length, whole, written: report.written, deleted: report.deleted }, 'a slow recompute of a function\'s target');
      }
      work.retryMs = RETRY_MS_MIN;
      if (work.stopped !== false) await this.setStatus(work, null);
    } catch (error) {
      if (stopsRecompute(error) && !this.closed) {
        const reason = error instanceof Error ? error.message : String(error);
        await this.setStatus(work, { status: 'stopped', reason, since: Date.now() } satisfies TargetStopped);
      } else if (!this.closed) {
        this.deps.log.warn({ err: error, tenant: work.tenant, function: fn.externalId }, 'recomputing a function\'s target failed; retrying');
        // The changes stay marked; the retry waits longer each time.
        if (whole) work.whole = true;
        for (const span of spans) addSpan(work.spans, span);
        const delay = work.retryMs;
        work.retryMs = Math.min(RETRY_MS_MAX, work.retryMs * 2);
        return this.wait(work, delay);
      }
    }
    const ended = Date.now();
    work.restUntil = ended + (ended - started) * (1 - DUTY_SHARE) / DUTY_SHARE;
    if (work.whole || work.spans.length > 0) this.wait(work, Math.max(TARGET_DEBOUNCE_MS, work.restUntil - ended));
    else work.state = 'idle';
  }

  /** Writes the function record's `targetStatus` when it changes (stopped with why, or null). */
  private async setStatus(work: Work, status: TargetStopped | null): Promise<void> {
    const stopped = status !== null;
    if (work.stopped === stopped && work.reason === status?.reason) return;
    try {
      await this.deps.db.query(SET_TARGET_STATUS, [work.tenant, work.functionId, status === null ? null : JSON.stringify(status)]);
      work.stopped = stopped;
      work.reason = status?.reason;
    } catch (error) {
      this.deps.log.warn({ err: error, tenant: work.tenant }, 'recording a function\'s target status failed');
    }
  }

  private forget(work: Work): void {
    clearTimeout(work.timer);
    work.state = 'idle';
    this.works.delete(`${work.tenant}/${work.functionId}`);
  }
}

function mapValues<T extends Record<string, number>>(values: T, f: (x: number) => number): T {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, f(v)])) as T;
}

/**
 * Adds a span to a function's list: joined with an overlapping or touching one of the same
 * series, or, past SPANS_PER_SERIES spans of the series, with the nearest. A joined span
 * reaches everything between its parts, which is recomputed too: more work for one recompute,
 * but concurrent writers' interleaved batches (each a span of its own, gaps between them)
 * stay a few neighbour reads instead of hundreds.
 */
function addSpan(spans: ChangedSpan[], span: ChangedSpan): void {
  const same = spans.filter((s) => s.seriesId === span.seriesId);
  const overlapping = same.find((s) => span.first <= s.last + 1 && span.last >= s.first - 1);
  const into = overlapping ?? (same.length >= SPANS_PER_SERIES ? nearest(same, span) : undefined);
  if (!into) {
    spans.push({ ...span });
    return;
  }
  into.first = Math.min(into.first, span.first);
  into.last = Math.max(into.last, span.last);
  // The widened span may now overlap others of its series: join them too.
  for (let i = spans.length - 1; i >= 0; i--) {
    const other = spans[i] as ChangedSpan;
    if (other === into || other.seriesId !== into.seriesId || other.first > into.last + 1 || other.last < into.first - 1) continue;
    into.first = Math.min(into.first, other.first);
    into.last = Math.max(into.last, other.last);
    spans.splice(i, 1);
  }
}

function nearest(spans: readonly ChangedSpan[], span: ChangedSpan): ChangedSpan {
  const gap = (s: ChangedSpan) => Math.max(0, s.first - span.last, span.first - s.last);
  return spans.reduce((best, s) => (gap(s) < gap(best) ? s : best));
}
