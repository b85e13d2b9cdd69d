// Goal: batchToMessages sends one message per series keyed `<tenant>:<seriesId>`, cuts a
// large series into chunks under the byte bound that decode back to the same points, and
// stamps every message with the batch's writeVersion. Method: encode, decode, compare.
import t, { type Test } from 'tap';
import { makeSeries, pointRows } from '../testing/kafka-mock-fixtures.ts';
import { decodeIngestBatch } from './batch-codec.ts';
import { batchToMessages, splitSeries } from './kafka-message.ts';
import type { SeriesPoints, ValueType } from '../datapoints/types.ts';

function check(t: Test, valueType: ValueType, count: number, bytesMax: number): void {
  const series = makeSeries(42, valueType, count);
  const messages = batchToMessages({ tenant: 'acme', series: [series], writeVersion: 77n }, bytesMax);
  const decoded = messages.map((m) => decodeIngestBatch(m.value));
  t.ok(messages.every((m) => m.key === 'acme:42'), `${valueType} x${count}: every chunk keyed acme:42`);
  t.ok(messages.every((m) => m.value.length <= bytesMax), `${valueType} x${count}: ${messages.length} chunks, each <= ${bytesMax} bytes`);
  t.ok(decoded.every((b) => b.writeVersion === 77n && b.tenant === 'acme'), `${valueType} x${count}: version and tenant on every chunk`);
  t.same(decoded.flatMap((b) => pointRows(b.tenant, b.series)), pointRows('acme', [series]), `${valueType} x${count}: same points in order`);
}

t.test('series are cut under the byte bound and come back whole', async (t) => {
  check(t, 'FLOAT', 1, 1024);
  check(t, 'FLOAT', 5000, 4096);
  check(t, 'BIGINT', 3000, 2048);
  check(t, 'TEXT', 800, 1024);
  check(t, 'MIXED', 800, 1024);
  check(t, 'NUMERIC', 100_000, 256 * 1024);
});

t.test('one message per series of a batch', async (t) => {
  const series: SeriesPoints[] = [makeSeries(1, 'FLOAT', 3), makeSeries(2, 'TEXT', 3), makeSeries(3, 'DECIMAL32', 3)];
  const messages = batchToMessages({ tenant: 't:1', series, writeVersion: 1n });
  t.same(messages.map((m) => m.key), ['t:1:1', 't:1:2', 't:1:3']);
  t.equal(splitSeries(makeSeries(1, 'FLOAT', 0), 1024).length, 1, 'an empty series is one (empty) message');
});
