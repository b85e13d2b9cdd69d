// The ingest driver: prepared request bodies sent by N concurrent senders to one system, with
// the acknowledgement latency of each request, and the server's CPU and memory from /proc.
import { performance } from 'node:perf_hooks';
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
}

export async function runIngest(opts: {
  url: string;
  path: string;
  headers: Record<string, string>;
  expectStatus: number;
  requests: IngestRequest[];
  senderCount: number;
  rootPid: number;
  mainPid: number;
}): Promise<IngestFigures> {
  const client = new HttpClient(opts.url, { headers: opts.headers, socketsMax: opts.senderCount });
  const ackMs: number[] = [];
  let next = 0;
  const poller = new MemoryPoller(opts.rootPid, opts.mainPid).start();
  const cpuBefore = treeCpuSeconds(opts.rootPid);
  const started = performance.now();
  const sender = async () => {
    while (next < opts.requests.length) {
      const request = opts.requests[next++] as IngestRequest;
      const answer = await client.request('POST', opts.path, request.body, request.headers);
      if (answer.status !== opts.expectStatus) throw new UnexpectedAnswerError(`POST ${opts.path}`, opts.expectStatus, answer);
      ackMs.push(answer.elapsedMs);
    }
  };
  try {
    await Promise.all(Array.from({ length: opts.senderCount }, sender));
  } finally {
    client.close();
  }
  const elapsedSeconds = (performance.now() - started) / 1000;
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
    bodyBytes: opts.requests.reduce((sum, r) => sum + r.body.length, 0),
    treeCpuAtEndSeconds: cpuAtEnd,
  };
}
