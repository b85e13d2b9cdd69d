// Goal: the fold removes its marks in few statements yet never one too large for
// the engine: 5,000 marks (a round's rangesPerFold) go, those marked after the fold's clock
// stay. Method: marks written to the real embedded engine's datapoint_dirty, removed with the
// fold's own deleteFoldedMarks, counted back with SQL.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { openColumnarStore } from '../../stores/columnar.ts';
import { DIRTY_DDL } from '../tables/datapoint-tables.sql.ts';
import { writeDirtyRanges, type DirtyRange } from '../write/dirty-ranges.ts';
import { MARKS_PER_DELETE, deleteFoldedMarks } from './rollup-fold.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'rollup-fold-marks-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const store = await openColumnarStore({ engine: 'chdb', path: dir });
t.teardown(() => store.close());
await store.command(DIRTY_DDL);

const HOUR = 3_600_000;
const count = async (): Promise<number> => Number((await store.query<{ n: string }>('SELECT toString(count()) AS n FROM datapoint_dirty'))[0]?.n);

t.test('5,000 marks of a round go in a few statements; a mark made after the clock stays', async (t) => {
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
