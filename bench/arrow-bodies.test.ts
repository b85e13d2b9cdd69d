// Goal: the Arrow bodies the bench sends hold exactly the generator's points, in the columns and
// types the route takes. Method: build a body of two series' slices, read it back with
// apache-arrow, compare every point; and readArrowPoints on it.
import { tableFromIPC } from 'apache-arrow';
import t from 'tap';
import { arrowWriteBody, readArrowPoints } from './arrow-bodies.ts';
import { Workload } from './workload.ts';

const workload = new Workload({ seriesCount: 2, pointsPerSeries: 50, requestPoints: 50, senderCount: 1, warmupCount: 0, runCount: 0 }, Date.UTC(2026, 0, 10));
const items = [{ externalId: 'a', gen: 0, first: 10, count: 5 }, { externalId: 'b', gen: 1, first: 0, count: 3 }];

t.test('write body: columns, types, every point', async (t) => {
  const table = tableFromIPC(arrowWriteBody(workload, items));
  t.same(table.schema.fields.map((f) => `${f.name}:${String(f.type)}`), ['externalId:Dictionary<Int32, Utf8>', 'timestamp:Int64', 'value:Float64']);
  t.equal(table.numRows, 8);
  const rows = Array.from({ length: table.numRows }, (_, i) => [table.getChild('externalId')?.get(i), Number(table.getChild('timestamp')?.get(i)), table.getChild('value')?.get(i)]);
  const expected = items.flatMap((item) => Array.from({ length: item.count }, (_, k) => [item.externalId, workload.timestamp(item.first + k), Number(workload.valueText(item.gen, item.first + k))]));
  t.same(rows, expected);
});

t.test('readArrowPoints reads timestamp and value', async (t) => {
  const { timestamps, values } = readArrowPoints(arrowWriteBody(workload, [items[0] as (typeof items)[0]]));
  t.same(Array.from(timestamps), [10, 11, 12, 13, 14].map((i) => workload.timestamp(i)));
  t.same(Array.from(values), [10, 11, 12, 13, 14].map((i) => Number(workload.valueText(0, i))));
});
