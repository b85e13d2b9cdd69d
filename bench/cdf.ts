// CDF suite: what the CDF surface costs over SPEC's on the same data. One series of 100,000
// points at 1 s, written through SPEC's route; then, alternating within each run so that
// neither side gets a warmer cache, the same 100,000 raw points read four ways: the
// unmodified @cognite/sdk 10.5 (`datapoints.retrieve`, one request, its own parsing and Date
// conversion), its generic `client.post` on the same route, SPEC's POST /timeseries/data/list
// and the CDF route with a plain client (fetch plus JSON.parse, so each figure is what a user
// of it waits for). The row is SDK / SPEC as
// medians (target <= 1.1: the CDF surface costs at most 10% more); the notes add the plain-client
// CDF / SPEC ratio (the surface alone, without the SDK's client-side work) and the SDK's own
// HTTP client on the same route (`client.post`: its parsing, without retrieve's conversion of
// every timestamp to a Date). Every answer is checked point by point against what was written.
// @ts-expect-error TS2305: @cognite/sdk's declarations re-export through extensionless paths NodeNext cannot follow (api/cdf/testing/cdf-client.ts)
import { CogniteClient } from '@cognite/sdk';
import { HttpClient } from './http-client.ts';
import type { Metric, SuiteResult } from './results.ts';
import { summarize, type TimingSummary } from './stats.ts';

export interface CdfSize {
  pointCount: number;
  warmupCount: number;
  runCount: number;
}

export const CDF_SIZES: Record<'full' | 'small' | 'tiny', CdfSize> = {
  full: { pointCount: 100_000, warmupCount: 3, runCount: 30 },
  small: { pointCount: 100_000, warmupCount: 2, runCount: 10 },
  tiny: { pointCount: 2_000, warmupCount: 1, runCount: 3 },
};

/** The target of the row (bench/README.md): the SDK's read over SPEC's, medians. */
const CDF_RATIO_MAX = 1.1;
const SPACING_MS = 1000;
const EXTERNAL_ID = 'cdf-bench-1';

/** Point i's value: three decimals, varied, exact as text and as a double. */
function valueOf(i: number): number {
  return Math.round(Math.sin(i / 60) * 1e6) / 1e3;
}

/** Undefined when the points are the ones written, else what is wrong. */
function checkPoints(what: string, startMs: number, count: number, timestamps: readonly number[], values: readonly number[]): string | undefined {
  if (timestamps.length !== count) return `${what}: ${timestamps.length} points, expected ${count}`;
  for (let i = 0; i < count; i++) {
    if (timestamps[i] !== startMs + i * SPACING_MS) return `${what} point ${i}: timestamp ${timestamps[i]}, expected ${startMs + i * SPACING_MS}`;
    if (values[i] !== valueOf(i)) return `${what} point ${i}: value ${values[i]}, expected ${valueOf(i)}`;
  }
  return undefined;
}

type Reader = () => Promise<{ timestamps: number[]; values: number[] }>;
/** The SDK's retrieve, the SDK's generic post, SPEC's route and CDF's route with a plain client. */
type Reader4 = 'sdk' | 'sdkPost' | 'spec' | 'cdf';

export async function runCdfSuite(opts: { url: string; token: string; tenant: string; size: CdfSize; log: (line: string) => void }): Promise<SuiteResult> {
  const { url, token, tenant, size, log } = opts;
  const http = new HttpClient(url, { headers: { authorization: `Bearer ${token}` } });
  const startMs = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 2 * 86_400_000;
  const endMs = startMs + size.pointCount * SPACING_MS;
  try {
    await http.postJson('/timeseries/create', { items: [{ externalId: EXTERNAL_ID, name: 'CDF bench', valueType: 'FLOAT' }] }, 201);
    for (let from = 0; from < size.pointCount; from += 100_000) {
      const datapoints = Array.from({ length: Math.min(100_000, size.pointCount - from) }, (_, k) => ({ timestamp: startMs + (from + k) * SPACING_MS, value: String(valueOf(from + k)) }));
      await http.postJson('/timeseries/data', { items: [{ externalId: EXTERNAL_ID, datapoints }] }, 204);
    }
    log(`cdf: ${size.pointCount} points written to ${EXTERNAL_ID}`);
    const query = { items: [{ externalId: EXTERNAL_ID, start: startMs, end: endMs, limit: size.pointCount }] };
    const body = JSON.stringify(query);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' };
    const client = new CogniteClient({ appId: 'plantdata-bench', project: tenant, baseUrl: url, oidcTokenProvider: async () => token });
    await client.authenticate();
    const cdfPath = `/api/v1/projects/${encodeURIComponent(tenant)}/timeseries/data/list`;
    const readers: Record<Reader4, Reader> = {
      async sdk() {
        const [item] = await client.datapoints.retrieve(query) as { datapoints: { timestamp: Date; value: number }[] }[];
        const points = item?.datapoints ?? [];
        return { timestamps: points.map((p) => p.timestamp.getTime()), values: points.map((p) => p.value) };
      },
      async sdkPost() {
        const answer = await client.post(cdfPath, { data: query }) as { data: { items: { datapoints: { timestamp: number; value: number }[] }[] } };
        const points = answer.data.items[0]?.datapoints ?? [];
        return { timestamps: points.map((p) => p.timestamp), values: points.map((p) => p.value) };
      },
      async spec() {
        const res = await fetch(`${url}/timeseries/data/list`, { method: 'POST', headers, body });
        const answer = await res.json() as { items: { datapoints: { timestamp: number; value: string }[] }[] };
        const points = answer.items[0]?.datapoints ?? [];
        return { timestamps: points.map((p) => p.timestamp), values: points.map((p) => Number(p.value)) };
      },
      async cdf() {
        const res = await fetch(`${url}${cdfPath}`, { method: 'POST', headers, body });
        const answer = await res.json() as { items: { datapoints: { timestamp: number; value: number }[] }[] };
        const points = answer.items[0]?.datapoints ?? [];
        return { timestamps: points.map((p) => p.timestamp), values: points.map((p) => p.value) };
      },
    };
    const samples: Record<Reader4, number[]> = { sdk: [], sdkPost: [], spec: [], cdf: [] };
    const problems: string[] = [];
    const order = Object.keys(readers) as Reader4[];
    for (let run = 0; run < size.warmupCount + size.runCount; run++) {
      // Each run in a turned order: no reader always follows the same one.
      for (let k = 0; k < order.length; k++) {
        const name = order[(run + k) % order.length] as Reader4;
        const started = performance.now();
        const { timestamps, values } = await readers[name]();
        const elapsedMs = performance.now() - started;
        if (run >= size.warmupCount) samples[name].push(elapsedMs);
        const problem = run === 0 || run === size.warmupCount + size.runCount - 1 ? checkPoints(name, startMs, size.pointCount, timestamps, values) : undefined;
        if (problem && problems.length < 3) problems.push(problem);
      }
    }
    const timings = { sdk: summarize(samples.sdk), sdkPost: summarize(samples.sdkPost), spec: summarize(samples.spec), cdf: summarize(samples.cdf) };
    log(`cdf: SDK retrieve median ${timings.sdk.medianMs.toFixed(2)} ms, SDK post ${timings.sdkPost.medianMs.toFixed(2)} ms, SPEC route ${timings.spec.medianMs.toFixed(2)} ms, CDF route (plain client) ${timings.cdf.medianMs.toFixed(2)} ms`);
    return cdfSuiteResult(size, timings, problems);
  } finally {
    http.close();
  }
}

export function cdfSuiteResult(size: CdfSize, timings: Record<Reader4, TimingSummary>, problems: string[]): SuiteResult {
  const { sdk, sdkPost, spec, cdf } = timings;
  const ms = (t: TimingSummary) => `median ${t.medianMs.toFixed(2)} ms, p99 ${t.p99Ms.toFixed(2)} ms`;
  const metric: Metric = {
    suite: 'cdf', key: 'cdf-raw-ratio', label: `CDF SDK retrieve of ${size.pointCount.toLocaleString('en-US')} raw points / SPEC route`, unit: 'x', better: 'lower',
    target: { op: '<=', value: CDF_RATIO_MAX },
    figures: {
      plantdata: {
        value: sdk.medianMs / spec.medianMs, runCount: sdk.runCount, checked: problems.length === 0,
        note: `SDK retrieve ${ms(sdk)}; SPEC route ${ms(spec)}; CDF route with a plain client ${ms(cdf)} (${(cdf.medianMs / spec.medianMs).toFixed(2)}x SPEC); `
          + `the SDK's generic post on the CDF route ${ms(sdkPost)} (${(sdkPost.medianMs / spec.medianMs).toFixed(2)}x SPEC)`,
      },
    },
  };
  return {
    suite: 'cdf',
    dataset: `1 series x ${size.pointCount.toLocaleString('en-US')} points at 1 s; ${size.runCount} runs after ${size.warmupCount} warm-up, the four readers in a turned order each run`,
    metrics: [metric],
    notes: [
      'SDK retrieve: @cognite/sdk 10.5 datapoints.retrieve, one request, its parsing and Date conversion included; SDK post: client.post on the same route (the SDK\'s HTTP client and parsing, no Date conversion); SPEC route and CDF route: fetch and JSON.parse of the answer, timed from the request to the parsed answer',
      ...problems.map((p) => `cdf answer WRONG: ${p}`),
    ],
  };
}
