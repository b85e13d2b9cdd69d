// Goal: MergeSettle has a table's parts merged once no insert came for quietMs (parts of like
// size into one; a large part is not rewritten for a few small ones), puts the wide merge
// selector back afterwards, and stays idle while inserts are recent, when nothing was inserted since its
// last settle, and within intervalMs of it.
// Method: real embedded chdb, one small MergeTree table per case with the raw tables' merge
// settings (base 10: the engine's background merges leave a handful of like parts apart). The
// load runs on explicit nowMs values; the engine's state is read back from system.parts and
// system.tables.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { logger } from '../../log.ts';
import { openColumnarStore } from '../../stores/columnar.ts';
import { RAW_MERGE_SELECTOR_BASE } from '../tables/datapoint-tables.sql.ts';
import { IngestLoad } from './ingest-load.ts';
import { MergeSettle } from './merge-settle.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'merge-settle-test-'));
const store = await openColumnarStore({ engine: 'chdb', path: path.join(dir, 'ch') });
t.teardown(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});
const log = logger.child({ module: 'merge-settle-test' }, { level: process.env['LOG_LEVEL'] ?? 'silent' });
const QUIET_MS = 2_000;
const INTERVAL_MS = 60_000;

async function createTable(table: string): Promise<void> {
  await store.command(`CREATE TABLE ${table} (a UInt64) ENGINE = MergeTree ORDER BY a
SETTINGS merge_selector_base = ${RAW_MERGE_SELECTOR_BASE}, merge_selector_enable_heuristic_to_lower_max_parts_to_merge_at_once = 0`);
}

/** One part of `rows` rows (every INSERT makes one part); random values do not compress. */
async function insertPart(table: string, rows: number): Promise<void> {
  await store.command(`INSERT INTO ${table} SELECT rand64() FROM numbers(${rows})`);
}

async function parts(table: string): Promise<{ name: string; rows: number }[]> {
  const rows = await store.query<{ name: string; rows: string }>(
    `SELECT name, toString(rows) AS rows FROM system.parts WHERE database = currentDatabase() AND table = {table:String} AND active ORDER BY name`,
    { table },
  );
  return rows.map((row) => ({ name: row.name, rows: Number(row.rows) }));
}

async function selectorBase(table: string): Promise<string | undefined> {
  const [row] = await store.query<{ create: string }>(`SELECT create_table_query AS create FROM system.tables WHERE database = currentDatabase() AND name = {table:String}`, { table });
  return /merge_selector_base = ([\d.]+)/.exec(row?.create ?? '')?.[1];
}

t.test('quiet after inserts: like parts merge into one, and the wide selector is back', async (t) => {
  const table = 't_settle_like';
  await createTable(table);
  const load = new IngestLoad();
  const settle = new MergeSettle(store, [table], load, log, { quietMs: QUIET_MS, intervalMs: INTERVAL_MS });
  for (let i = 0; i < 6; i++) {
    await insertPart(table, 10_000);
    load.note(10_000, 1_000 + i);
  }
  t.equal((await parts(table)).length, 6, 'six parts of like size: the wide selector leaves them apart');
  t.equal(await settle.settle(1_000 + QUIET_MS - 1), 0, 'not while the last insert is recent');
  t.equal((await parts(table)).length, 6, 'still six');
  t.equal(await settle.settle(1_005 + QUIET_MS), 5, 'quiet: the merges remove five parts');
  t.same((await parts(table)).map((p) => p.rows), [60_000], 'one part holds every row');
  t.equal(await selectorBase(table), String(RAW_MERGE_SELECTOR_BASE), 'the selector base is back');
});

t.test('a part past the selector\'s fixed cost per part (5 MiB) times the parts is not rewritten for small ones', async (t) => {
  const table = 't_settle_large';
  await createTable(table);
  const load = new IngestLoad();
  const settle = new MergeSettle(store, [table], load, log, { quietMs: QUIET_MS, intervalMs: INTERVAL_MS });
  // ~40 MB: six parts count 30 MiB of fixed cost, (40 + 30) / (40 + 5) < 2.
  await insertPart(table, 5_000_000);
  await store.command(`OPTIMIZE TABLE ${table} FINAL`); // the insert came in blocks of ~1M rows: one part
  for (let i = 0; i < 5; i++) await insertPart(table, 1_000);
  load.note(5_005_000, 0);
  const large = (await parts(table)).find((p) => p.rows === 5_000_000);
  t.ok(large, 'the large part');
  await settle.settle(QUIET_MS);
  const after = await parts(table);
  t.same(after.map((p) => p.rows).sort((a, b) => b - a), [5_000_000, 5_000], 'the small parts merged among themselves');
  t.ok(after.some((p) => p.name === large?.name), 'the large part untouched');
  t.equal(await selectorBase(table), String(RAW_MERGE_SELECTOR_BASE), 'the selector base is back');
});

t.test('no settle without an insert since the last, nor within the interval', async (t) => {
  const table = 't_settle_rules';
  await createTable(table);
  const load = new IngestLoad();
  const settle = new MergeSettle(store, [table], load, log, { quietMs: QUIET_MS, intervalMs: INTERVAL_MS });
  t.notOk(settle.due(100_000), 'nothing inserted yet: not due');
  await insertPart(table, 1_000);
  await insertPart(table, 1_000);
  load.note(2_000, 0);
  t.ok(settle.due(QUIET_MS), 'due once quiet');
  await settle.settle(QUIET_MS);
  t.equal((await parts(table)).length, 1, 'settled');
  t.notOk(settle.due(INTERVAL_MS * 10), 'nothing inserted since: not due');
  for (let i = 0; i < 3; i++) await insertPart(table, 1_000);
  load.note(3_000, QUIET_MS + 10);
  t.notOk(settle.due(QUIET_MS + 10 + QUIET_MS), 'within the interval: not due');
  t.ok(settle.due(QUIET_MS + INTERVAL_MS), 'past the interval and quiet: due');
  await settle.settle(QUIET_MS + INTERVAL_MS);
  t.equal((await parts(table)).length, 1, 'the new parts merged in');
});
