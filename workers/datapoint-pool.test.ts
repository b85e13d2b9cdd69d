// Goal: the datapoint pool runs both phases in real piscina worker threads (the .ts task
// loaded through tsx), moves buffers instead of copying them, gives the same results as the
// in-thread functions, and refuses work past its bound with OverloadedError without taking
// the caller's body. Method: one small pool (1 thread, queue 1) driven through each case.
import t from 'tap';
import { OverloadedError } from '../engine/errors.ts';
import { encodeScannedBody } from './datapoint-encode.ts';
import { createDatapointPool } from './datapoint-pool.ts';
import { scanDatapointBody } from './datapoint-scan.ts';

const bodyOf = (text: string): Uint8Array => new TextEncoder().encode(text);

const TEXT = `{"items":[
  {"id":1,"datapoints":[{"timestamp":3,"value":"1.5"},{"timestamp":1,"value":2},{"timestamp":3,"value":"2.5"}]},
  {"externalId":"counter","datapoints":[{"timestamp":1700000000000,"value":"9223372036854775807"},{"timestamp":1700000000001,"value":"-9223372036854775808"}]},
  {"externalId":"gone","datapoints":[{"timestamp":1,"value":"x"}]},
  {"id":4,"datapoints":[{"timestamp":5,"value":"état"},{"timestamp":6,"value":7}]}
]}`;

const pool = createDatapointPool({ maxThreads: 1, maxQueue: 1 });
t.teardown(() => pool.close());

t.test('scan and encode round-trip through a worker, by transfer', async (t) => {
  const body = bodyOf(TEXT);
  const { body: returned, scanned } = await pool.scan(body);
  t.equal(body.byteLength, 0, 'the caller body was transferred, not copied');
  t.equal(returned.byteLength, new TextEncoder().encode(TEXT).length, 'the body comes back whole');
  const local = scanDatapointBody(new TextEncoder().encode(TEXT));
  t.same(scanned.items, local.items);
  t.same(Array.from(scanned.valueOffset), Array.from(local.valueOffset));
  t.equal(scanned.scanner, 'bytes');

  const valueTypes = ['FLOAT', 'BIGINT', null, 'MIXED'] as const;
  const seriesIds = [11, 12, null, 14];
  const expected = encodeScannedBody(new Uint8Array(returned.slice(0)), scanned, [...valueTypes], seriesIds);
  const timestampColumn = scanned.timestampMs;
  const encoded = await pool.encode(returned, scanned, [...valueTypes], seriesIds);
  t.equal(returned.byteLength, 0, 'the body went to the worker again');
  t.equal(timestampColumn.length, 0, 'the scanned columns were transferred too');
  t.same(encoded, expected, 'same result as in this thread');
  t.same(Array.from(encoded.series[0]!.timestampMs), [1, 3]);
  t.same(Array.from(encoded.series[0]!.float!), [2, 2.5]);
  t.same(Array.from(encoded.series[1]!.bigint!), [9223372036854775807n, -9223372036854775808n], 'BIGINT exact across threads');
  t.equal(encoded.series[2], null);
  t.same(encoded.series[3]!.text, ['état', '']);
});

t.test('bad bodies come back as errors, not as failures', async (t) => {
  const { scanned } = await pool.scan(bodyOf('{"items":[{"datapoints":[]}]}'));
  t.same(
    scanned.errors.map((e) => e.field),
    ['items[0]'],
  );
  const again = await pool.scan(bodyOf('{"items":[{"id":1,"datapoints":[{"timestamp":1,"value":"x"}]}]}'));
  const encoded = await pool.encode(again.body, again.scanned, ['FLOAT'], [1]);
  t.same(
    encoded.errors.map((e) => [e.field, e.reason]),
    [['items[0].datapoints[0].value', 'value-type-mismatch']],
  );
});

t.test('past maxThreads + maxQueue the pool refuses with OverloadedError and keeps the body', async (t) => {
  const bodies = [bodyOf(TEXT), bodyOf(TEXT), bodyOf(TEXT)];
  const runs = bodies.map((body) => pool.scan(body));
  t.equal(pool.pending, 2);
  const [first, second, third] = await Promise.allSettled(runs);
  t.equal(first?.status, 'fulfilled');
  t.equal(second?.status, 'fulfilled');
  t.equal(third?.status, 'rejected');
  const reason = third?.status === 'rejected' ? (third.reason as unknown) : undefined;
  t.ok(reason instanceof OverloadedError, 'an OverloadedError');
  t.match((reason as Error).message, /limit 2/);
  t.equal(bodies[2]!.byteLength, new TextEncoder().encode(TEXT).length, 'the refused body was not transferred');
  t.equal(pool.pending, 0);
});

t.test('a programmer error in a worker surfaces with context', async (t) => {
  const { body, scanned } = await pool.scan(bodyOf('{}'));
  await t.rejects(pool.encode(body, scanned, [], []), /The datapoint worker failed to encode datapoints/);
});
