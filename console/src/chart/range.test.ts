// Goal: zoom and pan keep the anchor in place, stay within the width limits, and start/end
// query parameters are read only when they make a range.
// Method: the pure range functions on round numbers.
import t from 'tap';
import { DEFAULT_RANGE_MS, RANGE_MS_MIN, followNow, panRange, rangeFromParams, zoomRange } from './range.ts';

t.same(zoomRange({ startMs: 0, endMs: 1000_000 }, 0.5), { startMs: 250_000, endMs: 750_000 }, 'zoom in around the middle');
t.same(zoomRange({ startMs: 0, endMs: 1000_000 }, 2, 1), { startMs: -1000_000, endMs: 1000_000 }, 'zoom out keeping the end');
t.same(zoomRange({ startMs: 0, endMs: 1500 }, 0.1, 0), { startMs: 0, endMs: RANGE_MS_MIN }, 'not below one second');
t.same(panRange({ startMs: 0, endMs: 100 }, -0.25), { startMs: -25, endMs: 75 });
t.same(followNow({ startMs: 0, endMs: 100 }, 1000), { startMs: 900, endMs: 1000 });
t.same(rangeFromParams(new URLSearchParams('start=10&end=20'), 0), { startMs: 10, endMs: 20 });
t.same(rangeFromParams(new URLSearchParams('start=20&end=10'), 5e6), { startMs: 5e6 - DEFAULT_RANGE_MS, endMs: 5e6 }, 'end before start: default');
t.same(rangeFromParams(new URLSearchParams(''), 5e6), { startMs: 5e6 - DEFAULT_RANGE_MS, endMs: 5e6 });
