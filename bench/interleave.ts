// Interleaved timing of two services (bench/compare.ts): each round sends one request to both,
// the order alternating, so neither side always meets the machine's state first; and the
// summary of the two sides' times. Pure: tested with fake sends (compare.test.ts).
import { median, quantile } from './stats.ts';

export type SideName = 'A' | 'B';

/**
 * Round i's order: A then B when i is even, B then A when odd, so neither side always goes
 * first (first after the client's own work between rounds, or right behind the other's answer).
 */
export function roundOrder(i: number): readonly [SideName, SideName] {
  return i % 2 === 0 ? ['A', 'B'] : ['B', 'A'];
}

export interface RoundAnswer {
  elapsedMs: number;
  /** Items in the answer, compared between the sides. */
  items: number;
}

/**
 * warmupCount + runCount rounds; each round prepares one request and sends it to both sides in
 * roundOrder. Returns the measured times per side (warm-up rounds left out); `check` sees every
 * round's item counts, warm-ups included.
 */
export async function interleave<T>(
  counts: { warmupCount: number; runCount: number },
  prepare: (round: number) => T,
  send: (side: SideName, request: T) => Promise<RoundAnswer>,
  check: (round: number, request: T, items: Record<SideName, number>) => void,
): Promise<Record<SideName, number[]>> {
  const samples: Record<SideName, number[]> = { A: [], B: [] };
  for (let i = 0; i < counts.warmupCount + counts.runCount; i++) {
    const request = prepare(i);
    const items: Record<SideName, number> = { A: Number.NaN, B: Number.NaN };
    for (const side of roundOrder(i)) {
      const answer = await send(side, request);
      items[side] = answer.items;
      if (i >= counts.warmupCount) samples[side].push(answer.elapsedMs);
    }
    check(i, request, items);
  }
  return samples;
}

export interface ShapeSummary {
  shape: string;
  runCount: number;
  a: { medianMs: number; p90Ms: number };
  b: { medianMs: number; p90Ms: number };
  /** B's median over A's: below 1, this tree is faster. */
  ratio: number;
}

export function summarizeShape(shape: string, samples: Record<SideName, readonly number[]>): ShapeSummary {
  const a = { medianMs: median(samples.A), p90Ms: quantile(samples.A, 0.9) };
  const b = { medianMs: median(samples.B), p90Ms: quantile(samples.B, 0.9) };
  return { shape, runCount: samples.A.length, a, b, ratio: b.medianMs / a.medianMs };
}

export function compareTableRows(summaries: readonly ShapeSummary[]): string[][] {
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  return [
    ['shape', 'A median', 'A p90', 'B median', 'B p90', 'B/A'],
    ...summaries.map((s) => [s.shape, ms(s.a.medianMs), ms(s.a.p90Ms), ms(s.b.medianMs), ms(s.b.p90Ms), s.ratio.toFixed(2)]),
  ];
}
