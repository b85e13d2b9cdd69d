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
  /** The raw body, transferred in and back out. */
  body: ArrayBuffer;
}

export interface DatapointEncodeTask {
  phase: 'encode';
  body: ArrayBuffer;
  scanned: ScannedBody;
  valueTypes: (ValueType | null)[];
  seriesIds: (number | null)[];
}

export type DatapointTask = DatapointScanTask | DatapointEncodeTask;

export interface DatapointScanResult {
  /** The same bytes that went in (the caller's ArrayBuffer was detached by the transfer). */
  body: ArrayBuffer;
  scanned: ScannedBody;
}

/** The distinct buffers under some typed arrays, for a transfer list. */
export function bufferTransferList(views: readonly (ArrayBufferView | undefined)[], extra: ArrayBuffer[] = []): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>(extra);
  for (const view of views) if (view !== undefined) buffers.add(view.buffer as ArrayBuffer);
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
      const scanned = scanDatapointBody(new Uint8Array(task.body));
      return movable({ body: task.body, scanned }, bufferTransferList(scannedBodyViews(scanned), [task.body]));
    }
    case 'encode': {
      const encoded = encodeScannedBody(new Uint8Array(task.body), task.scanned, task.valueTypes, task.seriesIds);
      return movable(encoded, bufferTransferList(encodedBodyViews(encoded)));
    }
  }
}
