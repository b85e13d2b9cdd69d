// What the data point suite needs of a system under test (ours or a peer): start it, load the
// workload in its own format, make the points durable and merged, answer Q1-Q4, stop.
import { setTimeout as sleep } from 'node:timers/promises';
import { diskBytes } from './proc-stats.ts';
import type { QueryAnswer, QueryName } from './queries.ts';
import type { SystemName } from './results.ts';
import type { VariedAnswer, VariedPick } from './varied.ts';
import type { Workload } from './workload.ts';

export interface SystemProcess {
  url: string;
  /** Root of the process tree whose CPU counts. */
  rootPid: number;
  /** The process whose VmHWM is the system's peak RSS. */
  mainPid: number;
}

export interface DatapointSystem {
  readonly system: SystemName;
  /** How data is sent, for the report (API and format). */
  readonly ingestNote: string;
  start(): Promise<SystemProcess>;
  /** Anything the system needs before data arrives (creating series, a database). */
  prepare(workload: Workload): Promise<void>;
  ingestTarget(): { path: string; headers: Record<string, string>; expectStatus: number };
  ingestBody(workload: Workload, series: number, firstPointIndex: number, pointCount: number): Buffer;
  /** Systems with an Arrow route (ours): one request of these slices as Arrow, with its own headers. */
  arrowIngestRequest?(workload: Workload, items: WriteItem[]): { body: Buffer; pointCount: number; headers: Record<string, string> };
  /**
   * After the last acknowledgement: whatever makes every point readable and the system's
   * own background work on them current (VictoriaMetrics: a flush; ours: the rollup fold).
   * Returns a note for the report when there is something to say (how long it took).
   */
  afterIngest(): Promise<string | undefined>;
  /** The directory whose size is the system's data on disk. */
  storageDir(): string;
  /** Bytes of the data points on disk once merges have settled, with how that was reached. */
  settleStorage(opts: { settleSecondsMax: number }): Promise<{ bytes: number; note: string }>;
  query(name: QueryName, workload: Workload): Promise<{ elapsedMs: number; answer: QueryAnswer }>;
  /** The varied queries V1-V5; systems without them are skipped for those rows. */
  variedQuery?(pick: VariedPick, tenant?: string): Promise<{ elapsedMs: number; answer: VariedAnswer }>;
  stop(): Promise<void>;
}

/** One series' slice in a write request: points first..first+count-1 of generator series `gen`. */
export interface WriteItem {
  externalId: string;
  gen: number;
  first: number;
  count: number;
}

export interface PreparedWrite {
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  pointCount: number;
  expectStatus: number;
}

/**
 * What the load rows (gateway ingest, queries during ingest, high cardinality) need of
 * a system: series in tenants (VictoriaMetrics has none: one namespace, distinct names), write
 * requests of many series, and the varied queries with a tenant.
 */
export interface LoadSystem {
  readonly system: SystemName;
  start(): Promise<SystemProcess>;
  createSeries(tenant: string, externalIds: string[]): Promise<void>;
  writeRequest(workload: Workload, tenant: string, user: string, items: WriteItem[]): PreparedWrite;
  /** As DatapointSystem's; `waitMsMax` bounds any wait for background work. */
  afterIngest(opts?: { waitMsMax?: number }): Promise<string | undefined>;
  variedQuery(pick: VariedPick, tenant?: string): Promise<{ elapsedMs: number; answer: VariedAnswer }>;
  /** A metadata filter page of `limit` series in `tenant`: its time, and what is wrong with it. */
  filterPage?(tenant: string, limit: number): Promise<{ elapsedMs: number; problem?: string }>;
  /** Where the system reports it: how late its event loop ran since the previous call (or its start). */
  eventLoopLag?(): Promise<EventLoopLag | undefined>;
  stop(): Promise<void>;
}

/**
 * The service's event-loop delay over a stretch, ms, as Node's monitorEventLoopDelay samples it
 * (prom-client's nodejs_eventloop_lag_* in /metrics, reset at every scrape): a timer every 10 ms,
 * so an idle loop reads about 10 ms and the excess is what a callback waited.
 */
export interface EventLoopLag {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/**
 * Polls a directory's size until it has not changed for `stableSamples` samples or the time is
 * up: background merges replace parts, so the figure shrinks and then settles. Merges can start
 * late on a loaded machine, so the default asks for 30 s without change.
 */
export async function settleDirectory(dir: string, opts: { settleSecondsMax: number; intervalMs?: number; stableSamples?: number }): Promise<{ bytes: number; waitedSeconds: number; settled: boolean }> {
  const intervalMs = opts.intervalMs ?? 3000;
  const stableSamples = opts.stableSamples ?? 10;
  const started = Date.now();
  let last = diskBytes(dir);
  let stable = 0;
  while ((Date.now() - started) / 1000 < opts.settleSecondsMax) {
    await sleep(intervalMs);
    const now = diskBytes(dir);
    stable = now === last ? stable + 1 : 0;
    last = now;
    if (stable >= stableSamples) return { bytes: now, waitedSeconds: (Date.now() - started) / 1000, settled: true };
  }
  return { bytes: last, waitedSeconds: (Date.now() - started) / 1000, settled: false };
}
