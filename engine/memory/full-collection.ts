// A full garbage collection of the event loop's heap, asked for when a burst's memory is let go
// (peak memory). The ingest path's slabs are SharedArrayBuffers that live long enough to reach
// V8's old generation, so once the slab pool drops them their memory returns only at V8's next
// full collection, and an idle event loop runs none: after a 10M-point bulk load 376 MiB of
// dropped slabs stayed resident through the catch-up (bench/probe.ts bulk --series 100). V8
// runs the collection asked for here incrementally (`execution: 'async'`): no pause of the
// event loop longer than its usual marking steps, ~55 ms from the ask to the memory's return.
import v8 from 'node:v8';
import vm from 'node:vm';

type GcFunction = (options: { type: 'major'; execution: 'async' }) => Promise<void>;

let gcFunction: GcFunction | undefined;
let running: Promise<void> | undefined;

/**
 * V8's `gc` of --expose-gc, without starting the process with the flag (CONTRACT.md fixes the
 * start): a flag set now applies to contexts made from now on, so one new context gets `gc`,
 * and the flag is cleared again at once (no later context, nor a worker's, gets it).
 */
function gcOfV8(): GcFunction {
  if (!gcFunction) {
    v8.setFlagsFromString('--expose-gc');
    try {
      gcFunction = vm.runInNewContext('gc') as GcFunction;
    } finally {
      v8.setFlagsFromString('--no-expose-gc');
    }
  }
  return gcFunction;
}

/** Starts a full collection unless one is running; resolves when it has finished. */
export function collectFully(): Promise<void> {
  running ??= gcOfV8()({ type: 'major', execution: 'async' }).finally(() => { running = undefined; });
  return running;
}
