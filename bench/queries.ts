// The four data point queries Q1-Q4 (bench/README.md) in a system-neutral form: what each system's adapter
// returns, and the checks of those answers against values recomputed from the workload.
import { Q1_SERIES, Q3_POINTS, Q3_SERIES, type Bucket, type Workload } from './workload.ts';

export type QueryName = 'q1' | 'q2' | 'q3' | 'q4';

export const QUERY_LABELS: Record<QueryName, string> = {
  q1: 'Q1 1 series, hourly avg/min/max/count',
  q2: 'Q2 all series, daily avg',
  q3: 'Q3 raw points of 1 series',
  q4: 'Q4 latest of all series',
};

/** A bucket as answered; fields a system did not return stay undefined. */
export type AnsweredBucket = { timestamp: number } & Partial<Pick<Bucket, 'average' | 'min' | 'max' | 'count'>>;

export type QueryAnswer =
  | { query: 'q1'; buckets: AnsweredBucket[] }
  | { query: 'q2'; series: Map<string, AnsweredBucket[]> }
  | { query: 'q3'; timestamps: number[]; values: number[] }
  | { query: 'q4'; latest: Map<string, { timestamp?: number; value: number }> };

/** How many raw points Q3 asks for. */
export function q3PointCount(workload: Workload): number {
  return Math.min(Q3_POINTS, workload.size.pointsPerSeries);
}

/** Relative tolerance for averages (summation order differs between systems). */
export const AVERAGE_TOLERANCE = 1e-9;
/** Peers store floats their own way (VictoriaMetrics as decimal mantissas): a looser bound. */
export const PEER_TOLERANCE = 1e-6;

/** Undefined when the answer is right; otherwise what is wrong, for the report. */
export function checkAnswer(workload: Workload, answer: QueryAnswer, tolerance = AVERAGE_TOLERANCE): string | undefined {
  switch (answer.query) {
    case 'q1':
      return checkBuckets(`Q1 ${workload.externalId(Q1_SERIES)}`, workload.hourly(Q1_SERIES), answer.buckets, ['average', 'min', 'max', 'count'], tolerance);
    case 'q2': {
      if (answer.series.size !== workload.size.seriesCount) return `Q2 answered ${answer.series.size} series, expected ${workload.size.seriesCount}`;
      for (let s = 0; s < workload.size.seriesCount; s++) {
        const got = answer.series.get(workload.externalId(s));
        if (!got) return `Q2 misses ${workload.externalId(s)}`;
        const problem = checkBuckets(`Q2 ${workload.externalId(s)}`, workload.daily(s), got, ['average'], tolerance);
        if (problem) return problem;
      }
      return undefined;
    }
    case 'q3': {
      const want = q3PointCount(workload);
      if (answer.timestamps.length !== want || answer.values.length !== want) return `Q3 answered ${answer.timestamps.length} points, expected ${want}`;
      const values = workload.values(Q3_SERIES);
      for (let i = 0; i < want; i++) {
        if (answer.timestamps[i] !== workload.timestamp(i)) return `Q3 point ${i}: timestamp ${answer.timestamps[i]}, expected ${workload.timestamp(i)}`;
        if (!close(answer.values[i] as number, values[i] as number, tolerance)) return `Q3 point ${i}: value ${answer.values[i]}, expected ${values[i]}`;
      }
      return undefined;
    }
    case 'q4': {
      if (answer.latest.size !== workload.size.seriesCount) return `Q4 answered ${answer.latest.size} series, expected ${workload.size.seriesCount}`;
      const last = workload.size.pointsPerSeries - 1;
      for (let s = 0; s < workload.size.seriesCount; s++) {
        const got = answer.latest.get(workload.externalId(s));
        const want = workload.values(s)[last] as number;
        if (!got) return `Q4 misses ${workload.externalId(s)}`;
        if (got.timestamp !== undefined && got.timestamp !== workload.timestamp(last)) return `Q4 ${workload.externalId(s)}: timestamp ${got.timestamp}, expected ${workload.timestamp(last)}`;
        if (!close(got.value, want, tolerance)) return `Q4 ${workload.externalId(s)}: value ${got.value}, expected ${want}`;
      }
      return undefined;
    }
  }
}

export function checkBuckets(what: string, want: Bucket[], got: AnsweredBucket[], fields: ('average' | 'min' | 'max' | 'count')[], tolerance: number): string | undefined {
  if (got.length !== want.length) return `${what}: ${got.length} buckets, expected ${want.length}`;
  for (let k = 0; k < want.length; k++) {
    const w = want[k] as Bucket;
    const g = got[k] as AnsweredBucket;
    if (g.timestamp !== w.timestamp) return `${what} bucket ${k}: timestamp ${g.timestamp}, expected ${w.timestamp}`;
    for (const field of fields) {
      const value = g[field];
      if (value === undefined) return `${what} bucket ${k}: no ${field}`;
      if (!close(value, w[field], field === 'count' ? 0 : tolerance)) return `${what} bucket ${k}: ${field} ${value}, expected ${w[field]}`;
    }
  }
  return undefined;
}

export function close(got: number, want: number, tolerance: number): boolean {
  if (got === want) return true;
  return Math.abs(got - want) <= tolerance * Math.max(1, Math.abs(want));
}
