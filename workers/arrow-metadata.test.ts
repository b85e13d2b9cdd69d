// Goal: checkStreamMetadata passes every stream apache-arrow writes and refuses, before
// apache-arrow reads it, a message whose vectors or row counts claim more than its bytes hold:
// the claims that sent apache-arrow allocating until the heap was gone.
// Method: streams written by apache-arrow (one and several batches, dictionaries, a wide
// schema) pass; the same streams with one count raised, found by walking the flatbuffer with
// apache-arrow's own generated classes, are refused with the message and the claim named.
// A scan of each changed stream then answers at once with that error.
import t, { type Test } from 'tap';
import { ByteBuffer } from 'flatbuffers';
import {
  Dictionary, Field as ArrowField, Float64, Int32, Int8, Schema as ArrowSchema, Table, Utf8, makeVector, tableToIPC, vectorFromArray, type Vector,
} from 'apache-arrow';
import { DictionaryBatch } from 'apache-arrow/fb/dictionary-batch';
import { Message } from 'apache-arrow/fb/message';
import { MessageHeader } from 'apache-arrow/fb/message-header';
import { RecordBatch } from 'apache-arrow/fb/record-batch';
import { Schema } from 'apache-arrow/fb/schema';
import { StreamError } from './arrow-columns.ts';
import { checkStreamMetadata } from './arrow-metadata.ts';
import { scanArrowBody } from './datapoint-scan-arrow.ts';

const stream = (columns: Record<string, Vector>): Uint8Array => tableToIPC(new Table(columns), 'stream');

const DICTIONARY_STREAM = stream({
  externalId: vectorFromArray(['a', 'b', 'a'], new Dictionary(new Utf8(), new Int32())),
  timestamp: makeVector(BigInt64Array.of(1n, 2n, 3n)),
  value: vectorFromArray(['x', 'y', 'z'], new Utf8()),
});

interface Frame {
  /** Where the message's flatbuffer starts in the stream. */
  start: number;
  message: Message;
}

/** The stream's messages in order, each with its flatbuffer's place in the stream. */
function frames(body: Uint8Array): Frame[] {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const out: Frame[] = [];
  for (let at = 0; at + 8 <= body.byteLength;) {
    const length = view.getInt32(at + 4, true);
    if (view.getInt32(at, true) !== -1 || length === 0) break;
    const message = Message.getRootAsMessage(new ByteBuffer(body.subarray(at + 8, at + 8 + length)));
    out.push({ start: at + 8, message });
    at += 8 + length + Number(message.bodyLength());
  }
  return out;
}

/** The data of a record or dictionary batch message. */
function batchOf(message: Message): RecordBatch | null {
  if (message.headerType() === MessageHeader.RecordBatch) return message.header(new RecordBatch()) as RecordBatch;
  if (message.headerType() === MessageHeader.DictionaryBatch) return (message.header(new DictionaryBatch()) as DictionaryBatch).data();
  return null;
}

/**
 * A copy of `body` with the uint32 or int64 at `place` (a flatbuffer position inside frame
 * `frame`) set to `value`.
 */
function changed(body: Uint8Array, frame: Frame, place: number, value: number | bigint, bytes: 4 | 8): Uint8Array {
  const copy = body.slice();
  const view = new DataView(copy.buffer, copy.byteOffset + frame.start + place, bytes);
  if (bytes === 4) view.setUint32(0, Number(value), true);
  else view.setBigInt64(0, BigInt(value), true);
  return copy;
}

/** Flatbuffer position of a vector's length field: the table's field offset, then the vector's. */
function vectorLengthAt(bb: ByteBuffer, tablePos: number, vtableOffset: number): number {
  const field = bb.__offset(tablePos, vtableOffset);
  return bb.__vector(tablePos + field) - 4;
}

function refused(t: Test, body: Uint8Array, claim: RegExp, name: string): void {
  let error: unknown;
  try {
    checkStreamMetadata(body);
  } catch (e) {
    error = e;
  }
  t.ok(error instanceof StreamError, `${name}: refused`);
  t.match((error as Error | undefined)?.message, claim, `${name}: names the claim`);
  const started = performance.now();
  const scanned = scanArrowBody(body);
  t.match(scanned.errors[0], { field: 'body', message: claim }, `${name}: the scan answers with it`);
  t.ok(performance.now() - started < 1000, `${name}: at once`);
}

t.test('streams apache-arrow writes pass', async (t) => {
  const several = new Table({ externalId: vectorFromArray(['a', 'b'], new Utf8()), timestamp: makeVector(BigInt64Array.of(1n, 2n)), value: makeVector(Float64Array.of(1, 2)) });
  const bodies: [string, Uint8Array][] = [
    ['dictionary identifiers', DICTIONARY_STREAM],
    ['plain identifiers', stream({ externalId: vectorFromArray(['a'], new Utf8()), timestamp: makeVector(BigInt64Array.of(1n)), value: makeVector(Float64Array.of(1)) })],
    ['several batches', tableToIPC(several.concat(several).concat(several), 'stream')],
    ['no batches', tableToIPC(new Table(new ArrowSchema([new ArrowField('value', new Float64())])), 'stream')],
    ['10,000 columns', tableToIPC(new Table(new ArrowSchema(Array.from({ length: 10_000 }, (_, i) => new ArrowField(`c${i}`, new Int8())))), 'stream')],
    ['cut inside a message', DICTIONARY_STREAM.subarray(0, 350)],
  ];
  for (const [name, body] of bodies) t.doesNotThrow(() => checkStreamMetadata(body), name);
});

t.test('a message claiming more entries or rows than its bytes hold is refused before apache-arrow reads it', async (t) => {
  const [schemaFrame, dictionaryFrame, batchFrame] = frames(DICTIONARY_STREAM);
  t.ok(schemaFrame && dictionaryFrame && batchFrame, 'schema, dictionary batch and record batch');
  const schema = schemaFrame!.message.header(new Schema()) as Schema;
  const bb = schemaFrame!.message.bb!;
  // Schema: fields is its field 1 (vtable offset 6).
  refused(t, changed(DICTIONARY_STREAM, schemaFrame!, vectorLengthAt(bb, schema.bb_pos, 6), 16_777_216, 4), /message 0 claims 16777216 field entries/, 'schema field count');

  for (const [frame, index] of [[dictionaryFrame!, 1], [batchFrame!, 2]] as const) {
    const batch = batchOf(frame.message)!;
    const fb = frame.message.bb!;
    // RecordBatch: length (4), nodes (6), buffers (8).
    const nodes = vectorLengthAt(fb, batch.bb_pos, 6);
    refused(t, changed(DICTIONARY_STREAM, frame, nodes, 33_554_432, 4), new RegExp(`message ${index} claims 33554432 field node entries`), `message ${index}: node count`);
    refused(t, changed(DICTIONARY_STREAM, frame, vectorLengthAt(fb, batch.bb_pos, 8), 1 << 30, 4), new RegExp(`message ${index} claims 1073741824 buffer entries`), `message ${index}: buffer count`);
    // The first node's length: the vector's first 16-byte struct, length then null count.
    refused(t, changed(DICTIONARY_STREAM, frame, nodes + 4, 13_107_202n, 8), new RegExp(`message ${index} claims 13107202 rows \\(column node 0\\)`), `message ${index}: a column's rows`);
    const lengthAt = batch.bb_pos + fb.__offset(batch.bb_pos, 4);
    refused(t, changed(DICTIONARY_STREAM, frame, lengthAt, 1n << 40n, 8), new RegExp(`message ${index} claims 1099511627776 rows in`), `message ${index}: the batch's rows`);
  }
});
