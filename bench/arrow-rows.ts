// The Arrow rows (bench/README.md), on our service only (VictoriaMetrics has no Arrow route; its
// figures beside ours are its CSV rates from the bulk and gateway rows of the same run): Arrow
// bulk ingest, chdb's own rate inserting the same Arrow bodies with no service around it (a
// child process, chdb-arrow-ceiling.ts), Arrow gateway-sized ingest, and 1M raw points of one
// series read as Arrow against the same read as JSON, both paged by the API's limit with
// cursors. A build whose service refuses the Arrow content type (415) marks the rows "not
// supported by this build" and the suite goes on.
import type { SystemProcess, WriteItem } from './datapoint-system.ts';
import { ARROW_STREAM_TYPE, readArrowPoints } from './arrow-bodies.ts';
import { measureChdbArrowCeiling, type ChdbArrowCeiling } from './chdb-arrow-ceiling.ts';
import { loadInBulk } from './load-writes.ts';
import { HttpClient, parseJson, type HttpAnswer } from './http-client.ts';
import { runIngest, type IngestFigures, type IngestRequest } from './load.ts';
import type { PlantdataTarget } from './plantdata-target.ts';
import { AVERAGE_TOLERANCE, close } from './queries.ts';
import type { Figure, Metric, SystemName, Target } from './results.ts';
import { median, summarize, type TimingSummary } from './stats.ts';
import { SPACING_MS, Workload } from './workload.ts';

export interface ArrowSize {
  /** The bulk shape: requests of seriesPerRequest series x pointsPerItem points, senderCount senders. */
  bulk: { seriesCount: number; pointsPerSeries: number; seriesPerRequest: number; pointsPerItem: number; senderCount: number };
  /** The gateway shape: requests of itemsPerRequest series x pointsPerItem points, time-major. */
  gateway: { seriesCount: number; pointsPerSeries: number; itemsPerRequest: number; pointsPerItem: number; connectionCount: number };
  /** One series of `points` read whole, `pageLimit` points a request; runs alternate Arrow and JSON. */
  egress: { points: number; pageLimit: number; warmupCount: number; runCount: number };
}

const FULL: ArrowSize = {
  bulk: { seriesCount: 100, pointsPerSeries: 100_000, seriesPerRequest: 10, pointsPerItem: 10_000, senderCount: 2 },
  gateway: { seriesCount: 1_000, pointsPerSeries: 10_000, itemsPerRequest: 100, pointsPerItem: 10, connectionCount: 16 },
  egress: { points: 1_000_000, pageLimit: 100_000, warmupCount: 1, runCount: 5 },
};

export const ARROW_SIZES: Record<'full' | 'small' | 'tiny' | 'large', ArrowSize> = {
  full: FULL,
  large: FULL,
  small: {
    bulk: { seriesCount: 20, pointsPerSeries: 100_000, seriesPerRequest: 10, pointsPerItem: 10_000, senderCount: 2 },
    gateway: { seriesCount: 1_000, pointsPerSeries: 2_000, itemsPerRequest: 100, pointsPerItem: 10, connectionCount: 16 },
    egress: { points: 1_000_000, pageLimit: 100_000, warmupCount: 1, runCount: 5 },
  },
  tiny: {
    bulk: { seriesCount: 6, pointsPerSeries: 10_000, seriesPerRequest: 3, pointsPerItem: 2_000, senderCount: 2 },
    gateway: { seriesCount: 200, pointsPerSeries: 100, itemsPerRequest: 100, pointsPerItem: 10, connectionCount: 16 },
    egress: { points: 20_000, pageLimit: 5_000, warmupCount: 0, runCount: 2 },
  },
};

export interface ArrowRun {
  /** Why the rows were not measured: the build refuses Arrow (its answer), or the reads answer JSON. */
  ingestUnsupported?: string;
  egressUnsupported?: string;
  bulk?: IngestFigures;
  chdb?: ChdbArrowCeiling;
  gateway?: IngestFigures;
  egress?: { arrow: TimingSummary; json: TimingSummary; pageCount: number; paging: string; arrowDecodeMs: number; jsonParseMs: number; problem?: string };
  error?: string;
}

const arrowExternalId = (s: number) => `bench-arrow-${String(s).padStart(5, '0')}`;
const arrowGatewayExternalId = (s: number) => `bench-arrow-gw-${String(s).padStart(5, '0')}`;
const EGRESS_EXTERNAL_ID = 'bench-arrow-egress';
/** Generator numbers of the Arrow sets (distinct values from the other sets'). */
const ARROW_GATEWAY_GEN = 300_000;
const EGRESS_GEN = 400_000;

/** The Arrow rows on our running service, in `tenant` (its raised limits), after whatever ran there before. */
export async function runArrowRows(target: PlantdataTarget, proc: SystemProcess, tenant: string, size: ArrowSize, opts: { nowMs: number; waitMsMax: number }, log: (line: string) => void): Promise<ArrowRun> {
  const run: ArrowRun = {};
  const { nowMs } = opts;
  // Every catch-up wait bounded as the load rows' (afterIngestSecondsMax).
  const settle = () => target.afterIngest({ waitMsMax: opts.waitMsMax });
  try {
    const sized = (seriesCount: number, pointsPerSeries: number) => new Workload({ seriesCount, pointsPerSeries, requestPoints: pointsPerSeries, senderCount: 1, warmupCount: 0, runCount: 0 }, nowMs);
    const bulk = sized(size.bulk.seriesCount, size.bulk.pointsPerSeries);
    await target.createSeries(tenant, [...Array.from({ length: size.bulk.seriesCount }, (_, s) => arrowExternalId(s)), ...Array.from({ length: size.gateway.seriesCount }, (_, s) => arrowGatewayExternalId(s)), EGRESS_EXTERNAL_ID]);
    const refused = await arrowIngestRefused(target, proc, tenant, bulk);
    if (refused) {
      run.ingestUnsupported = refused;
      log(`Arrow ingest not supported by this build: ${refused}`);
    } else {
      await arrowBulk(target, proc, tenant, size, bulk, run, settle, log);
      await arrowGateway(target, proc, tenant, size, sized(size.gateway.seriesCount, size.gateway.pointsPerSeries), run, log);
    }
    await arrowEgress(target, proc, tenant, size, sized(1, size.egress.points), run, settle, log);
  } catch (error) {
    run.error = (error as Error).message;
    log(`Arrow rows FAILED: ${run.error}`);
  }
  return run;
}

/** Undefined when the service takes an Arrow write (one point of the bulk set's first series); else its refusal. */
async function arrowIngestRefused(target: PlantdataTarget, proc: SystemProcess, tenant: string, bulk: Workload): Promise<string | undefined> {
  const probe = target.arrowWriteRequest(bulk, tenant, 'bench', [{ externalId: arrowExternalId(0), gen: 0, first: 0, count: 1 }]);
  const client = new HttpClient(proc.url);
  const answer = await client.request('POST', probe.path, probe.body, probe.headers).finally(() => client.close());
  if (answer.status === 204) return undefined;
  const text = answer.body.toString('utf8', 0, 300);
  // 415, or the 400 a JSON-only route gives any other content type.
  if (answer.status === 415 || (answer.status === 400 && /content.?type|json/i.test(text))) return `${answer.status} ${text}`;
  throw new Error(`POST /timeseries/data as Arrow: expected 204 or 415, got ${answer.status}: ${text}`);
}

async function arrowBulk(target: PlantdataTarget, proc: SystemProcess, tenant: string, size: ArrowSize, workload: Workload, run: ArrowRun, settle: () => Promise<unknown>, log: (line: string) => void): Promise<void> {
  const b = size.bulk;
  const requests: IngestRequest[] = [];
  for (let group = 0; group < b.seriesCount; group += b.seriesPerRequest) {
    for (let first = 0; first < b.pointsPerSeries; first += b.pointsPerItem) {
      const items: WriteItem[] = [];
      for (let s = group; s < Math.min(group + b.seriesPerRequest, b.seriesCount); s++) items.push({ externalId: arrowExternalId(s), gen: s, first, count: Math.min(b.pointsPerItem, b.pointsPerSeries - first) });
      const write = target.arrowWriteRequest(workload, tenant, 'bench', items);
      requests.push({ body: write.body, pointCount: write.pointCount, headers: write.headers });
    }
  }
  log(`Arrow bulk: ${requests.length} requests of ${b.seriesPerRequest} series x ${b.pointsPerItem} points, ${b.senderCount} senders`);
  // The probe wrote point 0 of the first series already: this rewrites it with the same value.
  run.bulk = await runIngest({ url: proc.url, path: '/timeseries/data', headers: {}, expectStatus: 204, requests, senderCount: b.senderCount, rootPid: proc.rootPid, mainPid: proc.mainPid });
  log(`Arrow bulk ${Math.round(run.bulk.pointsPerSecond)} points/s, ${run.bulk.cpuSecondsPerMillionPoints.toFixed(2)} CPU s per M points`);
  // The child runs once the service's own catch-up is over: they share two cores.
  await settle();
  run.chdb = await measureChdbArrowCeiling(requests.map((r) => r.body), run.bulk.pointCount, b.senderCount);
  log(`chdb alone, the same Arrow bodies: ${Math.round(run.chdb.pointsPerSecond)} points/s`);
}

async function arrowGateway(target: PlantdataTarget, proc: SystemProcess, tenant: string, size: ArrowSize, workload: Workload, run: ArrowRun, log: (line: string) => void): Promise<void> {
  const g = size.gateway;
  const requests: IngestRequest[] = [];
  for (let first = 0; first < g.pointsPerSeries; first += g.pointsPerItem) {
    for (let group = 0; group < g.seriesCount; group += g.itemsPerRequest) {
      const items: WriteItem[] = [];
      for (let s = group; s < Math.min(group + g.itemsPerRequest, g.seriesCount); s++) items.push({ externalId: arrowGatewayExternalId(s), gen: ARROW_GATEWAY_GEN + s, first, count: Math.min(g.pointsPerItem, g.pointsPerSeries - first) });
      const write = target.arrowWriteRequest(workload, tenant, `gw-user-${(first / g.pointsPerItem) % 4}`, items);
      requests.push({ body: write.body, pointCount: write.pointCount, headers: write.headers });
    }
  }
  log(`Arrow gateway-sized: ${requests.length} requests of ${g.itemsPerRequest} series x ${g.pointsPerItem} points, ${g.connectionCount} connections`);
  run.gateway = await runIngest({ url: proc.url, path: '/timeseries/data', headers: {}, expectStatus: 204, requests, senderCount: g.connectionCount, rootPid: proc.rootPid, mainPid: proc.mainPid });
  log(`Arrow gateway-sized ${Math.round(run.gateway.pointsPerSecond)} points/s`);
}

/** The egress series loaded (JSON, untimed), then Arrow and JSON reads of it whole by turns. */
async function arrowEgress(target: PlantdataTarget, proc: SystemProcess, tenant: string, size: ArrowSize, workload: Workload, run: ArrowRun, settle: () => Promise<unknown>, log: (line: string) => void): Promise<void> {
  const e = size.egress;
  await loadInBulk(target, proc, workload, tenant, [{ externalId: EGRESS_EXTERNAL_ID, gen: EGRESS_GEN }], 100_000);
  await settle();
  const client = target.tenantClient(tenant);
  const probe = await readWhole(client, workload, e.pageLimit, 'arrow');
  if (probe.unsupported) {
    run.egressUnsupported = probe.unsupported;
    log(`Arrow egress not supported by this build: ${probe.unsupported}`);
    return;
  }
  const arrow: number[] = [];
  const json: number[] = [];
  const decode = { arrow: [] as number[], json: [] as number[] };
  let problem = probe.problem;
  let paging = probe.paging;
  let pageCount = probe.pageCount;
  for (let i = 0; i < e.warmupCount + e.runCount; i++) {
    // Turned order: neither always runs right after the other.
    for (const format of (i % 2 === 0 ? ['arrow', 'json'] : ['json', 'arrow']) as ('arrow' | 'json')[]) {
      const read = await readWhole(client, workload, e.pageLimit, format);
      problem ??= read.problem ?? read.unsupported;
      if (format === 'arrow') paging = read.paging;
      pageCount = read.pageCount;
      if (i < e.warmupCount) continue;
      (format === 'arrow' ? arrow : json).push(read.elapsedMs);
      decode[format].push(read.decodeMs);
    }
  }
  run.egress = { arrow: summarize(arrow), json: summarize(json), pageCount, paging, arrowDecodeMs: median(decode.arrow), jsonParseMs: median(decode.json), ...(problem ? { problem } : {}) };
  log(`egress of ${e.points} points: Arrow median ${run.egress.arrow.medianMs.toFixed(1)} ms, JSON ${run.egress.json.medianMs.toFixed(1)} ms (${pageCount} pages, ${paging})`);
}

interface WholeRead { elapsedMs: number; decodeMs: number; pageCount: number; paging: string; problem?: string; unsupported?: string }

/**
 * Every point of the egress series, `pageLimit` a request, each page asked with the cursor of the
 * one before (JSON: the item's nextCursor; Arrow: the record batch's). Elapsed: the requests' own times.
 */
async function readWhole(client: HttpClient, workload: Workload, pageLimit: number, format: 'arrow' | 'json'): Promise<WholeRead> {
  const timestamps: number[] = [];
  const values: number[] = [];
  let elapsedMs = 0;
  let decodeMs = 0;
  let pageCount = 0;
  let cursor: string | undefined;
  const paging = format === 'json' ? 'the item\'s nextCursor' : 'the record batch\'s nextCursor';
  const start = workload.startMs;
  const end = workload.endMs;
  for (;;) {
    const item = { externalId: EGRESS_EXTERNAL_ID, start, end, limit: pageLimit, ...(cursor ? { cursor } : {}) };
    const answer = await client.request('POST', '/timeseries/data/list', JSON.stringify({ items: [item] }), { 'content-type': 'application/json', ...(format === 'arrow' ? { accept: ARROW_STREAM_TYPE } : {}) });
    pageCount++;
    elapsedMs += answer.elapsedMs;
    if (format === 'arrow' && (answer.status === 406 || answer.status === 415 || (answer.status === 200 && !answer.contentType.includes('arrow')))) {
      return { elapsedMs, decodeMs, pageCount, paging, unsupported: `${answer.status} ${answer.contentType || 'no content type'}` };
    }
    if (answer.status !== 200) return { elapsedMs, decodeMs, pageCount, paging, problem: `${format} page ${pageCount}: ${answer.status} ${answer.body.toString('utf8', 0, 300)}` };
    const decodeStarted = performance.now();
    const page = format === 'arrow' ? arrowPage(answer) : jsonPage(answer);
    decodeMs += performance.now() - decodeStarted;
    for (let k = 0; k < page.timestamps.length; k++) {
      timestamps.push(page.timestamps[k] as number);
      values.push(page.values[k] as number);
    }
    // No cursor: no more points (SPEC), in either format.
    if (!page.cursor) break;
    cursor = page.cursor;
  }
  const problem = checkEgress(workload, timestamps, values, format);
  return { elapsedMs, decodeMs, pageCount, paging, ...(problem ? { problem } : {}) };
}

function jsonPage(answer: HttpAnswer): { timestamps: number[]; values: number[]; cursor?: string } {
  const item = parseJson<{ items: { datapoints: { timestamp: number; value: number | string }[]; nextCursor?: string }[] }>(answer).items[0];
  const points = item?.datapoints ?? [];
  return { timestamps: points.map((p) => Number(p.timestamp)), values: points.map((p) => Number(p.value)), ...(item?.nextCursor ? { cursor: item.nextCursor } : {}) };
}

/** A page's points and its cursor: the record batch's `nextCursor` (docs/api.md), else the schema's `items`, else a header naming one. */
function arrowPage(answer: HttpAnswer): { timestamps: Float64Array; values: Float64Array; cursor?: string } {
  const { timestamps, values, batchMetadata, metadata } = readArrowPoints(answer.body);
  const items = metadata.get('items');
  const header = Object.entries(answer.headers).find(([name]) => /cursor/i.test(name))?.[1];
  const cursor = batchMetadata.get('nextCursor')
    ?? (items ? (JSON.parse(items) as { nextCursor?: string }[])[0]?.nextCursor : undefined)
    ?? (Array.isArray(header) ? header[0] : header);
  return { timestamps, values, ...(cursor ? { cursor } : {}) };
}

function checkEgress(workload: Workload, timestamps: number[], values: number[], format: string): string | undefined {
  const want = workload.values(EGRESS_GEN);
  if (timestamps.length !== want.length) return `${format} egress: ${timestamps.length} points, expected ${want.length}`;
  for (let i = 0; i < want.length; i++) {
    if (timestamps[i] !== workload.startMs + i * SPACING_MS) return `${format} egress point ${i}: timestamp ${timestamps[i]}, expected ${workload.startMs + i * SPACING_MS}`;
    if (!close(values[i] as number, want[i] as number, AVERAGE_TOLERANCE)) return `${format} egress point ${i}: value ${values[i]}, expected ${want[i]}`;
  }
  return undefined;
}

const VM: SystemName = 'victoria-metrics';

/** Targets of the Arrow rows (bench/README.md). */
const ARROW_TARGETS = {
  bulk: { op: '>=', value: 1.5, peer: VM },
  bulkVsChdb: { op: '>=', value: 0.8 },
  gateway: { op: '>=', value: 2.0, peer: VM },
  egressSpeedup: { op: '>=', value: 3 },
} satisfies Record<string, Target>;

/** The Arrow rows of the data point table; `vm` holds VictoriaMetrics' CSV rates of the same run. */
export function arrowMetrics(run: ArrowRun | undefined, size: ArrowSize, vm: { bulkRate?: number; gatewayRate?: number }): Metric[] {
  const metric = (key: string, label: string, unit: string, better: Metric['better'], target: Target | undefined, figures: Metric['figures']): Metric => ({ suite: 'datapoints', key, label, unit, better, ...(target ? { target } : {}), figures });
  const vmFigure = (value: number | undefined, what: string): Metric['figures'] => (value === undefined ? {} : { 'victoria-metrics': { value, note: `its ${what} rate of this run (/api/v1/import/csv), not Arrow` } });
  const rate = (f: IngestFigures | undefined): Figure | undefined => f && { value: f.pointsPerSecond, note: `ack p50 ${f.ackP50Ms.toFixed(1)} ms, p99 ${f.ackP99Ms.toFixed(1)} ms; ${f.cpuSecondsPerMillionPoints.toFixed(2)} CPU s per M points; ${(f.bodyBytes / f.pointCount).toFixed(1)} body bytes per point` };
  const ours = (figure: Figure | undefined): Metric['figures'] => (figure ? { plantdata: figure } : {});
  const b = size.bulk;
  const g = size.gateway;
  const e = size.egress;
  const egress = run?.egress;
  return [
    metric('arrow-bulk-rate', `Arrow bulk ingest ${b.seriesPerRequest}x${b.pointsPerItem}-point requests`, 'points/s', 'higher', ARROW_TARGETS.bulk, { ...ours(rate(run?.bulk)), ...vmFigure(vm.bulkRate, 'bulk ingest') }),
    metric('arrow-chdb-rate', 'chdb alone: INSERT ... FROM the same Arrow bodies (not ours)', 'points/s', 'higher', undefined, ours(run?.chdb && { value: run.chdb.pointsPerSecond, note: `chdb in a child process, no service: ${(run.chdb.cpuSeconds / (run.chdb.pointCount / 1e6)).toFixed(2)} CPU s per M points` })),
    metric('arrow-bulk-vs-chdb', 'Arrow bulk ingest / chdb alone', 'x', 'higher', ARROW_TARGETS.bulkVsChdb, ours(run?.bulk && run.chdb ? { value: run.bulk.pointsPerSecond / run.chdb.pointsPerSecond } : undefined)),
    metric('arrow-gateway-rate', `Arrow gateway-sized ingest ${g.itemsPerRequest}x${g.pointsPerItem}-point requests`, 'points/s', 'higher', ARROW_TARGETS.gateway, { ...ours(rate(run?.gateway)), ...vmFigure(vm.gatewayRate, 'gateway ingest') }),
    metric('arrow-egress', `${e.points} raw points of 1 series as Arrow, ${e.pageLimit}-point pages`, 'ms', 'lower', undefined, ours(egress && { value: egress.arrow.medianMs, p99: egress.arrow.p99Ms, runCount: egress.arrow.runCount, checked: !egress.problem, note: `${egress.pageCount} pages, paged by ${egress.paging}; the client's decoding took ${egress.arrowDecodeMs.toFixed(1)} ms more (median, not in the figure)` })),
    metric('json-egress', `${e.points} raw points of 1 series as JSON, ${e.pageLimit}-point pages`, 'ms', 'lower', undefined, ours(egress && { value: egress.json.medianMs, p99: egress.json.p99Ms, runCount: egress.json.runCount, checked: !egress.problem, note: `paged by nextCursor; JSON.parse took ${egress.jsonParseMs.toFixed(1)} ms more (median, not in the figure)` })),
    metric('arrow-egress-speedup', 'JSON read time / Arrow read time, medians', 'x', 'higher', ARROW_TARGETS.egressSpeedup, ours(egress ? { value: egress.json.medianMs / egress.arrow.medianMs } : undefined)),
  ];
}

/** Notes of the Arrow rows: what was not supported, failures, wrong answers. */
export function arrowNotes(run: ArrowRun | undefined): string[] {
  if (!run) return ['Arrow rows: not run (our one-tenant system did not get to them)'];
  const notes: string[] = [];
  if (run.ingestUnsupported) notes.push(`Arrow ingest rows: not supported by this build (POST /timeseries/data with Content-Type ${ARROW_STREAM_TYPE} answered ${run.ingestUnsupported})`);
  if (run.egressUnsupported) notes.push(`Arrow egress row: not supported by this build (POST /timeseries/data/list with Accept ${ARROW_STREAM_TYPE} answered ${run.egressUnsupported})`);
  if (run.egress?.problem) notes.push(`plantdata egress answer WRONG: ${run.egress.problem}`);
  if (run.error) notes.push(`plantdata Arrow rows FAILED: ${run.error}`);
  return notes;
}
