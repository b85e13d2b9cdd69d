// Stops a scale-out deployment (scaleout.ts, stopWithOwner) once the process that started it
// is gone: `scaleout-watchdog.ts OWNER_PID STATE_DIR`. Exits by itself once the deployment's
// state is gone (stopped, or its folder removed) and is stopped first by stopScaleout.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { isRunning } from './detached-process.ts';
import { stopScaleout } from './scaleout.ts';

/** How often the owner and the state are looked at. */
const WATCH_INTERVAL_MS = 1_000;

const [ownerArg, stateDir] = process.argv.slice(2);
const owner = Number(ownerArg);
if (!Number.isInteger(owner) || owner <= 0 || !stateDir) {
  process.stderr.write('usage: scaleout-watchdog.ts <owner pid> <state folder>\n');
  process.exit(2);
}

const timer = setInterval(() => {
  if (!existsSync(path.join(stateDir, 'state.json'))) {
    clearInterval(timer);
    return;
  }
  if (isRunning(owner)) return;
  clearInterval(timer);
  process.stdout.write(`${new Date().toISOString()} pid ${owner} is gone: stopping the deployment in ${stateDir}\n`);
  stopScaleout(stateDir).then((stopped) => {
    for (const p of stopped) process.stdout.write(`${p.outcome} ${p.name} (pid ${p.pid})\n`);
  }, (error: unknown) => {
    process.stderr.write(`stopping failed: ${(error as Error).message}\n`);
    process.exitCode = 1;
  });
}, WATCH_INTERVAL_MS);
