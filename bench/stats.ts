// Summary statistics of repeated timings: median and p99 (nearest rank), never a single run
// (STYLE §12). Pure functions over plain arrays.

/** The q-quantile (0..1) by nearest rank over a copy of `samples`; NaN when empty. */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1] as number;
}

export function median(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export interface TimingSummary {
  medianMs: number;
  p99Ms: number;
  minMs: number;
  maxMs: number;
  runCount: number;
}

export function summarize(samplesMs: readonly number[]): TimingSummary {
  return {
    medianMs: median(samplesMs),
    p99Ms: quantile(samplesMs, 0.99),
    minMs: samplesMs.length ? Math.min(...samplesMs) : Number.NaN,
    maxMs: samplesMs.length ? Math.max(...samplesMs) : Number.NaN,
    runCount: samplesMs.length,
  };
}

/**
 * Runs `once` warmupCount times unmeasured, then runCount times measured, one after the other.
 * `once` returns its own duration in ms (the caller times only what it means to measure, so
 * answer checks and JSON parsing on the client stay out of the figure).
 */
export async function timeRuns(
  opts: { warmupCount: number; runCount: number },
  once: (runIndex: number) => Promise<number>,
): Promise<TimingSummary> {
  for (let i = 0; i < opts.warmupCount; i++) await once(-1 - i);
  const samples: number[] = [];
  for (let i = 0; i < opts.runCount; i++) samples.push(await once(i));
  return summarize(samples);
}
