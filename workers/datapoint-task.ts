// The piscina task module for POST /timeseries/data: one default export that runs phase 1
// (scan) or phase 2 (encode) in a worker thread and hands every buffer back by transfer.
// Queueing, bounds and errors are datapoint-pool.ts's concern.

import { move, transferableSymbol, valueSymbol } from 'piscina';
import type { ValueType } from '../engine/datapoints/types.ts';
import type { DatapointBodyFormat } from '../engine/ingest/datapoint-body-parser.ts';
import type { ScannedBody } from './datapoint-body.ts';
import { encodeOutputBytes, encodeScannedBody, type EncodedBody } from './datapoint-encode.ts';
import { scanDatapointBody } from './datapoint-scan.ts';
import { ARROW_ROW_BYTES_MIN, scanArrowBody } from './datapoint-scan-arrow.ts';
import { lowerWorkerThreadPriority, PARSE_WORKER_NICE } from './thread-priority.ts';
import { encodedToWire, hintPick, hintsFromBuffer, hintsGeneration, scannedFromWire, scannedToWire, wireNumberArrays, type DecodedHints, type EncodedWire, type ScannedWire } from './datapoint-wire.ts';

// Run by each worker as it loads the task (the event loop also imports this module: a no-op there).
lowerWorkerThreadPriority(PARSE_WORKER_NICE);

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
export function speculativeOutputBytes(bodyBytes: number, format: BodyFormat = 'json'): number {
  const points = Math.floor(bodyBytes / (format === 'arrow' ? ARROW_ROW_BYTES_MIN : 25)) + 1;
  return encodeOutputBytes(points, points);
}

export interface DatapointScanTask {
  phase: 'scan';
  /** The raw body: over an ArrayBuffer it is transferred in and back out; over shared memory, shared. */
  body: Uint8Array;
  /** What the body is: JSON (the default) or an Arrow IPC stream (datapoint-scan-arrow.ts). */
  format?: BodyFormat;
  /** Shared memory for the scanned columns (scanScratchBytes), or none. */
  scratch?: SharedArrayBuffer;
  /** With hints (datapoint-wire.ts hintsToBuffer) for every item: encode at once, into `output` (speculativeOutputBytes). */
  hints?: SharedArrayBuffer;
  output?: SharedArrayBuffer;
}

/** The two bodies POST /timeseries/data takes. */
export type BodyFormat = DatapointBodyFormat;

export interface DatapointEncodeTask {
  phase: 'encode';
  body: Uint8Array;
  scanned: ScannedWire;
  /** Where a scanned body in the slab form lies. */
  scratch?: SharedArrayBuffer;
  valueTypes: (ValueType | null)[];
  seriesIds: (number | null)[];
  /** Shared memory for the encoded columns (encodeOutputBytes), or none. */
  output?: SharedArrayBuffer;
}

/** Several small JSON bodies scanned in one round trip (datapoint-pool.ts), each as its own DatapointScanTask. */
export interface DatapointScansTask {
  phase: 'scans';
  tasks: DatapointScanTask[];
}

export type DatapointTask = DatapointScanTask | DatapointScansTask | DatapointEncodeTask;

/** The answers of a DatapointScansTask, in its order: a scan, or what a scan threw (the others stand). */
export interface DatapointScansWire {
  results: (DatapointScanWire | { failed: unknown })[];
}

export interface DatapointScanResult {
  /** The same bytes that went in (a caller's ArrayBuffer was detached by the transfer). */
  body: Uint8Array;
  scanned: ScannedBody;
  /** Encoded with the hinted valueTypes and seriesIds, when every item had a hint. */
  speculative?: { picks: Int32Array; valueTypes: ValueType[]; seriesIds: number[]; encoded: EncodedBody; byHintKeyAlone: boolean };
}

/** A scan result as it crosses back (datapoint-wire.ts); the pool rebuilds a DatapointScanResult. */
export interface DatapointScanWire {
  body: Uint8Array;
  scanned: ScannedWire;
  /** The hint each item was encoded with (an index into the hints), and the encoding. */
  speculative?: { picks: Int32Array; encoded: EncodedWire };
}

/** The distinct buffers under some typed arrays, for a transfer list; shared memory is shared, never listed. */
export function bufferTransferList(views: readonly (ArrayBufferView | undefined)[]): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const view of views) if (view?.buffer instanceof ArrayBuffer) buffers.add(view.buffer);
  return [...buffers];
}

function scannedBodyViews(scanned: ScannedBody): ArrayBufferView[] {
  return [scanned.timestampMs, scanned.valueKind, scanned.numberValue, scanned.valueOffset, scanned.valueBytes, ...(scanned.rowIndex ? [scanned.rowIndex] : [])];
}

function encodedBodyViews(encoded: EncodedBody): (ArrayBufferView | undefined)[] {
  return encoded.series.flatMap((s) => (s === null ? [] : [s.timestampMs, s.float, s.bigint, s.scaled, s.isText]));
}

/** A result piscina posts with `transfer` moved rather than copied. */
function movable<T>(value: T, transfer: ArrayBuffer[]): T {
  return move({ [transferableSymbol]: transfer, [valueSymbol]: value } as never) as unknown as T;
}

/** Hints decoded by this worker, by generation (a tenant's hints change rarely; bodies arrive by the thousand). */
const decodedHints = new Map<number, DecodedHints>();
const DECODED_HINTS_MAX = 256;

function hintsOf(buffer: SharedArrayBuffer): DecodedHints {
  const generation = hintsGeneration(buffer);
  let hints = decodedHints.get(generation);
  if (!hints) {
    if (decodedHints.size >= DECODED_HINTS_MAX) decodedHints.delete(decodedHints.keys().next().value as number);
    decodedHints.set(generation, (hints = hintsFromBuffer(buffer)));
  }
  return hints;
}

function encodeWithHints(body: Uint8Array, scanned: ScannedBody, buffer: SharedArrayBuffer, output: SharedArrayBuffer | undefined): { picks: Int32Array; encoded: EncodedBody } | undefined {
  const hints = hintsOf(buffer);
  const picks = new Int32Array(scanned.items.length);
  const valueTypes: ValueType[] = new Array(picks.length);
  const seriesIds: number[] = new Array(picks.length);
  for (let i = 0; i < picks.length; i++) {
    const pick = hintPick(hints, scanned.items[i] as ScannedBody['items'][number]);
    if (pick === undefined) return undefined;
    picks[i] = pick;
    valueTypes[i] = hints.valueTypes[pick] as ValueType;
    seriesIds[i] = hints.seriesIds[pick] as number;
  }
  if (picks.length === 0) return undefined;
  return { picks, encoded: encodeScannedBody(body, scanned, valueTypes, seriesIds, output) };
}

/** What of a wire message is not in lent shared memory, for its transfer list: the plain form's columns, the slab form's number arrays. */
export function wireViews(wire: ScannedWire | EncodedWire | undefined): (ArrayBufferView | undefined)[] {
  if (wire?.kind !== 'plain') return wireNumberArrays(wire);
  return 'scanned' in wire ? scannedBodyViews(wire.scanned) : encodedBodyViews(wire.encoded);
}

/** Phase 1 for one body, and the buffers its answer hands back by transfer. */
function scanTask(task: DatapointScanTask): { wire: DatapointScanWire; transfer: ArrayBuffer[] } {
  const scanned = task.format === 'arrow' ? scanArrowBody(task.body, task.scratch) : scanDatapointBody(task.body, task.scratch);
  const speculative = task.hints && scanned.errors.length === 0 ? encodeWithHints(task.body, scanned, task.hints, task.output) : undefined;
  const scannedWire = scannedToWire(scanned, task.scratch);
  const encodedWire = speculative ? encodedToWire(speculative.encoded, task.output) : undefined;
  const transfer = bufferTransferList([task.body, ...wireViews(scannedWire), ...wireViews(encodedWire), speculative?.picks]);
  const wire = { body: task.body, scanned: scannedWire, ...(speculative && encodedWire ? { speculative: { picks: speculative.picks, encoded: encodedWire } } : {}) };
  return { wire, transfer };
}

export default function datapointTask(task: DatapointTask): DatapointScanWire | DatapointScansWire | EncodedWire {
  switch (task.phase) {
    case 'scan': {
      const { wire, transfer } = scanTask(task);
      return movable(wire, transfer);
    }
    case 'scans': {
      const results: DatapointScansWire['results'] = [];
      const transfer = new Set<ArrayBuffer>();
      for (const one of task.tasks) {
        try {
          const scanned = scanTask(one);
          for (const buffer of scanned.transfer) transfer.add(buffer);
          results.push(scanned.wire);
        } catch (failed) {
          results.push({ failed });
        }
      }
      return movable({ results }, [...transfer]);
    }
    case 'encode': {
      const encoded = encodeScannedBody(task.body, scannedFromWire(task.scanned, task.scratch), task.valueTypes, task.seriesIds, task.output);
      const wire = encodedToWire(encoded, task.output);
      return movable(wire, bufferTransferList(wireViews(wire)));
    }
  }
}
