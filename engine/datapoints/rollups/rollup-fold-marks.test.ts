// Goal: the fold removes its marks in few statements yet never one too large for
// the engine, in process or on a server (whose bound values travel in the URL, capped by
// http_max_uri_size): 5,000 marks (a round's rangesPerFold) go, those marked after the fold's
// clock stay. Method: marks written to datapoint_dirty of the real embedded engine and, through
// ServerColumnarStore, of the ClickHouse HTTP fixture, removed with the fold's own
// deleteFoldedMarks, counted back with SQL.
import t from 'tap';
import { columnarStores } from '../../testing/columnar-kinds.ts';
import { DIRTY_DDL } from '../tables/datapoint-tables.sql.ts';
import { writeDirtyRanges, type DirtyRange } from '../write/dirty-ranges.ts';
import { MARKS_PER_DELETE, deleteFoldedMarks } from './rollup-fold.ts';

const HOUR = 3_600_000;

for (const { kind, store } of await columnarStores(t, 'rollup-fold-marks')) {
  await store.command(DIRTY_DDL);
  const count = async (): Promise<number> => Number((await store.query<{ n: string }>('SELECT toString(count()) AS n FROM datapoint_dirty'))[0]?.n);

  t.test(`${kind}: 5,000 marks of a round go in a few statements; a mark made after the clock stays`, async (t) => {
    const marks: DirtyRange[] = Array.from({ length: 5_000 }, (_, i) => ({
      tenant: `tenant-with-a-long-name-${i % 7}`, seriesId: 1_000_000_000 + i, family: i % 3 === 0 ? '' : 'float', beginMs: 1_700_000_000_000 + (i % 24) * HOUR, endMs: 1_700_000_000_000 + (i % 24 + 1) * HOUR,
    }));
    await writeDirtyRanges(store, marks);
    const [clock] = await store.query<{ now: string }>('SELECT toString(toUnixTimestamp64Micro(now64(6))) AS now');
    const later: DirtyRange = { tenant: 'tenant-with-a-long-name-0', seriesId: 1_000_000_000, family: '', beginMs: marks[0]!.beginMs, endMs: marks[0]!.endMs, markedAtMicros: BigInt(clock!.now) + 1_000_000n };
    await writeDirtyRanges(store, [later]);
    t.ok(MARKS_PER_DELETE < marks.length, 'more marks than one statement takes');
    await deleteFoldedMarks(store, marks, BigInt(clock!.now));
    t.equal(await count(), 1, 'every folded mark is gone but the one made after the clock');
  });
}
