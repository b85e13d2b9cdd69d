// Goal: the granularity a visible range is read at follows the thresholds docs/console.md states
// (raw up to 2 h, 1m up to 3 d, 1h up to 90 d, then 1d), at each limit and one past it.
// Method: granularityForRange over ranges at the edges.
import t from 'tap';
import { coarserGranularity, granularityForRange, type Granularity } from './granularity.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const check = (rangeMs: number, expected: Granularity) => t.equal(granularityForRange(rangeMs), expected, `${rangeMs} ms -> ${expected}`);

check(1, 'raw');
check(2 * HOUR_MS, 'raw');
check(2 * HOUR_MS + 1, '1m');
check(3 * DAY_MS, '1m');
check(3 * DAY_MS + 1, '1h');
check(90 * DAY_MS, '1h');
check(90 * DAY_MS + 1, '1d');
check(40 * 365 * DAY_MS, '1d');

t.equal(coarserGranularity('raw'), '1m');
t.equal(coarserGranularity('1m'), '1h');
t.equal(coarserGranularity('1h'), '1d');
t.equal(coarserGranularity('1d'), '1d');
