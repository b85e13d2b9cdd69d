// The piscina task module for POST /timeseries/data: one default export that runs phase 1
// (scan) or phase 2 (encode) in a worker thread and hands every buffer back by transfer.
// Queueing, bounds and errors are datapoint-pool.ts's concern.

import { move, transferableSymbol, valueSymbol } from 'piscina';
import type { ValueType } from '../engine/datapoints/types.ts';
import type { ScannedBody } from './datapoint-body.ts';
import { encodeScannedBody, type EncodedBody } from './datapoint-encode.ts';
import { scanDatapointBody } from './datapoint-scan.ts';

export interface DatapointScanTask {
  phase: 'scan';
  /** The raw body: over an ArrayBuffer it is transferred in and back out; over shared memory, shared. */
  body: Uint8Array;
  /** Shared memory for the scanned columns (scanScratchBytes), or none. */
  scratch?: SharedArrayBuffer;
}

export interface DatapointEncodeTask {
  phase: 'encode';
  body: Uint8Array;
  scanned: ScannedBody;
  valueTypes: (ValueType | null)[];
  seriesIds: (number | null)[];
  /** Shared memory for the encoded columns (encodeOutputBytes), or none. */
  output?: SharedArrayBuffer;
}

export type DatapointTask = DatapointScanTask | DatapointEncodeTask;

export interface DatapointScanResult {
  /** The same bytes that went in (a caller's ArrayBuffer was detached by the transfer). */
  body: Uint8Array;
  scanned: ScannedBody;
}

/** The distinct buffers under some typed arrays, for a transfer list; shared memory is shared, never listed. */
export function bufferTransferList(views: readonly (ArrayBufferView | undefined)[]): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const view of views) if (view?.buffer instanceof ArrayBuffer) buffers.add(view.buffer);
  return [...buffers];
}

export function scannedBodyViews(scanned: ScannedBody): ArrayBufferView[] {
  return [scanned.timestampMs, scanned.valueKind, scanned.numberValue, scanned.valueOffset, scanned.valueBytes];
}

function encodedBodyViews(encoded: EncodedBody): (ArrayBufferView | undefined)[] {
  return encoded.series.flatMap((s) => (s === null ? [] : [s.timestampMs, s.float, s.bigint, s.scaled, s.isText]));
}

/** A result piscina posts with `transfer` moved rather than copied. */
function movable<T>(value: T, transfer: ArrayBuffer[]): T {
  return move({ [transferableSymbol]: transfer, [valueSymbol]: value } as never) as unknown as T;
}

export default function datapointTask(task: DatapointTask): DatapointScanResult | EncodedBody {
  switch (task.phase) {
    case 'scan': {
      const scanned = scanDatapointBody(task.body, task.scratch);
      return movable({ body: task.body, scanned }, bufferTransferList([...scannedBodyViews(scanned), task.body]));
    }
    case 'encode': {
      const encoded = encodeScannedBody(task.body, task.scanned, task.valueTypes, task.seriesIds, task.output);
      return movable(encoded, bufferTransferList(encodedBodyViews(encoded)));
    }
  }
}
