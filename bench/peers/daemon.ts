// A peer database as a child process on loopback with its own temp data dir: a free port,
// a health poll with a deadline, and a stop by PID with SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

export interface Daemon {
  pid: number;
  logFile: string;
  stop(): Promise<void>;
}

export async function startDaemon(opts: { name: string; command: string; args: string[]; logDir: string; healthUrl: string; startTimeoutMs?: number }): Promise<Daemon> {
  mkdirSync(opts.logDir, { recursive: true });
  const logFile = path.join(opts.logDir, `${opts.name}-${Date.now()}.log`);
  const log = createWriteStream(logFile);
  const child = spawn(opts.command, opts.args, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  let exited = false;
  child.once('exit', () => { exited = true; });
  const deadline = Date.now() + (opts.startTimeoutMs ?? 60_000);
  let last = '';
  while (Date.now() < deadline && !exited) {
    try {
      const res = await fetch(opts.healthUrl);
      if (res.status >= 200 && res.status < 300) {
        return { pid: child.pid as number, logFile, stop: () => stopDaemon(child).then(() => { log.end(); }) };
      }
      last = `status ${res.status}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  await stopDaemon(child);
  throw new Error(`${opts.name} did not become healthy at ${opts.healthUrl} (${exited ? 'it exited' : last}); log: ${logFile}`);
}

async function stopDaemon(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
  const exited = new Promise<boolean>((resolve) => child.once('exit', () => resolve(true)));
  const timeout = (ms: number) => new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms).unref());
  process.kill(child.pid, 'SIGTERM');
  if (await Promise.race([exited, timeout(30_000)])) return;
  process.kill(child.pid, 'SIGKILL');
  await Promise.race([exited, timeout(10_000)]);
}
