// Goal: the Arrow answer's shape without a server: the columns a mix of items gets (and the 400
// when raw items need different value types), every column and metadata entry of a stream read
// back with apache-arrow (a series without externalId, timestamps before 1970, decimal
// aggregates as doubles, counts and ids past 2^32), a raw page's column buffers sent as chunks
// of their own (not copied), and the joining of an engine column that came in several chunks
// (fixed width, utf8, with nulls, sliced).
// Method: pure calls on hand-made pages and buckets; one line per case.
import t from 'tap';
import { Float64, Int64, RecordBatchReader, Utf8, makeData, makeVector, vectorFromArray, type Data, type RecordBatch } from 'apache-arrow';
import { BadRequestError } from '../../errors.ts';
import type { SeriesTarget } from '../../meta/series-targets.ts';
import type { AggregateName, ValueType } from '../types.ts';
import { arrowAnswer, arrowLayout, type ArrowItemAsk } from './datapoint-arrow-answer.ts';
import { joinChunks, type RawArrowPage } from './datapoint-arrow.ts';

const target = (seriesId: number, valueType: ValueType, externalId: string | null = `s${seriesId}`): SeriesTarget => ({ seriesId, valueType, externalId: externalId as string, dataSetId: null } as SeriesTarget);
const raw = (index: number, valueType: ValueType): ArrowItemAsk => ({ index, target: target(index, valueType) });
const agg = (index: number, aggregates: AggregateName[]): ArrowItemAsk => ({ index, target: target(index, 'FLOAT'), aggregates });

t.test('layout: the columns after id, externalId and timestamp', async (t) => {
  const check = (asks: ArrowItemAsk[], expected: unknown) => t.strictSame(arrowLayout(asks), expected, asks.map((a) => a.aggregates ? a.aggregates.join('+') : a.target.valueType).join(', '));
  check([], { value: undefined, text: false, aggregates: [] });
  check([raw(0, 'FLOAT'), raw(1, 'FLOAT32'), raw(2, 'NUMERIC'), raw(3, 'DECIMAL32')], { value: 'float64', text: false, aggregates: [] });
  check([raw(0, 'MIXED'), raw(1, 'FLOAT')], { value: 'float64', text: true, aggregates: [] });
  check([raw(0, 'BIGINT'), raw(1, 'BIGINT')], { value: 'int64', text: false, aggregates: [] });
  check([raw(0, 'TEXT')], { value: 'utf8', text: false, aggregates: [] });
  check([agg(0, ['SUM', 'COUNT']), agg(1, ['MAX', 'AVG']), agg(2, ['COUNT'])], { value: undefined, text: false, aggregates: ['AVG', 'MAX', 'COUNT', 'SUM'] });
  check([raw(0, 'TEXT'), agg(1, ['MIN'])], { value: 'utf8', text: false, aggregates: ['MIN'] });
});

t.test('layout: raw items whose values need different Arrow types are a 400 naming the later item', async (t) => {
  const check = (asks: ArrowItemAsk[], field: string) => {
    try {
      arrowLayout(asks);
      t.fail(`${field}: no error`);
    } catch (error) {
      t.ok(error instanceof BadRequestError, `${field}: BadRequestError`);
      t.strictSame((error as BadRequestError).fields.map((f) => f.field), [field], `${field}: names the item`);
    }
  };
  check([raw(0, 'FLOAT'), raw(1, 'BIGINT')], 'items.1');
  check([raw(0, 'BIGINT'), agg(1, ['SUM']), raw(2, 'TEXT')], 'items.2');
  check([raw(0, 'MIXED'), raw(1, 'TEXT')], 'items.1');
});

const page = (timestamps: bigint[], values: Data<Float64>, nextCursor?: string): RawArrowPage => ({
  length: timestamps.length, timestamps: makeData({ type: new Int64(), length: timestamps.length, data: BigInt64Array.from(timestamps) }), values, ...(nextCursor ? { nextCursor } : {}),
});

function readBack(chunks: Uint8Array[]): { batches: RecordBatch[]; items: unknown } {
  const reader = RecordBatchReader.from(Buffer.concat(chunks)).open();
  const items = JSON.parse(reader.schema.metadata.get('items') ?? 'null');
  return { batches: [...reader], items };
}

t.test('answer: raw and aggregate batches, their rows and metadata', async (t) => {
  const floats = makeData({ type: new Float64(), length: 2, data: Float64Array.of(1.5, -0.25) });
  const asks = [{ index: 0, target: target(7, 'FLOAT', null) }, { index: 1, target: target(2 ** 40, 'NUMERIC'), aggregates: ['AVG', 'COUNT', 'SUM'] as AggregateName[] }];
  const layout = arrowLayout(asks);
  const chunks = arrowAnswer(layout, [
    { target: target(7, 'FLOAT', null), raw: page([-86_400_001n, 0n], floats, 'cursor-1') },
    {
      target: target(2 ** 40, 'NUMERIC'), aggregates: ['AVG', 'COUNT', 'SUM'],
      result: { buckets: [{ timestampMs: -3_600_000, average: 1_500_000n, count: 2 ** 33, sum: -250_000n }, { timestampMs: 4_102_441_200_000, average: 1n, count: 1, sum: 1n }] },
    },
  ]);
  const { batches, items } = readBack(chunks);
  t.strictSame(items, [{ id: 7, externalId: null, valueType: 'FLOAT', nextCursor: 'cursor-1' }, { id: 2 ** 40, externalId: 's1099511627776', valueType: 'NUMERIC' }], 'schema metadata items');
  t.strictSame(batches.map((b) => Object.fromEntries(b.metadata)), [
    { id: '7', valueType: 'FLOAT', nextCursor: 'cursor-1' }, { id: String(2 ** 40), valueType: 'NUMERIC', externalId: 's1099511627776' },
  ], 'batch metadata: no externalId for a series without one');
  t.strictSame(batches.map((b) => b.toArray().map((row) => row.toJSON())), [
    [
      { id: 7n, externalId: null, timestamp: -86_400_001, value: 1.5, average: null, count: null, sum: null },
      { id: 7n, externalId: null, timestamp: 0, value: -0.25, average: null, count: null, sum: null },
    ],
    [
      { id: BigInt(2 ** 40), externalId: 's1099511627776', timestamp: -3_600_000, value: null, average: 1.5, count: BigInt(2 ** 33), sum: -0.25 },
      { id: BigInt(2 ** 40), externalId: 's1099511627776', timestamp: 4_102_441_200_000, value: null, average: 0.000001, count: 1n, sum: 0.000001 },
    ],
  ], 'rows: nulls where an item does not fill a column, int64 halves right for negative and large values');
});

t.test('answer: a raw page\'s column buffers are chunks of their own, the pieces between them joined', async (t) => {
  const length = 100_000;
  const values = makeData({ type: new Float64(), length, data: Float64Array.from({ length }, (_, i) => i / 8) });
  const raw = page(Array.from({ length }, (_, i) => BigInt(i)), values);
  const chunks = arrowAnswer(arrowLayout([{ index: 0, target: target(3, 'FLOAT') }]), [{ target: target(3, 'FLOAT'), raw }]);
  t.ok(chunks.some((chunk) => chunk.buffer === (values.values as Float64Array).buffer), 'the value column is sent from its own buffer');
  t.ok(chunks.some((chunk) => chunk.buffer === (raw.timestamps.values as BigInt64Array).buffer), 'the timestamps too');
  t.ok(chunks.length <= 9, `${chunks.length} chunks: schema, id, externalId, timestamp, value and the pieces between`);
  const { batches } = readBack(chunks);
  t.equal(batches[0]?.numRows, length, 'rows');
  t.equal(batches[0]?.getChild('value')?.get(length - 1), (length - 1) / 8, 'the last value');
  t.strictSame(Buffer.concat(arrowAnswer(arrowLayout([{ index: 0, target: target(3, 'FLOAT') }]), [{ target: target(3, 'FLOAT'), raw }])), Buffer.concat(chunks), 'the page asked again: the same bytes');
  const renamed = readBack(arrowAnswer(arrowLayout([{ index: 0, target: target(3, 'FLOAT', 'renamed') }]), [{ target: target(3, 'FLOAT', 'renamed'), raw }]));
  t.equal(renamed.batches[0]?.metadata.get('externalId'), 'renamed', 'the page asked as another externalId: that one');
  t.equal(renamed.batches[0]?.getChild('externalId')?.get(0), 'renamed', 'in the column too');
});

t.test('joinChunks: one chunk of several, values and validity in order', async (t) => {
  const f = joinChunks([makeData({ type: new Float64(), length: 2, data: Float64Array.of(1, 2) }), makeData({ type: new Float64(), length: 3, data: Float64Array.of(3, 4, 5) }).slice(1, 2)]);
  t.strictSame([...f.values as unknown as Float64Array].slice(0, f.length), [1, 2, 4, 5], 'float64, the second chunk sliced');
  const strings = (values: (string | null)[]) => vectorFromArray(values, new Utf8()).data[0] as Data<Utf8>;
  const u = joinChunks([strings(['a', null, 'bcd']), strings([null, 'é', '']).slice(1, 2), strings(['xyz'])]);
  t.strictSame([...makeVector(u)], ['a', null, 'bcd', 'é', '', 'xyz'], 'utf8 with nulls, a sliced chunk between');
  t.equal(u.nullCount, 1, 'null count');
});
