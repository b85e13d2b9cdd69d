// The ingest driver: prepared request bodies sent by N concurrent senders to one system, with
// the acknowledgement latency of each request, and the server's CPU and memory from /proc.
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { HttpClient, UnexpectedAnswerError } from './http-client.ts';
import { MemoryPoller, treeCpuSeconds } from './proc-stats.ts';
import { quantile } from './stats.ts';

export interface IngestRequest {
  body: Buffer;
  pointCount: number;
  /** Per-request headers (a caller's token) on top of the run's. */
  headers?: Record<string, string>;
}

export interface IngestFigures {
  pointCount: number;
  elapsedSeconds: number;
  pointsPerSecond: number;
  cpuSeconds: number;
  cpuSecondsPerMillionPoints: number;
  ackP50Ms: number;
  ackP99Ms: number;
  /** VmHWM of the server's main process (since its start). */
  peakRssBytes: number;
  /** Peak of the summed RSS of the server's whole process tree, polled every 200 ms. */
  treeRssPeakBytes: number;
  bodyBytes: number;
  /** The tree's CPU seconds (as treeCpuSeconds counts them) at the last acknowledgement. */
  treeCpuAtEndSeconds: number;
  /** Peaks of the tree's summed RssAnon and RssFile (/proc/<pid>/status), polled with the RSS. */
  treeRssAnonPeakBytes: number;
  treeRssFilePeakBytes: number;
  /** Paced runs: the rate asked for, and how late requests left against their schedule (0 for those on time): the most and p99. */
  pace?: { pointsPerSecond: number; lateMsMax: number; lateMsP99: number };
  /** With markPointCount: seconds from the start until that many points were acknowledged. */
  markSeconds?: number;
}

export interface IngestOptions {
  url: string;
  path: string;
  headers: Record<string, string>;
  expectStatus: number;
  requests: IngestRequest[];
  senderCount: number;
  rootPid: number;
  mainPid: number;
  /**
   * A paced sender instead of a flat-out one: request k leaves no earlier than the points of
   * the requests before it divided by this rate after the start (senders still at most one
   * request in flight each; a late request leaves at once, and how late is reported).
   */
  ratePointsPerSecond?: number;
  /** Record when this many points had been acknowledged (the rate of a first stretch of a long load). */
  markPointCount?: number;
}

/** Milliseconds after the start at which each request is due at `ratePointsPerSecond`. */
export function paceSchedule(pointCounts: readonly number[], ratePointsPerSecond: number): Float64Array {
  const dueMs = new Float64Array(pointCounts.length);
  let before = 0;
  for (let k = 0; k < pointCounts.length; k++) {
    dueMs[k] = (before / ratePointsPerSecond) * 1000;
    before += pointCounts[k] as number;
  }
  return dueMs;
}

/** `started`: called just before the first request goes out. */
export async function runIngest(opts: IngestOptions, started?: () => void): Promise<IngestFigures> {
  const client = new HttpClient(opts.url, { headers: opts.headers, socketsMax: opts.senderCount });
  const ackMs: number[] = [];
  const lateMs: number[] = [];
  const dueMs = opts.ratePointsPerSecond ? paceSchedule(opts.requests.map((r) => r.pointCount), opts.ratePointsPerSecond) : undefined;
  let next = 0;
  let ackedPoints = 0;
  let markSeconds: number | undefined;
  const poller = new MemoryPoller(opts.rootPid, opts.mainPid).start();
  const cpuBefore = treeCpuSeconds(opts.rootPid);
  started?.();
  const startedAt = performance.now();
  const sender = async () => {
    while (next < opts.requests.length) {
      const k = next++;
      const request = opts.requests[k] as IngestRequest;
      if (dueMs) {
        const wait = (dueMs[k] as number) - (performance.now() - startedAt);
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        lateMs.push(Math.max(0, -wait));
      }
      const answer = await client.request('POST', opts.path, request.body, request.headers);
      if (answer.status !== opts.expectStatus) throw new UnexpectedAnswerError(`POST ${opts.path}`, opts.expectStatus, answer);
      ackMs.push(answer.elapsedMs);
      ackedPoints += request.pointCount;
      if (opts.markPointCount !== undefined && markSeconds === undefined && ackedPoints >= opts.markPointCount) markSeconds = (performance.now() - startedAt) / 1000;
    }
  };
  try {
    await Promise.all(Array.from({ length: opts.senderCount }, sender));
  } finally {
    client.close();
  }
  const elapsedSeconds = (performance.now() - startedAt) / 1000;
  const cpuAtEnd = treeCpuSeconds(opts.rootPid);
  const cpuSeconds = cpuAtEnd - cpuBefore;
  const memory = poller.stop();
  const pointCount = opts.requests.reduce((sum, r) => sum + r.pointCount, 0);
  return {
    pointCount, elapsedSeconds,
    pointsPerSecond: pointCount / elapsedSeconds,
    cpuSeconds,
    cpuSecondsPerMillionPoints: cpuSeconds / (pointCount / 1e6),
    ackP50Ms: quantile(ackMs, 0.5),
    ackP99Ms: quantile(ackMs, 0.99),
    peakRssBytes: memory.mainHwmBytes,
    treeRssPeakBytes: memory.treeRssPeakBytes,
    treeRssAnonPeakBytes: memory.treeRssAnonPeakBytes,
    treeRssFilePeakBytes: memory.treeRssFilePeakBytes,
    bodyBytes: opts.requests.reduce((sum, r) => sum + r.body.length, 0),
    treeCpuAtEndSeconds: cpuAtEnd,
    ...(opts.ratePointsPerSecond ? { pace: { pointsPerSecond: opts.ratePointsPerSecond, lateMsMax: lateMs.reduce((most, late) => Math.max(most, late), 0), lateMsP99: lateMs.length > 0 ? quantile(lateMs, 0.99) : 0 } } : {}),
    ...(markSeconds !== undefined ? { markSeconds } : {}),
  };
}

/**
 * runIngest on a worker thread, for a load row that times queries meanwhile (V1 every 200 ms,
 * a filter page): with the senders on the same event loop, a query's time included the
 * client's own pauses (its GC over ~450 MB of prepared bodies, a burst of 16 answers), up to
 * ~60 ms for one pick (a 1 ms timer in the client logged its gaps, 2026-11-25). The bodies are copied to the worker.
 */
export function runIngestApart(opts: IngestOptions, started?: () => void): Promise<IngestFigures> {
  return new Promise((resolve, reject) => {
    // The worker requires the .ts file through tsx's CommonJS API: on Node 20 neither a .ts
    // entry point nor `--import tsx` in a worker's execArgv gets its ES module hooks.
    const entry = fileURLToPath(new URL('./load-worker.ts', import.meta.url));
    const tsx = fileURLToPath(import.meta.resolve('tsx/cjs/api'));
    const worker = new Worker(`require(${JSON.stringify(tsx)}).require(${JSON.stringify(entry)}, ${JSON.stringify(entry)});`, { eval: true, workerData: opts });
    worker.on('message', (message: { started?: true; figures?: IngestFigures; error?: { message: string; stack?: string } }) => {
      if (message.started) return started?.();
      if (message.figures) resolve(message.figures);
      else reject(Object.assign(new Error(message.error?.message ?? 'the ingest worker failed'), { stack: message.error?.stack }));
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the ingest worker exited (code ${code}) without its figures`)));
  });
}
