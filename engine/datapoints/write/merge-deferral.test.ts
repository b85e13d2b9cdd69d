// Goal: MergeDeferral stops the merges of its tables while the load is bulk and starts them
// again when the load ends, when a table passes partsMax active parts (stopping again only at
// partsResume or fewer), and once deferMaxMs of one bulk episode has passed; a mutation run
// through whileMerging completes during a bulk load (the engine runs mutations in the merge
// pool, so one issued on a stopped table waits for its merges).
// Method: real embedded chdb, one store for the file (chdb allows one data directory per
// process), one small MergeTree table per case. The load runs on explicit nowMs values; the
// engine's merge state is read back from system.parts and from OPTIMIZE, which the engine
// refuses while a table's merges are stopped. Polls run against deadlines, no timed assertions.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import t from 'tap';
import { logger } from '../../log.ts';
import { openColumnarStore } from '../../stores/columnar.ts';
import { IngestLoad } from './ingest-load.ts';
import { MergeDeferral, type MergeDeferralOptions } from './merge-deferral.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'merge-deferral-test-'));
const store = await openColumnarStore({ engine: 'chdb', path: path.join(dir, 'ch') });
t.teardown(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});
const log = logger.child({ module: 'merge-deferral-test' }, { level: process.env['LOG_LEVEL'] ?? 'silent' });

const T0 = 1_700_000_000_000;
/** 1 000 points a second over 1 s: 1 000 points in the window make the load bulk. */
const WINDOW_MS = 1_000;
const BULK = 1_000_000;
const POLL_INTERVAL_MS = 50;
const MERGE_DEADLINE_MS = 20_000;

function newLoad(): IngestLoad {
  return new IngestLoad({ bulkPointsPerSecond: 1_000, windowMs: WINDOW_MS });
}

async function createTable(table: string): Promise<void> {
  await store.command(`CREATE TABLE ${table} (a UInt64) ENGINE = MergeTree ORDER BY a`);
}

/** Inserts `count` parts of 10 rows each (every INSERT makes one part). */
async function insertParts(table: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) await store.command(`INSERT INTO ${table} SELECT number FROM numbers(10)`);
}

async function activeParts(table: string): Promise<number> {
  const rows = await store.query<{ parts: string }>(
    `SELECT toString(count()) AS parts FROM system.parts WHERE database = currentDatabase() AND table = {table:String} AND active`,
    { table },
  );
  return Number(rows[0]?.parts ?? 0);
}

/** Polls until `done` holds or the deadline passes; returns the last count seen. */
async function pollParts(table: string, done: (parts: number) => boolean, deadlineMs = MERGE_DEADLINE_MS): Promise<number> {
  const deadline = Date.now() + deadlineMs;
  let parts = await activeParts(table);
  while (!done(parts) && Date.now() < deadline) {
    await pause(POLL_INTERVAL_MS);
    parts = await activeParts(table);
  }
  return parts;
}

/** Rejects with the engine's ABORTED error while the table's merges are stopped. */
function optimize(table: string): Promise<void> {
  return store.command(`OPTIMIZE TABLE ${table} SETTINGS optimize_throw_if_noop = 1`);
}

function deferral(table: string, load: IngestLoad, options: MergeDeferralOptions): MergeDeferral {
  return new MergeDeferral(store, [table], load, log, options);
}

t.test('a bulk load stops merges; its end starts them again', async (t) => {
  const table = 't_md_bulk';
  await createTable(table);
  const load = newLoad();
  const merges = deferral(table, load, { partsMax: 64, partsResume: 16, deferMaxMs: 60_000 });

  await merges.update(T0);
  t.same(merges.stoppedTables(), [], 'no load: nothing stopped');

  load.note(BULK, T0);
  await merges.update(T0);
  t.same(merges.stoppedTables(), [table], 'bulk: the table is stopped');
  await insertParts(table, 6);
  t.equal(await activeParts(table), 6, 'six inserts make six parts');
  await merges.update(T0 + 100);
  t.same(merges.stoppedTables(), [table], 'still bulk, six parts <= partsResume: stays stopped');

  // Unstopped, six such parts merge within ~100 ms here; watch for a second that they do not.
  const watchUntil = Date.now() + 1_000;
  let fewest = 6;
  while (Date.now() < watchUntil) {
    fewest = Math.min(fewest, await activeParts(table));
    await pause(POLL_INTERVAL_MS);
  }
  t.equal(fewest, 6, 'no part merged while stopped');
  await t.rejects(optimize(table), /Cancelled merging parts|ABORTED/, 'the engine refuses to merge the table');
  t.equal(await activeParts(table), 6, 'the refused OPTIMIZE merged nothing');

  await merges.update(T0 + WINDOW_MS); // the bulk insert at T0 leaves the window here
  t.notOk(load.isBulk(T0 + WINDOW_MS), 'the load is over');
  t.same(merges.stoppedTables(), [], 'merges started again');
  const parts = await pollParts(table, (n) => n < 6);
  t.ok(parts < 6, `background merges reduce the part count (6 -> ${parts})`);
});

t.test('whileMerging: a lightweight DELETE during a bulk load completes; the load stops merges again after it', async (t) => {
  const table = 't_md_mutation';
  await createTable(table);
  await insertParts(table, 2);
  const load = newLoad();
  const merges = deferral(table, load, { partsMax: 64, partsResume: 16, deferMaxMs: 60_000 });
  load.note(BULK, T0);
  await merges.update(T0);
  t.same(merges.stoppedTables(), [table], 'bulk: stopped');

  // The hazard itself: issued on the stopped table, the DELETE does not complete.
  let direct = false;
  const directDelete = store.command(`DELETE FROM ${table} WHERE a = 1`).then(() => { direct = true; });
  await pause(1_500);
  t.notOk(direct, 'a DELETE on a table whose merges are stopped is still waiting after 1.5 s');

  let deleted = false;
  const guarded = merges.whileMerging(async () => {
    await store.command(`DELETE FROM ${table} WHERE a = 2`);
    deleted = true;
  });
  // An update queued while the mutation runs (a bulk insert arrives) waits for it.
  const queuedUpdate = merges.update(T0 + 1);
  await guarded;
  t.ok(deleted, 'the DELETE run through whileMerging completed');
  await directDelete;
  t.ok(direct, 'and the one waiting before it completed once merges ran');
  const [left] = await store.query<{ n: string }>(`SELECT toString(count()) AS n FROM ${table} WHERE a IN (1, 2)`);
  t.equal(left?.n, '0', 'both rows are gone');
  await queuedUpdate;
  t.same(merges.stoppedTables(), [table], 'the update queued meanwhile stopped the table again (still bulk)');
});

t.test('more than partsMax parts start merges during a bulk load, until partsResume', async (t) => {
  const table = 't_md_parts';
  await createTable(table);
  const load = newLoad();
  const merges = deferral(table, load, { partsMax: 4, partsResume: 2, deferMaxMs: 60_000 });

  load.note(BULK, T0);
  await merges.update(T0);
  t.same(merges.stoppedTables(), [table], 'bulk: stopped');
  await insertParts(table, 4);
  await merges.update(T0 + 1);
  t.same(merges.stoppedTables(), [table], 'four parts (= partsMax): still stopped');

  await insertParts(table, 2);
  t.equal(await activeParts(table), 6, 'six parts while stopped');
  await merges.update(T0 + 2);
  t.ok(load.isBulk(T0 + 2), 'the load is still bulk');
  t.same(merges.stoppedTables(), [], 'six parts > partsMax: merges started');
  const parts = await pollParts(table, (n) => n <= 2);
  t.ok(parts <= 2, `merged down to partsResume or fewer (${parts})`);

  await merges.update(T0 + 3);
  t.same(merges.stoppedTables(), [table], 'back at partsResume or fewer during the bulk load: stopped again');
  await t.rejects(optimize(table), /Cancelled merging parts|ABORTED/, 'and the engine refuses to merge it');
});

t.test('between partsResume and partsMax a running table is left running', async (t) => {
  const table = 't_md_between';
  await createTable(table);
  // Freeze the part count at 3 behind the deferral's back so the merges cannot race the check.
  await store.command(`SYSTEM STOP MERGES ${table}`);
  await insertParts(table, 3);
  const load = newLoad();
  const merges = deferral(table, load, { partsMax: 4, partsResume: 2, deferMaxMs: 60_000 });

  load.note(BULK, T0);
  await merges.update(T0);
  t.same(merges.stoppedTables(), [], 'three parts > partsResume: not stopped');
  await store.command(`SYSTEM START MERGES ${table}`);
});

t.test('past deferMaxMs in one bulk episode merges run until the load ends', async (t) => {
  const table = 't_md_defer';
  await createTable(table);
  const load = newLoad();
  const deferMaxMs = 5_000;
  const merges = deferral(table, load, { partsMax: 64, partsResume: 16, deferMaxMs });

  load.note(BULK, T0);
  await merges.update(T0);
  t.same(merges.stoppedTables(), [table], 'bulk at T0: stopped');
  await insertParts(table, 6);

  load.note(BULK, T0 + deferMaxMs - 500);
  await merges.update(T0 + deferMaxMs);
  t.same(merges.stoppedTables(), [table], 'exactly deferMaxMs after the first stop: still stopped');

  load.note(BULK, T0 + deferMaxMs + 1);
  await merges.update(T0 + deferMaxMs + 1);
  t.ok(load.isBulk(T0 + deferMaxMs + 1), 'the load is still bulk');
  t.same(merges.stoppedTables(), [], 'deferMaxMs passed: merges started');
  const parts = await pollParts(table, (n) => n < 6);
  t.ok(parts < 6, `background merges reduce the part count (6 -> ${parts})`);

  load.note(BULK, T0 + deferMaxMs + 500);
  await merges.update(T0 + deferMaxMs + 500);
  t.same(merges.stoppedTables(), [], 'the same bulk episode: stays started');

  await merges.update(T0 + deferMaxMs + 500 + WINDOW_MS);
  t.same(merges.stoppedTables(), [], 'the load ended: nothing stopped');
  load.note(BULK, T0 + 20_000);
  await merges.update(T0 + 20_000);
  t.same(merges.stoppedTables(), [table], 'a new bulk episode defers again');
  await insertParts(table, 6);
  const before = await activeParts(table);
  await merges.resumeAll();
  t.same(merges.stoppedTables(), [], 'resumeAll starts every table');
  const after = await pollParts(table, (n) => n < before);
  t.ok(after < before, `and the table merges again (${before} -> ${after})`);
});

t.test('a failing statement is logged, does not reject, and leaves the state as it was', async (t) => {
  // Not an identifier: stopMergesSql refuses it before any SQL runs.
  const load = newLoad();
  const merges = new MergeDeferral(store, ['not-a-table'], load, log, {});
  load.note(BULK, T0);
  await merges.update(T0);
  t.same(merges.stoppedTables(), [], 'nothing recorded as stopped');
  // The chain keeps working after a failure.
  await merges.update(T0 + WINDOW_MS);
  await merges.resumeAll();
  t.same(merges.stoppedTables(), [], 'later updates still run and resolve');
});

t.test('merging(): a table past settledParts with a merge running, not stopped (the fold waits for it after a bulk load)', async (t) => {
  const table = 't_md_merging';
  await store.command(`CREATE TABLE ${table} (a UInt64, b UInt64) ENGINE = MergeTree ORDER BY a`);
  const load = newLoad();
  const merges = deferral(table, load, { partsMax: 64, partsResume: 16, deferMaxMs: 60_000 });
  load.note(BULK, T0);
  await merges.update(T0);
  // Parts large enough that merging twelve of them takes well over one poll.
  for (let i = 0; i < 12; i++) await store.command(`INSERT INTO ${table} SELECT number * 12 + ${i}, rand64() FROM numbers(400000)`);
  t.notOk(await merges.merging(8), 'merges stopped by the deferral (a bulk load runs): nothing to wait for');
  await merges.update(T0 + WINDOW_MS);
  t.same(merges.stoppedTables(), [], 'the load is over');
  await store.command(`SYSTEM STOP MERGES ${table}`);
  // A merge the engine began between START and STOP is cancelled, not at once.
  const quietBy = Date.now() + MERGE_DEADLINE_MS;
  while (Date.now() < quietBy && Number((await store.query<{ n: string }>(
    'SELECT toString(count()) AS n FROM system.merges WHERE database = currentDatabase() AND table = {table:String}', { table }))[0]?.n) > 0) await pause(POLL_INTERVAL_MS);
  t.ok(await activeParts(table) > 8, 'more than eight parts left');
  t.notOk(await merges.merging(8), 'parts past eight and no merge running: nothing to wait for');
  await store.command(`SYSTEM START MERGES ${table}`);
  const optimizing = store.command(`OPTIMIZE TABLE ${table} FINAL`);
  const deadline = Date.now() + MERGE_DEADLINE_MS;
  let seen = false;
  while (!seen && Date.now() < deadline) {
    seen = await merges.merging(8);
    if (!seen) await pause(5);
  }
  t.ok(seen, 'twelve parts merging: the fold waits');
  await optimizing;
  t.equal(await activeParts(table), 1, 'merged');
  t.notOk(await merges.merging(8), 'one part: nothing to wait for');
});
