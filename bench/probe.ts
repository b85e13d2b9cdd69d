// A profiling probe for one workload shape at a time ("profile before and after each
// step"). It starts the service as the bench does, loads what the phase needs, then times the
// phase with a CPU profile of the service's main thread taken over the inspector (SIGUSR1, so
// the load before it is not in the profile). Not part of `make bench`: a tool for the engine's
// authors. The profile opens in Chrome DevTools or speedscope. --perf records every thread of the
// service with Linux perf instead (CPU, kernel included) and prints where it went (perf-profile.ts;
// --perf-top N: the N busiest activities per kind of thread, 12 by default).
// --heap (gateway) samples what the main thread allocates over the phase, freed or not, and
// prints it by allocating function, per request: the young generation's work.
//
//   npx tsx bench/probe.ts v1|v2|v3|gateway|bulk|egress|newest [--profile out/probe.cpuprofile] [--perf out/probe.perf [--perf-top N]] [--heap out/probe.heapprofile] [--seconds N] [--series N]
//                          [--spec-limits] [--users N] [--one-tenant] [--rate N] [--live] [--arrow]
//
// gateway: the bench's gateway shape (10 tenants, 1,000-point requests of 100 series x 10 points,
// 16 connections). --spec-limits starts the service with SPEC's default rate limits and quotas
// (as the bench's load rows do) instead of the bench's raised ones; --users N spreads each
// tenant's requests over N callers (the bench: 4). --one-tenant writes the same 1,000 series
// into one tenant (the bench's one-tenant rows), --rate N paces the requests at N points/s, and
// --live reads a live chart meanwhile (the bench's V1 (c): one written series' 6 h of 1m
// aggregates from the start of what is written, every 200 ms) and reports its latency.
// --arrow sends the same points as Arrow streams (the bench's Arrow gateway-sized row's shape).
//
// v1, v2, v3: N series (--series, default 10) x 43,200 points (v2: 100,000), then 1m aggregates of
// 6 h (v1), hourly averages of 1 d of 10 series in one request (v2) or 10,000 raw points (v3) of distinct picks; with more series than the read-context cache
// holds days of minute rows for (about 580 series-days), each series' first read (reported
// apart) runs the minute-days statement.
//
// newest: one series of 1,000,000 points, then pages of its newest points before a distinct
// end each (no start: a descending page), 100 and 10,000 points, beside ascending pages of
// the same size from a start.
//
// egress: one series of 1,000,000 points read whole in 100,000-point pages, as Arrow and as JSON
// by turns (the bench's egress row), each page's time, and the CPU of a read in each form.
//
// bulk: the bench's bulk ingest shape at a smaller size (N series x 100,000 points, 100,000-point
// requests, 2 senders; --arrow: as the Arrow bulk row sends them, 10 series x 10,000 points a
// request): points/s, CPU per M points and by thread (--perf: by function), peak RSS (VmHWM of the main process) with what
// held it (V8 heap, array buffers, the rest native: chdb), then bytes per point after OPTIMIZE FINAL
// by table and column (the RSS and disk targets).
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpClient, parseJson } from './http-client.ts';
import { bulkLoad, report, reportStoreMetrics, storeMetrics, waitForFold } from './probe-load.ts';
import { egressPhase, newestPhase } from './probe-pages.ts';
import { InspectorProfile, PeakSampler, mib, readSmapsRollup, reportPeak, reportThreads, threadCpu } from './probe-process.ts';
import { ARROW_STREAM_TYPE, arrowPointsBody, arrowWriteBody } from './arrow-bodies.ts';
import { forceMergeChdb } from './chdb-merge.ts';
import type { WriteItem } from './datapoint-system.ts';
import { runIngest } from './load.ts';
import { PlantdataTarget } from './plantdata-target.ts';
import { readStatusBytes, treeCpuSeconds } from './proc-stats.ts';
import { openColumnarStore } from '../engine/stores/columnar.ts';
import { PERF_NODE_OPTION, PerfRecord } from './perf-profile.ts';
import { SPEC_DEFAULT_SERVICE_CONFIG, startService, type RunningService } from './service.ts';
import { DATAPOINT_SIZES, Workload } from './workload.ts';

const HOUR_MS = 3_600_000;
/** When the bulk probe looks at what the load left resident, ms after its last acknowledgement. */
const SETTLED_AFTER_LOAD_MS = 12_000;

type Phase = 'v1' | 'v2' | 'v3' | 'gateway' | 'bulk' | 'egress' | 'newest';
const PHASES: readonly Phase[] = ['v1', 'v2', 'v3', 'gateway', 'bulk', 'egress', 'newest'];

interface ProbeOptions { phase: Phase; profile?: string; perf?: string; perfTop: number; heap?: string; seconds: number; seriesCount?: number; specLimits: boolean; usersPerTenant: number; oneTenant: boolean; pointsPerSecond?: number; live: boolean; arrow: boolean }

function parseArgs(argv: string[]): ProbeOptions {
  const phase = argv[0] as Phase;
  if (!PHASES.includes(phase)) throw new Error(`usage: probe.ts ${PHASES.join('|')} [--profile FILE] [--perf FILE] [--seconds N] [--series N]`);
  const flag = (name: string) => { const at = argv.indexOf(name); return at >= 0 ? argv[at + 1] : undefined; };
  return { phase, profile: flag('--profile'), perf: flag('--perf'), perfTop: Number(flag('--perf-top') ?? 12), heap: flag('--heap'), seconds: Number(flag('--seconds') ?? 20), seriesCount: flag('--series') === undefined ? undefined : Number(flag('--series')),
    specLimits: argv.includes('--spec-limits'), usersPerTenant: Number(flag('--users') ?? 1),
    oneTenant: argv.includes('--one-tenant'), pointsPerSecond: flag('--rate') === undefined ? undefined : Number(flag('--rate')), live: argv.includes('--live'), arrow: argv.includes('--arrow') };
}

/** 1 d of hourly averages of 10 series from a whole hour: distinct for seriesCount x 4 picks. */
function v2Body(workload: Workload, seriesCount: number, pick: number): unknown {
  const start = workload.startMs + (Math.floor(pick / seriesCount) % 4) * HOUR_MS;
  const items = Array.from({ length: Math.min(10, seriesCount) }, (_, k) => ({ externalId: workload.externalId((pick % seriesCount + k * 7) % seriesCount) }));
  return { items, start, end: start + 24 * HOUR_MS, aggregates: ['AVG'], granularity: '1h', limit: 10_000 };
}

async function readPhase(service: RunningService, http: HttpClient, opts: ProbeOptions): Promise<void> {
  const seriesCount = opts.seriesCount ?? 10;
  // v2 reads a day: its series hold 27.8 h, as the bench's do.
  const workload = new Workload({ seriesCount, pointsPerSeries: opts.phase === 'v2' ? 100_000 : 43_200, requestPoints: 43_200, senderCount: 1 } as never);
  await bulkLoad(http, workload, seriesCount);
  await waitForFold(http);
  const afterFold = readSmapsRollup(service.mainPid);
  const profile = opts.profile ? await InspectorProfile.attach(service.mainPid) : undefined;
  await profile?.start();
  const perf = opts.perf ? PerfRecord.start(service.mainPid, opts.perf, opts.perfTop) : undefined;
  const samples: number[] = [];
  const metricsBefore = await storeMetrics(service.url);
  const cpuBefore = treeCpuSeconds(service.rootPid);
  const until = performance.now() + opts.seconds * 1000;
  let pick = 0;
  while (performance.now() < until && pick < 3_600) {
    // Distinct picks (series x minute offset): no answer can come from a result cache.
    const series = pick % seriesCount;
    const from = workload.startMs + ((Math.floor(pick / seriesCount) * 7) % 360) * 60_000 + (opts.phase === 'v3' ? (pick % 7) * 1000 : 0);
    const body = opts.phase === 'v1'
      ? { items: [{ externalId: workload.externalId(series), start: from, end: from + 6 * HOUR_MS, aggregates: ['AVG', 'MIN', 'MAX', 'COUNT'], granularity: '1m', limit: 10_000 }] }
      : opts.phase === 'v2'
        ? v2Body(workload, seriesCount, pick)
        : { items: [{ externalId: workload.externalId(series), start: from, end: from + 10_000_000, limit: 10_000 }] };
    const answer = await http.postJson('/timeseries/data/list', body);
    const points = parseJson<{ items: { datapoints: unknown[] }[] }>(answer).items[0]?.datapoints.length;
    if (!points) throw new Error('empty answer');
    samples.push(answer.elapsedMs);
    pick++;
  }
  const cpu = treeCpuSeconds(service.rootPid) - cpuBefore;
  if (profile && opts.profile) await profile.stop(opts.profile);
  if (perf) for (const line of await perf.stop()) console.log(line);
  report(opts.phase, samples);
  const afterReads = readSmapsRollup(service.mainPid);
  console.log(`resident after the fold: anonymous ${mib(afterFold.anonBytes)}; after the reads: anonymous ${mib(afterReads.anonBytes)} (read caches included)`);
  if (samples.length > seriesCount) report(`${opts.phase}, each series' first read`, samples.slice(0, seriesCount));
  console.log(`CPU per query: ${(cpu / samples.length * 1000).toFixed(2)} ms`);
  reportStoreMetrics(metricsBefore, await storeMetrics(service.url), 0);
}

async function gatewayPhase(service: RunningService, opts: ProbeOptions): Promise<void> {
  // Ten groups of 100 series: a tenant each, or (--one-tenant) 1,000 series of one tenant.
  const groups = 10;
  const seriesPerGroup = 100;
  const tenants = opts.oneTenant ? 1 : groups;
  const workload = new Workload({ seriesCount: 1, pointsPerSeries: 1_000_000, requestPoints: 1000, senderCount: 1 } as never);
  const users = opts.usersPerTenant;
  const clients = Array.from({ length: tenants * users }, (_, c) => new HttpClient(service.url, { headers: { authorization: `Bearer ${service.token(`gw-${c % tenants}`, `u${c}`)}` }, socketsMax: 16 }));
  const externalId = (g: number, s: number) => `gw-${opts.oneTenant ? g * seriesPerGroup + s : s}`;
  for (let g = 0; g < (opts.oneTenant ? groups : tenants); g++) {
    const items = Array.from({ length: seriesPerGroup }, (_, s) => ({ externalId: externalId(g, s), name: `gw ${s}`, valueType: 'FLOAT' }));
    await clients[g % tenants]!.postJson('/timeseries/create', { items }, 201);
  }
  const body = (g: number, step: number) => {
    const items: string[] = [];
    for (let s = 0; s < seriesPerGroup; s++) {
      const points: string[] = [];
      for (let k = 0; k < 10; k++) points.push(`{"timestamp":${workload.timestamp(step * 10 + k)},"value":"${workload.valueText(s + g, step * 10 + k)}"}`);
      items.push(`{"externalId":"${externalId(g, s)}","datapoints":[${points.join(',')}]}`);
    }
    return `{"items":[${items.join(',')}]}`;
  };
  // --arrow: the same points as an Arrow stream (the bench's Arrow gateway-sized row's shape).
  const arrowBody = (g: number, step: number) => {
    const keys = new Int32Array(seriesPerGroup * 10);
    const timestamps = new BigInt64Array(keys.length);
    const values = new Float64Array(keys.length);
    for (let s = 0, at = 0; s < seriesPerGroup; s++) {
      for (let k = 0; k < 10; k++, at++) {
        keys[at] = s;
        timestamps[at] = BigInt(workload.timestamp(step * 10 + k));
        values[at] = Number(workload.valueText(s + g, step * 10 + k));
      }
    }
    return arrowPointsBody(Array.from({ length: seriesPerGroup }, (_, s) => externalId(g, s)), keys, timestamps, values);
  };
  const bodyOf = (g: number, step: number): string | Buffer => (opts.arrow ? arrowBody(g, step) : body(g, step));
  const contentType = opts.arrow ? ARROW_STREAM_TYPE : 'application/json';
  const bodies = Array.from({ length: 200 }, (_, i) => bodyOf(i % groups, Math.floor(i / groups)));
  const profile = opts.profile || opts.heap ? await InspectorProfile.attach(service.mainPid) : undefined;
  if (opts.profile) await profile?.start();
  if (opts.heap) await profile?.startHeap();
  const perf = opts.perf ? PerfRecord.start(service.mainPid, opts.perf, opts.perfTop) : undefined;
  const metricsBefore = await storeMetrics(service.url);
  const cpuBefore = treeCpuSeconds(service.rootPid);
  const threadsBefore = threadCpu(service.rootPid);
  const started = performance.now();
  const until = started + opts.seconds * 1000;
  const acks: number[] = [];
  let next = 0;
  const sender = async () => {
    while (performance.now() < until) {
      const i = next++;
      const g = i % groups;
      const step = Math.floor(i / groups);
      // Paced: request i starts no earlier than its place in the schedule.
      if (opts.pointsPerSecond) {
        const due = started + (i * 1000 * 1000) / opts.pointsPerSecond;
        if (due > performance.now()) await new Promise((resolve) => setTimeout(resolve, due - performance.now()));
      }
      // Past the prepared bodies, shift time by whole rounds so every request writes new points.
      const client = clients[(g % tenants) + tenants * (step % users)]!;
      const answer = await client.request('POST', '/timeseries/data', i < bodies.length ? bodies[i]! : bodyOf(g, step), { 'content-type': contentType });
      if (answer.status !== 204) throw new Error(`ingest: ${answer.status} ${answer.body.toString('utf8')}`);
      acks.push(answer.elapsedMs);
    }
  };
  const liveReads: number[] = [];
  const liveReader = async () => {
    const reader = new HttpClient(service.url, { headers: { authorization: `Bearer ${service.token('gw-0', 'live')}` } });
    for (let k = 0; performance.now() < until; k++) {
      const turn = performance.now();
      const from = workload.startMs + (k % 30) * 60_000;
      const query = { items: [{ externalId: externalId(0, 0), start: from, end: from + 6 * HOUR_MS, aggregates: ['AVG', 'MIN', 'MAX', 'COUNT'], granularity: '1m', limit: 10_000 }] };
      const answer = await reader.postJson('/timeseries/data/list', query);
      liveReads.push(answer.elapsedMs);
      const wait = turn + 200 - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    reader.close();
  };
  await Promise.all([...Array.from({ length: 16 }, sender), ...(opts.live ? [liveReader()] : [])]);
  const elapsed = (performance.now() - started) / 1000;
  const cpu = treeCpuSeconds(service.rootPid) - cpuBefore;
  const heapLines = profile && opts.heap ? await profile.stopHeap(opts.heap, { count: acks.length, what: 'request' }) : [];
  if (profile && opts.profile) await profile.stop(opts.profile);
  else profile?.close();
  const perfLines = perf ? await perf.stop() : [];
  const points = acks.length * 1000;
  console.log(`gateway${opts.arrow ? ' (Arrow bodies)' : ''}: ${acks.length} requests, ${(points / elapsed / 1000).toFixed(1)}k points/s, ${(cpu / (points / 1e6)).toFixed(2)} CPU s per M points`);
  report('ack', acks);
  if (opts.live) report('live chart (V1 (c))', liveReads);
  reportStoreMetrics(metricsBefore, await storeMetrics(service.url), points);
  const threadsAfter = threadCpu(service.rootPid);
  console.log('CPU by thread during the ingest:');
  reportThreads(threadsBefore, threadsAfter);
  for (const line of [...heapLines, ...perfLines]) console.log(line);
  const catchUpFrom = treeCpuSeconds(service.rootPid);
  await waitForFold(new HttpClient(service.url));
  console.log(`catch-up CPU: ${(treeCpuSeconds(service.rootPid) - catchUpFrom).toFixed(2)} s (ingest ${cpu.toFixed(2)} s)`);
  console.log('CPU by thread during the catch-up:');
  reportThreads(threadsAfter, threadCpu(service.rootPid));
  for (const client of clients) client.close();
}

/** Stops the service, OPTIMIZE ... FINAL everywhere (chdb-merge.ts), then bytes per point by table and column. */
async function reportDisk(service: RunningService, pointCount: number): Promise<void> {
  const dir = path.join(service.dataDir, 'clickhouse');
  await service.stop({ keepDataDir: true });
  const merged = await forceMergeChdb(dir);
  console.log(`on disk after OPTIMIZE FINAL: ${(merged.activeBytes / pointCount).toFixed(3)} bytes/point (${mib(merged.activeBytes)}, ${merged.tableCount} tables)`);
  const store = await openColumnarStore({ engine: 'chdb', path: dir });
  try {
    const tables = await store.query<{ table: string; bytes: string; rows: string }>(
      "SELECT table, toString(sum(bytes_on_disk)) AS bytes, toString(sum(rows)) AS rows FROM system.parts WHERE active AND database = currentDatabase() GROUP BY table HAVING sum(bytes_on_disk) > 0 ORDER BY sum(bytes_on_disk) DESC",
    );
    for (const t of tables) console.log(`  ${t.table.padEnd(26)} ${(Number(t.bytes) / pointCount).toFixed(3)} B/pt  rows ${t.rows}`);
    const columns = await store.query<{ table: string; column: string; compressed: string; uncompressed: string; marks: string }>(
      `SELECT table, column, toString(sum(column_data_compressed_bytes)) AS compressed, toString(sum(column_data_uncompressed_bytes)) AS uncompressed, toString(sum(column_marks_bytes)) AS marks
       FROM system.parts_columns WHERE active AND database = currentDatabase() AND table IN ('datapoints_float', 'datapoints_float_1m', 'datapoints_float_1h')
       GROUP BY table, column ORDER BY table, sum(column_data_compressed_bytes) DESC`,
    );
    for (const c of columns) console.log(`  ${c.table.padEnd(20)} ${c.column.padEnd(12)} ${(Number(c.compressed) / pointCount).toFixed(3)} B/pt compressed (${(Number(c.uncompressed) / Number(c.compressed)).toFixed(1)}x), marks ${(Number(c.marks) / pointCount).toFixed(4)} B/pt`);
  } finally {
    await store.close();
  }
}

const ARROW_BULK_SERIES = 10;
const ARROW_BULK_POINTS = 10_000;

/** The workload as the bench's Arrow bulk row sends it: 10 series x 10,000 points a request. */
function arrowRequests(workload: Workload): { body: Buffer; pointCount: number }[] {
  const { seriesCount, pointsPerSeries } = workload.size;
  const requests: { body: Buffer; pointCount: number }[] = [];
  for (let group = 0; group < seriesCount; group += ARROW_BULK_SERIES) {
    for (let first = 0; first < pointsPerSeries; first += ARROW_BULK_POINTS) {
      const items: WriteItem[] = [];
      for (let s = group; s < Math.min(group + ARROW_BULK_SERIES, seriesCount); s++) items.push({ externalId: workload.externalId(s), gen: s, first, count: Math.min(ARROW_BULK_POINTS, pointsPerSeries - first) });
      requests.push({ body: arrowWriteBody(workload, items), pointCount: items.reduce((sum, item) => sum + item.count, 0) });
    }
  }
  return requests;
}

/** The bench's bulk ingest (bench/datapoints.ts) at seriesCount x 100,000 points; --arrow: its Arrow bulk row's bodies. */
async function bulkPhase(service: RunningService, http: HttpClient, opts: ProbeOptions): Promise<void> {
  const workload = new Workload({ ...DATAPOINT_SIZES.small, seriesCount: opts.seriesCount ?? 20 });
  const target = new PlantdataTarget({ logDir: '', tenant: 'probe' });
  const items = Array.from({ length: workload.size.seriesCount }, (_, s) => ({ externalId: workload.externalId(s), name: `probe ${s}`, valueType: 'FLOAT' }));
  await http.postJson('/timeseries/create', { items }, 201);
  const requests = opts.arrow ? arrowRequests(workload) : workload.requests().map(([s, from, count]) => ({ body: target.ingestBody(workload, s, from, count), pointCount: count }));
  const idle = readSmapsRollup(service.mainPid);
  console.log(`before the load: RSS ${mib(idle.rssBytes)} (anonymous ${mib(idle.anonBytes)}, file-backed ${mib(idle.fileBytes)})`);
  const inspector = await InspectorProfile.attach(service.mainPid);
  const sampler = new PeakSampler(service.mainPid, http, inspector).start();
  const perf = opts.perf ? PerfRecord.start(service.mainPid, opts.perf, opts.perfTop) : undefined;
  const threadsBefore = threadCpu(service.rootPid);
  const figures = await runIngest({
    url: service.url, path: '/timeseries/data', headers: { authorization: `Bearer ${service.token('probe')}`, 'content-type': opts.arrow ? ARROW_STREAM_TYPE : 'application/json' },
    expectStatus: 204, requests, senderCount: workload.size.senderCount, rootPid: service.rootPid, mainPid: service.mainPid,
  });
  const perfLines = perf ? await perf.stop() : [];
  console.log(`bulk: ${workload.describe()}${opts.arrow ? `; as Arrow, ${ARROW_BULK_SERIES} series x ${ARROW_BULK_POINTS} points a request (the bench's Arrow bulk row)` : ''}`);
  console.log(`ingest: ${(figures.pointsPerSecond / 1000).toFixed(0)}k points/s, ${figures.cpuSecondsPerMillionPoints.toFixed(3)} CPU s per M points, ack p50 ${figures.ackP50Ms.toFixed(0)} ms`);
  console.log('CPU by thread during the ingest:');
  reportThreads(threadsBefore, threadCpu(service.rootPid));
  for (const line of perfLines) console.log(line);
  const catchUpFrom = performance.now();
  await waitForFold(http);
  const hwmAfterCatchUp = readStatusBytes(service.mainPid, 'VmHWM');
  reportPeak(figures.peakRssBytes, sampler.stop());
  for (const line of sampler.topMappings) console.log(`    ${line}`);
  console.log(`  sampled maxima: group commit queue ${sampler.queuedPointsMax} points, ingest memory on loan ${mib(sampler.onLoanBytesMax)}`);
  console.log(`  VmHWM after the catch-up (${((performance.now() - catchUpFrom) / 1000).toFixed(1)} s): ${mib(hwmAfterCatchUp)}`);
  // What stays once the ingest path's pool has let its idle slabs go (5 s unused, looked at every 2.5 s).
  await sleep(Math.max(0, catchUpFrom + SETTLED_AFTER_LOAD_MS - performance.now()));
  const settled = readSmapsRollup(service.mainPid);
  console.log(`resident ${SETTLED_AFTER_LOAD_MS / 1000} s after the load: RSS ${mib(settled.rssBytes)} (anonymous ${mib(settled.anonBytes)}, file-backed ${mib(settled.fileBytes)})`);
  await inspector.close();
  await reportDisk(service, workload.pointCount);
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const service = await startService({
    logDir: path.join(import.meta.dirname, 'out', 'logs'),
    // --perf: V8 writes a map of its JIT-compiled code, so perf can name JS functions.
    ...(opts.perf ? { env: { NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} ${PERF_NODE_OPTION}`.trim() } } : {}),
    // The bench's raised limits (the limiter and the quotas still run, they only never refuse), or SPEC's.
    ...(opts.specLimits ? { serviceConfig: SPEC_DEFAULT_SERVICE_CONFIG } : {}),
  });
  const http = new HttpClient(service.url, { headers: { authorization: `Bearer ${service.token('probe')}` } });
  try {
    if (opts.phase === 'gateway') await gatewayPhase(service, opts);
    else if (opts.phase === 'bulk') await bulkPhase(service, http, opts);
    else if (opts.phase === 'egress') await egressPhase(service, http, opts);
    else if (opts.phase === 'newest') await newestPhase(http, opts);
    else await readPhase(service, http, opts);
  } finally {
    http.close();
    await service.stop({ keepDataDir: process.env['PROBE_KEEP'] === '1' });
    if (process.env['PROBE_KEEP'] === '1') console.log(`data dir kept: ${service.dataDir}`);
  }
}

// Run as a script, not when another probe imports InspectorProfile.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await main();
