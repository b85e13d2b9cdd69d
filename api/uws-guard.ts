// The one boundary around code that uWebSockets.js calls. An exception thrown out
// of a uWS callback (a request handler, onData, onWritable, onAborted, a WebSocket handler)
// is not caught by anything of ours and would end the process for every tenant; wrapped
// here it is logged and handed to the caller's recovery (answer 500, close the socket).
import type { Logger } from '../engine/log.ts';

/**
 * Wraps a callback given to uWS so that nothing it throws escapes: the error is logged with
 * `where` and passed to `recover` (which must not throw either; if it does, that is logged).
 */
export function guardUws<A extends unknown[]>(
  log: Logger, where: string, callback: (...args: A) => void, recover?: (error: unknown, ...args: A) => void,
): (...args: A) => void {
  return (...args: A) => {
    try {
      callback(...args);
    } catch (error) {
      log.error({ err: error, where }, 'an error escaped a uWS callback; the service keeps serving');
      if (!recover) return;
      try {
        recover(error, ...args);
      } catch (inner) {
        log.error({ err: inner, where }, 'recovering from an error in a uWS callback failed too');
      }
    }
  };
}
