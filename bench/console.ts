// Console suite: what the web console promises, "opening a chart of a 10M-point series' whole
// range at most 300 ms from click to drawn", measured in a real browser against the service
// started as a user starts it. One FLOAT series of 10,000,000 points at 1 s (about 116 days)
// written through POST /timeseries/data, measured once the rollup fold is done. Debian's
// chromium (headless, driven by puppeteer-core) signs in with `#token=` and then opens the
// chart of the series over its whole range, and over a 1 h window in the middle (drawn raw),
// in turn: each opening starts from the series list (`#/timeseries`), so each is a fresh chart
// view (the series' metadata read, the range read at the granularity the console picks,
// uPlot's first draw), as a click in the list opens it. The time is taken inside the page:
// performance.now() right before `location.hash` is set to the chart's route, and at the first
// animation frame where the chart element has `data-drawn="true"` and the asked range
// (console/src/views/chart.tsx sets them after each draw), so no round trip to the browser is
// in the figure. Every drawn chart is checked: the whole range at an aggregate granularity
// (never raw) with one bucket per granularity step of the range, the window with its 3,600
// points (or its buckets, should the console pick buckets).
//
//
// The live rows are console-live.ts's; the browser side both share is console-page.ts.
import { existsSync } from 'node:fs';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { LIVE_POINTS_MAX } from '../console/src/chart/live-buffer.ts';
import { LIVE_BATCH_MS, LIVE_BATCH_POINTS, LIVE_HEAP_GROWTH_MIB_MAX, LIVE_LAG_MS_MAX, LIVE_LISTENING, MIB, measureLive, valueText, type LiveMeasured } from './console-live.ts';
import { CHART, CHROMIUM, DRAW_WAIT_MS_MAX, openSignedIn, SERIES_ROW, VIEWPORT } from './console-page.ts';
import { HttpClient, parseJson } from './http-client.ts';
import { waitForBackgroundWork } from './plantdata-target.ts';
import type { Metric, SuiteResult } from './results.ts';
import { summarize, type TimingSummary } from './stats.ts';

export interface ConsoleSize {
  pointCount: number;
  /** Openings of each chart before the measured ones (whole range, then window, per warm-up). */
  warmupCount: number;
  /** Measured openings of each chart (whole range and window in turn). */
  runCount: number;
  /** Longest wait for the rollup fold after the load. */
  foldWaitMsMax: number;
  /** How long Live is fed 1,000 points/s. */
  liveSeconds: number;
  /** When into the live writes the first heap reading is taken (the second is at the end). */
  liveHeapFirstMs: number;
}

export const CONSOLE_SIZES: Record<'full' | 'small' | 'tiny', ConsoleSize> = {
  full: { pointCount: 10_000_000, warmupCount: 1, runCount: 10, foldWaitMsMax: 600_000, liveSeconds: 30, liveHeapFirstMs: 5000 },
  small: { pointCount: 1_000_000, warmupCount: 1, runCount: 10, foldWaitMsMax: 120_000, liveSeconds: 10, liveHeapFirstMs: 5000 },
  tiny: { pointCount: 20_000, warmupCount: 1, runCount: 3, foldWaitMsMax: 60_000, liveSeconds: 3, liveHeapFirstMs: 1000 },
};

/** The console's promise (bench/README.md): click to drawn, the median. */
const DRAWN_MS_MAX = 300;
const SPACING_MS = 1000;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const WINDOW_MS = HOUR_MS;
/** Points per POST /timeseries/data request, as the data point suite sends them. */
const POINTS_PER_REQUEST = 100_000;
/** Requests in flight while loading: the next body is built while the service takes one. */
const SENDERS = 2;
const EXTERNAL_ID = 'console-bench-1';
const GRANULARITY_MS: Record<string, number> = { '1m': 60_000, '1h': HOUR_MS, '1d': DAY_MS };
const LIVE_EXTERNAL_ID = 'console-bench-live-1';

interface Range { startMs: number; endMs: number }

/** What one opening of the chart showed: the time in the page and the chart's attributes. */
interface Opening {
  elapsedMs: number;
  granularity: string;
  points: number;
  /** Duration of each POST /timeseries/data/list of the opening (resource timing), ms. */
  dataReadsMs: number[];
  /** Duration of the POST /timeseries/byids of the opening (resource timing), ms. */
  metadataReadsMs: number[];
}

/** Buckets of `granularity` from the range's start (bucket-aligned here) to its last point. */
function bucketCount(range: Range, granularity: string): number {
  const stepMs = GRANULARITY_MS[granularity];
  if (stepMs === undefined) return Math.ceil((range.endMs - range.startMs) / SPACING_MS);
  const first = Math.floor(range.startMs / stepMs) * stepMs;
  return Math.floor((range.endMs - 1 - first) / stepMs) + 1;
}

export async function runConsoleSuite(opts: { url: string; token: string; size: ConsoleSize; log: (line: string) => void }): Promise<SuiteResult> {
  const { url, token, size, log } = opts;
  if (!existsSync(CHROMIUM)) {
    log(`console: ${CHROMIUM} is missing, not measured`);
    return consoleSuiteResult(size, undefined, [`not measured: ${CHROMIUM} is missing (Debian's chromium; engine/testing/chromium-install.sh installs it)`]);
  }
  const http = new HttpClient(url, { headers: { authorization: `Bearer ${token}` } });
  // Whole days ending before today, day-aligned, so every granularity's buckets start with the range.
  const days = Math.ceil((size.pointCount * SPACING_MS) / DAY_MS);
  const startMs = Math.floor(Date.now() / DAY_MS) * DAY_MS - (days + 1) * DAY_MS;
  const whole: Range = { startMs, endMs: startMs + (size.pointCount - 1) * SPACING_MS + 1 };
  // The hour in the middle of the data, hour-aligned (inside the range at every size).
  const windowStart = startMs + Math.floor((size.pointCount * SPACING_MS) / 2 / HOUR_MS) * HOUR_MS;
  const windowRange: Range = { startMs: windowStart, endMs: Math.min(windowStart + WINDOW_MS, whole.endMs) };
  const notes: string[] = [];
  try {
    const created = parseJson<{ items: { id: number }[] }>(await http.postJson('/timeseries/create', {
      items: [
        { externalId: EXTERNAL_ID, name: 'Console bench sensor', valueType: 'FLOAT', unitExternalId: 'temperature:deg_c' },
        { externalId: LIVE_EXTERNAL_ID, name: 'Console bench live sensor', valueType: 'FLOAT', unitExternalId: 'temperature:deg_c' },
      ],
    }, 201));
    const id = created.items[0]?.id;
    const liveId = created.items[1]?.id;
    if (id === undefined || liveId === undefined) throw new Error('POST /timeseries/create answered no id');
    const loadStarted = performance.now();
    await writePoints(http, startMs, size.pointCount);
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    log(`console: ${size.pointCount} points written to ${EXTERNAL_ID} in ${loadSeconds.toFixed(1)} s`);
    const settled = await waitForBackgroundWork(http, size.foldWaitMsMax);
    log(`console: rollups current after ${settled.rollupsSeconds} s${settled.quiet ? '' : ' (background work still running)'}`);
    const requests = Math.ceil(size.pointCount / POINTS_PER_REQUEST);
    notes.push(`load: ${size.pointCount.toLocaleString('en-US')} points in ${requests} POST /timeseries/data request${requests === 1 ? '' : 's'} of up to ${POINTS_PER_REQUEST.toLocaleString('en-US')} points (${SENDERS} in flight) in ${loadSeconds.toFixed(1)} s; `
      + (settled.quiet ? `measured once the rollup fold was current (${settled.rollupsSeconds} s) and merges idle (${settled.seconds} s)` : `background work still running after ${settled.seconds} s (${settled.backlog} rollup ranges, ${settled.merges} merges): measured anyway`));
    const measured = await measureOpenings({ url, token, id, whole, windowRange, size, log });
    let live: LiveMeasured | undefined;
    try {
      live = await measureLive({ url, token, http, id: liveId, size, log });
    } catch (error) {
      notes.push(`live FAILED: ${(error as Error).message}`);
      log(`console: live FAILED: ${(error as Error).message}`);
    }
    return consoleSuiteResult(size, measured, notes, live);
  } catch (error) {
    notes.push(`console FAILED: ${(error as Error).message}`);
    log(`console: FAILED: ${(error as Error).message}`);
    return consoleSuiteResult(size, undefined, notes);
  } finally {
    http.close();
  }
}

/** Writes points 0..count-1 of the series, SENDERS requests in flight. */
async function writePoints(http: HttpClient, startMs: number, count: number): Promise<void> {
  let next = 0;
  const sender = async () => {
    while (next < count) {
      const from = next;
      const n = Math.min(POINTS_PER_REQUEST, count - from);
      next += n;
      const parts: string[] = new Array(n);
      for (let k = 0; k < n; k++) parts[k] = `{"timestamp":${startMs + (from + k) * SPACING_MS},"value":"${valueText(from + k)}"}`;
      await http.postJson('/timeseries/data', Buffer.from(`{"items":[{"externalId":"${EXTERNAL_ID}","datapoints":[${parts.join(',')}]}]}`), 204);
    }
  };
  await Promise.all(Array.from({ length: SENDERS }, sender));
}

interface Measured {
  whole: { timing: TimingSummary; openings: Opening[] };
  window: { timing: TimingSummary; openings: Opening[] };
  problems: string[];
  browserVersion: string;
}

async function measureOpenings(opts: {
  url: string; token: string; id: number; whole: Range; windowRange: Range; size: ConsoleSize; log: (line: string) => void;
}): Promise<Measured> {
  const { url, token, id, whole, windowRange, size, log } = opts;
  let browser: Browser | undefined;
  const pageErrors: string[] = [];
  try {
    browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    const browserVersion = await browser.version();
    const page = await openSignedIn(browser, url, token, pageErrors);
    const problems: string[] = [];
    const openings = { whole: [] as Opening[], window: [] as Opening[] };
    for (let run = 0; run < size.warmupCount + size.runCount; run++) {
      for (const which of ['whole', 'window'] as const) {
        const range = which === 'whole' ? whole : windowRange;
        const opening = await openChart(page, id, range);
        if (run >= size.warmupCount) openings[which].push(opening);
        const problem = checkOpening(which, range, opening);
        if (problem && problems.length < 3) problems.push(problem);
      }
    }
    problems.push(...pageErrors);
    const timing = { whole: summarize(openings.whole.map((o) => o.elapsedMs)), window: summarize(openings.window.map((o) => o.elapsedMs)) };
    log(`console: click to drawn (ms), whole range: ${openings.whole.map((o) => o.elapsedMs.toFixed(0)).join(' ')}; 1 h window: ${openings.window.map((o) => o.elapsedMs.toFixed(0)).join(' ')}`);
    log(`console: whole range median ${timing.whole.medianMs.toFixed(1)} ms (p99 ${timing.whole.p99Ms.toFixed(1)}), 1 h window median ${timing.window.medianMs.toFixed(1)} ms (p99 ${timing.window.p99Ms.toFixed(1)})`);
    return { whole: { timing: timing.whole, openings: openings.whole }, window: { timing: timing.window, openings: openings.window }, problems, browserVersion };
  } catch (error) {
    // What the page said before it failed is the likeliest explanation.
    throw new Error([(error as Error).message, ...pageErrors].join('; '), { cause: error });
  } finally {
    await browser?.close();
  }
}

/**
 * Back to the series list (the chart view goes away), then the chart of `range`: the time from
 * setting the hash to the first animation frame showing it drawn, both read in the page.
 */
async function openChart(page: Page, id: number, range: Range): Promise<Opening> {
  await page.evaluate(() => { location.hash = '#/timeseries'; });
  await page.waitForFunction((chart: string, row: string) => !document.querySelector(chart) && document.querySelector(row) !== null,
    { timeout: DRAW_WAIT_MS_MAX }, CHART, SERIES_ROW);
  const hash = `#/chart?ids=${id}&start=${range.startMs}&end=${range.endMs}`;
  await page.evaluate((target: string) => {
    performance.clearResourceTimings();
    (window as unknown as { benchTriggeredAt: number }).benchTriggeredAt = performance.now();
    location.hash = target;
  }, hash);
  await page.waitForFunction((chart: string, start: string, end: string) => {
    const element = document.querySelector(`${chart}[data-drawn="true"]`);
    if (!element || element.getAttribute('data-start') !== start || element.getAttribute('data-end') !== end) return false;
    (window as unknown as { benchDrawnAt: number }).benchDrawnAt = performance.now();
    return true;
  }, { polling: 'raf', timeout: DRAW_WAIT_MS_MAX }, CHART, String(range.startMs), String(range.endMs));
  return page.evaluate((chart: string) => {
    const marks = window as unknown as { benchTriggeredAt: number; benchDrawnAt: number };
    const element = document.querySelector(chart);
    // No named function in here: tsx's keepNames would wrap it in a helper the page lacks.
    const entries = performance.getEntriesByType('resource').map((e) => ({ path: new URL(e.name).pathname, ms: e.duration }));
    return {
      elapsedMs: marks.benchDrawnAt - marks.benchTriggeredAt,
      granularity: element?.getAttribute('data-granularity') ?? '',
      points: Number(element?.getAttribute('data-points')),
      dataReadsMs: entries.filter((e) => e.path.endsWith('/timeseries/data/list')).map((e) => e.ms),
      metadataReadsMs: entries.filter((e) => e.path.endsWith('/timeseries/byids')).map((e) => e.ms),
    };
  }, CHART);
}

/** Undefined when the chart drew what the range holds, else what is wrong. */
function checkOpening(which: 'whole' | 'window', range: Range, opening: Opening): string | undefined {
  const what = which === 'whole' ? 'whole range' : '1 h window';
  if (!(opening.points > 0)) return `${what}: data-points ${opening.points}`;
  if (which === 'whole' && !(opening.granularity in GRANULARITY_MS)) return `${what}: drawn at granularity "${opening.granularity}", expected an aggregate one (1m, 1h or 1d)`;
  if (which === 'window' && opening.granularity !== 'raw' && !(opening.granularity in GRANULARITY_MS)) return `${what}: granularity "${opening.granularity}"`;
  const expected = bucketCount(range, opening.granularity);
  if (opening.points !== expected) return `${what}: ${opening.points} ${opening.granularity === 'raw' ? 'points' : `${opening.granularity} buckets`} drawn, expected ${expected}`;
  return undefined;
}

/** The most frequent value (the granularity and count the openings drew). */
function mostFrequent<T>(values: readonly T[]): T | undefined {
  const counts = new Map<T, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
}

/** "at 1h: 278 buckets (min-max band and average line)" or "raw: 3,600 points". */
function drawnText(openings: readonly Opening[]): string {
  const granularity = mostFrequent(openings.map((o) => o.granularity));
  const count = (mostFrequent(openings.map((o) => o.points)) ?? 0).toLocaleString('en-US');
  return granularity === 'raw' ? `raw: ${count} points` : `at ${granularity}: ${count} buckets (min-max band and average line)`;
}

export function consoleSuiteResult(size: ConsoleSize, measured: Measured | undefined, notes: string[], live?: LiveMeasured): SuiteResult {
  const points = size.pointCount.toLocaleString('en-US');
  const checked = measured !== undefined && measured.problems.every((p) => p.startsWith('page error') || p.startsWith('console error'));
  const ms = (values: number[]) => {
    const t = summarize(values);
    return values.length === 0 ? 'none' : `median ${t.medianMs.toFixed(1)} ms, p99 ${t.p99Ms.toFixed(1)} ms`;
  };
  const row = (key: string, label: string, which: 'whole' | 'window'): Metric => {
    const m = measured?.[which];
    return {
      suite: 'console', key, label, unit: 'ms', better: 'lower', target: { op: '<=', value: DRAWN_MS_MAX },
      figures: m ? {
        plantdata: {
          value: m.timing.medianMs, p99: m.timing.p99Ms, runCount: m.timing.runCount, checked,
          note: `${drawnText(m.openings)}; of it, the data read (POST /timeseries/data/list, resource timing) ${ms(m.openings.flatMap((o) => o.dataReadsMs))}, the series read (POST /timeseries/byids) ${ms(m.openings.flatMap((o) => o.metadataReadsMs))}`,
        },
      } : {},
    };
  };
  const drawn = measured ? `drawn: the whole range ${drawnText(measured.whole.openings)}, the 1 h window ${drawnText(measured.window.openings)} (the granularity and count of most openings; every one is checked)` : undefined;
  const spanDays = ((size.pointCount - 1) * SPACING_MS / DAY_MS).toFixed(1);
  const liveChecked = live !== undefined && live.problems.every((p) => p.startsWith('page error') || p.startsWith('console error'));
  const liveWhat = `${size.liveSeconds} s of ${LIVE_BATCH_POINTS} points every ${LIVE_BATCH_MS} ms`;
  const mib = (bytes: number) => `${(bytes / MIB).toFixed(2)} MiB`;
  return {
    suite: 'console',
    dataset: `1 FLOAT series x ${points} points at 1 s (${spanDays} days); ${size.runCount} openings of each chart after ${size.warmupCount} warm-up, the whole range and a 1 h window in the middle in turn, each from the series list; then Live on an empty FLOAT series fed 1,000 points/s for ${size.liveSeconds} s`,
    metrics: [
      row('chart-whole-range', `chart, whole range of ${points} points: click to drawn`, 'whole'),
      row('chart-window', 'chart, 1 h raw window: click to drawn', 'window'),
      {
        suite: 'console', key: 'live-lag', label: 'live, 1,000 points/s: write acknowledged to point drawn', unit: 'ms', better: 'lower',
        target: { op: '<=', value: LIVE_LAG_MS_MAX },
        figures: live ? {
          plantdata: {
            value: live.lag.medianMs, p99: live.lag.p99Ms, runCount: live.lag.runCount, checked: liveChecked,
            note: `${live.lag.runCount} writes (${liveWhat}, ${live.rate.toFixed(0)} points/s achieved), min ${live.lag.minMs.toFixed(0)} ms (${live.drawnBeforeAck} drawn before their 204 reached the writer), max ${live.lag.maxMs.toFixed(0)} ms; from the request sent: median ${live.sentLag.medianMs.toFixed(1)} ms, p99 ${live.sentLag.p99Ms.toFixed(1)} ms; left out: ${live.heldByGc} write${live.heldByGc === 1 ? '' : 's'} waiting through the first heap reading's forced GC (up to ${live.heldByGcLagMsMax.toFixed(0)} ms); ${live.draws} draws changed the chart`,
          },
        } : {},
      },
      {
        suite: 'console', key: 'live-heap-growth', label: 'live, 1,000 points/s: JS heap growth after GC', unit: 'MiB', better: 'lower',
        target: { op: '<', value: LIVE_HEAP_GROWTH_MIB_MAX },
        figures: live ? {
          plantdata: {
            value: (live.heapEnd.usedBytes - live.heapFirst.usedBytes) / MIB, checked: liveChecked,
            note: `${mib(live.heapFirst.usedBytes)} ${size.liveHeapFirstMs / 1000} s into the writes (${live.heapFirst.points.toLocaleString('en-US')} points held), ${mib(live.heapEnd.usedBytes)} at the end (${live.heapEnd.points.toLocaleString('en-US')} points held, at most ${LIVE_POINTS_MAX.toLocaleString('en-US')} kept); ${mib(live.heapBeforeBytes)} before Live`,
          },
        } : {},
      },
    ],
    notes: [
      ...notes,
      ...(measured ? [
        ...(drawn ? [drawn] : []),
        `click to drawn: performance.now() in the page right before location.hash is set to #/chart?ids=<id>&start=<first ms>&end=<last ms + 1> (the navigation a click in the series list makes), to the first animation frame where [data-testid="chart"] has data-drawn="true" and that data-start and data-end; each opening starts from the series list, so it is a fresh chart view (series read, range read, uPlot's first draw); ${measured.browserVersion}, headless, ${VIEWPORT.width}x${VIEWPORT.height}`,
        ...measured.problems.map((p) => (p.startsWith('page error') || p.startsWith('console error') ? `console page: ${p}` : `console chart WRONG: ${p}`)),
      ] : []),
      ...(live ? [
        `live: the chart of an empty FLOAT series opened as the series list opens it (the last 24 h, drawn at ${live.granularity || 'an unknown granularity'}), Live switched on, and once the page said "${LIVE_LISTENING}", ${liveWhat} (one point per ms, the last one's timestamp the time it is due, values varied) written through POST /timeseries/data, one request after the other (sent at most ${live.lateMsMax.toFixed(0)} ms after due); ${live.pointsWritten.toLocaleString('en-US')} points written, ${live.pointsAtEnd.toLocaleString('en-US')} held at the end. Lag: Date.now() at each write's 204, to Date.now() in the page at the first change of the chart's data-last-point to that write's last point (a MutationObserver; the attribute is set with data-points after each draw). Heap: CDP HeapProfiler.collectGarbage then Runtime.getHeapUsage (used), ${size.liveHeapFirstMs / 1000} s into the writes and once the last point was drawn (the GC took ${live.heapFirst.gcEndMs - live.heapFirst.gcStartMs} ms and ${live.heapEnd.gcEndMs - live.heapEnd.gcStartMs} ms; the first pauses the page during the writes, so the writes waiting through it are left out of the lag); checked: every draw below the cap held every point written up to its last one, every draw at the cap held ${LIVE_POINTS_MAX.toLocaleString('en-US')}, the last point written drawn, no stream problem`,
        ...live.problems.map((p) => (p.startsWith('page error') || p.startsWith('console error') ? `live page: ${p}` : `live chart WRONG: ${p}`)),
      ] : []),
    ],
  };
}
