// The group-commit crash cases, shared by group-commit.crash.test.ts (the engine in process)
// and group-commit.server-crash.test.ts (a ClickHouse server through @clickhouse/client); the
// child is group-commit.crash-fixture.ts.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { openDatapointStore } from '../datapoints/datapoint-store.ts';
import { columnarConfig, type ColumnarConfig, type ColumnarKind } from '../testing/columnar-kinds.ts';

const fixture = fileURLToPath(new URL('./group-commit.crash-fixture.ts', import.meta.url));

interface Ack { seriesId: number; from: number; count: number }

/** Runs the child until `acksWanted` appends are acknowledged, then SIGKILLs it. */
async function ingestAndKill(config: ColumnarConfig, acksWanted: number): Promise<Ack[]> {
  const server = config.clickhouse ? { CLICKHOUSE_URL: config.clickhouse.url, CLICKHOUSE_DATABASE: config.clickhouse.database } : {};
  const child = spawn(process.execPath, ['--import', 'tsx', fixture], { env: { ...process.env, DATA_DIR: config.dataDir, ...server }, stdio: ['ignore', 'pipe', 'inherit'] });
  const acks: Ack[] = [];
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  const deadline = setTimeout(() => child.kill('SIGKILL'), 120_000);
  for await (const line of createInterface({ input: child.stdout })) {
    const match = /^ACK (\d+) (\d+) (\d+)$/.exec(line);
    if (match) acks.push({ seriesId: Number(match[1]), from: Number(match[2]), count: Number(match[3]) });
    if (acks.length >= acksWanted) { child.kill('SIGKILL'); break; }
  }
  clearTimeout(deadline);
  t.equal(await exited, 'SIGKILL', 'the child died by SIGKILL');
  return acks;
}

/**
 * The crash cases with the store on one columnar kind. Through a server, the process killed is
 * the service (the child, a client of the fixture in this process), as when a service instance
 * dies while the ClickHouse server keeps running: requests it had under way may still finish.
 */
export async function crashCases(kind: ColumnarKind): Promise<void> {
  const config = await columnarConfig(t, 'group-commit-crash', kind);
  t.test('every acknowledged append survives SIGKILL, and rollups match raw points after it', async (t) => {
    const acks = await ingestAndKill(config, 60);
    t.ok(acks.length >= 60, `${acks.length} appends acknowledged before the kill`);
    const store = await openDatapointStore(config, { maintenanceIntervalMs: 0 });
    t.teardown(() => store.close());
    const missing: string[] = [];
    for (const ack of acks) {
      const ref = { seriesId: ack.seriesId, valueType: 'FLOAT' } as const;
      const { points } = await store.readRaw('crash', ref, { start: ack.from, end: ack.from + ack.count * 1000, limit: ack.count + 1 });
      const complete = points.timestampMs.length === ack.count && (points.float as Float64Array).every((v) => v === ack.seriesId);
      if (!complete) missing.push(`${ack.seriesId}: ${points.timestampMs.length}/${ack.count}`);
    }
    t.same(missing, [], 'every acknowledged point is there');
    await store.runMaintenance({ includeHot: true });
    const rows = await store.columnar.query<{ series: string; points: string }>(
      "SELECT toString(series_id) AS series, toString(count()) AS points FROM datapoints_float FINAL WHERE tenant = 'crash' GROUP BY series_id");
    t.ok(rows.length >= acks.length, `${rows.length} series stored (acknowledged or not)`);
    const inconsistent: string[] = [];
    for (const row of rows) {
      const ref = { seriesId: Number(row.series), valueType: 'FLOAT' } as const;
      const { buckets } = await store.aggregate('crash', ref, { start: 1_699_990_000_000, end: 1_700_200_000_000, granularity: '1d', aggregates: ['COUNT'], limit: 10 });
      const counted = buckets.reduce((sum, b) => sum + (b.count ?? 0), 0);
      if (counted !== Number(row.points)) inconsistent.push(`${row.series}: ${counted} vs ${row.points}`);
    }
    t.same(inconsistent, [], 'after the fold, every series counts its stored points');
  });
}
