// The worker pool behind POST /timeseries/data (DESIGN: the event loop never parses a large
// body). Bodies and columns cross threads by transfer, never by copy, and the pool is bounded:
// past maxThreads running plus maxQueue waiting, calls are refused with OverloadedError
// (STYLE §5: internal resources are bounded). The work itself is datapoint-task.ts.

import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { ValueType } from '../engine/datapoints/types.ts';
import { OverloadedError } from '../engine/errors.ts';
import { emptyScannedBody, type ScannedBody } from './datapoint-body.ts';
import type { EncodedBody } from './datapoint-encode.ts';
import {
  bufferTransferList, type BodyFormat, type DatapointScanResult, type DatapointScanTask, type DatapointScansWire, type DatapointScanWire, type DatapointTask, type SeriesHints, wireViews,
} from './datapoint-task.ts';
import { encodedFromWire, hintsToBuffer, namedByOneIdentifier, scannedFromWire, scannedToWire, type EncodedWire } from './datapoint-wire.ts';

export interface DatapointPoolOptions {
  /** Worker threads, at least 1. */
  maxThreads: number;
  /** Tasks allowed to wait for a thread; 0 refuses whenever every thread is busy. */
  maxQueue: number;
  /** Threads kept warm. @default maxThreads */
  minThreads?: number;
  /** Idle time before a thread above minThreads exits. @default 30000 */
  idleTimeoutMs?: number;
  /** Old-generation heap per worker, in MiB. @default WORKER_HEAP_MB */
  workerHeapMb?: number;
  /**
   * A worker that failed outside a task (at its start, say); piscina replaces it. Without a
   * listener such an error would end the process.
   */
  onWorkerError?: (error: Error) => void;
}

export interface DatapointPool {
  /**
   * Phase 1. A `body` over an ArrayBuffer is transferred (detached here) and comes back in
   * the result; over shared memory it is shared. The scanned columns go into `scratch` when given.
   */
  scan(body: Uint8Array, scratch?: SharedArrayBuffer, speculation?: { hints: SeriesHints; output: SharedArrayBuffer }, format?: BodyFormat): Promise<DatapointScanResult>;
  /**
   * Phase 2, for a body that scanned without errors. `body` and scanned columns not in shared
   * memory are transferred (detached here); valueTypes and seriesIds run parallel to
   * scanned.items. The encoded columns go into `output` when given.
   */
  encode(body: Uint8Array, scanned: ScannedBody, valueTypes: (ValueType | null)[], seriesIds: (number | null)[], output?: SharedArrayBuffer): Promise<EncodedBody>;
  /** Tasks running or waiting. */
  readonly pending: number;
  /** Small JSON bodies scanned so far, and the worker round trips they took (several may share one). */
  readonly sharedScans: { readonly bodies: number; readonly trips: number };
  close(): Promise<void>;
}

/**
 * The task module beside this one: compiled JavaScript under `make run` (dist/workers/), the
 * .ts source under tsx (tests, `npm run serve`), which the workers then load through tsx's
 * loader, resolved from here so the cwd does not matter.
 */
const COMPILED = import.meta.url.endsWith('.js');
const TASK_FILE = fileURLToPath(new URL(COMPILED ? './datapoint-task.js' : './datapoint-task.ts', import.meta.url));
const WORKER_EXEC_ARGV = COMPILED ? [] : ['--import', import.meta.resolve('tsx')];

/**
 * The heap each worker may use. A body's bytes and columns live outside it (transferred or
 * shared buffers); what a scan builds of a 16 MiB body is tens of MiB. At the limit the worker
 * alone is stopped (ERR_WORKER_OUT_OF_MEMORY) where without one the whole process would abort.
 */
export const WORKER_HEAP_MB = 512;

/** How long a worker may read an Arrow body: 2 s, and 1 s more per 4 MiB (a sound 16 MiB stream scans in well under 1 s). */
export function arrowScanDeadlineMs(bodyBytes: number): number {
  return 2000 + Math.ceil(bodyBytes / (4 * 1024 * 1024)) * 1000;
}

/**
 * Bodies up to this size may share a worker round trip (a gateway's 1,000 points are ~50 KB).
 * Larger ones go alone: a body that fails its worker (its heap outgrown) fails the bodies that
 * shared its trip too, and a large body's scan would hold up the small ones beside it.
 */
const SHARED_TRIP_BODY_BYTES_MAX = 256 * 1024;
/**
 * Bodies in one round trip, at most. A piscina round trip costs the two threads 60-90 us of
 * CPU beside the scan, against 15-21 us a task with four in one message (measured apart on
 * this 2-core VM, 2026-12-02); a gateway body scans in 80-110 us, so eight wait at most ~1 ms
 * for the others of their trip.
 */
const SCAN_TRIP_BODIES_MAX = 8;

interface WaitingScan {
  task: DatapointScanTask;
  transfer: ArrayBuffer[];
  resolve: (wire: DatapointScanWire) => void;
  reject: (error: unknown) => void;
}

export function createDatapointPool(options: DatapointPoolOptions): DatapointPool {
  const { maxThreads, maxQueue, workerHeapMb: heapMb = WORKER_HEAP_MB } = options;
  if (!Number.isInteger(maxThreads) || maxThreads < 1) throw new RangeError(`maxThreads must be an integer >= 1, got ${maxThreads}`);
  if (!Number.isInteger(maxQueue) || maxQueue < 0) throw new RangeError(`maxQueue must be an integer >= 0, got ${maxQueue}`);
  const piscina = new Piscina<DatapointTask, DatapointScanWire | DatapointScansWire | EncodedWire>({
    filename: TASK_FILE,
    name: 'default',
    execArgv: WORKER_EXEC_ARGV,
    minThreads: options.minThreads ?? maxThreads,
    maxThreads,
    // Our own count below refuses first; piscina's bound only backs it up.
    maxQueue: maxQueue + maxThreads,
    idleTimeout: options.idleTimeoutMs ?? 30_000,
    concurrentTasksPerWorker: 1,
    atomics: 'sync',
    closeTimeout: 30_000,
    resourceLimits: { maxOldGenerationSizeMb: heapMb },
  });
  piscina.on('error', (error: Error) => options.onWorkerError?.(error));
  const pendingMax = maxThreads + maxQueue;
  let pending = 0;
  // Each hints snapshot (target-hints.ts keeps one per tenant until its hints change) goes
  // into shared memory once, under a generation the workers decode it by once.
  const hintsBuffers = new WeakMap<SeriesHints, SharedArrayBuffer>();
  let hintsGeneration = 0;
  const hintsBufferOf = (hints: SeriesHints): SharedArrayBuffer => {
    let buffer = hintsBuffers.get(hints);
    if (!buffer) hintsBuffers.set(hints, (buffer = hintsToBuffer(++hintsGeneration, hints)));
    return buffer;
  };

  function refuseWhenFull(): void {
    if (pending >= pendingMax) {
      throw new OverloadedError(
        `The datapoint workers are busy: ${pending} bodies are being parsed or waiting (limit ${pendingMax}, DatapointPoolOptions maxThreads + maxQueue); retry shortly.`,
      );
    }
  }

  async function run<R>(what: string, task: DatapointTask, transferList: ArrayBuffer[], signal?: AbortSignal): Promise<R> {
    refuseWhenFull();
    pending++;
    try {
      return (await piscina.run(task, { transferList, ...(signal ? { signal } : {}) })) as R;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw new Error(`The datapoint worker failed to ${what}`, { cause: error });
    } finally {
      pending--;
    }
  }

  // Small JSON bodies queue here while every thread has a scan round trip of them, and go
  // together in the next: one message each way and one wake for several bodies.
  const waitingScans: WaitingScan[] = [];
  let scanTripsInFlight = 0;
  const sharedScans = { bodies: 0, trips: 0 };

  function dispatchScans(): void {
    while (waitingScans.length > 0 && scanTripsInFlight < maxThreads) {
      const group = waitingScans.splice(0, SCAN_TRIP_BODIES_MAX);
      scanTripsInFlight++;
      sharedScans.trips++;
      sharedScans.bodies += group.length;
      void scanTrip(group).finally(() => {
        scanTripsInFlight--;
        dispatchScans();
      });
    }
  }

  async function scanTrip(group: WaitingScan[]): Promise<void> {
    const only = group.length === 1 ? group[0] as WaitingScan : undefined;
    try {
      if (only) {
        only.resolve((await piscina.run(only.task, { transferList: only.transfer })) as DatapointScanWire);
        return;
      }
      const transferList = [...new Set(group.flatMap((waiting) => waiting.transfer))];
      const { results } = (await piscina.run({ phase: 'scans', tasks: group.map((waiting) => waiting.task) }, { transferList })) as DatapointScansWire;
      group.forEach((waiting, k) => {
        const result = results[k];
        if (result === undefined || 'failed' in result) waiting.reject(new Error('The datapoint worker failed to scan a body', { cause: result?.failed }));
        else waiting.resolve(result);
      });
    } catch (error) {
      for (const waiting of group) waiting.reject(new Error('The datapoint worker failed to scan a body', { cause: error }));
    }
  }

  /** A small JSON body's scan, in a round trip it may share with others. */
  async function runScan(task: DatapointScanTask, transfer: ArrayBuffer[]): Promise<DatapointScanWire> {
    refuseWhenFull();
    pending++;
    try {
      return await new Promise<DatapointScanWire>((resolve, reject) => {
        waitingScans.push({ task, transfer, resolve, reject });
        dispatchScans();
      });
    } finally {
      pending--;
    }
  }

  return {
    async scan(body, scratch, speculation, format = 'json') {
      const hints = speculation ? { hints: hintsBufferOf(speculation.hints), output: speculation.output } : {};
      const task: DatapointScanTask = { phase: 'scan', body, format, ...(scratch ? { scratch } : {}), ...hints };
      // An Arrow stream's metadata is read by apache-arrow, which trusts its counts. The scan
      // checks each vector's count against its bytes first (arrow-metadata.ts); should anything
      // else in a stream keep a worker busy, past its deadline the worker is stopped (piscina
      // starts another) and the body refused, as it is when the worker outgrows its heap.
      const deadlineMs = format === 'arrow' ? arrowScanDeadlineMs(body.byteLength) : undefined;
      const signal = deadlineMs === undefined ? undefined : AbortSignal.timeout(deadlineMs);
      let wire: DatapointScanWire;
      try {
        wire = signal === undefined && body.byteLength <= SHARED_TRIP_BODY_BYTES_MAX
          ? await runScan(task, bufferTransferList([body]))
          : await run<DatapointScanWire>('scan a body', task, bufferTransferList([body]), signal);
      } catch (error) {
        const refusal = signal?.aborted
          ? `The Arrow stream could not be read within ${deadlineMs} ms: its metadata is malformed (counts far beyond its bytes). Send an Arrow IPC stream as pyarrow or apache-arrow writes it.`
          : outOfMemory(error)
            ? `The body could not be read within the datapoint worker's ${heapMb} MiB heap; it is malformed or far larger than its bytes suggest.`
            : undefined;
        if (refusal === undefined) throw error;
        return { body, scanned: emptyScannedBody([{ field: 'body', message: refusal }], format) };
      }
      const result: DatapointScanResult = { body: wire.body, scanned: scannedFromWire(wire.scanned, scratch) };
      if (wire.speculative && speculation) {
        const { picks, encoded } = wire.speculative;
        // Plain loops: Array.from over a typed array with a map function steps an iterator, an
        // object a pick, ~8% of what a gateway request allocated (heap sampling, bench/probe.ts gateway).
        const valueTypes: ValueType[] = new Array(picks.length);
        const seriesIds: number[] = new Array(picks.length);
        for (let i = 0; i < picks.length; i++) {
          const pick = picks[i] as number;
          valueTypes[i] = speculation.hints.valueTypes[pick] as ValueType;
          seriesIds[i] = speculation.hints.seriesIds[pick] as number;
        }
        result.speculative = { picks, valueTypes, seriesIds, encoded: encodedFromWire(encoded, speculation.output), byHintKeyAlone: namedByOneIdentifier(wire.scanned) };
      }
      return result;
    },
    async encode(body, scanned, valueTypes, seriesIds, output) {
      // Columns in shared scratch go as their places; others (no scratch lent) by transfer.
      const scratch = scanned.timestampMs.buffer instanceof SharedArrayBuffer ? scanned.timestampMs.buffer : undefined;
      const scannedWire = scannedToWire(scanned, scratch);
      const transferList = bufferTransferList([...wireViews(scannedWire), body]);
      const task = { phase: 'encode' as const, body, scanned: scannedWire, ...(scratch ? { scratch } : {}), valueTypes, seriesIds, ...(output ? { output } : {}) };
      return encodedFromWire(await run<EncodedWire>('encode datapoints', task, transferList), output);
    },
    get pending() {
      return pending;
    },
    get sharedScans() {
      return { ...sharedScans };
    },
    close() {
      return piscina.close();
    },
  };
}

/** Whether a pool call failed because its worker reached its heap limit. */
function outOfMemory(error: unknown): boolean {
  for (let e = error; e instanceof Error; e = e.cause) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY') return true;
  }
  return false;
}
