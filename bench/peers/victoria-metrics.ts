// VictoriaMetrics (Debian `victoria-metrics`, single node) as a peer on loopback with its own
// temp data dir. Ingest: /api/v1/import/csv, one `series,value,unix_ms` row per point: of its
// text formats the one that cost it least CPU per point here (20 x 100,000 points, 2 senders:
// CSV 0.35-0.38 CPU s per million points, Prometheus text 0.38-0.49, JSON lines 0.60-0.98).
// Queries: MetricsQL over /api/v1/query_range, raw points over /api/v1/export.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DatapointSystem, LoadSystem, PreparedWrite, SystemProcess, WriteItem } from '../datapoint-system.ts';
import { settleDirectory } from '../datapoint-system.ts';
import { HttpClient, parseJson, UnexpectedAnswerError, type HttpAnswer } from '../http-client.ts';
import type { AnsweredBucket, QueryAnswer, QueryName } from '../queries.ts';
import { q3PointCount } from '../queries.ts';
import { type VariedAnswer, type VariedPick } from '../varied.ts';
import { Q1_SERIES, Q3_SERIES, SPACING_MS, type Workload } from '../workload.ts';
import { freePort, startDaemon, type Daemon } from './daemon.ts';

const METRIC = 'bench_value';
const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

interface MatrixSeries { metric: Record<string, string>; values: [number, string][] }

export class VictoriaMetricsPeer implements DatapointSystem, LoadSystem {
  readonly system = 'victoria-metrics' as const;
  readonly ingestNote = '/api/v1/import/csv, one series,value,unix_ms row per point';
  #daemon: Daemon | undefined;
  #client: HttpClient | undefined;
  #dataDir = '';

  /** `cache` false sends nocache=1, so its rollup result cache does not answer repeated queries. */
  constructor(readonly opts: { logDir: string }, public cache = true) {}

  async start(): Promise<SystemProcess> {
    this.#dataDir = mkdtempSync(path.join(tmpdir(), 'bench-vm-'));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    this.#daemon = await startDaemon({
      name: 'victoria-metrics', command: 'victoria-metrics', logDir: this.opts.logDir, healthUrl: `${url}/health`,
      // -search.maxQueryLen: V4 over 1,000 series names them all in one selector (16 KiB by default).
      args: [`-storageDataPath=${this.#dataDir}`, `-httpListenAddr=127.0.0.1:${port}`, '-loggerLevel=ERROR', '-retentionPeriod=1y', '-search.maxQueryLen=1MiB'],
    });
    this.#client = new HttpClient(url);
    return { url, rootPid: this.#daemon.pid, mainPid: this.#daemon.pid };
  }

  get #http(): HttpClient {
    if (!this.#client) throw new Error('VictoriaMetricsPeer: start() first');
    return this.#client;
  }

  async prepare(): Promise<void> {}

  ingestTarget() {
    return { path: `/api/v1/import/csv?format=1:label:series,2:metric:${METRIC},3:time:unix_ms`, headers: { 'content-type': 'text/csv' }, expectStatus: 204 };
  }

  ingestBody(workload: Workload, series: number, first: number, count: number): Buffer {
    const prefix = `${workload.externalId(series)},`;
    const lines: string[] = new Array(count);
    for (let k = 0; k < count; k++) lines[k] = `${prefix}${workload.valueText(series, first + k)},${workload.timestamp(first + k)}`;
    return Buffer.from(`${lines.join('\n')}\n`);
  }

  /**
   * VictoriaMetrics acknowledges before its in-memory buffers reach disk; flush them. And drop
   * its rollup result cache: a query answered before this ingest (the one-tenant rows reuse
   * series names the load rows read) was answered from it afterwards with the buckets it had
   * then (0 of 60, seen in the tiny run).
   */
  async afterIngest(): Promise<undefined> {
    await this.#get('/internal/force_flush');
    await this.#get('/internal/resetRollupResultCache');
    return undefined;
  }

  storageDir(): string {
    return this.#dataDir;
  }

  async settleStorage(opts: { settleSecondsMax: number }) {
    await this.#get('/internal/force_merge');
    const settled = await settleDirectory(this.#dataDir, { settleSecondsMax: opts.settleSecondsMax });
    return { bytes: settled.bytes, note: `du of -storageDataPath after /internal/force_merge, ${settled.settled ? `stable after ${settled.waitedSeconds.toFixed(0)} s` : `not settled after ${settled.waitedSeconds.toFixed(0)} s`}` };
  }

  async query(name: QueryName, workload: Workload): Promise<{ elapsedMs: number; answer: QueryAnswer }> {
    switch (name) {
      case 'q1': {
        const selector = `${METRIC}{series="${workload.externalId(Q1_SERIES)}"}`;
        const answer = await this.#rangeQuery(`aggr_over_time(("avg_over_time","min_over_time","max_over_time","count_over_time"),${selector}[1h])`, workload, HOUR_MS);
        const byRollup = new Map(this.#matrix(answer).map((s) => [s.metric['rollup'] ?? '', s.values]));
        const avg = byRollup.get('avg_over_time') ?? [];
        const buckets: AnsweredBucket[] = avg.map(([t, v], k) => ({
          timestamp: bucketStart(t, HOUR_MS), average: Number(v),
          min: Number(byRollup.get('min_over_time')?.[k]?.[1]), max: Number(byRollup.get('max_over_time')?.[k]?.[1]), count: Number(byRollup.get('count_over_time')?.[k]?.[1]),
        }));
        return { elapsedMs: answer.elapsedMs, answer: { query: 'q1', buckets } };
      }
      case 'q2': {
        const answer = await this.#rangeQuery(`avg_over_time(${METRIC}{series=~"bench-dp-.*"}[1d])`, workload, DAY_MS);
        const series = new Map<string, AnsweredBucket[]>();
        for (const s of this.#matrix(answer)) series.set(s.metric['series'] ?? '', s.values.map(([t, v]) => ({ timestamp: bucketStart(t, DAY_MS), average: Number(v) })));
        return { elapsedMs: answer.elapsedMs, answer: { query: 'q2', series } };
      }
      case 'q3': {
        const want = q3PointCount(workload);
        const params = new URLSearchParams({
          'match[]': `${METRIC}{series="${workload.externalId(Q3_SERIES)}"}`,
          start: String(workload.startMs / 1000), end: String((workload.timestamp(want - 1)) / 1000),
        });
        const answer = await this.#get(`/api/v1/export?${params}`);
        const { timestamps, values } = exportPoints(answer);
        return { elapsedMs: answer.elapsedMs, answer: { query: 'q3', timestamps, values } };
      }
      case 'q4': {
        // "Latest" without knowing when: a last_over_time window reaching back to the first point.
        const now = Date.now();
        const windowSeconds = Math.ceil((now - workload.startMs) / 1000) + 3600;
        const params = new URLSearchParams({ query: `last_over_time(${METRIC}{series=~"bench-dp-.*"}[${windowSeconds}s])`, time: String(now / 1000), ...(this.cache ? {} : { nocache: '1' }) });
        const answer = await this.#get(`/api/v1/query?${params}`);
        const latest = new Map<string, { value: number }>();
        for (const r of parseJson<{ data: { result: { metric: Record<string, string>; value: [number, string] }[] } }>(answer).data.result) {
          latest.set(r.metric['series'] ?? '', { value: Number(r.value[1]) });
        }
        return { elapsedMs: answer.elapsedMs, answer: { query: 'q4', latest } };
      }
    }
  }

  /** No tenants here: every series lives in one namespace under its own (distinct) name. */
  async createSeries(): Promise<void> {}

  writeRequest(workload: Workload, _tenant: string, _user: string, items: WriteItem[]): PreparedWrite {
    const lines: string[] = [];
    for (const item of items) {
      for (let k = 0; k < item.count; k++) lines.push(`${item.externalId},${workload.valueText(item.gen, item.first + k)},${workload.timestamp(item.first + k)}`);
    }
    const { path: writePath, headers, expectStatus } = this.ingestTarget();
    return { path: writePath, headers, expectStatus, pointCount: lines.length, body: Buffer.from(`${lines.join('\n')}\n`) };
  }

  /**
   * The varied queries, always with nocache=1 so its rollup result cache answers
   * none; sent as POST forms (a selector of 1,000 series does not fit a URL). Buckets as in
   * #rangeQuery; V3 is /api/v1/export over the window of exactly `count` points (inclusive
   * bounds, as it has no limit); V4 last_over_time back to the first point.
   */
  async variedQuery(pick: VariedPick): Promise<{ elapsedMs: number; answer: VariedAnswer }> {
    const selector = (ids: string[]) => `${METRIC}{series${ids.length === 1 ? '=' : '=~'}"${ids.join('|')}"}`;
    const range = (query: string, fromMs: number, toMs: number, bucketMs: number) => this.#post('/api/v1/query_range', {
      query, start: String((fromMs + bucketMs - 1) / 1000), end: String((toMs - 1) / 1000), step: String(bucketMs / 1000), nocache: '1',
    });
    const bySeries = (answer: HttpAnswer, bucketMs: number) => {
      const series = new Map<string, AnsweredBucket[]>();
      for (const s of this.#matrix(answer)) series.set(s.metric['series'] ?? '', s.values.map(([t, v]) => ({ timestamp: bucketStart(t, bucketMs), average: Number(v) })));
      return series;
    };
    switch (pick.query) {
      case 'v1': {
        const answer = await range(`aggr_over_time(("avg_over_time","min_over_time","max_over_time","count_over_time"),${selector([pick.series.externalId])}[1m])`, pick.fromMs, pick.toMs, MINUTE_MS);
        return { elapsedMs: answer.elapsedMs, answer: { query: 'v1', buckets: this.#rollupBuckets(answer, MINUTE_MS) } };
      }
      case 'v2': {
        const answer = await range(`avg_over_time(${selector(pick.series.map((r) => r.externalId))}[1h])`, pick.fromMs, pick.toMs, HOUR_MS);
        return { elapsedMs: answer.elapsedMs, answer: { query: 'v2', series: bySeries(answer, HOUR_MS) } };
      }
      case 'v5': {
        // Every series of the set, as Q2 asks: its selector names the set by pattern.
        const answer = await range(`avg_over_time(${METRIC}{series=~"bench-dp-.*"}[1d])`, pick.fromMs, pick.toMs, DAY_MS);
        return { elapsedMs: answer.elapsedMs, answer: { query: 'v5', series: bySeries(answer, DAY_MS) } };
      }
      case 'v3': {
        const answer = await this.#post('/api/v1/export', {
          'match[]': selector([pick.series.externalId]), start: String(pick.fromMs / 1000), end: String((pick.fromMs + (pick.count - 1) * SPACING_MS) / 1000),
        });
        const { timestamps, values } = exportPoints(answer);
        return { elapsedMs: answer.elapsedMs, answer: { query: 'v3', timestamps, values } };
      }
      case 'v4': {
        const now = Date.now();
        const answer = await this.#post('/api/v1/query', {
          query: `last_over_time(${selector(pick.series.map((r) => r.externalId))}[${Math.ceil((now - this.#firstMs) / 1000) + 3600}s])`, time: String(now / 1000), nocache: '1',
        });
        const latest = new Map<string, { value: number }>();
        for (const r of parseJson<{ data: { result: { metric: Record<string, string>; value: [number, string] }[] } }>(answer).data.result) latest.set(r.metric['series'] ?? '', { value: Number(r.value[1]) });
        return { elapsedMs: answer.elapsedMs, answer: { query: 'v4', latest } };
      }
    }
  }

  /** The earliest timestamp any varied query may need (V4's window reaches back to it). */
  #firstMs = Date.now() - 3 * DAY_MS;

  #rollupBuckets(answer: HttpAnswer, bucketMs: number): AnsweredBucket[] {
    const byRollup = new Map(this.#matrix(answer).map((s) => [s.metric['rollup'] ?? '', s.values]));
    return (byRollup.get('avg_over_time') ?? []).map(([t, v], k) => ({
      timestamp: bucketStart(t, bucketMs), average: Number(v),
      min: Number(byRollup.get('min_over_time')?.[k]?.[1]), max: Number(byRollup.get('max_over_time')?.[k]?.[1]), count: Number(byRollup.get('count_over_time')?.[k]?.[1]),
    }));
  }

  async #post(pathname: string, form: Record<string, string>): Promise<HttpAnswer> {
    const answer = await this.#http.request('POST', pathname, new URLSearchParams(form).toString(), { 'content-type': 'application/x-www-form-urlencoded' });
    if (answer.status !== 200) throw new UnexpectedAnswerError(`POST ${pathname}`, 200, answer);
    return answer;
  }

  /**
   * A range query whose steps end 1 ms before each bucket's end: MetricsQL windows are
   * (t - w, t], so t = bucketStart + w - 1 ms covers exactly [bucketStart, bucketStart + w),
   * the UTC-aligned buckets our API answers.
   */
  #rangeQuery(query: string, workload: Workload, bucketMs: number): Promise<HttpAnswer> {
    const firstBucket = Math.floor(workload.startMs / bucketMs) * bucketMs;
    const lastBucket = Math.floor((workload.endMs - 1) / bucketMs) * bucketMs;
    const params = new URLSearchParams({
      query, start: String((firstBucket + bucketMs - 1) / 1000), end: String((lastBucket + bucketMs - 1) / 1000), step: String(bucketMs / 1000),
      ...(this.cache ? {} : { nocache: '1' }),
    });
    return this.#get(`/api/v1/query_range?${params}`);
  }

  #matrix(answer: HttpAnswer): MatrixSeries[] {
    return parseJson<{ data: { result: MatrixSeries[] } }>(answer).data.result;
  }

  async #get(pathAndQuery: string): Promise<HttpAnswer> {
    const answer = await this.#http.request('GET', pathAndQuery);
    if (answer.status !== 200) throw new UnexpectedAnswerError(`GET ${pathAndQuery}`, 200, answer);
    return answer;
  }

  async stop(): Promise<void> {
    this.#client?.close();
    await this.#daemon?.stop();
    if (this.#dataDir) rmSync(this.#dataDir, { recursive: true, force: true });
  }
}

/** Points of /api/v1/export: one JSON line per stored block run, concatenated in order. */
function exportPoints(answer: HttpAnswer): { timestamps: number[]; values: number[] } {
  const timestamps: number[] = [];
  const values: number[] = [];
  for (const line of answer.body.toString('utf8').split('\n')) {
    if (!line) continue;
    const row = JSON.parse(line) as { values: number[]; timestamps: number[] };
    for (let k = 0; k < row.timestamps.length; k++) {
      timestamps.push(row.timestamps[k] as number);
      values.push(row.values[k] as number);
    }
  }
  return { timestamps, values };
}

/** Evaluation time (seconds) of a step back to its bucket's start (ms). */
function bucketStart(evalSeconds: number, bucketMs: number): number {
  return Math.round(evalSeconds * 1000) + 1 - bucketMs;
}
