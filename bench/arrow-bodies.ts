// Arrow IPC streams for the data point rows: write bodies for POST /timeseries/data
// (externalId as dictionary<int32, utf8>, timestamp int64 ms, value float64; one record batch
// per request, built before any clock starts, as the JSON bodies are) and the reading of an
// Arrow answer of POST /timeseries/data/list. What the service accepts is its own business
// (SPEC); here only the bytes the bench sends and the points it checks.
import { type Data, Dictionary, Int32, makeData, makeVector, Table, tableFromIPC, tableToIPC, Utf8, Vector, vectorFromArray } from 'apache-arrow';
import type { WriteItem } from './datapoint-system.ts';
import type { Workload } from './workload.ts';

export const ARROW_STREAM_TYPE = 'application/vnd.apache.arrow.stream';

/** One request's points, item after item (series-major), as an Arrow IPC stream. */
export function arrowWriteBody(workload: Workload, items: readonly WriteItem[]): Buffer {
  const pointCount = items.reduce((sum, item) => sum + item.count, 0);
  const keys = new Int32Array(pointCount);
  const timestamps = new BigInt64Array(pointCount);
  const values = new Float64Array(pointCount);
  let at = 0;
  items.forEach((item, k) => {
    const generated = workload.values(item.gen);
    for (let i = item.first; i < item.first + item.count; i++) {
      keys[at] = k;
      timestamps[at] = BigInt(workload.timestamp(i));
      values[at] = generated[i] as number;
      at++;
    }
  });
  return arrowPointsBody(items.map((item) => item.externalId), keys, timestamps, values);
}

/** An Arrow write body of the points given as columns: each point's series as its place in `externalIds` (a dictionary). */
export function arrowPointsBody(externalIds: readonly string[], keys: Int32Array, timestamps: BigInt64Array, values: Float64Array): Buffer {
  const ids = makeData({
    type: new Dictionary(new Utf8(), new Int32()), length: keys.length, nullCount: 0, data: keys,
    dictionary: vectorFromArray(externalIds, new Utf8()),
  });
  const table = new Table({ externalId: new Vector([ids]), timestamp: makeVector(timestamps), value: makeVector(values) });
  const bytes = tableToIPC(table, 'stream');
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The raw points of an Arrow answer (timestamp as int64 or timestamp[ms], value as float64), the first batch's and the schema's metadata. */
export function readArrowPoints(bytes: Uint8Array): { timestamps: Float64Array; values: Float64Array; batchMetadata: Map<string, string>; metadata: Map<string, string> } {
  const table = tableFromIPC(bytes);
  const timestamp = table.getChild('timestamp');
  const value = table.getChild('value');
  if (!timestamp || !value) throw new Error(`Arrow answer: columns ${table.schema.fields.map((f) => f.name).join(', ')}; expected timestamp and value`);
  const timestamps = numbersOf(timestamp.data, table.numRows);
  const values = numbersOf(value.data, table.numRows);
  return { timestamps, values, batchMetadata: table.batches[0]?.metadata ?? new Map(), metadata: table.schema.metadata };
}

/** A column's values as doubles: straight from the typed arrays of float64 and 64-bit integer data, else value by value. */
function numbersOf(chunks: readonly Data[], length: number): Float64Array {
  const out = new Float64Array(length);
  let at = 0;
  for (const chunk of chunks) {
    const raw: unknown = chunk.values;
    if (chunk.nullCount === 0 && (raw instanceof Float64Array || raw instanceof BigInt64Array) && raw.length >= chunk.offset + chunk.length) {
      for (let i = 0; i < chunk.length; i++) out[at + i] = Number(raw[chunk.offset + i]);
    } else {
      const column = new Vector([chunk]);
      for (let i = 0; i < chunk.length; i++) out[at + i] = Number(column.get(i));
    }
    at += chunk.length;
  }
  return out;
}
