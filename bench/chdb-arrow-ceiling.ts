// The Arrow ingest ceiling: chdb with no service around it inserting the same Arrow IPC
// bodies the Arrow bulk row sends, in a child node process of its own (the bench process holds
// the bodies and times nothing of it). The table is our FLOAT raw table as the service creates
// it (DATAPOINT_TABLES_DDL: the same codecs, the decimal value coding, fsync on insert), and
// each body is one `INSERT INTO datapoints_float ... SELECT ... FROM file(<body>, 'ArrowStream')`,
// `senderCount` sessions at once as the bulk row's senders, after one untimed insert (emptied
// again). The series id is cityHash64 of the externalId: the service's lookup of series is its
// own cost, not the engine's.
//
//   node --import tsx bench/chdb-arrow-ceiling.ts <dir with *.arrows> <senderCount>
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { DATAPOINT_TABLES_DDL } from '../engine/datapoints/tables/datapoint-tables.sql.ts';
import { FAMILY_SHAPES } from '../engine/datapoints/tables/families.ts';

export interface ChdbArrowCeiling {
  pointCount: number;
  elapsedSeconds: number;
  pointsPerSecond: number;
  /** CPU seconds of the child process (user + system) over the inserts. */
  cpuSeconds: number;
}

interface ChdbSession { queryAsync(sql: string, opts?: { format?: string }): Promise<{ text(): string }>; close(): void }
interface ChdbModule { Session: new (path: string) => ChdbSession; drainPending(): Promise<void> }

/** Runs the child on `bodies` (written to a temp dir first) and returns its figures. */
export async function measureChdbArrowCeiling(bodies: readonly Buffer[], pointCount: number, senderCount: number): Promise<ChdbArrowCeiling> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-chdb-arrow-'));
  try {
    bodies.forEach((body, k) => writeFileSync(path.join(dir, `${String(k).padStart(6, '0')}.arrows`), body));
    const child = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, dir, String(senderCount)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString('utf8'); });
    child.stderr.on('data', (chunk: Buffer) => { err += chunk.toString('utf8'); });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`chdb Arrow ceiling: the child exited with ${code}: ${err.slice(-2000)}`);
    const figures = JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as { rowCount: number; elapsedSeconds: number; cpuSeconds: number };
    if (figures.rowCount !== pointCount) throw new Error(`chdb Arrow ceiling: ${figures.rowCount} rows in the table, expected ${pointCount}`);
    return { pointCount, elapsedSeconds: figures.elapsedSeconds, pointsPerSecond: pointCount / figures.elapsedSeconds, cpuSeconds: figures.cpuSeconds };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The child: a fresh chdb store in `dir`, our tables, the bodies inserted from `senderCount` sessions. */
async function chdbArrowCeilingChild(dir: string, senderCount: number): Promise<void> {
  const files = readdirSync(dir).filter((f) => f.endsWith('.arrows')).sort().map((f) => path.join(dir, f));
  const chdb = createRequire(import.meta.url)('chdb') as ChdbModule;
  const sessions = Array.from({ length: senderCount }, () => new chdb.Session(path.join(dir, 'clickhouse')));
  const first = sessions[0] as ChdbSession;
  for (const ddl of DATAPOINT_TABLES_DDL) await first.queryAsync(ddl, { format: 'TSV' });
  const shape = FAMILY_SHAPES.float;
  const insertSql = (file: string) => `INSERT INTO ${shape.rawTable} (tenant, series_id, ts, version, ${shape.insertValueTargets.join(', ')}) `
    + `SELECT 'bench', cityHash64(externalId), toInt64(timestamp), 1, ${shape.insertValueSelect} FROM file('${file}', 'ArrowStream')`;
  // One untimed insert first, then emptied: the engine's first statement of a kind pays for its
  // setup (as the service's first requests do before the row: its one-tenant rows ran first).
  const firstFile = files[0];
  if (firstFile) {
    await first.queryAsync(insertSql(firstFile), { format: 'TSV' });
    await first.queryAsync(`TRUNCATE TABLE ${shape.rawTable}`, { format: 'TSV' });
  }
  let next = 0;
  const cpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  await Promise.all(sessions.map(async (session) => {
    while (next < files.length) await session.queryAsync(insertSql(files[next++] as string), { format: 'TSV' });
  }));
  const elapsedSeconds = (performance.now() - startedAt) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const rowCount = Number((await first.queryAsync(`SELECT count() FROM ${shape.rawTable}`, { format: 'TSV' })).text().trim());
  for (const session of sessions) session.close();
  await chdb.drainPending();
  process.stdout.write(`${JSON.stringify({ rowCount, elapsedSeconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 })}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  chdbArrowCeilingChild(process.argv[2] ?? '', Number(process.argv[3] ?? 2)).catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
