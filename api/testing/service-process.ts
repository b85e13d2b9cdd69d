// Test fixture: the real service as a child process (`node --import tsx api/main.ts`), as
// `make run` starts it, on port 0 with a given DATA_DIR. Resolves once it prints its
// `listening on` line. Crash tests SIGKILL it and start another on the same DATA_DIR.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { mintToken } from '../auth.ts';

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));
const ROOT = path.dirname(path.dirname(MAIN));

export interface ServiceProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  /** The last output the service wrote, stdout and stderr (for failure messages). */
  outputTail(): string;
  /** Resolves with the signal (or exit code) once the process has exited. */
  exited: Promise<NodeJS.Signals | number | null>;
  /** SIGTERM (clean stop), SIGKILL if it has not exited within `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export async function startServiceProcess(env: Record<string, string>, startTimeoutMs = 90_000): Promise<ServiceProcess> {
  // Without the test runner's NODE_OPTIONS (tap's process-info hook would change how the
  // service exits on SIGTERM): the service runs as `make run` starts it.
  const { NODE_OPTIONS: _testRunnerHooks, ...parentEnv } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    cwd: ROOT,
    env: { ...parentEnv, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const keep = (chunk: string) => {
    output.push(chunk);
    if (output.length > 40) output.shift();
  };
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', keep);
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  const outputTail = () => output.join('').slice(-3000);
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the service printed no listening line within ${startTimeoutMs} ms; output: ${outputTail()}`));
    }, startTimeoutMs);
    void exited.then((how) => {
      clearTimeout(timer);
      reject(new Error(`the service exited (${how}) before listening; output: ${outputTail()}`));
    });
    lines.on('line', (line) => {
      keep(`${line}\n`);
      const match = /^listening on (http:\/\/\S+)$/.exec(line);
      if (!match) return;
      clearTimeout(timer);
      resolve(match[1] as string);
    });
  });
  return {
    url, pid: child.pid as number, child, outputTail, exited,
    async stop(graceMs = 30_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Stops the embedded PostgreSQL a SIGKILLed service left running on DATA_DIR, if any (tests
 * call this in teardown so a failed test leaves no server behind). Only that pid is signalled.
 */
export function stopOrphanedPostgres(dataDir: string): void {
  const pidFile = path.join(dataDir, 'postgres', 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return;
  try {
    if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('postgres')) return;
    process.kill(pid, 'SIGINT');
  } catch {
    // not running
  }
}

/** A DATA_DIR of its own for service processes, the env that points them at it, and a token. */
export interface ServiceHome {
  dataDir: string;
  env: Record<string, string>;
  /** A token of `organization` signed with this home's secret. */
  token: string;
  /** Stops the embedded PostgreSQL a killed service left behind and removes the directory. */
  remove(): void;
}

export function serviceHome(prefix: string, organization: string, serviceConfig: unknown): ServiceHome {
  const dataDir = mkdtempSync(path.join(tmpdir(), prefix));
  chmodSync(dataDir, 0o755);
  const policyFile = path.join(dataDir, 'service-config.json');
  writeFileSync(policyFile, JSON.stringify(serviceConfig));
  const secret = randomBytes(24).toString('base64url');
  return {
    dataDir,
    env: { DATA_DIR: dataDir, AUTH_JWT_SECRET: secret, SERVICE_CONFIG: policyFile },
    token: mintToken({ secret, organization, sub: `${organization}-test` }),
    remove() {
      stopOrphanedPostgres(dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
