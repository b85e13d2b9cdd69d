// Goal: data point answers become uPlot columns: string values parsed, unparsable ones null,
// aggregates as value/min/max, and several series aligned on one time column with nulls.
// Method: rawColumns, aggregateColumns and alignColumns over small inputs.
import t from 'tap';
import { aggregateColumns, alignColumns, pointCount, rawColumns } from './columns.ts';

t.same(rawColumns([{ timestamp: 1000, value: '1.5' }, { timestamp: '1970-01-01T00:00:02.000Z', value: 'abc' }]),
  { timesMs: [1000, 2000], values: [1.5, null], mins: null, maxs: null }, 'raw: strings parsed, text is null');
t.same(aggregateColumns([{ timestamp: 0, average: '2', min: '1', max: '3', count: 2 }]),
  { timesMs: [0], values: [2], mins: [1], maxs: [3] }, 'aggregate: average, min, max');

const a = rawColumns([{ timestamp: 1, value: '10' }, { timestamp: 3, value: '30' }]);
const b = aggregateColumns([{ timestamp: 2, average: '2', min: '1', max: '3' }, { timestamp: 3, average: '4', min: '4', max: '4' }]);
const { data, index } = alignColumns([a, b]);
t.same(data, [[1, 2, 3], [10, null, 30], [null, 2, 4], [null, 1, 4], [null, 3, 4]], 'aligned with nulls');
t.same(index, [{ value: 1, min: null, max: null }, { value: 2, min: 3, max: 4 }], 'column index per series');
t.equal(pointCount([a, b]), 4);
t.same(alignColumns([]).data, [[]], 'no series: an empty time column');
