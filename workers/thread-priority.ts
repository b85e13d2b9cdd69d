// The parse workers' scheduling priority (reads during ingest). On a machine with few
// cores, handing a body to a sleeping worker woke it onto the event loop's own core: the kernel
// ran the woken worker first, and the event loop lost ~16% of its time inside Atomics.notify
// and postMessage (bench/probe.ts gateway profile, 2026-11-25), time every waiting read and
// acknowledgement waited too. A worker at a lower priority (a higher nice value) runs when the
// event loop does not need the core, and still gets every idle core. Raising one's own nice
// value needs no privilege; Linux gives each thread its own.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { isMainThread } from 'node:worker_threads';

/** Nice value of the parse workers (the event loop stays at the process' own, usually 0). */
export const PARSE_WORKER_NICE = 10;

/** This thread's id as the kernel knows it (Linux), or undefined elsewhere. */
export function currentThreadId(): number | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isSafeInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined; // no /proc (not Linux)
  }
}

/**
 * Lowers the calling worker thread's priority to `nice` (never the main thread: the whole
 * process would follow). Returns whether it took; a system that refuses leaves it as it was.
 */
export function lowerWorkerThreadPriority(nice: number): boolean {
  if (isMainThread) return false;
  const tid = currentThreadId();
  if (tid === undefined) return false;
  try {
    setPriority(tid, nice);
    return true;
  } catch {
    return false;
  }
}
