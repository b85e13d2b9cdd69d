// Test fixture (run as a child process by api/front-end.test.ts): a bare uWS app whose onData
// callback throws, deliberately not wrapped in guardUws, with the service's last-resort
// process guard installed as api/main.ts installs it. Shows that such a throw is logged and
// the process keeps serving. The throwing request is still answered (from a later turn).
import uws from 'uWebSockets.js';
import { logger } from '../../engine/log.ts';
import { installProcessGuard } from '../process-guard.ts';

installProcessGuard(logger.child({ module: 'process' }));
const app = uws.App();
app.post('/throw', (res) => {
  let aborted = false;
  res.onAborted(() => { aborted = true; });
  res.onData(() => {
    setImmediate(() => { if (!aborted) res.cork(() => res.end('answered')); });
    throw new Error('thrown from an onData callback');
  });
});
app.get('/ok', (res) => { res.end('ok'); });
app.listen('127.0.0.1', 0, (socket) => {
  if (!socket) throw new Error('cannot listen');
  process.stdout.write(`listening on http://127.0.0.1:${uws.us_socket_local_port(socket)}\n`);
});
