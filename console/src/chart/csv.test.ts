// Goal: CSV export of the visible range: ISO timestamps, one column per raw series and three
// per aggregate series, RFC 4180 quoting, formula-like names defused, range end exclusive.
// Method: toCsv and csvFileName over small columns.
import t from 'tap';
import { aggregateColumns, rawColumns } from './columns.ts';
import { csvCell, csvFileName, toCsv } from './csv.ts';

const raw = rawColumns([{ timestamp: 0, value: '1.5' }, { timestamp: 1000, value: '2' }, { timestamp: 2000, value: '3' }]);
const agg = aggregateColumns([{ timestamp: 1000, average: '5', min: '4', max: '6' }]);
t.equal(toCsv([{ name: 'Flow, inlet', columns: raw }, { name: '=cmd', columns: agg }], 0, 2000),
  `timestamp,"Flow, inlet",'=cmd average,'=cmd min,'=cmd max\r\n`
  + '1970-01-01T00:00:00.000Z,1.5,,,\r\n'
  + '1970-01-01T00:00:01.000Z,2,5,4,6\r\n', 'two series, end exclusive');
t.equal(toCsv([{ name: 'a', columns: raw }], 5000, 6000), 'timestamp,a\r\n', 'empty range: header only');
t.equal(csvCell('say "hi"'), '"say ""hi"""');
t.equal(csvCell('-5'), '-5', 'values are not prefixed');
t.equal(csvFileName(['pump/1', 'temp']), 'pump_1_temp.csv');
t.equal(csvFileName([]), 'series.csv');
