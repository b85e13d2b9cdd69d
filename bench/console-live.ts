// The console suite's second promise, "the live view keeps up with 1,000 points/s on one series
// without growing memory": in a fresh browser, the chart of a second, empty FLOAT series opened
// as the series list opens it (the last 24 h), Live switched on, and once the page says it is
// listening, 100 points every 100 ms (one per ms, the last one's timestamp the time it is due,
// values varied) written through POST /timeseries/data, one request after the other, for 30 s.
// The page records, at each change of the chart's data-last-point (the latest plotted time,
// set with data-points after each draw), the time and what the chart holds; a write's lag is
// from its acknowledgement to the first draw holding its last point (Date.now() on both sides,
// one machine). The page's JS heap is read after a forced GC (CDP HeapProfiler.collectGarbage,
// Runtime.getHeapUsage) 5 s into the writes and after the last point is drawn: the live
// buffer keeps at most LIVE_POINTS_MAX points, so the heap must level off. Checked: every
// draw before the cap holds every point written up to its last one, every draw at the cap
// holds the cap, the last point written is drawn, and the stream reported no problem.
import { setTimeout as sleep } from 'node:timers/promises';
import puppeteer, { type Browser, type CDPSession, type Page } from 'puppeteer-core';
import { LIVE_POINTS_MAX } from '../console/src/chart/live-buffer.ts';
import { CHART, CHROMIUM, DRAW_WAIT_MS_MAX, openSignedIn } from './console-page.ts';
import type { HttpClient } from './http-client.ts';
import { summarize, type TimingSummary } from './stats.ts';

/** Live writes: LIVE_BATCH_POINTS points every LIVE_BATCH_MS, one per ms, so 1,000 points/s. */
export const LIVE_BATCH_MS = 100;
export const LIVE_BATCH_POINTS = 100;
/** The promise's target: the live view draws each batch before the next one is written. */
export const LIVE_LAG_MS_MAX = LIVE_BATCH_MS;
/** The promise's target: the JS heap after GC grows by less than this while live. */
export const LIVE_HEAP_GROWTH_MIB_MAX = 5;
/** Draws the page can record (a preallocated buffer, so the record does not grow the heap). */
const LIVE_RECORD_MAX = 16_384;
const LIVE_SWITCH = 'input[role="switch"]';
export const LIVE_LISTENING = 'Live: listening to 1 series';
export const MIB = 2 ** 20;

/** Point i's value: two decimals, varied (a slow wave and a faster ripple), exact as text. */
export function valueText(i: number): string {
  return (Math.round((Math.sin(i / 3600) * 40 + Math.sin(i / 97) * 5 + 50) * 100) / 100).toString();
}

/** One live write: its last point's time and when its acknowledgement arrived (Date.now()). */
interface LiveWrite { lastMs: number; dueMs: number; sentMs: number; ackMs: number }

/** A heap reading after a forced GC: the used JS heap, the GC's time (Date.now() around it), the points the chart held. */
interface HeapReading { usedBytes: number; gcStartMs: number; gcEndMs: number; points: number }

export interface LiveMeasured {
  /** Per write not held up by the forced GC, ms from its acknowledgement to the first draw holding its last point. */
  lag: TimingSummary;
  /** The same writes, ms from the request sent to the draw. */
  sentLag: TimingSummary;
  /** Writes acknowledged before the page drew them: the stream beat the 204 back. */
  drawnBeforeAck: number;
  /** Writes waiting while the forced GC paused the page (left out of the lag), and their largest lag. */
  heldByGc: number;
  heldByGcLagMsMax: number;
  heapFirst: HeapReading;
  heapEnd: HeapReading;
  /** The heap after GC with the chart open, before Live was switched on. */
  heapBeforeBytes: number;
  pointsWritten: number;
  /** Points written per second, first due time to the last acknowledgement. */
  rate: number;
  /** Most a write was sent after its due time, ms (the writer falling behind). */
  lateMsMax: number;
  pointsAtEnd: number;
  draws: number;
  granularity: string;
  liveStatus: string;
  problems: string[];
}

/** What the page recorded at each draw that changed the chart's last point or count. */
interface LiveRecord { atMs: number[]; lastMs: number[]; points: number[]; full: boolean }

/**
 * The chart of the empty series `id` opened as the series list opens it, Live switched on,
 * 1,000 points/s written for size.liveSeconds; the lag of each write and the heap after GC.
 */
export async function measureLive(opts: { url: string; token: string; http: HttpClient; id: number; size: { liveSeconds: number; liveHeapFirstMs: number }; log: (line: string) => void }): Promise<LiveMeasured> {
  const { url, token, http, id, size, log } = opts;
  let browser: Browser | undefined;
  const pageErrors: string[] = [];
  try {
    browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    const page = await openSignedIn(browser, url, token, pageErrors);
    const cdp = await page.createCDPSession();
    await page.evaluate((target: string) => { location.hash = target; }, `#/chart?ids=${id}`);
    await page.waitForSelector(`${CHART}[data-drawn="true"]`, { timeout: DRAW_WAIT_MS_MAX });
    const heapBeforeBytes = (await heapAfterGc(cdp, page)).usedBytes;
    // The record: preallocated typed arrays, filled by a MutationObserver on the chart's attributes.
    await page.evaluate((chart: string, max: number) => {
      const element = document.querySelector(chart) as Element;
      const record = { at: new Float64Array(max), last: new Float64Array(max), points: new Float64Array(max), n: 0, full: false };
      (window as unknown as { benchLive: typeof record }).benchLive = record;
      new MutationObserver(() => {
        const lastText = element.getAttribute('data-last-point');
        if (lastText === null) return;
        const last = Number(lastText);
        const points = Number(element.getAttribute('data-points'));
        if (record.n > 0 && record.last[record.n - 1] === last && record.points[record.n - 1] === points) return;
        if (record.n >= max) { record.full = true; return; }
        record.at[record.n] = Date.now();
        record.last[record.n] = last;
        record.points[record.n] = points;
        record.n++;
      }).observe(element, { attributes: true, attributeFilter: ['data-last-point', 'data-points'] });
    }, CHART, LIVE_RECORD_MAX);
    // Live on: the range moves to end now and is read again, then the stream says it listens.
    const switchedAt = await page.evaluate(() => Date.now());
    await page.click(LIVE_SWITCH);
    await page.waitForFunction((chart: string, listening: string, after: number) => {
      const element = document.querySelector(`${chart}[data-drawn="true"]`);
      return element !== null && Number(element.getAttribute('data-end')) >= after && (document.querySelector('.chart-status')?.textContent ?? '').includes(listening);
    }, { polling: 100, timeout: DRAW_WAIT_MS_MAX }, CHART, LIVE_LISTENING, switchedAt);

    const batches = Math.round((size.liveSeconds * 1000) / LIVE_BATCH_MS);
    const writes: LiveWrite[] = [];
    const startMs = Date.now();
    // The first heap reading while the writes go on; a failure is kept, not thrown unhandled.
    const firstReading = sleep(size.liveHeapFirstMs).then(() => heapAfterGc(cdp, page)).then((reading) => ({ reading, error: undefined }), (error: unknown) => ({ reading: undefined, error: error as Error }));
    for (let b = 0; b < batches; b++) {
      const dueMs = startMs + (b + 1) * LIVE_BATCH_MS;
      const waitMs = dueMs - Date.now();
      if (waitMs > 0) await sleep(waitMs);
      const parts: string[] = new Array(LIVE_BATCH_POINTS);
      for (let k = 0; k < LIVE_BATCH_POINTS; k++) {
        const i = b * LIVE_BATCH_POINTS + k;
        parts[k] = `{"timestamp":${dueMs - LIVE_BATCH_POINTS + 1 + k},"value":"${valueText(i * 37)}"}`;
      }
      const sentMs = Date.now();
      await http.postJson('/timeseries/data', Buffer.from(`{"items":[{"id":${id},"datapoints":[${parts.join(',')}]}]}`), 204);
      writes.push({ lastMs: dueMs, dueMs, sentMs, ackMs: Date.now() });
    }
    const first = await firstReading;
    if (!first.reading) throw new Error(`heap reading ${size.liveHeapFirstMs} ms into the writes: ${first.error?.message}`);
    const lastMs = writes[writes.length - 1]!.lastMs;
    await page.waitForFunction((chart: string, last: string) => document.querySelector(chart)?.getAttribute('data-last-point') === last,
      { polling: 100, timeout: DRAW_WAIT_MS_MAX }, CHART, String(lastMs)).catch(() => undefined);
    const heapEnd = await heapAfterGc(cdp, page);
    const seen = await page.evaluate((chart: string) => {
      const record = (window as unknown as { benchLive: { at: Float64Array; last: Float64Array; points: Float64Array; n: number; full: boolean } }).benchLive;
      const element = document.querySelector(chart);
      return {
        record: { atMs: Array.from(record.at.subarray(0, record.n)), lastMs: Array.from(record.last.subarray(0, record.n)), points: Array.from(record.points.subarray(0, record.n)), full: record.full },
        lastShown: Number(element?.getAttribute('data-last-point')),
        points: Number(element?.getAttribute('data-points')),
        granularity: element?.getAttribute('data-granularity') ?? '',
        status: document.querySelector('.chart-status')?.textContent ?? '',
      };
    }, CHART);

    const firstMs = startMs + 1;
    const pointsWritten = writes.length * LIVE_BATCH_POINTS;
    const problems = checkLive(seen.record, writes, firstMs, seen.lastShown, seen.points, seen.status);
    problems.push(...pageErrors);
    // A write whose wait overlapped the forced GC's pause measures the GC, not the chart.
    const shown = shownAt(seen.record, writes);
    const held = (w: LiveWrite, i: number) => w.ackMs < first.reading!.gcEndMs && shown[i]! > first.reading!.gcStartMs;
    const kept = writes.slice(0, shown.length).map((w, i) => ({ w, i })).filter(({ w, i }) => !held(w, i));
    const heldLags = writes.slice(0, shown.length).map((w, i) => ({ w, i })).filter(({ w, i }) => held(w, i)).map(({ w, i }) => shown[i]! - w.ackMs);
    const lag = summarize(kept.map(({ w, i }) => shown[i]! - w.ackMs));
    const sentLag = summarize(kept.map(({ w, i }) => shown[i]! - w.sentMs));
    const drawnBeforeAck = kept.filter(({ w, i }) => shown[i]! < w.ackMs).length;
    const rate = pointsWritten / ((writes[writes.length - 1]!.ackMs - startMs) / 1000);
    const lateMsMax = Math.max(...writes.map((w) => w.sentMs - w.dueMs));
    log(`console: live ${pointsWritten} points in ${writes.length} writes (${rate.toFixed(0)} points/s), lag median ${lag.medianMs.toFixed(1)} ms p99 ${lag.p99Ms.toFixed(1)} (min ${lag.minMs.toFixed(0)}, max ${lag.maxMs.toFixed(0)}; ${heldLags.length} writes held by the forced GC left out, up to ${heldLags.length ? Math.max(...heldLags) : 0} ms); heap after GC ${(heapBeforeBytes / MIB).toFixed(2)} MiB before Live, ${(first.reading.usedBytes / MIB).toFixed(2)} at ${size.liveHeapFirstMs / 1000} s (${first.reading.points} points), ${(heapEnd.usedBytes / MIB).toFixed(2)} at the end (${heapEnd.points} points)${problems.length ? `; ${problems.join('; ')}` : ''}`);
    return {
      lag, sentLag, drawnBeforeAck, heldByGc: heldLags.length, heldByGcLagMsMax: heldLags.length ? Math.max(...heldLags) : 0, heapFirst: first.reading, heapEnd, heapBeforeBytes, pointsWritten, rate, lateMsMax,
      pointsAtEnd: seen.points, draws: seen.record.atMs.length, granularity: seen.granularity, liveStatus: seen.status, problems,
    };
  } catch (error) {
    throw new Error([(error as Error).message, ...pageErrors].join('; '), { cause: error });
  } finally {
    await browser?.close();
  }
}

/** The page's used JS heap after a forced GC, and the points its chart holds. */
async function heapAfterGc(cdp: CDPSession, page: Page): Promise<HeapReading> {
  const gcStartMs = Date.now();
  await cdp.send('HeapProfiler.collectGarbage');
  const gcEndMs = Date.now();
  const { usedSize } = await cdp.send('Runtime.getHeapUsage');
  const points = await page.evaluate((chart: string) => Number(document.querySelector(chart)?.getAttribute('data-points')), CHART);
  return { usedBytes: usedSize, gcStartMs, gcEndMs, points };
}

/** When each write's last point was first drawn (Date.now() in the page), in write order; shorter if some never were. */
function shownAt(record: LiveRecord, writes: readonly LiveWrite[]): number[] {
  const shown: number[] = [];
  let r = 0;
  for (const write of writes) {
    while (r < record.lastMs.length && record.lastMs[r]! < write.lastMs) r++;
    if (r === record.lastMs.length) break;
    shown.push(record.atMs[r]!);
  }
  return shown;
}

/**
 * What is wrong with the live chart, if anything: a draw below the cap must hold every point
 * written up to its last one (they are one per ms from firstMs), a draw at the cap the cap;
 * the last point written must be drawn, and the stream must report no problem.
 */
function checkLive(record: LiveRecord, writes: readonly LiveWrite[], firstMs: number, lastShown: number, pointsAtEnd: number, status: string): string[] {
  const problems: string[] = [];
  const lastMs = writes[writes.length - 1]?.lastMs;
  if (lastShown !== lastMs) problems.push(`the last point written (${lastMs}) is not drawn: data-last-point ${lastShown}`);
  const written = writes.length * LIVE_BATCH_POINTS;
  if (pointsAtEnd !== Math.min(written, LIVE_POINTS_MAX)) problems.push(`${pointsAtEnd} points held at the end, expected ${Math.min(written, LIVE_POINTS_MAX)} (${written} written, at most ${LIVE_POINTS_MAX} kept)`);
  for (let r = 0; r < record.lastMs.length && problems.length < 3; r++) {
    const expected = Math.min(record.lastMs[r]! - firstMs + 1, LIVE_POINTS_MAX);
    if (record.points[r] !== expected) problems.push(`a draw with its last point at +${record.lastMs[r]! - firstMs} ms held ${record.points[r]} points, expected ${expected}`);
  }
  if (record.full) problems.push(`more than ${LIVE_RECORD_MAX} draws: the record is cut`);
  if (/problem|ended|closed/i.test(status)) problems.push(`the chart's status says: ${status}`);
  if (writes.length === 0 || record.lastMs.length === 0) problems.push('nothing drawn live');
  return problems;
}
