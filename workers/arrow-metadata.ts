// The counts in an Arrow IPC stream's metadata, checked against the bytes that hold them
// before apache-arrow reads them. apache-arrow trusts a message's vector lengths: a record
// batch whose node vector claims 2^31 entries in a 200-byte header makes it build FieldNode
// objects until the heap is gone, which in a worker thread without limits ends the process.
// A flatbuffer vector of n entries takes n times its entry's bytes inside the message, so no
// sound stream claims more; one walk over the metadata (no body bytes) refuses those that do.
import { ByteBuffer } from 'flatbuffers';
import { DictionaryBatch } from 'apache-arrow/fb/dictionary-batch';
import { Field } from 'apache-arrow/fb/field';
import { FieldNode } from 'apache-arrow/fb/field-node';
import { Message } from 'apache-arrow/fb/message';
import { MessageHeader } from 'apache-arrow/fb/message-header';
import { RecordBatch } from 'apache-arrow/fb/record-batch';
import { Schema } from 'apache-arrow/fb/schema';
import { SHAPE, StreamError } from './arrow-columns.ts';

/** A flatbuffer offset (table or string entry of a vector). */
const OFFSET_BYTES = 4;
/** FieldNode and Buffer are 16-byte structs; variadic buffer counts are int64. */
const STRUCT16_BYTES = 16;
const INT64_BYTES = 8;
/** The deepest field nesting read; a sound schema for any column type is far shallower. */
const FIELD_DEPTH_MAX = 64;

/**
 * Throws StreamError when a message of `body` claims more vector entries than its metadata's
 * bytes can hold. Framing it cannot follow (a short or cut stream) is left to apache-arrow,
 * which refuses it with its own error.
 */
export function checkStreamMetadata(body: Uint8Array): void {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  let at = 0;
  for (let index = 0; at + 4 <= body.byteLength; index++) {
    let length = view.getInt32(at, true);
    at += 4;
    if (length === -1) {
      if (at + 4 > body.byteLength) return;
      length = view.getInt32(at, true);
      at += 4;
    }
    if (length <= 0 || at + length > body.byteLength) return;
    const bytes = new ByteBuffer(body.subarray(at, at + length));
    const message = Message.getRootAsMessage(bytes);
    const check = new Claims(length, index);
    check.vector('custom metadata', message.customMetadataLength(), OFFSET_BYTES);
    switch (message.headerType()) {
      case MessageHeader.Schema: check.schema(message.header(new Schema()) as Schema | null); break;
      case MessageHeader.RecordBatch: check.recordBatch(message.header(new RecordBatch()) as RecordBatch | null, message.bodyLength()); break;
      case MessageHeader.DictionaryBatch: check.recordBatch((message.header(new DictionaryBatch()) as DictionaryBatch | null)?.data() ?? null, message.bodyLength()); break;
    }
    const bodyLength = message.bodyLength();
    if (bodyLength < 0n || bodyLength > BigInt(body.byteLength - at - length)) return;
    at += length + Number(bodyLength);
  }
}

/** The checks of one message: every vector's claim against the message's metadata bytes. */
class Claims {
  /** Fields read so far: each is a table of at least an offset, so no more than bytes / 4. */
  private fields = 0;

  constructor(private readonly bytes: number, private readonly index: number) {}

  vector(what: string, count: number, entryBytes: number): void {
    if (count >= 0 && count * entryBytes <= this.bytes) return;
    throw new StreamError('body', `Arrow message ${this.index} claims ${count >>> 0} ${what} entries in ${this.bytes} bytes of metadata; the stream is malformed (${SHAPE}).`);
  }

  schema(schema: Schema | null): void {
    if (!schema) return;
    this.vector('custom metadata', schema.customMetadataLength(), OFFSET_BYTES);
    this.vector('feature', schema.featuresLength(), INT64_BYTES);
    const count = schema.fieldsLength();
    this.vector('field', count, OFFSET_BYTES);
    for (let i = 0; i < count; i++) this.field(schema.fields(i), 1);
  }

  private field(field: Field | null, depth: number): void {
    if (!field) return;
    if (depth > FIELD_DEPTH_MAX) throw new StreamError('body', `Arrow message ${this.index} nests fields more than ${FIELD_DEPTH_MAX} deep; the stream is malformed (${SHAPE}).`);
    this.vector('field', ++this.fields, OFFSET_BYTES);
    this.vector('custom metadata', field.customMetadataLength(), OFFSET_BYTES);
    const count = field.childrenLength();
    this.vector('child field', count, OFFSET_BYTES);
    for (let i = 0; i < count; i++) this.field(field.children(i), depth + 1);
  }

  /**
   * Besides its vectors, a batch's row counts (its own and each column's node): apache-arrow
   * sizes per-row caches by them (a dictionary's memo is an Array of that length). A stream
   * this service reads carries an identifier, a timestamp and a value per row, at least 17
   * bytes, and a dictionary entry takes at least its 4-byte offset, so no sound batch or column
   * has more rows than its body has bytes.
   */
  recordBatch(batch: RecordBatch | null, bodyBytes: bigint): void {
    if (!batch) return;
    this.rows('', batch.length(), bodyBytes);
    const nodes = batch.nodesLength();
    this.vector('field node', nodes, STRUCT16_BYTES);
    const node = new FieldNode();
    for (let i = 0; i < nodes; i++) this.rows(` (column node ${i})`, batch.nodes(i, node)?.length() ?? 0n, bodyBytes);
    this.vector('buffer', batch.buffersLength(), STRUCT16_BYTES);
    this.vector('variadic buffer count', batch.variadicBufferCountsLength(), INT64_BYTES);
  }

  private rows(what: string, rows: bigint, bodyBytes: bigint): void {
    if (rows >= 0n && rows <= bodyBytes) return;
    throw new StreamError('body', `Arrow message ${this.index} claims ${rows} rows${what} in ${bodyBytes} bytes of body; the stream is malformed (${SHAPE}).`);
  }
}
