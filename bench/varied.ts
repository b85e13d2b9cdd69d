// Varied data point queries (TSBS-style): every pick draws seeded random series and
// windows and no pick repeats within a run, so no result cache can answer one from an earlier
// one. Each system gets the same picks (same seed). Every answer is checked against the
// generator (workload.ts).
import { performance } from 'node:perf_hooks';
import { mulberry32 } from './prng.ts';
import { AVERAGE_TOLERANCE, checkBuckets, close, type AnsweredBucket } from './queries.ts';
import { median, quantile, summarize, type TimingSummary } from './stats.ts';
import type { Workload } from './workload.ts';

export type VariedName = 'v1' | 'v2' | 'v3' | 'v4' | 'v5';
export const VARIED_NAMES: VariedName[] = ['v1', 'v2', 'v3', 'v4', 'v5'];

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

export interface VariedSize {
  /** V1: one series, this window, 1m AVG/MIN/MAX/COUNT. */
  v1WindowMs: number;
  /** V2: this many series, this window, hourly AVG. */
  v2SeriesCount: number;
  v2WindowMs: number;
  /** V3: one series, this many raw points. */
  v3Points: number;
  /** V4: latest point of this many series. */
  v4SeriesCount: number;
  /**
   * Picks run before the measured ones (new picks too, checked, reported apart): a service on a
   * JIT runtime runs a read path's code for the first time in them. Our V1 over 30 picks after 3
   * warm-up read p90 1.4-2.7x VictoriaMetrics' across runs, its server times falling from 2-6 ms
   * over the first dozen picks to under 1 ms; after 100 warm-up picks 0.8-0.9x (runs of
   * 2026-11-25). The rows measure the steady state a running service serves; the warm-up picks'
   * own median and p90 go in the notes, so the first reads after a start stay on record.
   */
  warmupCount: number;
  pickCount: number;
}

export const VARIED_SIZES: Record<'full' | 'small' | 'tiny' | 'large', VariedSize> = {
  full: { v1WindowMs: 6 * HOUR_MS, v2SeriesCount: 10, v2WindowMs: DAY_MS, v3Points: 10_000, v4SeriesCount: 10, warmupCount: 30, pickCount: 30 },
  large: { v1WindowMs: 6 * HOUR_MS, v2SeriesCount: 10, v2WindowMs: DAY_MS, v3Points: 10_000, v4SeriesCount: 10, warmupCount: 30, pickCount: 30 },
  small: { v1WindowMs: 6 * HOUR_MS, v2SeriesCount: 10, v2WindowMs: DAY_MS, v3Points: 10_000, v4SeriesCount: 10, warmupCount: 30, pickCount: 30 },
  tiny: { v1WindowMs: HOUR_MS, v2SeriesCount: 3, v2WindowMs: HOUR_MS, v3Points: 1_000, v4SeriesCount: 3, warmupCount: 1, pickCount: 5 },
};

function span(ms: number): string {
  return ms % DAY_MS === 0 ? `${ms / DAY_MS} d` : ms % HOUR_MS === 0 ? `${ms / HOUR_MS} h` : `${ms / MINUTE_MS} min`;
}

export function variedLabels(size: VariedSize): Record<VariedName, string> {
  return {
    v1: `V1 1 random series, random ${span(size.v1WindowMs)}, 1m avg/min/max/count`,
    v2: `V2 ${size.v2SeriesCount} random series, random ${span(size.v2WindowMs)}, hourly avg`,
    v3: `V3 1 random series, ${size.v3Points} raw points from a random start`,
    v4: `V4 latest of ${size.v4SeriesCount} random series`,
    v5: 'V5 all series, whole range, daily avg',
  };
}

/** A series as a system names it, and the generator's series number behind its values. */
export interface SeriesRef {
  externalId: string;
  gen: number;
}

/** Bucket widths of the aggregate picks. */
export const VARIED_BUCKET_MS = { v1: MINUTE_MS, v2: HOUR_MS, v5: DAY_MS } as const;

export type VariedPick =
  | { query: 'v1'; series: SeriesRef; fromMs: number; toMs: number }
  | { query: 'v2'; series: SeriesRef[]; fromMs: number; toMs: number }
  | { query: 'v3'; series: SeriesRef; first: number; count: number; fromMs: number }
  | { query: 'v4'; series: SeriesRef[]; last: number }
  /** `startJitterMs`: added to the request's start where a system allows (it rounds down to the day). */
  | { query: 'v5'; series: SeriesRef[]; fromMs: number; toMs: number; startJitterMs: number };

export type VariedAnswer =
  | { query: 'v1'; buckets: AnsweredBucket[] }
  | { query: 'v2' | 'v5'; series: Map<string, AnsweredBucket[]> }
  | { query: 'v3'; timestamps: number[]; values: number[] }
  | { query: 'v4'; latest: Map<string, { timestamp?: number; value: number }> };

/** What the picks draw from: series 0..seriesCount-1 with pointsPerSeries points from the workload's start. */
export interface PickSpace {
  seriesCount: number;
  pointsPerSeries: number;
  ref: (series: number) => SeriesRef;
}

export class VariedPicker {
  readonly #random: () => number;
  readonly #seen = new Set<string>();

  constructor(readonly workload: Workload, readonly size: VariedSize, readonly seed: number, readonly space: PickSpace = {
    seriesCount: workload.size.seriesCount, pointsPerSeries: workload.size.pointsPerSeries, ref: (s) => ({ externalId: workload.externalId(s), gen: s }),
  }) {
    this.#random = mulberry32(seed);
  }

  /** A pick of `name` not drawn before by this picker; throws when the space has none left. */
  pick(name: VariedName): VariedPick {
    for (let attempt = 0; attempt < 1000; attempt++) {
      const pick = this.#draw(name);
      const key = JSON.stringify(pick);
      if (this.#seen.has(key)) continue;
      this.#seen.add(key);
      return pick;
    }
    throw new Error(`varied ${name}: no new pick left in ${this.space.seriesCount} series x ${this.space.pointsPerSeries} points`);
  }

  #int(n: number): number {
    return Math.floor(this.#random() * n);
  }

  /** `count` distinct series in random order (partial Fisher-Yates). */
  #series(count: number): SeriesRef[] {
    const all = Array.from({ length: this.space.seriesCount }, (_, s) => s);
    const n = Math.min(count, all.length);
    for (let k = 0; k < n; k++) {
      const j = k + this.#int(all.length - k);
      [all[k], all[j]] = [all[j] as number, all[k] as number];
    }
    return all.slice(0, n).map(this.space.ref);
  }

  /** A window of `windowMs` aligned to `alignMs` inside the data (the data starts at UTC midnight). */
  #window(windowMs: number, alignMs: number): { fromMs: number; toMs: number } {
    const spanMs = this.space.pointsPerSeries * 1000;
    const positions = Math.max(1, Math.floor((spanMs - windowMs) / alignMs) + 1);
    const fromMs = this.workload.startMs + this.#int(positions) * alignMs;
    return { fromMs, toMs: fromMs + windowMs };
  }

  #draw(name: VariedName): VariedPick {
    const { size, space } = this;
    switch (name) {
      case 'v1':
        return { query: 'v1', series: space.ref(this.#int(space.seriesCount)), ...this.#window(size.v1WindowMs, MINUTE_MS) };
      case 'v2':
        return { query: 'v2', series: this.#series(size.v2SeriesCount), ...this.#window(size.v2WindowMs, HOUR_MS) };
      case 'v3': {
        const count = Math.min(size.v3Points, space.pointsPerSeries);
        const first = this.#int(space.pointsPerSeries - count + 1);
        return { query: 'v3', series: space.ref(this.#int(space.seriesCount)), first, count, fromMs: this.workload.timestamp(first) };
      }
      case 'v4':
        return { query: 'v4', series: this.#series(size.v4SeriesCount), last: space.pointsPerSeries - 1 };
      case 'v5': {
        const fromMs = Math.floor(this.workload.startMs / DAY_MS) * DAY_MS;
        const toMs = Math.ceil((this.workload.startMs + space.pointsPerSeries * 1000) / DAY_MS) * DAY_MS;
        return { query: 'v5', series: this.#series(space.seriesCount), fromMs, toMs, startJitterMs: this.#int(DAY_MS) };
      }
    }
  }
}

/** Undefined when the answer is right for the pick; otherwise what is wrong. */
export function checkVaried(workload: Workload, pick: VariedPick, answer: VariedAnswer, tolerance = AVERAGE_TOLERANCE): string | undefined {
  if (answer.query !== pick.query) return `${pick.query}: answered as ${answer.query}`;
  switch (pick.query) {
    case 'v1': {
      if (answer.query !== 'v1') return 'v1: no buckets';
      return checkBuckets(`V1 ${pick.series.externalId} from ${pick.fromMs}`, workload.bucketsIn(pick.series.gen, MINUTE_MS, pick.fromMs, pick.toMs), answer.buckets, ['average', 'min', 'max', 'count'], tolerance);
    }
    case 'v2':
    case 'v5': {
      if (answer.query !== 'v2' && answer.query !== 'v5') return `${pick.query}: no series`;
      const bucketMs = VARIED_BUCKET_MS[pick.query];
      if (answer.series.size !== pick.series.length) return `${pick.query.toUpperCase()} answered ${answer.series.size} series, expected ${pick.series.length}`;
      for (const ref of pick.series) {
        const got = answer.series.get(ref.externalId);
        if (!got) return `${pick.query.toUpperCase()} misses ${ref.externalId}`;
        const problem = checkBuckets(`${pick.query.toUpperCase()} ${ref.externalId} from ${pick.fromMs}`, workload.bucketsIn(ref.gen, bucketMs, pick.fromMs, pick.toMs), got, ['average'], tolerance);
        if (problem) return problem;
      }
      return undefined;
    }
    case 'v3': {
      if (answer.query !== 'v3') return 'v3: no points';
      if (answer.timestamps.length !== pick.count || answer.values.length !== pick.count) return `V3 ${pick.series.externalId} from point ${pick.first}: ${answer.timestamps.length} points, expected ${pick.count}`;
      const values = workload.values(pick.series.gen);
      for (let k = 0; k < pick.count; k++) {
        const i = pick.first + k;
        if (answer.timestamps[k] !== workload.timestamp(i)) return `V3 ${pick.series.externalId} point ${i}: timestamp ${answer.timestamps[k]}, expected ${workload.timestamp(i)}`;
        if (!close(answer.values[k] as number, values[i] as number, tolerance)) return `V3 ${pick.series.externalId} point ${i}: value ${answer.values[k]}, expected ${values[i]}`;
      }
      return undefined;
    }
    case 'v4': {
      if (answer.query !== 'v4') return 'v4: no latest';
      if (answer.latest.size !== pick.series.length) return `V4 answered ${answer.latest.size} series, expected ${pick.series.length}`;
      for (const ref of pick.series) {
        const got = answer.latest.get(ref.externalId);
        if (!got) return `V4 misses ${ref.externalId}`;
        // Values of the last point only: series here may be many and long (no cached column).
        const want = Number(workload.valueText(ref.gen, pick.last));
        if (got.timestamp !== undefined && got.timestamp !== workload.timestamp(pick.last)) return `V4 ${ref.externalId}: timestamp ${got.timestamp}, expected ${workload.timestamp(pick.last)}`;
        if (!close(got.value, want, tolerance)) return `V4 ${ref.externalId}: value ${got.value}, expected ${want}`;
      }
      return undefined;
    }
  }
}

export type VariedSummary = TimingSummary & {
  p90Ms: number;
  /** The warm-up picks' own median and p90 (the first reads of the path after a start). */
  warmup?: { medianMs: number; p90Ms: number; count: number };
  problem?: string;
  /** A peer's first wrong answer that was right when asked again after its settling step (timeVaried's reaskAfter). */
  reasked?: string;
};

export type VariedQuery = (pick: VariedPick) => Promise<{ elapsedMs: number; answer: VariedAnswer }>;

/**
 * warmupCount + pickCount picks of `name`, each new; median, p90 and p99 of the measured ones,
 * median and p90 of the warm-up. `reaskAfter`, for a peer only: its settling step (a flush). A
 * wrong answer is asked again once after it and counts as wrong only if it is wrong again; the
 * first is kept in `reasked` (VictoriaMetrics 1.79 once answered no series for V4 right after
 * a 100,000-series load and its flush, a search racing its index). Never given for ours.
 */
export async function timeVaried(query: VariedQuery, picker: VariedPicker, name: VariedName, opts: { warmupCount: number; pickCount: number; tolerance?: number; reaskAfter?: () => Promise<void> }): Promise<VariedSummary> {
  const samples: number[] = [];
  const warmup: number[] = [];
  let problem: string | undefined;
  let reasked: string | undefined;
  for (let i = 0; i < opts.warmupCount + opts.pickCount; i++) {
    const pick = picker.pick(name);
    let { elapsedMs, answer } = await query(pick);
    let wrong = checkVaried(picker.workload, pick, answer, opts.tolerance);
    if (wrong && opts.reaskAfter && reasked === undefined) {
      await opts.reaskAfter();
      ({ elapsedMs, answer } = await query(pick));
      const again = checkVaried(picker.workload, pick, answer, opts.tolerance);
      if (!again) reasked = wrong;
      wrong = again;
    }
    problem ??= wrong;
    (i < opts.warmupCount ? warmup : samples).push(elapsedMs);
  }
  return {
    ...summarize(samples),
    p90Ms: quantile(samples, 0.9),
    ...(warmup.length > 0 ? { warmup: { medianMs: median(warmup), p90Ms: quantile(warmup, 0.9), count: warmup.length } } : {}),
    ...(problem ? { problem } : {}),
    ...(reasked ? { reasked } : {}),
  };
}

/**
 * Runs `query` on fresh picks every `everyMs` (from the start of one to the start of the next,
 * never two at once) until `done` is set; the latencies and the first wrong answer.
 */
export async function variedEvery(query: VariedQuery, picker: VariedPicker, name: VariedName, everyMs: number, done: { value: boolean }, tolerance?: number): Promise<{ samples: number[]; problem?: string }> {
  const samples: number[] = [];
  let problem: string | undefined;
  while (!done.value) {
    const started = performance.now();
    const pick = picker.pick(name);
    const { elapsedMs, answer } = await query(pick);
    problem ??= checkVaried(picker.workload, pick, answer, tolerance);
    samples.push(elapsedMs);
    const wait = everyMs - (performance.now() - started);
    if (wait > 0 && !done.value) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  return { samples, ...(problem ? { problem } : {}) };
}
