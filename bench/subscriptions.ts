// Subscriptions suite: S sockets with U subscriptions each, N series per
// subscription, while the bench's bulk ingest runs. Figures:
// - delivery latency, p50 and p99: from the acknowledgement of a write to the frame holding its
//   point, for a trickle of writes to subscribed series (every TICK_MS one request with one
//   point for one series of every subscription) that runs during the bulk ingest. A frame can
//   arrive before the client has read its write's 204 (the listener hears of a batch when it
//   is durable, as its writer does); such a point counts as 0 ms.
// - bulk ingest throughput with the listeners and the trickle running, over without them (the
//   bench's bulk rows: Workload's series and request size, into series no subscription names),
//   alternating runs without and with, each on fresh timestamps; medians. The trickle runs in
//   both arms, so the ratio is the listeners' cost (delivery, frames, acks) alone.
// - messages lost across a kill -9: the trickle and a bulk run go on, the service gets SIGKILL
//   mid-run and is restarted on its DATA_DIR; the sockets reconnect and every point of every
//   acknowledged trickle write must arrive (the broker's durable log and its crash recovery).
// Every delivered point is checked against what was written (series and value).
import { mkdtempSync, chmodSync, writeFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { mintToken } from '../api/auth.ts';
import { startServiceProcess, stopOrphanedPostgres, type ServiceProcess } from '../api/testing/service-process.ts';
import { HttpClient } from './http-client.ts';
import { runIngest, type IngestRequest } from './load.ts';
import type { Metric, SuiteResult } from './results.ts';
import { quantile } from './stats.ts';
import { DATAPOINT_SIZES, Workload, type DatapointSize } from './workload.ts';

export interface SubscriptionsSize {
  socketCount: number;
  subscriptionsPerSocket: number;
  seriesPerSubscription: number;
  bulk: DatapointSize;
  /** Runs of the bulk ingest without and with the listeners, each. */
  runCount: number;
}

export const SUBSCRIPTIONS_SIZES: Record<'full' | 'small' | 'tiny', SubscriptionsSize> = {
  full: { socketCount: 10, subscriptionsPerSocket: 10, seriesPerSubscription: 100, bulk: DATAPOINT_SIZES.full, runCount: 2 },
  small: { socketCount: 10, subscriptionsPerSocket: 10, seriesPerSubscription: 100, bulk: DATAPOINT_SIZES.small, runCount: 2 },
  tiny: { socketCount: 2, subscriptionsPerSocket: 2, seriesPerSubscription: 5, bulk: DATAPOINT_SIZES.tiny, runCount: 1 },
};

/** The subscriptions targets (bench/README.md). */
const LATENCY_P50_TARGET_MS = 100;
const LATENCY_P99_TARGET_MS = 500;
const THROUGHPUT_RATIO_TARGET = 0.8;
const TICK_MS = 50;
const DELIVERY_DEADLINE_MS = 180_000;
const T0 = Date.UTC(2025, 0, 1);
const DAY_MS = 86_400_000;

const SERVICE_CONFIG = {
  rateLimits: { organization: { writesPerMinute: 1_000_000, readsPerMinute: 1_000_000 }, user: { writesPerMinute: 1_000_000, readsPerMinute: 1_000_000 } },
  dailyQuotas: { nodes: 1_000_000_000, datapoints: 1_000_000_000_000, ingestedBytes: 1_000_000_000_000 },
};

const subscribedExternalId = (sub: number, k: number) => `bench-sub-${sub}-series-${k}`;

/** The trickle: tick t writes value t at T0 + t to series (t mod N) of every subscription; acks by tick. */
class Trickle {
  readonly ackMs = new Map<number, number>();
  /** `${sub}:${tick}` -> first delivery time. */
  readonly deliveredMs = new Map<string, number>();
  wrong: string[] = [];
  private tick = 0;
  private running = false;
  private loop: Promise<void> | undefined;

  constructor(private readonly size: SubscriptionsSize) {}

  get subscriptionCount() { return this.size.socketCount * this.size.subscriptionsPerSocket; }

  start(client: HttpClient): void {
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        const tick = this.tick++;
        const started = performance.now();
        const k = tick % this.size.seriesPerSubscription;
        const items = Array.from({ length: this.subscriptionCount }, (_, sub) => `{"externalId":"${subscribedExternalId(sub, k)}","datapoints":[{"timestamp":${T0 + tick},"value":"${tick}"}]}`);
        try {
          const answer = await client.request('POST', '/timeseries/data', `{"items":[${items.join(',')}]}`, { 'content-type': 'application/json' });
          if (answer.status !== 204) throw new Error(`trickle: ${answer.status}`);
        } catch {
          this.running = false; // the service died (kill -9 phase): this tick stays unacknowledged
          return;
        }
        this.ackMs.set(tick, performance.now());
        const wait = TICK_MS - (performance.now() - started);
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** A delivered message: checks each point and keeps its first delivery time. */
  delivered(message: { payload: { items: { externalId: string; datapoints: { timestamp: string; value: string }[] }[] } }, nowMs: number): void {
    for (const item of message.payload.items) {
      const m = /^bench-sub-(\d+)-series-(\d+)$/.exec(item.externalId);
      if (!m) continue; // a bulk series (none is subscribed)
      for (const point of item.datapoints) {
        const tick = Date.parse(point.timestamp) - T0;
        if (point.value !== String(tick) || tick % this.size.seriesPerSubscription !== Number(m[2])) this.wrong.push(`${item.externalId} ${point.timestamp} ${point.value}`);
        const key = `${m[1]}:${tick}`;
        if (!this.deliveredMs.has(key)) this.deliveredMs.set(key, nowMs);
      }
    }
  }

  /** Latencies of the acknowledged ticks in [fromTick, toTick) that were delivered. */
  latencies(fromTick: number, toTick: number): number[] {
    const out: number[] = [];
    for (let tick = fromTick; tick < toTick; tick++) {
      const ack = this.ackMs.get(tick);
      if (ack === undefined) continue;
      for (let sub = 0; sub < this.subscriptionCount; sub++) {
        const at = this.deliveredMs.get(`${sub}:${tick}`);
        if (at !== undefined) out.push(Math.max(0, at - ack));
      }
    }
    return out;
  }

  missing(): string[] {
    const out: string[] = [];
    for (const tick of this.ackMs.keys()) for (let sub = 0; sub < this.subscriptionCount; sub++) if (!this.deliveredMs.has(`${sub}:${tick}`)) out.push(`${sub}:${tick}`);
    return out;
  }

  get ticks(): number { return this.tick; }
}

/** The listeners: socketCount sockets, each on its subscriptions, acking every message at once. */
async function openListeners(url: string, token: string, size: SubscriptionsSize, trickle: Trickle): Promise<WebSocket[]> {
  const sockets: WebSocket[] = [];
  for (let s = 0; s < size.socketCount; s++) {
    const names = Array.from({ length: size.subscriptionsPerSocket }, (_, i) => `bench-sub-${s * size.subscriptionsPerSocket + i}`);
    const ws = new WebSocket(`${url.replace('http', 'ws')}/timeseries/datapoints/subscription/listen/${names.join('/')}`, { headers: { authorization: `Bearer ${token}` } });
    ws.on('message', (data) => {
      const now = performance.now();
      const frame = JSON.parse(data.toString());
      if (frame.error) trickle.wrong.push(`listener ${s}: error frame ${JSON.stringify(frame)}`);
      for (const message of frame.messages ?? []) trickle.delivered(message, now);
      const ids = (frame.messages ?? []).map((m: { messageId: string }) => m.messageId);
      if (ids.length > 0) ws.send(JSON.stringify({ action: 'ack', messageIds: ids }));
    });
    ws.on('error', () => undefined); // the kill -9 phase drops them
    await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
    sockets.push(ws);
  }
  return sockets;
}

function bulkRequests(workload: Workload): IngestRequest[] {
  return workload.requests().map(([s, from, count]) => {
    const parts: string[] = new Array(count);
    for (let k = 0; k < count; k++) parts[k] = `{"timestamp":${workload.timestamp(from + k)},"value":"${workload.valueText(s, from + k)}"}`;
    return { body: Buffer.from(`{"items":[{"externalId":"${workload.externalId(s)}","datapoints":[${parts.join(',')}]}]}`), pointCount: count };
  });
}

export async function runSubscriptionsSuite(opts: { size: SubscriptionsSize; log: (line: string) => void }): Promise<SuiteResult> {
  const { size, log } = opts;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'plantdata-bench-subs-'));
  chmodSync(dataDir, 0o755);
  const configFile = path.join(dataDir, 'bench-service-config.json');
  writeFileSync(configFile, JSON.stringify(SERVICE_CONFIG));
  const secret = randomBytes(24).toString('base64url');
  const env = { DATA_DIR: dataDir, AUTH_JWT_SECRET: secret, SERVICE_CONFIG: configFile, LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn' };
  const tenant = `bench-subs-${Date.now()}`;
  const token = mintToken({ secret, organization: tenant, sub: 'bench', expiresInSeconds: 24 * 3600 });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const trickle = new Trickle(size);
  const notes: string[] = [];
  let service: ServiceProcess | undefined;
  let sockets: WebSocket[] = [];
  try {
    service = await startServiceProcess(env, 180_000);
    let client = new HttpClient(service.url, { headers: { authorization: `Bearer ${token}` } });
    const subscriptionCount = size.socketCount * size.subscriptionsPerSocket;
    log(`subscriptions: service at ${service.url}; creating ${subscriptionCount * size.seriesPerSubscription} subscribed series, ${size.bulk.seriesCount} bulk series, ${subscriptionCount} subscriptions`);
    const subscribed = Array.from({ length: subscriptionCount * size.seriesPerSubscription }, (_, i) => subscribedExternalId(Math.floor(i / size.seriesPerSubscription), i % size.seriesPerSubscription));
    const bulkWorkload = (run: number) => new Workload(size.bulk, Date.now() - run * size.bulk.pointsPerSeries * 1000 - 10 * DAY_MS);
    const bulkSeries = Array.from({ length: size.bulk.seriesCount }, (_, s) => bulkWorkload(0).externalId(s));
    const all = [...subscribed, ...bulkSeries].map((externalId) => ({ externalId, name: externalId, valueType: 'FLOAT' }));
    for (let from = 0; from < all.length; from += 1000) await client.postJson('/timeseries/create', { items: all.slice(from, from + 1000) }, 201);
    const subscriptions = Array.from({ length: subscriptionCount }, (_, sub) => ({
      externalId: `bench-sub-${sub}`, name: `bench ${sub}`, timeseriesExternalIds: subscribed.slice(sub * size.seriesPerSubscription, (sub + 1) * size.seriesPerSubscription),
    }));
    await client.postJson('/subscriptions/create', { items: subscriptions }, 201);

    // Bulk ingest without and with the listeners, alternating, each run on its own timestamps.
    // The trickle runs in both arms, so the ratio is the listeners' cost alone.
    const rates = { without: [] as number[], with: [] as number[] };
    const latencies: number[] = [];
    let run = 0;
    trickle.start(client);
    for (let round = 0; round < size.runCount; round++) {
      for (const withListeners of [false, true]) {
        const requests = bulkRequests(bulkWorkload(++run));
        let fromTick = 0;
        if (withListeners) {
          sockets = await openListeners(service.url, token, size, trickle);
          // What the trickle wrote while nobody listened is delivered first, before the clock starts.
          const drainedBy = Date.now() + DELIVERY_DEADLINE_MS;
          while (trickle.missing().length > 0 && Date.now() < drainedBy) await new Promise((resolve) => setTimeout(resolve, 50));
          fromTick = trickle.ticks;
        }
        const figures = await runIngest({ url: service.url, path: '/timeseries/data', headers, expectStatus: 204, requests, senderCount: size.bulk.senderCount, rootPid: service.pid, mainPid: service.pid });
        if (withListeners) {
          const toTick = trickle.ticks;
          const deadline = Date.now() + DELIVERY_DEADLINE_MS;
          while (trickle.latencies(fromTick, toTick).length < (toTick - fromTick) * subscriptionCount && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
          latencies.push(...trickle.latencies(fromTick, toTick));
          for (const ws of sockets) ws.close();
          sockets = [];
        }
        (withListeners ? rates.with : rates.without).push(figures.pointsPerSecond);
        log(`subscriptions: bulk ${withListeners ? 'with' : 'without'} listeners: ${Math.round(figures.pointsPerSecond)} points/s`);
      }
    }
    const median = (values: number[]) => quantile(values, 0.5);
    const ratio = median(rates.with) / median(rates.without);
    await trickle.stop();
    log(`subscriptions: delivery p50 ${quantile(latencies, 0.5).toFixed(1)} ms, p99 ${quantile(latencies, 0.99).toFixed(1)} ms over ${latencies.length} points; throughput ratio ${ratio.toFixed(2)}`);

    // kill -9 during a run: the trickle and the bulk ingest go on until the process dies.
    sockets = await openListeners(service.url, token, size, trickle);
    trickle.start(client);
    const requests = bulkRequests(bulkWorkload(++run));
    const dying = service;
    const killAfter = Math.max(1, Math.floor(requests.length / 2));
    let acked = 0;
    const killClient = new HttpClient(service.url, { headers, socketsMax: size.bulk.senderCount });
    const sender = async () => {
      while (requests.length > 0) {
        const request = requests.shift() as IngestRequest;
        try {
          await killClient.request('POST', '/timeseries/data', request.body);
        } catch {
          return;
        }
        if (++acked === killAfter) dying.child.kill('SIGKILL');
      }
    };
    await Promise.all(Array.from({ length: size.bulk.senderCount }, sender));
    if (acked < killAfter) dying.child.kill('SIGKILL');
    killClient.close();
    await dying.exited;
    await trickle.stop();
    client.close();
    for (const ws of sockets) ws.terminate();
    log(`subscriptions: killed (SIGKILL) after ${acked} bulk requests and ${trickle.ackMs.size} trickle writes acknowledged; restarting`);
    service = await startServiceProcess(env, 180_000);
    client = new HttpClient(service.url, { headers: { authorization: `Bearer ${token}` } });
    sockets = await openListeners(service.url, token, size, trickle);
    const deadline = Date.now() + DELIVERY_DEADLINE_MS;
    while (trickle.missing().length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const lost = trickle.missing().length;
    log(`subscriptions: after the restart, ${lost} of ${trickle.ackMs.size * subscriptionCount} acknowledged trickle points never delivered`);
    client.close();

    const checked = trickle.wrong.length === 0;
    if (!checked) notes.push(`subscriptions WRONG: ${trickle.wrong.length} delivered points differ from what was written, e.g. ${trickle.wrong.slice(0, 3).join('; ')}`);
    notes.push(`bulk ingest: ${size.bulk.seriesCount} series x ${size.bulk.pointsPerSeries} points in requests of ${size.bulk.requestPoints}, ${size.bulk.senderCount} senders, into series no subscription names; trickle (in both arms): every ${TICK_MS} ms one request with one point for one series of each of the ${subscriptionCount} subscriptions`);
    const metric = (key: string, label: string, unit: string, better: Metric['better'], value: number, target?: Metric['target'], extra: Partial<Metric['figures']['plantdata']> = {}): Metric => ({
      suite: 'subscriptions', key, label, unit, better, ...(target ? { target } : {}), figures: { plantdata: { value, checked, ...extra } },
    });
    return {
      suite: 'subscriptions',
      dataset: `${size.socketCount} sockets x ${size.subscriptionsPerSocket} subscriptions x ${size.seriesPerSubscription} series, during the bulk ingest (${size.bulk.seriesCount} x ${size.bulk.pointsPerSeries} points)`,
      metrics: [
        metric('latency-p50', 'delivery latency p50 (ack to frame)', 'ms', 'lower', quantile(latencies, 0.5), { op: '<', value: LATENCY_P50_TARGET_MS }, { note: `${latencies.length} points` }),
        metric('latency-p99', 'delivery latency p99 (ack to frame)', 'ms', 'lower', quantile(latencies, 0.99), { op: '<', value: LATENCY_P99_TARGET_MS }),
        metric('ingest-ratio', 'bulk ingest with listeners / without', 'x', 'higher', ratio, { op: '>=', value: THROUGHPUT_RATIO_TARGET }, { note: `${Math.round(median(rates.with))} vs ${Math.round(median(rates.without))} points/s` }),
        metric('lost-after-kill', 'acked messages lost across kill -9', 'points', 'lower', lost, { op: '<=', value: 0 }),
      ],
      notes,
    };
  } finally {
    for (const ws of sockets) ws.terminate();
    await service?.stop().catch(() => undefined);
    stopOrphanedPostgres(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
