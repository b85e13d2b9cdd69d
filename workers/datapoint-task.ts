// The piscina task module for POST /timeseries/data: one default export that runs phase 1
// (scan) or phase 2 (encode) in a worker thread and hands every buffer back by transfer.
// Queueing, bounds and errors are datapoint-pool.ts's concern.

import { move, transferableSymbol, valueSymbol } from 'piscina';
import type { ValueType } from '../engine/datapoints/types.ts';
import type { ScannedBody } from './datapoint-body.ts';
import { encodeOutputBytes, encodeScannedBody, type EncodedBody } from './datapoint-encode.ts';
import { scanDatapointBody } from './datapoint-scan.ts';

/** What the handler guesses about the series (engine/ingest/target-hints.ts), by hintKey. */
export interface SeriesHints {
  keys: string[];
  seriesIds: number[];
  valueTypes: ValueType[];
}

/** An item's identifier as the handler resolves it: the id when given, else the externalId. */
export function hintKey(item: { id?: number; externalId?: string }): string {
  return item.id !== undefined ? `i:${item.id}` : `x:${item.externalId ?? ''}`;
}

/** Bytes of output that hold the encoded columns of any body of this size (every item guessed). */
export function speculativeOutputBytes(bodyBytes: number): number {
  const points = Math.floor(bodyBytes / 25) + 1;
  return encodeOutputBytes(points, points);
}

export interface DatapointScanTask {
  phase: 'scan';
  /** The raw body: over an ArrayBuffer it is transferred in and back out; over shared memory, shared. */
  body: Uint8Array;
  /** Shared memory for the scanned columns (scanScratchBytes), or none. */
  scratch?: SharedArrayBuffer;
  /** With hints for every item: encode at once, into `output` (speculativeOutputBytes). */
  hints?: SeriesHints;
  output?: SharedArrayBuffer;
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
  /** Encoded with the hinted valueTypes and seriesIds, when every item had a hint. */
  speculative?: { valueTypes: ValueType[]; seriesIds: number[]; encoded: EncodedBody };
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

function encodeWithHints(body: Uint8Array, scanned: ScannedBody, hints: SeriesHints, output: SharedArrayBuffer | undefined): DatapointScanResult['speculative'] {
  const index = new Map(hints.keys.map((key, i) => [key, i]));
  const picks = scanned.items.map((item) => index.get(hintKey(item)));
  if (picks.length === 0 || picks.some((pick) => pick === undefined)) return undefined;
  const valueTypes = picks.map((pick) => hints.valueTypes[pick as number] as ValueType);
  const seriesIds = picks.map((pick) => hints.seriesIds[pick as number] as number);
  return { valueTypes, seriesIds, encoded: encodeScannedBody(body, scanned, valueTypes, seriesIds, output) };
}

export default function datapointTask(task: DatapointTask): DatapointScanResult | EncodedBody {
  switch (task.phase) {
    case 'scan': {
      const scanned = scanDatapointBody(task.body, task.scratch);
      const speculative = task.hints && scanned.errors.length === 0 ? encodeWithHints(task.body, scanned, task.hints, task.output) : undefined;
      const views = [...scannedBodyViews(scanned), task.body, ...(speculative ? encodedBodyViews(speculative.encoded) : [])];
      return movable({ body: task.body, scanned, ...(speculative ? { speculative } : {}) }, bufferTransferList(views));
    }
    case 'encode': {
      const encoded = encodeScannedBody(task.body, task.scanned, task.valueTypes, task.seriesIds, task.output);
      return movable(encoded, bufferTransferList(encodedBodyViews(encoded)));
    }
  }
}
