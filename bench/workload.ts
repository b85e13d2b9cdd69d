// The data point workload: S series x P points at 1 s spacing, values that look like
// sensor readings (a daily cycle plus noise, three decimals), all from a stateless hash of
// (series, point index), so any system's answer can be recomputed exactly from here.
import { hashUniform } from './prng.ts';

export interface DatapointSize {
  seriesCount: number;
  pointsPerSeries: number;
  /** Points per ingest request (each request carries one series' slice). */
  requestPoints: number;
  senderCount: number;
  warmupCount: number;
  runCount: number;
  /**
   * Load in two turns, each timed apart: the first half of the series as the system's bulk
   * requests, then the second half, on ours as Arrow requests of `seriesPerRequest` series x
   * `pointsPerItem` points (the others: their bulk requests again).
   */
  arrowHalf?: { seriesPerRequest: number; pointsPerItem: number };
  /** Record the rate of the first this many points (the full size's count, on a large load). */
  markPointCount?: number;
}

export const DATAPOINT_SIZES: Record<'full' | 'small' | 'tiny' | 'large', DatapointSize> = {
  full: { seriesCount: 100, pointsPerSeries: 100_000, requestPoints: 100_000, senderCount: 2, warmupCount: 2, runCount: 10 },
  /** 100M points: ten times full, half through JSON then half through Arrow (ours). */
  large: {
    seriesCount: 1_000, pointsPerSeries: 100_000, requestPoints: 100_000, senderCount: 2, warmupCount: 2, runCount: 10,
    arrowHalf: { seriesPerRequest: 10, pointsPerItem: 10_000 }, markPointCount: 10_000_000,
  },
  small: { seriesCount: 20, pointsPerSeries: 100_000, requestPoints: 100_000, senderCount: 2, warmupCount: 2, runCount: 10 },
  /** Loads as large does (two turns, the second Arrow on ours; the first stretch's rate), so that path cannot rot. */
  tiny: { seriesCount: 6, pointsPerSeries: 10_000, requestPoints: 5_000, senderCount: 2, warmupCount: 1, runCount: 2, arrowHalf: { seriesPerRequest: 3, pointsPerItem: 5_000 }, markPointCount: 10_000 },
};

export const SPACING_MS = 1000;
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

export class Workload {
  /** First timestamp: UTC midnight two days ago, so every peer's default retention keeps it. */
  readonly startMs: number;
  /** One past the last timestamp. */
  readonly endMs: number;
  readonly #values = new Map<number, Float64Array>();

  constructor(readonly size: DatapointSize, nowMs = Date.now()) {
    this.startMs = Math.floor(nowMs / DAY_MS) * DAY_MS - 2 * DAY_MS;
    this.endMs = this.startMs + size.pointsPerSeries * SPACING_MS;
  }

  get pointCount(): number {
    return this.size.seriesCount * this.size.pointsPerSeries;
  }

  externalId(series: number): string {
    return `bench-dp-${String(series).padStart(4, '0')}`;
  }

  timestamp(pointIndex: number): number {
    return this.startMs + pointIndex * SPACING_MS;
  }

  /** The value as sent: a decimal string with three decimals. */
  valueText(series: number, pointIndex: number): string {
    const base = 20 + 15 * (series % 7);
    const amplitude = 2 + (series % 5);
    const phase = (series % 11) / 11 * 2 * Math.PI;
    const cycle = Math.sin((2 * Math.PI * pointIndex * SPACING_MS) / DAY_MS + phase);
    const noise = hashUniform(series, pointIndex) + hashUniform(series + 0x5bd1, pointIndex) - 1;
    return (base + amplitude * cycle + 0.25 * noise).toFixed(3);
  }

  /** Every value of one series as the double a parser makes of its text (cached). */
  values(series: number): Float64Array {
    let values = this.#values.get(series);
    if (!values) {
      values = new Float64Array(this.size.pointsPerSeries);
      for (let i = 0; i < values.length; i++) values[i] = Number(this.valueText(series, i));
      this.#values.set(series, values);
    }
    return values;
  }

  /** Requests as [series, firstPointIndex, pointCount], series-major. */
  requests(): [number, number, number][] {
    const out: [number, number, number][] = [];
    for (let s = 0; s < this.size.seriesCount; s++) {
      for (let from = 0; from < this.size.pointsPerSeries; from += this.size.requestPoints) {
        out.push([s, from, Math.min(this.size.requestPoints, this.size.pointsPerSeries - from)]);
      }
    }
    return out;
  }

  /** Aggregates of one series over UTC-aligned buckets of `bucketMs` (1h, 1d). */
  buckets(series: number, bucketMs: number): Bucket[] {
    return this.bucketsIn(series, bucketMs, this.startMs, this.endMs);
  }

  /**
   * Aggregates of one series over the UTC-aligned buckets of `bucketMs` that lie in
   * [fromMs, toMs) (both bucket-aligned): the answer to a windowed aggregate query.
   */
  bucketsIn(series: number, bucketMs: number, fromMs: number, toMs: number): Bucket[] {
    const values = this.values(series);
    const first = Math.max(0, Math.ceil((fromMs - this.startMs) / SPACING_MS));
    const last = Math.min(values.length, Math.ceil((toMs - this.startMs) / SPACING_MS));
    const out: Bucket[] = [];
    let current: Bucket | undefined;
    for (let i = first; i < last; i++) {
      const bucketStart = Math.floor(this.timestamp(i) / bucketMs) * bucketMs;
      const v = values[i] as number;
      if (!current || current.timestamp !== bucketStart) {
        current = { timestamp: bucketStart, average: 0, min: v, max: v, count: 0, sum: 0 };
        out.push(current);
      }
      current.count++;
      current.sum += v;
      if (v < current.min) current.min = v;
      if (v > current.max) current.max = v;
    }
    for (const b of out) b.average = b.sum / b.count;
    return out;
  }

  hourly(series: number): Bucket[] {
    return this.buckets(series, HOUR_MS);
  }

  daily(series: number): Bucket[] {
    return this.buckets(series, DAY_MS);
  }

  describe(): string {
    const s = this.size;
    const turns = s.arrowHalf ? ` (in two turns timed apart: the first half of the series so, then the second half, on ours as Arrow requests of ${s.arrowHalf.seriesPerRequest} series x ${s.arrowHalf.pointsPerItem} points)` : '';
    return `${s.seriesCount} series x ${s.pointsPerSeries} points at 1 s spacing (${this.pointCount} points), ${s.requestPoints}-point requests from ${s.senderCount} concurrent senders${turns}; queries median of ${s.runCount} after ${s.warmupCount} warm-up`;
  }
}

export interface Bucket {
  /** Bucket start, epoch ms UTC. */
  timestamp: number;
  average: number;
  min: number;
  max: number;
  count: number;
  sum: number;
}

/** The series the single-series queries read: Q1 and Q3 use different ones. */
export const Q1_SERIES = 0;
export const Q3_SERIES = 1;
/** Q3 reads this many raw points (at most the series' length). */
export const Q3_POINTS = 100_000;
