// Goal (the live chart's reads over unmerged parts): raw tables take RAW_INDEX_GRANULARITY, and
// a data directory whose raw tables have the engine's default granule moves to it at open, from
// the start and from each step a stop could have left, with every point unchanged; afterwards a
// part written without its dirty marks (a crash between the two) is still found by the recovery,
// though the move numbered the parts afresh.
// Method: the real chdb engine in a temp dir; older tables are made by moving the parts back
// into a table created without the setting, as one written before it would be.
import t, { type Test } from 'tap';
import { logger } from '../../log.ts';
import { reopenableEngine } from '../../testing/columnar-kinds.ts';
import { DatapointStore } from '../datapoint-store.ts';
import type { SeriesPoints } from '../types.ts';
import { highestBlock, recoverUnmarkedParts, restartUnmarkedCheckpoint } from '../write/unmarked-recovery.ts';
import { STATE_DELETE_SQL, STATE_READ_SQL, STATE_WRITE_SQL, RAW_INDEX_GRANULARITY, rawTableDdl } from './datapoint-tables.sql.ts';
import { FAMILIES, FAMILY_SHAPES } from './families.ts';
import { rawGranularity, sideTable } from './raw-granule-migration.ts';
import { ENGINE_DEFAULT_GRANULARITY, attachPartsSql, dropTableSql, exchangeTablesSql } from './raw-granule-migration.sql.ts';

/** The engine for each store opened here: a store's close leaves it open for the next. */
const columnar = await reopenableEngine(t, 'raw-granule');
const log = logger.child({ module: 'raw-granule.test' });

const T0 = Date.UTC(2024, 0, 10);
const TENANT = 'plant';
const FLOAT = { seriesId: 1, valueType: 'FLOAT' as const };
const BIGINT = { seriesId: 2, valueType: 'BIGINT' as const };
const COUNT = 5000;
const floats = Float64Array.from({ length: COUNT }, (_, i) => Math.round(Math.sin(i / 50) * 1e6) / 1000);
const bigints = BigInt64Array.from({ length: COUNT }, (_, i) => 2n ** 60n + BigInt(i) * 3n - 1n);
const times = Float64Array.from({ length: COUNT }, (_, i) => T0 + i * 1000);

async function readBack(store: DatapointStore): Promise<{ floats: number[]; bigints: bigint[]; times: number[] }> {
  const range = { start: T0, end: T0 + COUNT * 1000, limit: COUNT + 1 };
  const f = (await store.readRaw(TENANT, FLOAT, range)).points;
  const b = (await store.readRaw(TENANT, BIGINT, range)).points;
  return { floats: Array.from(f.float ?? []), bigints: Array.from(b.bigint ?? []), times: Array.from(b.timestampMs) };
}

const want = { floats: Array.from(floats), bigints: Array.from(bigints), times: Array.from(times) };

/** What a directory written before the setting holds: the same parts in a table created without it. */
async function makeOlder(): Promise<void> {
  for (const family of FAMILIES) {
    const shape = FAMILY_SHAPES[family];
    const side = sideTable(shape.rawTable);
    await columnar.command(dropTableSql(side));
    await columnar.command(rawTableDdl(shape, side).replace(`, index_granularity = ${RAW_INDEX_GRANULARITY}`, ''));
    await columnar.command(attachPartsSql(side, shape.rawTable));
    await columnar.command(exchangeTablesSql(shape.rawTable, side));
    await columnar.command(dropTableSql(side));
    t.equal(await rawGranularity(columnar, shape.rawTable), ENGINE_DEFAULT_GRANULARITY);
  }
  // A checkpoint from the older table's numbering, higher than any block the move will give.
  await columnar.command(STATE_WRITE_SQL, { name: 'unmarked_checkpoint:datapoints_float', value: 1_000_000n });
}

const checkpoint = async (table: string) => (await columnar.query<{ value: string }>(STATE_READ_SQL, { name: `unmarked_checkpoint:${table}` }))[0]?.value;
const maxBlock = async (table: string) => String(await highestBlock(columnar, table));
const tablesNamed = async (name: string) => (await columnar.query<{ n: string }>('SELECT toString(count()) AS n FROM system.tables WHERE database = currentDatabase() AND name = {name:String}', { name }))[0]?.n;

async function writePoints(store: DatapointStore): Promise<void> {
  // Several inserts, so the table holds several parts with distinct block numbers.
  for (let at = 0; at < COUNT; at += 1000) {
    const series: SeriesPoints[] = [
      { ...FLOAT, timestampMs: times.subarray(at, at + 1000), float: floats.subarray(at, at + 1000) },
      { ...BIGINT, timestampMs: times.subarray(at, at + 1000), bigint: bigints.subarray(at, at + 1000) },
    ];
    await store.insert({ tenant: TENANT, series, writeVersion: store.writeVersions.next() });
  }
}

async function assertMoved(t: Test, store: DatapointStore, what: string): Promise<void> {
  for (const family of FAMILIES) {
    const table = FAMILY_SHAPES[family].rawTable;
    t.equal(await rawGranularity(columnar, table), RAW_INDEX_GRANULARITY, `${what}: ${table} at the new granule`);
    t.equal(await tablesNamed(sideTable(table)), '0', `${what}: no side table of ${table} left`);
  }
  t.same(await readBack(store), want, `${what}: every point the same`);
  t.equal(await checkpoint('datapoints_float'), await maxBlock('datapoints_float'), `${what}: the checkpoint restarted at the new table's highest block`);
}

t.test('a new directory creates its raw tables at the finer granule', async (t) => {
  const store = await DatapointStore.open({ columnar, maintenanceIntervalMs: 0 });
  for (const family of FAMILIES) t.equal(await rawGranularity(columnar, FAMILY_SHAPES[family].rawTable), RAW_INDEX_GRANULARITY, FAMILY_SHAPES[family].rawTable);
  await writePoints(store);
  t.same(await readBack(store), want, 'the points read back');
  await store.close();
});

t.test('an older directory moves at open, and a crash after it is still recovered', async (t) => {
  await makeOlder();
  const store = await DatapointStore.open({ columnar, maintenanceIntervalMs: 0 });
  await assertMoved(t, store, 'moved');
  // A part committed without its dirty marks: the recovery at the next open must find it.
  await columnar.command(`DELETE FROM datapoint_dirty WHERE tenant = '${TENANT}'`);
  await columnar.command(`INSERT INTO datapoints_float (tenant, series_id, ts, version, value_m, value_e)
SELECT '${TENANT}', 3, ${T0} + number * 1000, 1, number, 0 FROM numbers(10)`);
  await recoverUnmarkedParts(columnar, log);
  const dirty = await columnar.query<{ series: string }>(`SELECT DISTINCT toString(series_id) AS series FROM datapoint_dirty WHERE tenant = '${TENANT}'`);
  // A merge at open may have joined the part to older ones, whose series are then marked too.
  t.ok(dirty.some((row) => row.series === '3'), 'the unmarked part\'s series is marked dirty', { dirty });
  await columnar.command(`DELETE FROM datapoints_float WHERE series_id = 3`);
  await store.close();
  const reopened = await DatapointStore.open({ columnar, maintenanceIntervalMs: 0 });
  await assertMoved(t, reopened, 'a second open');
  await reopened.close();
});

t.test('a move stopped at any step finishes at open', async (t) => {
  const table = 'datapoints_float';
  const side = sideTable(table);
  const shape = FAMILY_SHAPES.float;
  // The migration's own steps, in its order (raw-granule-migration.ts).
  const create = () => columnar.command(rawTableDdl(shape, side));
  const attach = () => columnar.command(attachPartsSql(side, table));
  const dropCheckpoint = () => columnar.command(STATE_DELETE_SQL, { name: `unmarked_checkpoint:${table}` });
  const restart = async () => restartUnmarkedCheckpoint(columnar, table, await highestBlock(columnar, side));
  const exchange = () => columnar.command(exchangeTablesSql(table, side));
  const steps: [string, (() => Promise<unknown>)[]][] = [
    ['after the side table was created', [create]],
    ['after it took the parts', [create, attach]],
    ['with the checkpoint removed, not written again', [create, attach, dropCheckpoint]],
    ['after the checkpoint restarted', [create, attach, restart]],
    ['after the exchange', [create, attach, restart, exchange]],
  ];
  for (const [name, done] of steps) {
    await makeOlder();
    for (const step of done) await step();
    const store = await DatapointStore.open({ columnar, maintenanceIntervalMs: 0 });
    await assertMoved(t, store, name);
    await store.close();
  }
});
