// The last resort of the process: an error that escapes everything else, such as a
// throw from a callback uWS calls that was not wrapped in guardUws, or a promise nobody
// awaited, is logged and the service keeps serving. By default Node ends the process on
// either, which stops the service for every tenant over one request. This is safe here
// because such a throw unwinds only JavaScript frames called from uWS's event loop: uWS's
// own state is intact and the request concerned is answered by its timeout or abort. It is
// logged at error level: each one is a bug in a callback's guard to fix (guardUws).
import type { Logger } from '../engine/log.ts';

let installed = false;

/** Installs the process-wide handlers once; later calls do nothing. */
export function installProcessGuard(log: Logger): void {
  if (installed) return;
  installed = true;
  process.on('uncaughtException', (error, origin) => {
    log.error({ err: error, origin }, 'an uncaught exception reached the process; the service keeps serving');
  });
  process.on('unhandledRejection', (reason) => {
    log.error({ err: reason }, 'a promise rejection was never handled; the service keeps serving');
  });
}
