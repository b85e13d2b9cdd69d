// Loading and reporting shared by the probe's phases (bench/probe.ts): series loaded through
// the API in 43,200-point requests, the wait for the fold and merges, latency summaries and
// the store calls a phase made (store_operation_seconds in /metrics).
import type { HttpClient } from './http-client.ts';
import { waitForBackgroundWork } from './plantdata-target.ts';
import { quantile } from './stats.ts';
import type { Workload } from './workload.ts';

/** store_operation_seconds count and sum by store and operation, from /metrics. */
export async function storeMetrics(url: string): Promise<Map<string, { count: number; sum: number }>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out = new Map<string, { count: number; sum: number }>();
  for (const match of text.matchAll(/^store_operation_seconds_(count|sum)\{store="([^"]+)",operation="([^"]+)"\} ([0-9.e+-]+)$/gm)) {
    const key = `${match[2]}/${match[3]}`;
    const entry = out.get(key) ?? { count: 0, sum: 0 };
    entry[match[1] as 'count' | 'sum'] = Number(match[4]);
    out.set(key, entry);
  }
  return out;
}

/** The store calls of a phase: how many, their mean latency, and points per insert (group commits' size). */
export function reportStoreMetrics(before: Map<string, { count: number; sum: number }>, after: Map<string, { count: number; sum: number }>, points: number): void {
  for (const [key, { count, sum }] of after) {
    const calls = count - (before.get(key)?.count ?? 0);
    if (calls === 0) continue;
    const seconds = sum - (before.get(key)?.sum ?? 0);
    console.log(`  store ${key}: ${calls} calls, mean ${(seconds / calls * 1000).toFixed(1)} ms${key.endsWith('insert') || key.endsWith('insertMany') ? `, ${Math.round(points / calls)} points per call` : ''}`);
  }
}

export async function bulkLoad(http: HttpClient, workload: Workload, seriesCount: number): Promise<void> {
  const items = Array.from({ length: seriesCount }, (_, s) => ({ externalId: workload.externalId(s), name: `probe ${s}`, valueType: 'FLOAT' }));
  await http.postJson('/timeseries/create', { items }, 201);
  const perRequest = 43_200;
  for (let s = 0; s < seriesCount; s++) {
    for (let first = 0; first < workload.size.pointsPerSeries; first += perRequest) {
      const count = Math.min(perRequest, workload.size.pointsPerSeries - first);
      const points: string[] = [];
      for (let k = 0; k < count; k++) points.push(`{"timestamp":${workload.timestamp(first + k)},"value":"${workload.valueText(s, first + k)}"}`);
      const answer = await http.request('POST', '/timeseries/data', `{"items":[{"externalId":"${workload.externalId(s)}","datapoints":[${points.join(',')}]}]}`, { 'content-type': 'application/json' });
      if (answer.status !== 204) throw new Error(`ingest: ${answer.status} ${answer.body.toString('utf8')}`);
    }
  }
}

/** Waits until the fold and the merges are done; resolves with the raw tables' active parts then. */
export async function waitForFold(http: HttpClient): Promise<number> {
  return (await waitForBackgroundWork(http, Number.POSITIVE_INFINITY)).rawParts;
}

export function report(label: string, samples: number[]): void {
  const sorted = [...samples].sort((a, b) => a - b);
  console.log(`${label}: n=${samples.length} median ${quantile(sorted, 0.5).toFixed(2)} ms, p90 ${quantile(sorted, 0.9).toFixed(2)} ms, p99 ${quantile(sorted, 0.99).toFixed(2)} ms`);
}
