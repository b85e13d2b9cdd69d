// Debian's PostgreSQL as a server of its own on this machine, for the scale-out deployment
// (scaleout.ts) to hand the services as DATABASE_URL: initdb into a directory, start the
// postmaster detached on 127.0.0.1, its pid read from postmaster.pid. We run as root and
// PostgreSQL refuses root, so both run as the `postgres` user (runuser) on a directory it owns.
import { execFileSync } from 'node:child_process';
import { chownSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnDetached, stopByPid, waitForLogLine } from './detached-process.ts';

const DEBIAN_ROOT = '/usr/lib/postgresql';
const SERVER_USER = 'postgres';
/** Two api instances and an ingester hold ~25 connections each (pools, LISTEN), more while one restarts. */
const CONNECTIONS_MAX = 200;
const START_TIMEOUT_MS = 60_000;

export interface PostgresServer {
  /** The postmaster's pid (the one to signal). */
  pid: number;
  port: number;
  url: string;
}

const INSTALL_SCRIPT = fileURLToPath(new URL('./postgresql-install.sh', import.meta.url));

/** The newest installed server's bin directory; installs Debian's `postgresql` when none is (postgresql-install.sh). */
export function postgresBinDir(): string {
  if (!newestVersion()) execFileSync('bash', [INSTALL_SCRIPT], { stdio: ['ignore', 'ignore', 'inherit'] });
  const version = newestVersion();
  if (!version) throw new Error(`no PostgreSQL server under ${DEBIAN_ROOT} after ${INSTALL_SCRIPT}`);
  return path.join(DEBIAN_ROOT, version, 'bin');
}

function newestVersion(): string | undefined {
  if (!existsSync(DEBIAN_ROOT)) return undefined;
  return readdirSync(DEBIAN_ROOT)
    .filter((name) => /^\d+$/.test(name) && existsSync(path.join(DEBIAN_ROOT, name, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a))[0];
}

function serverUserIds(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, SERVER_USER], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * Creates the cluster in `dataDir` (absent or empty) owned by `postgres`, trusting local
 * connections: it listens on 127.0.0.1 only, for processes of this machine. initdb's output
 * goes to `logFile`.
 */
export function initPostgres(binDir: string, dataDir: string, logFile: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const { uid, gid } = serverUserIds();
  chownSync(dataDir, uid, gid);
  try {
    execFileSync('runuser', ['-u', SERVER_USER, '--', 'test', '-w', dataDir], { stdio: 'ignore' });
  } catch {
    throw new Error(`the ${SERVER_USER} user cannot reach ${dataDir}: every folder above it must be searchable by others (chmod o+x)`);
  }
  const log = openSync(logFile, 'a');
  try {
    execFileSync('runuser', ['-u', SERVER_USER, '--', path.join(binDir, 'initdb'),
      '-D', dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8'], { stdio: ['ignore', log, log] });
  } catch (error) {
    throw new Error(`initdb in ${dataDir} failed; see ${logFile}`, { cause: error });
  } finally {
    closeSync(log);
  }
}

/** Starts the postmaster on `port` (127.0.0.1 only, no Unix socket); resolves once it accepts connections. */
export async function startPostgres(binDir: string, dataDir: string, port: number, logFile: string, cwd: string): Promise<PostgresServer> {
  const { pid: wrapperPid, logOffset } = spawnDetached({
    command: 'runuser',
    args: ['-u', SERVER_USER, '--', path.join(binDir, 'postgres'), '-D', dataDir, '-p', String(port),
      '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', `max_connections=${CONNECTIONS_MAX}`],
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', LANG: 'C.UTF-8' },
    cwd, logFile,
  });
  try {
    await waitForLogLine('PostgreSQL', logFile, logOffset, /database system is ready to accept connections/, wrapperPid, START_TIMEOUT_MS);
  } catch (error) {
    // Not ready in time: the postmaster may run all the same, and nobody has its pid yet.
    const pid = postmasterPid(dataDir);
    if (pid) await stopByPid(pid, 'postgres', 'SIGINT');
    await stopByPid(wrapperPid, 'runuser');
    throw error;
  }
  // runuser stays as the postmaster's parent; the postmaster itself is the one to signal.
  const pid = postmasterPid(dataDir);
  if (!pid) throw new Error(`no pid in ${path.join(dataDir, 'postmaster.pid')}`);
  return { pid, port, url: `postgres://postgres@127.0.0.1:${port}/postgres` };
}

/** The pid in the cluster's postmaster.pid, if there is one. */
function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
