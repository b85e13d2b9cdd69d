// Goal: the datapoint pool runs both phases in real piscina worker threads (the .ts task
// loaded through tsx), moves buffers instead of copying them, gives the same results as the
// in-thread functions, and refuses work past its bound with OverloadedError without taking
// the caller's body. Method: one small pool (1 thread, queue 1) driven through each case.
import t from 'tap';
import { Field, Int8, Schema, Table, tableToIPC } from 'apache-arrow';
import { OverloadedError } from '../engine/errors.ts';
import { encodeOutputBytes, encodeScannedBody } from './datapoint-encode.ts';
import { createDatapointPool } from './datapoint-pool.ts';
import datapointTask, { type DatapointScansWire } from './datapoint-task.ts';
import { valueSymbol } from 'piscina';
import { scanDatapointBody, scanScratchBytes } from './datapoint-scan.ts';
import { plainEncoded } from './testing/plain-encoded.ts';

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

t.test('small bodies waiting for a busy thread share its next round trip, each answered as its own scan', async (t) => {
  const shared = createDatapointPool({ maxThreads: 1, maxQueue: 16 });
  t.teardown(() => shared.close());
  const texts = [
    ...Array.from({ length: 7 }, (_, k) => `{"items":[{"id":${k + 1},"datapoints":[${Array.from({ length: k + 1 }, (_, j) => `{"timestamp":${j},"value":${k * 10 + j}}`).join(',')}]}]}`),
    '{"items":[{"datapoints":[]}]}',
    TEXT,
  ];
  const scratches = texts.map((text) => (text === TEXT ? new SharedArrayBuffer(scanScratchBytes(bodyOf(text).length)) : undefined));
  const answers = await Promise.all(texts.map((text, k) => shared.scan(bodyOf(text), scratches[k])));
  t.equal(shared.pending, 0, 'nothing left pending');
  const { bodies, trips } = shared.sharedScans;
  t.equal(bodies, texts.length);
  t.ok(trips < bodies, `the ${bodies} bodies took ${trips} round trips`);
  answers.forEach((answer, k) => {
    const local = scanDatapointBody(bodyOf(texts[k] as string));
    t.equal(new TextDecoder().decode(answer.body), texts[k], `body ${k} came back as itself`);
    t.same([answer.scanned.items, answer.scanned.errors, answer.scanned.pointCount], [local.items, local.errors, local.pointCount], `body ${k} scanned as in this thread`);
    t.same(Array.from(answer.scanned.numberValue), Array.from(local.numberValue), `body ${k}'s values`);
  });
  t.ok(answers[8]!.scanned.timestampMs.buffer instanceof SharedArrayBuffer, 'a lent scratch is used inside a shared trip');
});

t.test('in a shared round trip a scan that throws fails alone', (t) => {
  const good = { phase: 'scan' as const, body: bodyOf(TEXT) };
  const bad = { phase: 'scan' as const, body: undefined as unknown as Uint8Array };
  const out = datapointTask({ phase: 'scans', tasks: [good, bad, { phase: 'scan', body: bodyOf('{"items":[]}') }] }) as unknown as Record<symbol, DatapointScansWire>;
  const { results } = out[valueSymbol] as DatapointScansWire;
  t.equal(results.length, 3);
  t.notOk('failed' in results[0]!, 'the first body scanned');
  t.ok('failed' in results[1]! && results[1].failed instanceof TypeError, 'the second failed with what it threw');
  t.notOk('failed' in results[2]!, 'the third scanned');
  t.end();
});

t.test('a programmer error in a worker surfaces with context', async (t) => {
  const { body, scanned } = await pool.scan(bodyOf('{}'));
  await t.rejects(pool.encode(body, scanned, [], []), /The datapoint worker failed to encode datapoints/);
});

t.test('a worker that outgrows its heap is stopped and the body refused; the pool keeps serving', async (t) => {
  // A sound stream whose schema has 200,000 columns: apache-arrow builds an object per field,
  // about 100 MB, past a 48 MiB heap that the worker itself starts well within.
  const wide = tableToIPC(new Table(new Schema(Array.from({ length: 200_000 }, (_, i) => new Field(`c${i}`, new Int8())))), 'stream');
  const workerErrors: Error[] = [];
  const small = createDatapointPool({ maxThreads: 1, maxQueue: 0, workerHeapMb: 48, onWorkerError: (error) => workerErrors.push(error) });
  t.teardown(() => small.close());
  const first = await small.scan(bodyOf(TEXT));
  t.equal(first.scanned.items.length, 4, 'a body scans within the limit');
  const { scanned } = await small.scan(wide, undefined, undefined, 'arrow');
  t.match(scanned.errors, [{ field: 'body', message: /within the datapoint worker's 48 MiB heap/ }], 'the wide stream is refused, not thrown');
  const after = await small.scan(bodyOf(TEXT));
  t.equal(after.scanned.items.length, 4, 'the next body scans on a new worker');
  t.same(workerErrors, [], 'no worker failed outside a task');
});

// ---- shared memory: body, scratch and output are SharedArrayBuffers, shared with the worker ----

/** Sorted points only, so every encoded column stays in the output (sorting gathers into new arrays). */
const SORTED_TEXT = `{"items":[
  {"id":1,"datapoints":[{"timestamp":1,"value":"1.5"},{"timestamp":2,"value":2},{"timestamp":3,"value":"-0"}]},
  {"externalId":"counter","datapoints":[{"timestamp":1700000000000,"value":"9223372036854775807"},{"timestamp":1700000000001,"value":"-9223372036854775808"}]},
  {"externalId":"money","datapoints":[{"timestamp":1,"value":"123.456"},{"timestamp":2,"value":7}]},
  {"externalId":"gone","datapoints":[{"timestamp":1,"value":"x"}]},
  {"id":4,"datapoints":[{"timestamp":5,"value":"état"},{"timestamp":6,"value":7},{"timestamp":7,"value":"on"}]}
]}`;

/**
 * True when `view` shares memory with `sab` at its own byte offset (a worker's result arrives
 * over a new SharedArrayBuffer object for the same memory, so identity cannot tell): a byte
 * written through `sab` shows through `view`, then is put back.
 */
function isViewOver(view: ArrayBufferView, sab: SharedArrayBuffer): boolean {
  if (!(view.buffer instanceof SharedArrayBuffer) || view.buffer.byteLength !== sab.byteLength || view.byteLength === 0) return false;
  const mine = new Uint8Array(sab, view.byteOffset, 1);
  const theirs = new Uint8Array(view.buffer, view.byteOffset, 1);
  const saved = mine[0]!;
  mine[0] = saved ^ 0x5a;
  const shared = theirs[0] === (saved ^ 0x5a);
  mine[0] = saved;
  return shared;
}


t.test('shared memory: body, scratch and output are shared with the worker, not transferred', async (t) => {
  const bytes = bodyOf(SORTED_TEXT);
  const bodySab = new SharedArrayBuffer(bytes.length + 64);
  new Uint8Array(bodySab).fill(0x7d); // '}' past the body: the scanner must stop at the view's end
  const body = new Uint8Array(bodySab, 0, bytes.length);
  body.set(bytes);
  const scratch = new SharedArrayBuffer(scanScratchBytes(body.length));
  new Uint8Array(scratch).fill(0xff);

  const { body: returned, scanned } = await pool.scan(body, scratch);
  t.equal(body.byteLength, bytes.length, 'the body is not detached');
  t.equal(new TextDecoder().decode(body), SORTED_TEXT, 'and still readable');
  t.equal(returned.byteLength, bytes.length);
  t.ok(isViewOver(returned, bodySab), 'the returned body is the same shared memory');
  const local = scanDatapointBody(bodyOf(SORTED_TEXT));
  t.same([scanned.scanner, scanned.pointCount, scanned.errors, scanned.items], [local.scanner, local.pointCount, local.errors, local.items]);
  for (const column of ['timestampMs', 'valueKind', 'numberValue', 'valueOffset', 'valueBytes'] as const) {
    t.same(Array.from(scanned[column]), Array.from(local[column]), `${column} as scanned in this thread`);
    t.ok(isViewOver(scanned[column], scratch), `${column} is a view over the scratch`);
  }

  const valueTypes = ['FLOAT', 'BIGINT', 'NUMERIC', null, 'MIXED'] as const;
  const seriesIds = [11, 12, 13, null, 15];
  const output = new SharedArrayBuffer(encodeOutputBytes(scanned.pointCount, scanned.items.length));
  new Uint8Array(output).fill(0xff);
  const expected = encodeScannedBody(bodyOf(SORTED_TEXT), local, [...valueTypes], seriesIds);
  const encoded = await pool.encode(body, scanned, [...valueTypes], seriesIds, output);
  t.equal(new TextDecoder().decode(body), SORTED_TEXT, 'the body is still readable after encode');
  t.equal(scanned.timestampMs.length, scanned.pointCount, 'the scanned columns were not detached');
  t.same(plainEncoded(encoded), plainEncoded(expected), 'same result as in this thread');
  t.same(Array.from(encoded.series[1]!.bigint!), [9223372036854775807n, -9223372036854775808n], 'BIGINT exact across threads');
  t.same(Array.from(encoded.series[4]!.float!), [0, 7, 0], 'MIXED text points are 0 over a dirty output');
  t.equal(encoded.series[3], null);
  for (const series of encoded.series) {
    if (series === null) continue;
    for (const column of [series.timestampMs, series.float, series.bigint, series.scaled, series.isText]) {
      if (column !== undefined) t.ok(isViewOver(column, output), `${series.valueType}: a ${column.constructor.name} over the output`);
    }
  }
});
