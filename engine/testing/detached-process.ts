// Background processes that outlive whoever started them (the scale-out deployment of
// scaleout.ts): spawned detached with their output in a log file, found again by the pid
// recorded for them, and stopped by that pid only. Leaves what each process is to its caller.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, statSync } from 'node:fs';

/** How long a process has between SIGTERM and SIGKILL. @default 10000 */
export const STOP_GRACE_MS = 10_000;

export interface DetachedSpawn {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** stdout and stderr are appended here. */
  logFile: string;
  /** An fd to give the process as stdin (default: /dev/null). */
  stdinFd?: number;
}

/** Starts the process in a session of its own; returns its pid and the log's length before it wrote. */
export function spawnDetached(options: DetachedSpawn): { pid: number; logOffset: number } {
  const logOffset = fileBytes(options.logFile);
  const log = openSync(options.logFile, 'a');
  const stdin = options.stdinFd ?? openSync('/dev/null', 'r');
  try {
    const child = spawn(options.command, options.args, {
      cwd: options.cwd, env: options.env, detached: true, stdio: [stdin, log, log],
    });
    if (child.pid === undefined) throw new Error(`could not start ${options.command}`);
    child.unref();
    return { pid: child.pid, logOffset };
  } finally {
    closeSync(log);
    if (options.stdinFd === undefined) closeSync(stdin);
  }
}

function fileBytes(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** True while `pid` runs (a zombie counts as gone: it has exited). */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the command name in parentheses, which may itself hold spaces.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** The process's command line, words joined by spaces ('' when it is gone). */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/**
 * Waits until the log, from `offset` on, has a line matching `pattern`; resolves with the
 * match. Fails at the deadline or once the process has exited, quoting the log's end.
 */
export async function waitForLogLine(what: string, logFile: string, offset: number, pattern: RegExp, pid: number, timeoutMs: number): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = readFileSync(logFile, 'utf8').slice(offset);
    const match = pattern.exec(text);
    if (match) return match;
    const tail = () => text.slice(-2000).trim();
    if (!isRunning(pid)) throw new Error(`${what} (pid ${pid}) exited before it was ready; its log (${logFile}) ends:\n${tail()}`);
    if (Date.now() > deadline) throw new Error(`${what} (pid ${pid}) was not ready within ${timeoutMs} ms; its log (${logFile}) ends:\n${tail()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Stops `pid`: `signal` (SIGTERM), then SIGKILL if it still runs after `graceMs`. Only when
 * its command line still holds `expected`: a recorded pid may have been reused by an
 * unrelated process since. Resolves with what was done.
 */
export async function stopByPid(pid: number, expected: string, signal: NodeJS.Signals = 'SIGTERM', graceMs = STOP_GRACE_MS): Promise<'stopped' | 'killed' | 'not running'> {
  if (!isRunning(pid) || !commandLine(pid).includes(expected)) return 'not running';
  try {
    process.kill(pid, signal);
  } catch {
    return 'not running';
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!isRunning(pid)) return 'stopped';
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    return 'stopped';
  }
  while (isRunning(pid)) await new Promise((resolve) => setTimeout(resolve, 50));
  return 'killed';
}
