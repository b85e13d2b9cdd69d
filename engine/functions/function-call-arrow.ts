// The Arrow answer of POST /functions/call (docs/api.md "Functions"): one IPC stream, one
// schema, one record batch per called function in request order, as the data point list's
// Arrow answer is laid out: `id` int64, `externalId` utf8, `timestamp` timestamp[ms, UTC],
// `value` float64 (null at an error point and in buckets) and `error` utf8 (null at a value),
// then one column per aggregate some item asked for (`average`, `min`, `max`, `sum` float64,
// `count` int64; null in raw items' rows), with `id`, `externalId` and `nextCursor` in each
// batch's custom metadata and the list of them in the schema's (`items`).
import {
  Field, Float64, Int64, RecordBatch, RecordBatchStreamWriter, Schema, Struct, TimestampMillisecond, Utf8, makeData, vectorFromArray,
} from 'apache-arrow';
import type { FunctionCallResult } from './function-call.ts';
import type { AggregatePoint, FunctionAggregate } from './function-aggregate.ts';

const FIELDS = [
  new Field('id', new Int64(), false),
  new Field('externalId', new Utf8(), false),
  new Field('timestamp', new TimestampMillisecond('UTC'), false),
  new Field('value', new Float64(), true),
  new Field('error', new Utf8(), true),
];

/** The stream's bytes: schema, a batch per result, end of stream. `aggregates`: the columns of the aggregates some item asked for. */
export function functionCallArrow(results: readonly FunctionCallResult[], aggregates: readonly FunctionAggregate[] = []): Uint8Array {
  const listed = results.map(({ id, externalId, nextCursor }) => ({ id, externalId, ...(nextCursor !== undefined ? { nextCursor } : {}) }));
  const fields = [...FIELDS, ...aggregates.map((name) => new Field(name, name === 'count' ? new Int64() : new Float64(), true))];
  const schema = new Schema(fields, new Map([['items', JSON.stringify(listed)]]));
  const batches = results.map((result) => {
    const points = result.datapoints;
    const length = points.length;
    const timestamps = new BigInt64Array(length);
    const values: (number | null)[] = new Array(length);
    const errors: (string | null)[] = new Array(length);
    points.forEach((point, i) => {
      timestamps[i] = BigInt(point.timestamp);
      values[i] = 'value' in point ? point.value : null;
      errors[i] = 'error' in point ? point.error : null;
    });
    const bucketColumns = aggregates.map((name) => {
      const column = (points as AggregatePoint[]).map((point) => point[name] ?? null);
      return name === 'count'
        ? vectorFromArray(column.map((c) => (c === null ? null : BigInt(c))), new Int64()).data[0]
        : vectorFromArray(column, new Float64()).data[0];
    });
    const children = [
      makeData({ type: new Int64(), length, data: new BigInt64Array(length).fill(BigInt(result.id)) }),
      vectorFromArray(new Array<string>(length).fill(result.externalId), new Utf8()).data[0],
      makeData({ type: new TimestampMillisecond('UTC'), length, data: timestamps }),
      vectorFromArray(values, new Float64()).data[0],
      vectorFromArray(errors, new Utf8()).data[0],
      ...bucketColumns,
    ];
    const metadata = new Map([['id', String(result.id)], ['externalId', result.externalId]]);
    if (result.nextCursor !== undefined) metadata.set('nextCursor', result.nextCursor);
    return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length, nullCount: 0, children: children as never }), metadata);
  });
  const writer = new RecordBatchStreamWriter();
  writer.reset(undefined, schema);
  for (const batch of batches) writer.write(batch);
  writer.finish();
  return writer.toUint8Array(true);
}
