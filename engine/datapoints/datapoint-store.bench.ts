// Micro benchmark of the data point store on the embedded engine: ingest through
// the group-commit log with fsync on every insert, the fold, bytes per point after merges, and
// the four query shapes with targets (one series hourly AVG/MIN/MAX/COUNT, 100 series daily
// AVG, 100 000 raw points of one series, latest of 100 series). Prints medians and a checksum.
// Full size (100 series x 100 000 points at 1 s): `npx tsx engine/datapoints/datapoint-store.bench.ts`
// (optionally `<series> <points>`); datapoint-store.bench.test.ts runs it tiny so it cannot rot.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { GroupCommitLog } from '../ingest/group-commit.ts';
import { logger } from '../log.ts';
import { openDatapointStore, type DatapointStore } from './datapoint-store.ts';
import type { SeriesRef } from './types.ts';

export interface DatapointStoreBenchOptions {
  seriesCount: number;
  pointsPerSeries: number;
  /** Timed runs per query (after 2 warm-up runs). */
  rounds: number;
  /** Concurrent appenders, one series' points per append. @default 4 */
  appenders?: number;
}

export interface QueryTiming {
  medianMs: number;
  p90Ms: number;
}

export interface DatapointStoreBenchResult {
  points: number;
  /** Wall clock, appends through GroupCommitLog until the last is durable (fsync'd parts). */
  insertPointsPerSecond: number;
  /** Process CPU (JS and engine threads, merges included) per million points ingested. */
  insertCpuSecondsPerMillionPoints: number;
  foldSeconds: number;
  /** On-disk bytes of the raw FLOAT table after merges, per point. */
  bytesPerPoint: number;
  /** The same with the hourly rollup and latest tables. */
  bytesPerPointWithRollups: number;
  queries: Record<'hourlyOneSeries' | 'dailyManySeries' | 'rawOneSeries' | 'latestManySeries' | 'hourlyOneSeriesUnfolded', QueryTiming>;
  checksum: string;
}

const DAY_MS = 86_400_000;
const TENANT = 'bench';

/** A stateless uniform in [0, 1) from two integers (so values can be recomputed anywhere). */
function hashUniform(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x7f4a7c15, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}

/** Sensor-like values: a daily cycle plus noise, three decimals, 1 s apart. */
function seriesValues(series: number, count: number, startMs: number): { timestampMs: Float64Array; float: Float64Array } {
  const timestampMs = new Float64Array(count);
  const float = new Float64Array(count);
  const base = 20 + 15 * (series % 7);
  const amplitude = 2 + (series % 5);
  for (let i = 0; i < count; i++) {
    timestampMs[i] = startMs + i * 1000;
    const noise = hashUniform(series, i) + hashUniform(series + 0x5bd1, i) - 1;
    float[i] = Number((base + amplitude * Math.sin((2 * Math.PI * i * 1000) / DAY_MS + series) + 0.25 * noise).toFixed(3));
  }
  return { timestampMs, float };
}

async function timeQuery(rounds: number, run: () => Promise<unknown>): Promise<QueryTiming> {
  for (let i = 0; i < 2; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] as number;
  return { medianMs: Number(at(0.5).toFixed(3)), p90Ms: Number(at(0.9).toFixed(3)) };
}

async function ingest(store: DatapointStore, options: DatapointStoreBenchOptions, startMs: number): Promise<{ seconds: number; cpuSeconds: number }> {
  const log = new GroupCommitLog({ store, nextWriteVersion: () => store.writeVersions.next(), logger: logger.child({}, { level: 'warn' }) });
  // Values are made before the clock starts: the bench times the store, not the generator.
  const values = Array.from({ length: options.seriesCount }, (_, i) => seriesValues(i + 1, options.pointsPerSeries, startMs));
  const cpu = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: options.appenders ?? 4 }, async () => {
    while (next < options.seriesCount) {
      const series = ++next;
      await log.append({ tenant: TENANT, series: [{ seriesId: series, valueType: 'FLOAT', ...(values[series - 1] as ReturnType<typeof seriesValues>) }] });
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await log.close();
  return { seconds, cpuSeconds: (used.user + used.system) / 1e6 };
}

async function bytesOnDisk(store: DatapointStore, tables: string[]): Promise<number> {
  for (const table of tables) await store.columnar.command(`OPTIMIZE TABLE ${table} FINAL`);
  const [row] = await store.columnar.query<{ bytes: string }>(
    'SELECT toString(sum(bytes_on_disk)) AS bytes FROM system.parts WHERE active AND database = currentDatabase() AND table IN {tables:Array(String)}', { tables });
  return Number(row?.bytes ?? 0);
}

export async function runDatapointStoreBench(options: DatapointStoreBenchOptions): Promise<DatapointStoreBenchResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'datapoint-store-bench-'));
  const store = await openDatapointStore({ dataDir: dir }, { maintenanceIntervalMs: 0, logger: logger.child({}, { level: 'warn' }) });
  try {
    const startMs = Math.floor(Date.now() / DAY_MS) * DAY_MS - 2 * DAY_MS;
    const endMs = startMs + options.pointsPerSeries * 1000;
    const points = options.seriesCount * options.pointsPerSeries;
    const { seconds, cpuSeconds } = await ingest(store, options, startMs);
    const one: SeriesRef = { seriesId: 1, valueType: 'FLOAT' };
    const all: SeriesRef[] = Array.from({ length: options.seriesCount }, (_, i) => ({ seriesId: i + 1, valueType: 'FLOAT' }));
    const hourly = () => store.aggregate(TENANT, one, { start: startMs, end: endMs, granularity: '1h', aggregates: ['AVG', 'MIN', 'MAX', 'COUNT'], limit: 10_000 });
    const daily = () => store.aggregateMany(TENANT, all.map((series) => ({ series, options: { start: startMs, end: endMs, granularity: '1d', aggregates: ['AVG'], limit: 10_000 } })));
    const raw = () => store.readRaw(TENANT, one, { start: startMs, end: endMs, limit: 100_000 });
    const latest = () => store.latest(TENANT, all);
    const hourlyOneSeriesUnfolded = await timeQuery(Math.max(1, Math.floor(options.rounds / 4)), hourly);
    const foldStarted = performance.now();
    await store.runMaintenance({ includeHot: true });
    const foldSeconds = (performance.now() - foldStarted) / 1000;
    const rawBytes = await bytesOnDisk(store, ['datapoints_float']);
    const allBytes = rawBytes + await bytesOnDisk(store, ['datapoints_float_1h', 'datapoints_float_latest']);
    const queries = {
      hourlyOneSeries: await timeQuery(options.rounds, hourly),
      dailyManySeries: await timeQuery(options.rounds, daily),
      rawOneSeries: await timeQuery(options.rounds, raw),
      latestManySeries: await timeQuery(options.rounds, latest),
      hourlyOneSeriesUnfolded,
    };
    const hourCount = (await hourly()).buckets.reduce((sum, b) => sum + (b.count ?? 0), 0);
    const dailyAverage = (await daily()).reduce((sum, r) => sum + r.buckets.reduce((s, b) => s + (b.average as number), 0), 0);
    const rawCount = (await raw()).points.timestampMs.length;
    const latestSum = (await latest()).reduce((sum, p) => sum + (p.value as number), 0);
    return {
      points,
      insertPointsPerSecond: Math.round(points / seconds),
      insertCpuSecondsPerMillionPoints: Number((cpuSeconds / (points / 1e6)).toFixed(3)),
      foldSeconds: Number(foldSeconds.toFixed(3)),
      bytesPerPoint: Number((rawBytes / points).toFixed(3)),
      bytesPerPointWithRollups: Number((allBytes / points).toFixed(3)),
      queries,
      checksum: `${hourCount}:${rawCount}:${dailyAverage.toFixed(3)}:${latestSum.toFixed(3)}`,
    };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const seriesCount = Number(process.argv[2] ?? 100);
  const pointsPerSeries = Number(process.argv[3] ?? 100_000);
  const result = await runDatapointStoreBench({ seriesCount, pointsPerSeries, rounds: 30 });
  console.log(JSON.stringify(result, null, 2));
}
