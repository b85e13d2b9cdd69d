// Functions suite: what a function costs over the points it reads. Two FLOAT series of
// `pointCount` points at 1 s (`a` linear, `b` at the same timestamps), written through SPEC's
// route. Row 1: `(a + b) / 2` through POST /functions/call in 100,000-point pages against
// reading the raw points of both series through POST /timeseries/data/list in 100,000-point
// pages, each answer fully parsed (JSON.parse), in a turned order; ratio of medians, target
// at most 2x. Rows 2 and 3: ingest of 1,000-point requests (10 series x 100 points, every
// request also writing 100 points to each of `a` and `b` at the same timestamps) from
// `connections` senders for `seconds`, first with no function and then with a function
// keeping a target equal to (a + b) / 2; the target's lag is the time from an input write's
// 204 to the first read of the target's latest point (POST /timeseries/data/latest every
// 20 ms) that reaches that write's last timestamp, so it counts up to 20 ms of polling; the
// cost is the points/s with the target kept over the points/s without (target at least 0.8).
import { HttpClient } from './http-client.ts';
import type { Metric, SuiteResult } from './results.ts';
import { summarize, type TimingSummary } from './stats.ts';

export interface FunctionsSize {
  pointCount: number;
  warmupCount: number;
  runCount: number;
  /** Senders of the ingest rows, and how long each ingest phase runs. */
  connections: number;
  seconds: number;
}

export const FUNCTIONS_SIZES: Record<'full' | 'small' | 'tiny', FunctionsSize> = {
  full: { pointCount: 1_000_000, warmupCount: 2, runCount: 10, connections: 16, seconds: 20 },
  small: { pointCount: 200_000, warmupCount: 1, runCount: 5, connections: 8, seconds: 10 },
  tiny: { pointCount: 2_000, warmupCount: 1, runCount: 2, connections: 2, seconds: 2 },
};

/** Targets (bench/README.md): the call at most 2x the raw reads; lag p99 at most 2 s; ingest with a target at least 0.8 of without. */
const CALL_RATIO_MAX = 2;
const LAG_P99_MS_MAX = 2_000;
const INGEST_KEPT_MIN = 0.8;
const PAGE = 100_000;
const POLL_MS = 20;
const LOAD_SERIES = 10;
const LOAD_POINTS_PER_SERIES = 100;
const EXPRESSION = "(ts{externalId='fn-a'} + ts{externalId='fn-b'}) / 2";

const valueOf = (i: number) => Math.round(Math.sin(i / 90) * 1e5) / 1e3;

export async function runFunctionsSuite(opts: { url: string; token: string; size: FunctionsSize; log: (line: string) => void }): Promise<SuiteResult> {
  const { url, token, size, log } = opts;
  const http = new HttpClient(url, { headers: { authorization: `Bearer ${token}` } });
  const problems: string[] = [];
  try {
    await http.postJson('/timeseries/create', { items: [
      ...['fn-a', 'fn-b', 'fn-avg', 'fn-avg-live'].map((externalId) => ({ externalId, name: externalId, valueType: 'FLOAT' })),
      ...Array.from({ length: LOAD_SERIES }, (_, k) => ({ externalId: `fn-load-${k}`, name: `load ${k}`, valueType: 'FLOAT' })),
    ] }, 201);
    const startMs = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 30 * 86_400_000;
    for (let from = 0; from < size.pointCount; from += PAGE) {
      const n = Math.min(PAGE, size.pointCount - from);
      const points = (scale: number) => Array.from({ length: n }, (_, k) => ({ timestamp: startMs + (from + k) * 1000, value: valueOf(from + k) * scale }));
      await http.postJson('/timeseries/data', { items: [{ externalId: 'fn-a', datapoints: points(1) }, { externalId: 'fn-b', datapoints: points(-0.5) }] }, 204);
    }
    log(`functions: 2 x ${size.pointCount} points written`);
    await http.postJson('/functions/create', { items: [{ externalId: 'fn-mean', name: 'mean', expression: EXPRESSION }] }, 201);
    const call = await timeCall(url, token, startMs, size, problems);
    log(`functions: call median ${call.call.medianMs.toFixed(1)} ms, raw reads ${call.raw.medianMs.toFixed(1)} ms`);
    const plain = await ingestPhase(url, token, size, startMs + size.pointCount * 1000 + 86_400_000, undefined);
    await http.postJson('/functions/create', { items: [{ externalId: 'fn-live', name: 'live', expression: EXPRESSION, target: { externalId: 'fn-avg-live' } }] }, 201);
    // The target is first computed over the inputs' whole history; the lag row measures the steady state after it.
    const caughtUp = await untilTargetCaughtUp(url, token, plain.lastTs, 300_000);
    log(`functions: the new target computed over the inputs' history in ${(caughtUp / 1000).toFixed(1)} s`);
    const kept = await ingestPhase(url, token, size, startMs + size.pointCount * 1000 + 2 * 86_400_000, 'fn-avg-live');
    log(`functions: ingest ${Math.round(plain.pointsPerSecond)} points/s without a target, ${Math.round(kept.pointsPerSecond)} with; lag p99 ${kept.lags ? kept.lags.p99Ms.toFixed(0) : '-'} ms`);
    if (!kept.lags) problems.push('the target never reached an input write');
    return suiteResult(size, call, plain, kept, problems);
  } finally {
    http.close();
  }
}

async function postParsed(url: string, token: string, path: string, body: unknown): Promise<{ items: { datapoints: { timestamp: number; value?: number | string }[]; nextCursor?: string }[] }> {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** Every page of the function's call and of both series' raw reads, in a turned order each run. */
async function timeCall(url: string, token: string, startMs: number, size: FunctionsSize, problems: string[]): Promise<{ call: TimingSummary; raw: TimingSummary }> {
  const end = startMs + size.pointCount * 1000;
  const readers = {
    async call(): Promise<number> {
      let count = 0;
      let cursor: string | undefined;
      do {
        const answer = await postParsed(url, token, '/functions/call', { items: [{ externalId: 'fn-mean', start: startMs, end, limit: PAGE, ...(cursor ? { cursor } : {}) }] });
        const item = answer.items[0];
        count += item?.datapoints.length ?? 0;
        cursor = item?.nextCursor;
      } while (cursor);
      return count;
    },
    async raw(): Promise<number> {
      let count = 0;
      const cursors: (string | undefined)[] = [undefined, undefined];
      let more = true;
      for (let first = true; more; first = false) {
        const items = ['fn-a', 'fn-b'].flatMap((externalId, k) => (first || cursors[k] ? [{ externalId, start: startMs, end, limit: PAGE, ...(cursors[k] ? { cursor: cursors[k] } : {}) }] : []));
        const answer = await postParsed(url, token, '/timeseries/data/list', { items });
        const names = items.map((i) => i.externalId);
        answer.items.forEach((item, i) => {
          count += item.datapoints.length;
          cursors[names[i] === 'fn-a' ? 0 : 1] = item.nextCursor;
        });
        more = cursors.some((c) => c !== undefined);
      }
      return count;
    },
  };
  const samples = { call: [] as number[], raw: [] as number[] };
  for (let run = 0; run < size.warmupCount + size.runCount; run++) {
    for (const name of (run % 2 === 0 ? ['call', 'raw'] : ['raw', 'call']) as ('call' | 'raw')[]) {
      const started = performance.now();
      const count = await readers[name]();
      const elapsed = performance.now() - started;
      if (run >= size.warmupCount) samples[name].push(elapsed);
      const want = name === 'call' ? size.pointCount : 2 * size.pointCount;
      if (count !== want && problems.length < 3) problems.push(`${name}: ${count} points, expected ${want}`);
    }
  }
  return { call: summarize(samples.call), raw: summarize(samples.raw) };
}

/** Milliseconds until the target's latest point reaches `lastTs` (throws past `boundMs`). */
async function untilTargetCaughtUp(url: string, token: string, lastTs: number, boundMs: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const answer = await postParsed(url, token, '/timeseries/data/latest', { items: [{ externalId: 'fn-avg-live' }] });
    if ((answer.items[0]?.datapoints[0]?.timestamp ?? -Infinity) >= lastTs) return performance.now() - started;
    if (performance.now() - started > boundMs) throw new Error(`the target did not reach ${lastTs} within ${boundMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

interface IngestPhase {
  /** The last input timestamp written. */
  lastTs: number;
  pointsPerSecond: number;
  lags?: { p50Ms: number; p99Ms: number; count: number };
}

/** `connections` senders for `seconds`; with `target`, a poller of its latest point measures each input write's lag. */
async function ingestPhase(url: string, token: string, size: FunctionsSize, fromMs: number, target: string | undefined): Promise<IngestPhase> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const deadline = performance.now() + size.seconds * 1000;
  let next = 0;
  let points = 0;
  /** Input writes acknowledged: their last timestamp and when the 204 came. */
  const acked: { lastTs: number; at: number }[] = [];
  const sender = async () => {
    while (performance.now() < deadline) {
      const slot = next++;
      const base = fromMs + slot * LOAD_POINTS_PER_SERIES * 1000;
      const datapoints = (scale: number) => Array.from({ length: LOAD_POINTS_PER_SERIES }, (_, k) => ({ timestamp: base + k * 1000, value: valueOf(slot * 100 + k) * scale }));
      const items = [
        ...Array.from({ length: LOAD_SERIES - 2 }, (_, s) => ({ externalId: `fn-load-${s}`, datapoints: datapoints(s + 1) })),
        { externalId: 'fn-a', datapoints: datapoints(1) },
        { externalId: 'fn-b', datapoints: datapoints(-0.5) },
      ];
      const res = await fetch(`${url}/timeseries/data`, { method: 'POST', headers, body: JSON.stringify({ items }) });
      await res.arrayBuffer();
      if (res.status !== 204) throw new Error(`ingest: ${res.status}`);
      points += LOAD_SERIES * LOAD_POINTS_PER_SERIES;
      acked.push({ lastTs: base + (LOAD_POINTS_PER_SERIES - 1) * 1000, at: performance.now() });
    }
  };
  const seen: { latestTs: number; at: number }[] = [];
  let polling = target !== undefined;
  const poller = async () => {
    while (polling) {
      const answer = await postParsed(url, token, '/timeseries/data/latest', { items: [{ externalId: target }] });
      const latest = answer.items[0]?.datapoints[0]?.timestamp;
      if (latest !== undefined) seen.push({ latestTs: latest, at: performance.now() });
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  };
  const started = performance.now();
  const polled = poller();
  await Promise.all(Array.from({ length: size.connections }, sender));
  const elapsed = (performance.now() - started) / 1000;
  // The last writes' lags: keep polling a while after the load stops.
  const lastTs = Math.max(...acked.map((a) => a.lastTs));
  for (const until = performance.now() + 10_000; polling && performance.now() < until && !(seen.length > 0 && (seen[seen.length - 1] as { latestTs: number }).latestTs >= lastTs);) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  polling = false;
  await polled;
  if (!target) return { pointsPerSecond: points / elapsed, lastTs };
  // The first poll after each 204 that shows the write's last timestamp (polls come in time order).
  const lags: number[] = [];
  for (const write of acked) {
    let k = 0;
    while (k < seen.length && (seen[k] as { at: number }).at < write.at) k++;
    while (k < seen.length && (seen[k] as { latestTs: number }).latestTs < write.lastTs) k++;
    const reached = seen[k];
    if (reached) lags.push(reached.at - write.at);
  }
  const summary = lags.length > 0 ? summarize(lags) : undefined;
  return { pointsPerSecond: points / elapsed, lastTs, ...(summary ? { lags: { p50Ms: summary.medianMs, p99Ms: summary.p99Ms, count: lags.length } } : {}) };
}

function suiteResult(size: FunctionsSize, call: { call: TimingSummary; raw: TimingSummary }, plain: IngestPhase, kept: IngestPhase, problems: string[]): SuiteResult {
  const checked = problems.length === 0;
  const metrics: Metric[] = [
    {
      suite: 'functions', key: 'call-ratio', label: `(a + b) / 2 over 2 x ${size.pointCount.toLocaleString('en-US')} points via /functions/call / the raw points of both`, unit: 'x', better: 'lower',
      target: { op: '<=', value: CALL_RATIO_MAX },
      figures: { plantdata: { value: call.call.medianMs / call.raw.medianMs, checked, runCount: call.call.runCount, note: `call ${call.call.medianMs.toFixed(1)} ms, raw ${call.raw.medianMs.toFixed(1)} ms (medians)` } },
    },
    {
      suite: 'functions', key: 'target-lag-p99', label: `target lag behind its inputs during ingest (${size.connections} senders, 1,000-point requests), p99`, unit: 'ms', better: 'lower',
      target: { op: '<=', value: LAG_P99_MS_MAX },
      figures: kept.lags ? { plantdata: { value: kept.lags.p99Ms, checked, runCount: kept.lags.count, note: `median ${kept.lags.p50Ms.toFixed(0)} ms over ${kept.lags.count} input writes; includes up to ${POLL_MS} ms of polling` } } : {},
    },
    {
      suite: 'functions', key: 'target-ingest-kept', label: 'ingest points/s with a target kept / without', unit: 'x', better: 'higher',
      target: { op: '>=', value: INGEST_KEPT_MIN },
      figures: { plantdata: { value: kept.pointsPerSecond / plain.pointsPerSecond, checked, runCount: 1, note: `${Math.round(kept.pointsPerSecond).toLocaleString('en-US')} vs ${Math.round(plain.pointsPerSecond).toLocaleString('en-US')} points/s` } },
    },
  ];
  return {
    suite: 'functions',
    dataset: `2 series x ${size.pointCount.toLocaleString('en-US')} points at 1 s; call vs raw reads: ${size.runCount} runs after ${size.warmupCount} warm-up, alternating order; ingest: ${size.connections} senders for ${size.seconds} s per phase, 10 series x 100 points per request, two of them the function's inputs`,
    metrics,
    notes: problems.map((p) => `functions answer WRONG: ${p}`),
  };
}
