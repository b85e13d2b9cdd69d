// How the load rows send a system its writes (gateway.ts, one-tenant.ts, arrow-rows.ts):
// untimed bulk loads built and sent a chunk at a time, and timed ingest from a thread of its
// own (load.ts), optionally paced.
import { runIngest, runIngestApart, type IngestFigures } from './load.ts';
import type { LoadSystem, PreparedWrite } from './datapoint-system.ts';
import type { SeriesRef } from './varied.ts';
import type { Workload } from './workload.ts';

/** Points of bodies built and sent at a time by loadInBulk: the large base set (100M points) is ~4.5 GB of JSON whole. */
const BULK_CHUNK_POINTS_MAX = 5_000_000;

/**
 * Untimed: every point of `series` (a workload's `pointsPerSeries` each) in one-series requests of
 * `requestPoints`, 2 senders, built and sent a chunk at a time.
 */
export async function loadInBulk(target: LoadSystem, proc: { url: string; rootPid: number; mainPid: number }, workload: Workload, tenant: string, series: readonly SeriesRef[], requestPoints: number): Promise<void> {
  const pointsPerSeries = workload.size.pointsPerSeries;
  let chunk: PreparedWrite[] = [];
  let chunkPoints = 0;
  const send = async () => {
    const first = chunk[0];
    if (first) await runIngest({ url: proc.url, path: first.path, headers: {}, expectStatus: first.expectStatus, requests: chunk, senderCount: 2, rootPid: proc.rootPid, mainPid: proc.mainPid });
    chunk = [];
    chunkPoints = 0;
  };
  for (const ref of series) {
    for (let first = 0; first < pointsPerSeries; first += requestPoints) {
      const count = Math.min(requestPoints, pointsPerSeries - first);
      chunk.push(target.writeRequest(workload, tenant, 'bench', [{ externalId: ref.externalId, gen: ref.gen, first, count }]));
      chunkPoints += count;
      if (chunkPoints >= BULK_CHUNK_POINTS_MAX) await send();
    }
  }
  await send();
}

/** Sends prepared writes from a thread of its own (load.ts); `pace` sends them at that many points/s. */
export function ingest(target: LoadSystem, proc: { url: string; rootPid: number; mainPid: number }, requests: PreparedWrite[], senderCount: number, started?: () => void, pace?: { ratePointsPerSecond: number }): Promise<IngestFigures> {
  const first = requests[0];
  if (!first) throw new Error(`${target.system}: nothing to send`);
  const figures = runIngestApart({ url: proc.url, path: first.path, headers: {}, expectStatus: first.expectStatus, requests, senderCount, rootPid: proc.rootPid, mainPid: proc.mainPid, ...pace }, started);
  // The worker has its copy: this thread, which times the queries, keeps no large heap.
  requests.length = 0;
  return figures;
}
