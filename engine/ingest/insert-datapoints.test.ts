// Goal: the ingest log holds an acknowledged request's encoded columns in a slab they fill,
// not in the speculative slab sized for the densest body of its size: a bulk request's
// columns in their 8 MiB speculative slab are copied out (the log's copy takes 2 MiB), a
// gateway request's 128 KiB slab is handed over as it is (no copy per small request), and a
// slab sized for its columns (the encode after a wrong guess) is always handed over; past
// 1 MiB of slack, a slab four times its columns' bytes or more is not.
// Method: slabs from a real SlabPool at the sizes the insert asks for (the workers' layout),
// columns as the workers lay them out in it.
import t from 'tap';
import type { SeriesPoints } from '../datapoints/types.ts';
import { ColumnArena } from '../memory/column-arena.ts';
import { SlabPool, type Slab } from '../memory/slab-pool.ts';
import { encodeOutputBytes } from '../../workers/datapoint-encode.ts';
import { speculativeOutputBytes } from '../../workers/datapoint-task.ts';
import { fitsItsColumns, seriesColumnBytes } from './insert-datapoints.ts';

/** `seriesCount` FLOAT series of `points` each (MIXED adds its is-text flags), laid out in `slab` as the workers do. */
function encodedIn(slab: Slab, seriesCount: number, points: number, valueType: 'FLOAT' | 'MIXED' = 'FLOAT'): SeriesPoints[] {
  const arena = new ColumnArena(slab.buffer);
  return Array.from({ length: seriesCount }, (_, i): SeriesPoints => {
    const s: SeriesPoints = { seriesId: i + 1, valueType, timestampMs: arena.float64(points), float: arena.float64(points) };
    if (valueType === 'MIXED') s.isText = arena.uint8(points);
    return s;
  });
}

const pool = new SlabPool();
/** The bytes of a JSON body of `points` points (~48.5 bytes a point, as the bench's gateway bodies). */
const bodyBytes = (points: number) => Math.round(points * 48.5);

t.test('a bulk request: its columns fill a fifth of the speculative slab, and the log copies them', async (t) => {
  const slab = pool.acquire(speculativeOutputBytes(bodyBytes(100_000)));
  t.equal(slab.buffer.byteLength, 8 * 1024 * 1024, 'the speculative slab of a 100,000-point body');
  t.notOk(fitsItsColumns(slab, seriesColumnBytes(encodedIn(slab, 1, 100_000))), 'one series of 100,000 points (1.6 MB)');
  t.notOk(fitsItsColumns(slab, seriesColumnBytes(encodedIn(slab, 10, 10_000))), '10 series of 10,000 points');
  slab.release();
});

t.test('a gateway request: its 128 KiB slab is handed over', async (t) => {
  const slab = pool.acquire(speculativeOutputBytes(bodyBytes(1000)));
  t.equal(slab.buffer.byteLength, 128 * 1024, 'the speculative slab of a 1,000-point body');
  t.ok(fitsItsColumns(slab, seriesColumnBytes(encodedIn(slab, 100, 10))), '100 series of 10 points (16 KB): the slack is under 1 MiB');
  slab.release();
});

t.test('the encode\'s own slab is handed over at any size; past 1 MiB of slack, one four times its columns is not', async (t) => {
  for (const points of [10, 100_000, 1_000_000]) {
    for (const valueType of ['FLOAT', 'MIXED'] as const) {
      const slab = pool.acquire(encodeOutputBytes(points, 1));
      t.ok(fitsItsColumns(slab, seriesColumnBytes(encodedIn(slab, 1, points, valueType))), `the encode's own slab of ${points} ${valueType} points (${slab.buffer.byteLength} bytes)`);
      slab.release();
    }
  }
  // Fresh pools: the shared one could lend a free slab of a larger class (up to twice the size).
  const slab = new SlabPool().acquire(4 * 1024 * 1024);
  t.equal(slab.buffer.byteLength, 4 * 1024 * 1024);
  t.notOk(fitsItsColumns(slab, seriesColumnBytes(encodedIn(slab, 1, 65_536))), '1 MiB of columns in 4 MiB');
  t.ok(fitsItsColumns(slab, seriesColumnBytes(encodedIn(slab, 1, 65_600))), 'a little more than a quarter');
  t.notOk(fitsItsColumns(slab, seriesColumnBytes(encodedIn(slab, 1, 62_000))), '62,000 FLOAT points');
  t.ok(fitsItsColumns(slab, seriesColumnBytes(encodedIn(slab, 1, 62_000, 'MIXED'))), 'as many MIXED points: their is-text flags count');
  slab.release();
  const small = new SlabPool().acquire(1024 * 1024);
  t.ok(fitsItsColumns(small, seriesColumnBytes(encodedIn(small, 1, 4096))), '64 KiB of columns in 1 MiB: under 1 MiB of slack is not worth a copy');
  small.release();
});
