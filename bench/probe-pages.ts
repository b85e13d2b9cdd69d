// The probe's phases over raw pages of one long series (bench/probe.ts egress, newest): the
// bench's egress row as Arrow and JSON by turns, and pages of the newest points (no start)
// beside ascending ones.
import { performance } from 'node:perf_hooks';
import { ARROW_STREAM_TYPE, readArrowPoints } from './arrow-bodies.ts';
import { parseJson, type HttpClient } from './http-client.ts';
import { PerfRecord } from './perf-profile.ts';
import { bulkLoad, report, waitForFold } from './probe-load.ts';
import { InspectorProfile } from './probe-process.ts';
import { treeCpuSeconds } from './proc-stats.ts';
import type { RunningService } from './service.ts';
import { quantile } from './stats.ts';
import { Workload } from './workload.ts';

const HOUR_MS = 3_600_000;

/** What these phases take of the probe's options. */
export interface PagesOptions { seconds: number; profile?: string; perf?: string }

/** The bench's egress row (bench/arrow-rows.ts): 1,000,000 points of one series in 100,000-point pages, Arrow and JSON by turns. */
export async function egressPhase(service: RunningService, http: HttpClient, opts: PagesOptions): Promise<void> {
  // 1,000,000 points at 1 s span 11.6 days: ending two weeks ago, no hour is hot and the fold
  // does not wait for them (rollup-fold.ts hotMaxAgeMs).
  const workload = new Workload({ seriesCount: 1, pointsPerSeries: 1_000_000, requestPoints: 43_200, senderCount: 1 } as never, Date.now() - 14 * 24 * HOUR_MS);
  const loadStarted = performance.now();
  await bulkLoad(http, workload, 1);
  const loaded = performance.now();
  const rawParts = await waitForFold(http);
  console.log(`loaded in ${((loaded - loadStarted) / 1000).toFixed(1)} s, background work quiet ${((performance.now() - loaded) / 1000).toFixed(1)} s later, ${rawParts} raw parts`);
  const readWhole = async (format: 'arrow' | 'json'): Promise<{ pages: number[]; points: number }> => {
    const pages: number[] = [];
    let points = 0;
    let cursor: string | undefined;
    do {
      const item = { externalId: workload.externalId(0), start: workload.startMs, end: workload.endMs, limit: 100_000, ...(cursor ? { cursor } : {}) };
      const answer = await http.request('POST', '/timeseries/data/list', JSON.stringify({ items: [item] }), { 'content-type': 'application/json', ...(format === 'arrow' ? { accept: ARROW_STREAM_TYPE } : {}) });
      if (answer.status !== 200) throw new Error(`${format} page: ${answer.status} ${answer.body.toString('utf8', 0, 300)}`);
      pages.push(answer.elapsedMs);
      if (format === 'arrow') {
        const page = readArrowPoints(answer.body);
        points += page.timestamps.length;
        cursor = page.batchMetadata.get('nextCursor');
      } else {
        const item = parseJson<{ items: { datapoints: unknown[]; nextCursor?: string }[] }>(answer).items[0];
        points += item?.datapoints.length ?? 0;
        cursor = item?.nextCursor;
      }
    } while (cursor);
    return { pages, points };
  };
  // Warm-up, untimed: the first read of each form compiles its paths.
  await readWhole('arrow');
  await readWhole('json');
  const profile = opts.profile ? await InspectorProfile.attach(service.mainPid) : undefined;
  await profile?.start();
  const perf = opts.perf ? PerfRecord.start(service.mainPid, opts.perf) : undefined;
  const totals = { arrow: [] as number[], json: [] as number[] };
  const pages = { arrow: [] as number[], json: [] as number[] };
  const cpu = { arrow: 0, json: 0 };
  const until = performance.now() + opts.seconds * 1000;
  for (let round = 0; performance.now() < until; round++) {
    for (const format of (round % 2 === 0 ? ['arrow', 'json'] : ['json', 'arrow']) as ('arrow' | 'json')[]) {
      const cpuBefore = treeCpuSeconds(service.rootPid);
      const read = await readWhole(format);
      cpu[format] += treeCpuSeconds(service.rootPid) - cpuBefore;
      if (read.points !== workload.size.pointsPerSeries) throw new Error(`${format}: ${read.points} points`);
      totals[format].push(read.pages.reduce((a, b) => a + b, 0));
      pages[format].push(...read.pages);
    }
  }
  if (profile && opts.profile) await profile.stop(opts.profile);
  if (perf) for (const line of await perf.stop()) console.log(line);
  for (const format of ['arrow', 'json'] as const) {
    report(`${format} 1M points`, totals[format]);
    report(`${format} page`, pages[format]);
    console.log(`  CPU per 1M-point read: ${(cpu[format] / totals[format].length * 1000).toFixed(1)} ms`);
  }
  const median = (xs: number[]) => quantile([...xs].sort((a, b) => a - b), 0.5);
  console.log(`JSON / Arrow: ${(median(totals.json) / median(totals.arrow)).toFixed(2)}x`);
}

/** Pages of the newest points before distinct ends (descending) beside ascending pages of the same size. */
export async function newestPhase(http: HttpClient, opts: PagesOptions): Promise<void> {
  const workload = new Workload({ seriesCount: 1, pointsPerSeries: 1_000_000, requestPoints: 43_200, senderCount: 1 } as never, Date.now() - 14 * 24 * HOUR_MS);
  await bulkLoad(http, workload, 1);
  await waitForFold(http);
  const span = workload.endMs - workload.startMs;
  for (const limit of [100, 10_000]) {
    const samples = { descending: [] as number[], ascending: [] as number[] };
    const until = performance.now() + (opts.seconds * 1000) / 2;
    for (let pick = 0; performance.now() < until; pick++) {
      // Distinct picks in the newer half, so no page comes from the read-context cache.
      const at = workload.startMs + Math.floor(span / 2 + ((pick * 7919) % (span / 2 - limit * 1000)));
      for (const direction of ['descending', 'ascending'] as const) {
        const window = direction === 'descending' ? { end: at } : { start: at - limit * 1000, end: at };
        const answer = await http.postJson('/timeseries/data/list', { items: [{ externalId: workload.externalId(0), ...window, limit }] });
        const points = parseJson<{ items: { datapoints: unknown[] }[] }>(answer).items[0]?.datapoints.length;
        if (points !== limit) throw new Error(`${direction} page of ${limit}: ${points} points`);
        samples[direction].push(answer.elapsedMs);
      }
    }
    report(`${limit} newest points, no start`, samples.descending);
    report(`${limit} points from a start`, samples.ascending);
  }
}
