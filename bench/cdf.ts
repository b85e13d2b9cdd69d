// CDF suite: what the CDF surface costs over SPEC's on the same data. One series of 100,000
// points at 1 s, written through SPEC's route, listed for the CDF rollup columns by a first
// CDF average read, and measured once the fold is done. Then, in a turned order within each
// run so that no reader gets a warmer cache, the same 100,000 raw points read four ways: the
// unmodified @cognite/sdk 10.5 (`datapoints.retrieve`, one request, its own parsing and Date
// conversion), its generic `client.post` on the same route, SPEC's POST /timeseries/data/list
// and the CDF route with a plain client (fetch plus JSON.parse, so each figure is what a user
// of it waits for). The target (the CDF surface costs at most 10% more) is judged on the two
// routes read by the same plain client, CDF / SPEC as medians; the SDK's retrieve over SPEC's
// route is a row of its own, its client-side work included. Every answer is checked point by
// point against what was written. A 6 h window of 1m averages (360 buckets) is read the same
// three ways (SDK retrieve and plain client of CDF's time-weighted `average`, SPEC's route
// asking AVG at 1m); each answer must hold the window's 360 buckets, labelled by their minute.
// @ts-expect-error TS2305: @cognite/sdk's declarations re-export through extensionless paths NodeNext cannot follow (api/cdf/testing/cdf-client.ts)
import { CogniteClient } from '@cognite/sdk';
import { HttpClient } from './http-client.ts';
import { waitForBackgroundWork } from './plantdata-target.ts';
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
    // The first read of CDF's interpolating aggregates lists the series for the CDF rollup
    // columns (docs/cdf.md); both routes are then measured once the fold is done, as the data
    // point suite measures after its catch-up.
    await http.postJson(`/api/v1/projects/${encodeURIComponent(tenant)}/timeseries/data/list`, { items: [{ externalId: EXTERNAL_ID, start: startMs, end: endMs, granularity: '1m', aggregates: ['average'], limit: 10 }] });
    const settled = await waitForBackgroundWork(http, 90_000);
    log(`cdf: rollups with the CDF columns current after ${settled.rollupsSeconds} s${settled.quiet ? '' : ' (background work still running)'}`);
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
    const averages = await timeAverages({ url, cdfPath, headers, client, startMs, endMs, size, problems });
    log(`cdf: 6 h of 1m averages: SDK retrieve median ${averages.sdk.medianMs.toFixed(2)} ms, CDF route (plain client) ${averages.cdf.medianMs.toFixed(2)} ms, SPEC route ${averages.spec.medianMs.toFixed(2)} ms`);
    return cdfSuiteResult(size, timings, problems, averages);
  } finally {
    http.close();
  }
}

const MINUTE_MS = 60_000;
const AVERAGE_WINDOW_MS = 6 * 3_600_000;

/** Undefined when an aggregate answer holds every minute of the window once, in order, else what is wrong. */
function checkMinutes(what: string, windowStart: number, timestamps: readonly number[]): string | undefined {
  const expected = AVERAGE_WINDOW_MS / MINUTE_MS;
  if (timestamps.length !== expected) return `${what}: ${timestamps.length} buckets, expected ${expected}`;
  const wrong = timestamps.findIndex((t, i) => t !== windowStart + i * MINUTE_MS);
  return wrong < 0 ? undefined : `${what} bucket ${wrong}: timestamp ${timestamps[wrong]}`;
}

/** 6 h of CDF 1m averages by the SDK's retrieve and by a plain client, and SPEC's route asking AVG at 1m, in a turned order. */
async function timeAverages(opts: {
  url: string; cdfPath: string; headers: Record<string, string>; client: { datapoints: { retrieve(q: unknown): Promise<unknown> } };
  startMs: number; endMs: number; size: CdfSize; problems: string[];
}): Promise<AverageTimings> {
  const { url, cdfPath, headers, client, startMs, endMs, size, problems } = opts;
  // Inside the written range when it is long enough (full and small: 27.8 h), else from its start.
  const windowStart = Math.min(startMs + 3_600_000, Math.max(startMs, endMs - AVERAGE_WINDOW_MS));
  const item = { externalId: EXTERNAL_ID, start: windowStart, end: windowStart + AVERAGE_WINDOW_MS, granularity: '1m', limit: 10_000 };
  const specBody = JSON.stringify({ items: [{ ...item, aggregates: ['AVG'] }] });
  const cdfBody = JSON.stringify({ items: [{ ...item, aggregates: ['average'] }] });
  const expectAll = endMs - startMs >= AVERAGE_WINDOW_MS + 3_600_000;
  const readers = {
    async sdk() {
      const [answer] = await client.datapoints.retrieve({ items: [{ ...item, aggregates: ['average'] }] }) as { datapoints: { timestamp: Date }[] }[];
      return (answer?.datapoints ?? []).map((p) => p.timestamp.getTime());
    },
    async spec() {
      const res = await fetch(`${url}/timeseries/data/list`, { method: 'POST', headers, body: specBody });
      const answer = await res.json() as { items: { datapoints: { timestamp: number }[] }[] };
      return (answer.items[0]?.datapoints ?? []).map((p) => p.timestamp);
    },
    async cdf() {
      const res = await fetch(`${url}${cdfPath}`, { method: 'POST', headers, body: cdfBody });
      const answer = await res.json() as { items: { datapoints: { timestamp: number }[] }[] };
      return (answer.items[0]?.datapoints ?? []).map((p) => p.timestamp);
    },
  };
  const samples: Record<keyof AverageTimings, number[]> = { sdk: [], spec: [], cdf: [] };
  const order = Object.keys(readers) as (keyof AverageTimings)[];
  for (let run = 0; run < size.warmupCount + size.runCount; run++) {
    for (const name of order.map((_, k) => order[(run + k) % order.length] as keyof AverageTimings)) {
      const started = performance.now();
      const timestamps = await readers[name]();
      const elapsedMs = performance.now() - started;
      if (run >= size.warmupCount) samples[name].push(elapsedMs);
      const problem = expectAll && run === 0 ? checkMinutes(`${name} averages`, windowStart, timestamps) : undefined;
      if (problem && problems.length < 3) problems.push(problem);
    }
  }
  return { sdk: summarize(samples.sdk), spec: summarize(samples.spec), cdf: summarize(samples.cdf) };
}

interface AverageTimings { sdk: TimingSummary; spec: TimingSummary; cdf: TimingSummary }

export function cdfSuiteResult(size: CdfSize, timings: Record<Reader4, TimingSummary>, problems: string[], averages?: AverageTimings): SuiteResult {
  const { sdk, sdkPost, spec, cdf } = timings;
  const ms = (t: TimingSummary) => `median ${t.medianMs.toFixed(2)} ms, p99 ${t.p99Ms.toFixed(2)} ms`;
  const points = size.pointCount.toLocaleString('en-US');
  const row = (key: string, label: string, value: number, runCount: number, note: string, target: boolean): Metric => ({
    suite: 'cdf', key, label, unit: 'x', better: 'lower', ...(target ? { target: { op: '<=' as const, value: CDF_RATIO_MAX } } : {}),
    figures: { plantdata: { value, runCount, checked: problems.length === 0, note } },
  });
  const metrics: Metric[] = [
    row('cdf-route-raw-ratio', `CDF route / SPEC route, ${points} raw points, the same plain client`, cdf.medianMs / spec.medianMs, cdf.runCount,
      `CDF route ${ms(cdf)}; SPEC route ${ms(spec)}`, true),
    row('cdf-raw-ratio', `@cognite/sdk retrieve of ${points} raw points / SPEC route`, sdk.medianMs / spec.medianMs, sdk.runCount,
      `SDK retrieve ${ms(sdk)}; the SDK's generic post on the CDF route ${ms(sdkPost)} (${(sdkPost.medianMs / spec.medianMs).toFixed(2)}x SPEC): the rest is the SDK's Date per timestamp, in the client`, false),
  ];
  if (averages) {
    metrics.push(
      row('cdf-route-average-ratio', 'CDF route / SPEC route, 6 h of 1m averages, the same plain client', averages.cdf.medianMs / averages.spec.medianMs, averages.cdf.runCount,
        `CDF's time-weighted average ${ms(averages.cdf)}; SPEC route AVG ${ms(averages.spec)}`, true),
      row('cdf-average-ratio', '@cognite/sdk retrieve of 6 h of 1m averages / SPEC route', averages.sdk.medianMs / averages.spec.medianMs, averages.sdk.runCount,
        `SDK retrieve ${ms(averages.sdk)}`, false),
    );
  }
  return {
    suite: 'cdf',
    dataset: `1 series x ${size.pointCount.toLocaleString('en-US')} points at 1 s; ${size.runCount} runs after ${size.warmupCount} warm-up, the four raw readers in a turned order each run, the three average readers in a turned order; measured once the fold has folded the series with its CDF columns`,
    metrics,
    notes: [
      'the target (the CDF surface costs at most 10% more) is judged on the routes read by the same plain client (fetch and JSON.parse of the answer, timed from the request to the parsed answer); the SDK rows add the client\'s own work: @cognite/sdk 10.5 datapoints.retrieve, one request, its parsing and its conversion of every timestamp to a Date; SDK post: client.post on the same route (its HTTP client and parsing, no Date conversion)',
      ...problems.map((p) => `cdf answer WRONG: ${p}`),
    ],
  };
}
