// InfluxDB 1.6 (Debian `influxdb`) as a peer on loopback with its own temp dirs. Ingest: POST
// /write line protocol at ms precision (its native write path). Queries: InfluxQL over GET
// /query with epoch=ms. Cache snapshots and full compactions are set to run after seconds of
// write silence (defaults are 10 min and 4 h), so bytes on disk are measured after compaction.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DatapointSystem, SystemProcess } from '../datapoint-system.ts';
import { settleDirectory } from '../datapoint-system.ts';
import { HttpClient, parseJson, UnexpectedAnswerError, type HttpAnswer } from '../http-client.ts';
import type { AnsweredBucket, QueryAnswer, QueryName } from '../queries.ts';
import { q3PointCount } from '../queries.ts';
import { Q1_SERIES, Q3_SERIES, type Workload } from '../workload.ts';
import { freePort, startDaemon, type Daemon } from './daemon.ts';

const DATABASE = 'bench';
const MEASUREMENT = 'bench_value';

interface InfluxSeries { name: string; tags?: Record<string, string>; columns: string[]; values: (number | null)[][] }

export class InfluxdbPeer implements DatapointSystem {
  readonly system = 'influxdb' as const;
  readonly ingestNote = 'POST /write line protocol, precision=ms';
  #daemon: Daemon | undefined;
  #client: HttpClient | undefined;
  #dir = '';

  constructor(readonly opts: { logDir: string }) {}

  async start(): Promise<SystemProcess> {
    this.#dir = mkdtempSync(path.join(tmpdir(), 'bench-influx-'));
    const [httpPort, rpcPort] = [await freePort(), await freePort()];
    const configFile = path.join(this.#dir, 'influxdb.conf');
    writeFileSync(configFile, influxConfig(this.#dir, httpPort, rpcPort));
    const url = `http://127.0.0.1:${httpPort}`;
    this.#daemon = await startDaemon({ name: 'influxdb', command: 'influxd', args: ['-config', configFile], logDir: this.opts.logDir, healthUrl: `${url}/ping` });
    this.#client = new HttpClient(url);
    return { url, rootPid: this.#daemon.pid, mainPid: this.#daemon.pid };
  }

  get #http(): HttpClient {
    if (!this.#client) throw new Error('InfluxdbPeer: start() first');
    return this.#client;
  }

  async prepare(): Promise<void> {
    const answer = await this.#http.request('POST', `/query?${new URLSearchParams({ q: `CREATE DATABASE ${DATABASE}` })}`);
    if (answer.status !== 200) throw new UnexpectedAnswerError('CREATE DATABASE', 200, answer);
  }

  ingestTarget() {
    return { path: `/write?db=${DATABASE}&precision=ms`, headers: { 'content-type': 'text/plain' }, expectStatus: 204 };
  }

  ingestBody(workload: Workload, series: number, first: number, count: number): Buffer {
    const prefix = `${MEASUREMENT},sensor=${workload.externalId(series)} value=`;
    const lines: string[] = new Array(count);
    for (let k = 0; k < count; k++) lines[k] = `${prefix}${workload.valueText(series, first + k)} ${workload.timestamp(first + k)}`;
    return Buffer.from(`${lines.join('\n')}\n`);
  }

  /** A 204 from /write means the points are in the WAL and readable. */
  async afterIngest(): Promise<undefined> {
    return undefined;
  }

  storageDir(): string {
    return this.#dir;
  }

  async settleStorage(opts: { settleSecondsMax: number }) {
    const settled = await settleDirectory(this.#dir, { settleSecondsMax: opts.settleSecondsMax });
    return { bytes: settled.bytes, note: `du of its meta, data and wal dirs; compaction after 5 s of write silence, ${settled.settled ? `stable after ${settled.waitedSeconds.toFixed(0)} s` : `not settled after ${settled.waitedSeconds.toFixed(0)} s`}` };
  }

  async query(name: QueryName, workload: Workload): Promise<{ elapsedMs: number; answer: QueryAnswer }> {
    const range = `time >= ${workload.startMs}ms AND time < ${workload.endMs}ms`;
    switch (name) {
      case 'q1': {
        const answer = await this.#query(`SELECT mean(value), min(value), max(value), count(value) FROM ${MEASUREMENT} WHERE sensor = '${workload.externalId(Q1_SERIES)}' AND ${range} GROUP BY time(1h) fill(none)`);
        const rows = this.#series(answer)[0]?.values ?? [];
        const buckets: AnsweredBucket[] = rows.map(([t, average, min, max, count]) => ({ timestamp: Number(t), average: Number(average), min: Number(min), max: Number(max), count: Number(count) }));
        return { elapsedMs: answer.elapsedMs, answer: { query: 'q1', buckets } };
      }
      case 'q2': {
        const answer = await this.#query(`SELECT mean(value) FROM ${MEASUREMENT} WHERE ${range} GROUP BY time(1d), sensor fill(none)`);
        const series = new Map<string, AnsweredBucket[]>();
        for (const s of this.#series(answer)) series.set(s.tags?.['sensor'] ?? '', s.values.map(([t, v]) => ({ timestamp: Number(t), average: Number(v) })));
        return { elapsedMs: answer.elapsedMs, answer: { query: 'q2', series } };
      }
      case 'q3': {
        const answer = await this.#query(`SELECT value FROM ${MEASUREMENT} WHERE sensor = '${workload.externalId(Q3_SERIES)}' AND ${range} LIMIT ${q3PointCount(workload)}`);
        const rows = this.#series(answer)[0]?.values ?? [];
        return { elapsedMs: answer.elapsedMs, answer: { query: 'q3', timestamps: rows.map((r) => Number(r[0])), values: rows.map((r) => Number(r[1])) } };
      }
      case 'q4': {
        const answer = await this.#query(`SELECT last(value) FROM ${MEASUREMENT} GROUP BY sensor`);
        const latest = new Map<string, { timestamp: number; value: number }>();
        for (const s of this.#series(answer)) latest.set(s.tags?.['sensor'] ?? '', { timestamp: Number(s.values[0]?.[0]), value: Number(s.values[0]?.[1]) });
        return { elapsedMs: answer.elapsedMs, answer: { query: 'q4', latest } };
      }
    }
  }

  async #query(q: string): Promise<HttpAnswer> {
    const answer = await this.#http.request('GET', `/query?${new URLSearchParams({ db: DATABASE, epoch: 'ms', q })}`);
    if (answer.status !== 200) throw new UnexpectedAnswerError(`InfluxQL ${q}`, 200, answer);
    return answer;
  }

  #series(answer: HttpAnswer): InfluxSeries[] {
    const body = parseJson<{ results: { series?: InfluxSeries[]; error?: string }[] }>(answer);
    const result = body.results[0];
    if (result?.error) throw new Error(`InfluxQL error: ${result.error}`);
    return result?.series ?? [];
  }

  async stop(): Promise<void> {
    this.#client?.close();
    await this.#daemon?.stop();
    if (this.#dir) rmSync(this.#dir, { recursive: true, force: true });
  }
}

function influxConfig(dir: string, httpPort: number, rpcPort: number): string {
  return `reporting-disabled = true
bind-address = "127.0.0.1:${rpcPort}"
[meta]
  dir = "${dir}/meta"
  logging-enabled = false
[data]
  dir = "${dir}/data"
  wal-dir = "${dir}/wal"
  query-log-enabled = false
  cache-snapshot-write-cold-duration = "2s"
  compact-full-write-cold-duration = "5s"
[coordinator]
  max-select-point = 0
  max-select-series = 0
[monitor]
  store-enabled = false
[http]
  bind-address = "127.0.0.1:${httpPort}"
  log-enabled = false
  max-row-limit = 0
  max-body-size = 0
[logging]
  level = "error"
  suppress-logo = true
`;
}
