// Our service as a data point system: SPEC's shapes (POST /timeseries/data, /data/list,
// /data/latest) with JSON bodies, and a small adapter for the answer's field names.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { ARROW_STREAM_TYPE, arrowWriteBody } from './arrow-bodies.ts';
import { forceMergeChdb } from './chdb-merge.ts';
import { diskBytes } from './proc-stats.ts';
import type { DatapointSystem, EventLoopLag, LoadSystem, PreparedWrite, SystemProcess, WriteItem } from './datapoint-system.ts';
import { settleDirectory } from './datapoint-system.ts';
import { HttpClient, parseJson } from './http-client.ts';
import type { AnsweredBucket, QueryAnswer, QueryName } from './queries.ts';
import { q3PointCount } from './queries.ts';
import { startService, type RunningService } from './service.ts';
import { type SeriesRef, type VariedAnswer, type VariedPick } from './varied.ts';
import { Q1_SERIES, Q3_SERIES, SPACING_MS, type Workload } from './workload.ts';

/** Buckets per item the suite asks for: more than any query here returns. */
const AGGREGATE_LIMIT = 10_000;
/** SPEC: a list request names at most 100 items. */
const LIST_ITEMS_MAX = 100;

/**
 * A list of more items than one request takes (the large size's 1,000 series): requests of
 * LIST_ITEMS_MAX items sent at once, as a client would, timed from the first out to the last
 * answer; the items in request order.
 */
async function listItems(client: HttpClient, items: readonly object[]): Promise<{ elapsedMs: number; items: DatapointItem[] }> {
  const started = performance.now();
  const chunks: object[][] = [];
  for (let from = 0; from < items.length; from += LIST_ITEMS_MAX) chunks.push(items.slice(from, from + LIST_ITEMS_MAX));
  const answers = await Promise.all(chunks.map((chunk) => client.postJson('/timeseries/data/list', { items: chunk })));
  const elapsedMs = chunks.length === 1 ? (answers[0]?.elapsedMs ?? 0) : performance.now() - started;
  return { elapsedMs, items: answers.flatMap((answer) => parseJson<{ items: DatapointItem[] }>(answer).items) };
}

/** Longest afterIngest waits for the catch-up after a load. */
const CATCH_UP_WAIT_MS_MAX = 90_000;

/** How the service's background work ended a wait: quiet or not, after how long (s), and its last gauges. */
export interface BackgroundWork { quiet: boolean; seconds: string; rollupsSeconds: string; backlog: number; merges: number; rawParts: number }

/**
 * Waits until the rollup fold has no dirty range left and no part merge runs (three polls 200 ms
 * apart of datapoint_rollup_backlog_ranges and columnar_merges_running in /metrics), or waitMsMax.
 */
export async function waitForBackgroundWork(http: HttpClient, waitMsMax: number): Promise<BackgroundWork> {
  const started = Date.now();
  let rollupsAt: number | undefined;
  let quietPolls = 0;
  let last = { backlog: Number.NaN, merges: Number.NaN, rawParts: Number.NaN };
  while (Date.now() - started < waitMsMax && quietPolls < 3) {
    const metrics = (await http.request('GET', '/metrics')).body.toString('utf8');
    const gauge = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1] ?? Number.NaN);
    last = { backlog: gauge('datapoint_rollup_backlog_ranges'), merges: gauge('columnar_merges_running'), rawParts: gauge('datapoint_raw_parts') };
    if (last.backlog === 0) rollupsAt ??= Date.now();
    quietPolls = last.backlog === 0 && last.merges === 0 ? quietPolls + 1 : 0;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const seconds = (at: number) => ((at - started) / 1000).toFixed(1);
  return { quiet: quietPolls >= 3, seconds: seconds(Date.now()), rollupsSeconds: seconds(rollupsAt ?? Date.now()), ...last };
}

export class PlantdataTarget implements DatapointSystem, LoadSystem {
  readonly system = 'plantdata' as const;
  readonly ingestNote = 'POST /timeseries/data, JSON, values as strings';
  #service: RunningService | undefined;
  #client: HttpClient | undefined;
  #token = '';
  /** Clients of other tenants (the load rows), by tenant. */
  readonly #tenantClients = new Map<string, HttpClient>();

  /** `serviceConfig`: SERVICE_CONFIG of the service started (default: the bench's raised limits). */
  constructor(readonly opts: { logDir: string; tenant: string; serviceConfig?: object }) {}

  async start(): Promise<SystemProcess> {
    this.#service = await startService({ logDir: this.opts.logDir, ...(this.opts.serviceConfig ? { serviceConfig: this.opts.serviceConfig } : {}) });
    this.#token = this.#service.token(this.opts.tenant);
    this.#client = new HttpClient(this.#service.url, { headers: { authorization: `Bearer ${this.#token}` } });
    return { url: this.#service.url, rootPid: this.#service.rootPid, mainPid: this.#service.mainPid };
  }

  /** Points this target at a service started elsewhere (an api instance of the scale-out deployment); start() is then not called. */
  attach(url: string, token: string): void {
    this.#token = token;
    this.#client = new HttpClient(url, { headers: { authorization: `Bearer ${token}` } });
  }

  get #http(): HttpClient {
    if (!this.#client) throw new Error('PlantdataTarget: start() first');
    return this.#client;
  }

  async prepare(workload: Workload): Promise<void> {
    const items = Array.from({ length: workload.size.seriesCount }, (_, s) => ({
      externalId: workload.externalId(s), name: `Bench sensor ${s}`, valueType: 'FLOAT', unitExternalId: 'temperature:deg_c',
    }));
    for (let from = 0; from < items.length; from += 1000) await this.#http.postJson('/timeseries/create', { items: items.slice(from, from + 1000) }, 201);
    // Say plainly when the route is missing: with a large body the answer is lost to EPIPE.
    const probe = await this.#http.request('POST', '/timeseries/data', '{"items":[]}', { 'content-type': 'application/json' });
    if (probe.status === 404 && /No route/.test(probe.body.toString('utf8'))) throw new Error(`POST /timeseries/data: 404 ${probe.body.toString('utf8')}`);
  }

  ingestTarget() {
    return { path: '/timeseries/data', headers: { authorization: `Bearer ${this.#token}`, 'content-type': 'application/json' }, expectStatus: 204 };
  }

  ingestBody(workload: Workload, series: number, first: number, count: number): Buffer {
    const parts: string[] = new Array(count);
    for (let k = 0; k < count; k++) {
      parts[k] = `{"timestamp":${workload.timestamp(first + k)},"value":"${workload.valueText(series, first + k)}"}`;
    }
    return Buffer.from(`{"items":[{"externalId":"${workload.externalId(series)}","datapoints":[${parts.join(',')}]}]}`);
  }

  /**
   * CONTRACT: in the embedded default a 2xx means stored and readable; reads are exact at
   * once. A bulk load defers the rollup fold and part merges to its end, so queries right
   * after it compete with that catch-up: wait for it (datapoint_rollup_backlog_ranges and
   * columnar_merges_running in /metrics), as VictoriaMetrics gets a flush, and report how long
   * it took beside the ingest figures.
   */
  async eventLoopLag(): Promise<EventLoopLag | undefined> {
    const metrics = (await this.#http.request('GET', '/metrics')).body.toString('utf8');
    const seconds = (name: string) => Number(new RegExp(`^nodejs_eventloop_lag_${name}_seconds (\\S+)$`, 'm').exec(metrics)?.[1] ?? Number.NaN);
    const lag = { p50Ms: seconds('p50') * 1000, p99Ms: seconds('p99') * 1000, maxMs: seconds('max') * 1000 };
    return Number.isFinite(lag.p99Ms) ? lag : undefined;
  }

  async afterIngest(opts: { waitMsMax?: number } = {}): Promise<string | undefined> {
    const settled = await waitForBackgroundWork(this.#http, opts.waitMsMax ?? CATCH_UP_WAIT_MS_MAX);
    if (!settled.quiet) return `background work still running after ${settled.seconds} s (${settled.backlog} rollup ranges, ${settled.merges} merges)`;
    return `catch-up after the load (deferred rollup fold and merges): rollups current after ${settled.rollupsSeconds} s, merges idle after ${settled.seconds} s (${settled.rawParts} raw parts); reads are exact throughout`;
  }

  storageDir(): string {
    return path.join(this.#service?.dataDir ?? '', 'clickhouse');
  }

  /**
   * Background merges first (wait until the size settles), then, as VictoriaMetrics gets
   * /internal/force_merge, a forced merge: the service is stopped here and its store opened
   * in this process for OPTIMIZE ... FINAL. The figure is after the forced merge.
   */
  async settleStorage(opts: { settleSecondsMax: number }) {
    const settled = await settleDirectory(this.storageDir(), { settleSecondsMax: opts.settleSecondsMax });
    const waited = `${(settled.bytes / 2 ** 20).toFixed(1)} MiB by du after ${settled.waitedSeconds.toFixed(0)} s of background merges${settled.settled ? '' : ' (still changing)'}`;
    const service = this.#service;
    if (!service) throw new Error('PlantdataTarget: start() first');
    this.#client?.close();
    await service.stop({ keepDataDir: true });
    try {
      const merged = await forceMergeChdb(this.storageDir());
      const du = diskBytes(this.storageDir());
      return {
        bytes: merged.activeBytes,
        note: `DATA_DIR/clickhouse: ${waited}; then, service stopped, OPTIMIZE TABLE ... FINAL on its ${merged.tableCount} MergeTree tables: active parts ${(merged.activeBytes / 2 ** 20).toFixed(1)} MiB (du ${(du / 2 ** 20).toFixed(1)} MiB until merged-away parts are removed)`,
      };
    } finally {
      rmSync(service.dataDir, { recursive: true, force: true });
      this.#service = undefined;
    }
  }

  async query(name: QueryName, workload: Workload): Promise<{ elapsedMs: number; answer: QueryAnswer }> {
    const range = { start: workload.startMs, end: workload.endMs };
    switch (name) {
      case 'q1': {
        const answer = await this.#http.postJson('/timeseries/data/list', { items: [{ externalId: workload.externalId(Q1_SERIES), ...range, aggregates: ['AVG', 'MIN', 'MAX', 'COUNT'], granularity: '1h', limit: AGGREGATE_LIMIT }] });
        const item = parseJson<{ items: DatapointItem[] }>(answer).items[0];
        return { elapsedMs: answer.elapsedMs, answer: { query: 'q1', buckets: (item?.datapoints ?? []).map(readBucket) } };
      }
      case 'q2': {
        const items = Array.from({ length: workload.size.seriesCount }, (_, s) => ({ externalId: workload.externalId(s), ...range, aggregates: ['AVG'], granularity: '1d', limit: AGGREGATE_LIMIT }));
        const answer = await listItems(this.#http, items);
        const series = new Map<string, AnsweredBucket[]>();
        answer.items.forEach((item, k) => series.set(item.externalId ?? workload.externalId(k), item.datapoints.map(readBucket)));
        return { elapsedMs: answer.elapsedMs, answer: { query: 'q2', series } };
      }
      case 'q3': {
        const answer = await this.#http.postJson('/timeseries/data/list', { items: [{ externalId: workload.externalId(Q3_SERIES), ...range, limit: q3PointCount(workload) }] });
        const points = parseJson<{ items: DatapointItem[] }>(answer).items[0]?.datapoints ?? [];
        return { elapsedMs: answer.elapsedMs, answer: { query: 'q3', timestamps: points.map((p) => Number(p['timestamp'])), values: points.map((p) => Number(p['value'])) } };
      }
      case 'q4': {
        const items = Array.from({ length: workload.size.seriesCount }, (_, s) => ({ externalId: workload.externalId(s) }));
        const answer = await this.#http.postJson('/timeseries/data/latest', { items });
        const latest = new Map<string, { timestamp?: number; value: number }>();
        parseJson<{ items: DatapointItem[] }>(answer).items.forEach((item, k) => {
          const point = Array.isArray(item.datapoints) ? item.datapoints[0] : (item as unknown as Record<string, unknown>);
          if (point) latest.set(item.externalId ?? workload.externalId(k), { timestamp: Number(point['timestamp']), value: Number(point['value']) });
        });
        return { elapsedMs: answer.elapsedMs, answer: { query: 'q4', latest } };
      }
    }
  }

  #clientOf(tenant: string | undefined): HttpClient {
    if (tenant === undefined || tenant === this.opts.tenant) return this.#http;
    let client = this.#tenantClients.get(tenant);
    if (!client) {
      if (!this.#service) throw new Error('PlantdataTarget: start() first');
      client = new HttpClient(this.#service.url, { headers: { authorization: `Bearer ${this.#service.token(tenant)}` } });
      this.#tenantClients.set(tenant, client);
    }
    return client;
  }

  async createSeries(tenant: string, externalIds: string[]): Promise<void> {
    const client = this.#clientOf(tenant);
    for (let from = 0; from < externalIds.length; from += 1000) {
      const items = externalIds.slice(from, from + 1000).map((externalId) => ({ externalId, name: `Bench sensor ${externalId}`, valueType: 'FLOAT', unitExternalId: 'temperature:deg_c' }));
      await client.postJson('/timeseries/create', { items }, 201);
    }
  }

  writeRequest(workload: Workload, tenant: string, user: string, items: WriteItem[]): PreparedWrite {
    if (!this.#service) throw new Error('PlantdataTarget: start() first');
    const parts = items.map((item) => {
      const points: string[] = new Array(item.count);
      for (let k = 0; k < item.count; k++) points[k] = `{"timestamp":${workload.timestamp(item.first + k)},"value":"${workload.valueText(item.gen, item.first + k)}"}`;
      return `{"externalId":"${item.externalId}","datapoints":[${points.join(',')}]}`;
    });
    return {
      path: '/timeseries/data', expectStatus: 204, pointCount: items.reduce((sum, i) => sum + i.count, 0),
      headers: { authorization: `Bearer ${this.#service.token(tenant, user)}`, 'content-type': 'application/json' },
      body: Buffer.from(`{"items":[${parts.join(',')}]}`),
    };
  }

  arrowIngestRequest(workload: Workload, items: WriteItem[]): { body: Buffer; pointCount: number; headers: Record<string, string> } {
    const write = this.arrowWriteRequest(workload, this.opts.tenant, 'bench', items);
    return { body: write.body, pointCount: write.pointCount, headers: write.headers };
  }

  /** writeRequest's points as an Arrow IPC stream (arrow-bodies.ts), for the Arrow rows. */
  arrowWriteRequest(workload: Workload, tenant: string, user: string, items: WriteItem[]): PreparedWrite {
    if (!this.#service) throw new Error('PlantdataTarget: start() first');
    return {
      path: '/timeseries/data', expectStatus: 204, pointCount: items.reduce((sum, i) => sum + i.count, 0),
      headers: { authorization: `Bearer ${this.#service.token(tenant, user)}`, 'content-type': ARROW_STREAM_TYPE },
      body: arrowWriteBody(workload, items),
    };
  }

  /** The client of `tenant` (its token), for rows that send requests of their own. */
  tenantClient(tenant: string): HttpClient {
    return this.#clientOf(tenant);
  }

  async variedQuery(pick: VariedPick, tenant?: string): Promise<{ elapsedMs: number; answer: VariedAnswer }> {
    const client = this.#clientOf(tenant);
    const aggregate = (refs: SeriesRef[], start: number, end: number, granularity: string, aggregates: string[]) =>
      listItems(client, refs.map((r) => ({ externalId: r.externalId, start, end, aggregates, granularity, limit: AGGREGATE_LIMIT })));
    const bySeries = (answer: Awaited<ReturnType<typeof aggregate>>) => {
      const series = new Map<string, AnsweredBucket[]>();
      for (const item of answer.items) series.set(item.externalId ?? '', item.datapoints.map(readBucket));
      return series;
    };
    switch (pick.query) {
      case 'v1': {
        const answer = await aggregate([pick.series], pick.fromMs, pick.toMs, '1m', ['AVG', 'MIN', 'MAX', 'COUNT']);
        const item = answer.items[0];
        return { elapsedMs: answer.elapsedMs, answer: { query: 'v1', buckets: (item?.datapoints ?? []).map(readBucket) } };
      }
      case 'v2': {
        const answer = await aggregate(pick.series, pick.fromMs, pick.toMs, '1h', ['AVG']);
        return { elapsedMs: answer.elapsedMs, answer: { query: 'v2', series: bySeries(answer) } };
      }
      case 'v5': {
        // The start rounds down to the day (SPEC buckets are whole): the jitter changes the request, not the answer.
        const answer = await aggregate(pick.series, pick.fromMs + pick.startJitterMs, pick.toMs, '1d', ['AVG']);
        return { elapsedMs: answer.elapsedMs, answer: { query: 'v5', series: bySeries(answer) } };
      }
      case 'v3': {
        const answer = await client.postJson('/timeseries/data/list', { items: [{ externalId: pick.series.externalId, start: pick.fromMs, end: pick.fromMs + pick.count * SPACING_MS, limit: pick.count }] });
        const points = parseJson<{ items: DatapointItem[] }>(answer).items[0]?.datapoints ?? [];
        return { elapsedMs: answer.elapsedMs, answer: { query: 'v3', timestamps: points.map((p) => Number(p['timestamp'])), values: points.map((p) => Number(p['value'])) } };
      }
      case 'v4': {
        const answer = await client.postJson('/timeseries/data/latest', { items: pick.series.map((r) => ({ externalId: r.externalId })) });
        const latest = new Map<string, { timestamp?: number; value: number }>();
        for (const item of parseJson<{ items: DatapointItem[] }>(answer).items) {
          const point = Array.isArray(item.datapoints) ? item.datapoints[0] : (item as unknown as Record<string, unknown>);
          if (point) latest.set(item.externalId ?? '', { timestamp: Number(point['timestamp']), value: Number(point['value']) });
        }
        return { elapsedMs: answer.elapsedMs, answer: { query: 'v4', latest } };
      }
    }
  }

  async filterPage(tenant: string, limit: number): Promise<{ elapsedMs: number; problem?: string }> {
    const answer = await this.#clientOf(tenant).postJson('/timeseries/filter', { limit });
    const count = parseJson<{ items: unknown[] }>(answer).items.length;
    return { elapsedMs: answer.elapsedMs, ...(count === limit ? {} : { problem: `filter page: ${count} series, expected ${limit}` }) };
  }

  async stop(): Promise<void> {
    this.#client?.close();
    for (const client of this.#tenantClients.values()) client.close();
    this.#tenantClients.clear();
    await this.#service?.stop();
    this.#service = undefined;
  }
}

interface DatapointItem {
  id?: number;
  externalId?: string;
  datapoints: Record<string, unknown>[];
}

/** Aggregate field names: SPEC names the request's AVG..SUM; CDF answers average/min/max/count/sum. */
const BUCKET_FIELDS = {
  average: ['average', 'avg', 'AVG', 'mean'],
  min: ['min', 'MIN', 'minimum'],
  max: ['max', 'MAX', 'maximum'],
  count: ['count', 'COUNT'],
} as const;

export function readBucket(point: Record<string, unknown>): AnsweredBucket {
  const bucket: AnsweredBucket = { timestamp: Number(point['timestamp']) };
  for (const [field, names] of Object.entries(BUCKET_FIELDS) as [keyof typeof BUCKET_FIELDS, readonly string[]][]) {
    const name = names.find((n) => point[n] !== undefined && point[n] !== null);
    if (name !== undefined) bucket[field] = Number(point[name]);
  }
  return bucket;
}
