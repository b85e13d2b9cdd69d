// Goal: live points append in time order and memory stays bounded: points before the window
// start are dropped, at most pointsMax are kept, late points never reorder the columns.
// Method: appendLivePoints on small columns with a small pointsMax.
import t from 'tap';
import { emptyColumns, rawColumns } from './columns.ts';
import { appendLivePoints } from './live-buffer.ts';

const columns = rawColumns([{ timestamp: 10, value: '1' }, { timestamp: 20, value: '2' }]);
appendLivePoints(columns, [{ timeMs: 40, value: 4 }, { timeMs: 30, value: 3 }], 0, 100);
t.same(columns.timesMs, [10, 20, 30, 40], 'sorted append');
appendLivePoints(columns, [{ timeMs: 25, value: 9 }, { timeMs: 40, value: 5 }], 0, 100);
t.same(columns.values, [1, 2, 3, 5], 'a late point is ignored, one at the last time replaces it');
appendLivePoints(columns, [{ timeMs: 50, value: 6 }], 25, 100);
t.same(columns.timesMs, [30, 40, 50], 'points before the window start dropped');
appendLivePoints(columns, [{ timeMs: 60, value: 7 }, { timeMs: 70, value: 8 }], 0, 3);
t.same(columns.timesMs, [50, 60, 70], 'at most pointsMax kept');

const band = emptyColumns(true);
appendLivePoints(band, [{ timeMs: 1, value: 2 }], 0, 10);
t.same(band, { timesMs: [1], values: [2], mins: [2], maxs: [2] }, 'a band series gets the value as min and max');

const big = emptyColumns(false);
for (let i = 0; i < 1000; i++) appendLivePoints(big, [{ timeMs: i, value: i }], 0, 50);
t.equal(big.timesMs.length, 50, 'bounded after many frames');
