// The scale-out shape of CONTRACT ("The embedded default and the scale-out engines") on this
// machine, with no server to install but Debian's PostgreSQL: librdkafka's mock broker as
// KAFKA_BROKERS, a PostgreSQL server as DATABASE_URL, the ClickHouse HTTP fixture over chdb as
// CLICKHOUSE_URL, then ROLE=api instances and one ROLE=ingester sharing one AUTH_JWT_SECRET.
// Every process is detached (it outlives `make scaleout-up`) and recorded in one state folder
// (pids, ports, data, logs), so that stopScaleout ends each by its pid. Used by
// scaleout-cli.ts and by api/scaleout.test.ts; what each process does is its own module's.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandLine, isRunning, spawnDetached, stopByPid, waitForLogLine } from './detached-process.ts';
import { buildKafkaMock } from './kafka-mock.ts';
import { initPostgres, postgresBinDir, startPostgres } from './postgres-server.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SERVICE_MAIN = path.join(ROOT, 'api', 'main.ts');
const CLICKHOUSE_MAIN = path.join(ROOT, 'engine', 'testing', 'clickhouse-http-main.ts');
const WATCHDOG_MAIN = path.join(ROOT, 'engine', 'testing', 'scaleout-watchdog.ts');
const STATE_FILE = 'state.json';
/** The service through tsx on two busy cores took 20-40 s to print its listening line. */
const SERVICE_START_TIMEOUT_MS = 120_000;
const FIXTURE_START_TIMEOUT_MS = 60_000;
const BROKER_START_TIMEOUT_MS = 15_000;
/** A service drains its ingest and closes its stores on SIGTERM: give it longer than the others. */
const SERVICE_STOP_GRACE_MS = 20_000;
const LISTENING = /^listening on (http:\/\/\S+)$/m;

/** The folder `make scaleout-up` keeps its state in: under the repository's (gitignored) data dir. */
export const DEFAULT_STATE_DIR = path.join(ROOT, 'data', 'scaleout');

export interface ScaleoutOptions {
  /** Holds state.json, each process's log and the stores' data; emptied at start. */
  stateDir: string;
  /** ROLE=api instances. @default 2 */
  apiCount?: number;
  /** Written to the state folder and handed to every service as SERVICE_CONFIG. */
  serviceConfig?: unknown;
  /** Partitions of the datapoints topic. @default 4 */
  partitions?: number;
  /** LOG_LEVEL of the services. @default 'info' */
  logLevel?: string;
  /**
   * Stop the deployment once this process is gone, whatever ended it (a test file killed at
   * its timeout runs no teardown): a watchdog process (scaleout-watchdog.ts) does. @default false
   */
  stopWithOwner?: boolean;
}

/** A process of the deployment, as recorded in state.json. */
export interface ScaleoutProcess {
  /** kafka, postgres, clickhouse, api-1, api-2, ..., ingester */
  name: string;
  pid: number;
  /** A word of its command line: a recorded pid whose command lacks it has been reused. */
  commandMark: string;
  stopSignal: NodeJS.Signals;
  logFile: string;
  /** The HTTP address, for the fixture and the services. */
  url?: string;
  /** What it was started with (services only): restartService starts it again alike. */
  start?: { args: string[]; env: Record<string, string> };
}

export interface ScaleoutState {
  stateDir: string;
  secret: string;
  kafkaBrokers: string;
  databaseUrl: string;
  clickhouseUrl: string;
  processes: ScaleoutProcess[];
  /** The watchdog of stopWithOwner; stopScaleout stops it first. */
  watchdogPid?: number;
}

function writeState(state: ScaleoutState): void {
  // It holds the secret: readable by its owner only.
  writeFileSync(path.join(state.stateDir, STATE_FILE), `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
}

/** The recorded state, or undefined when nothing was started from `stateDir`. */
export function readScaleoutState(stateDir: string): ScaleoutState | undefined {
  const file = path.join(stateDir, STATE_FILE);
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) as ScaleoutState : undefined;
}

/** Recorded processes that still run (a pid reused by another program does not count). */
export function runningProcesses(state: ScaleoutState): ScaleoutProcess[] {
  return state.processes.filter((p) => isRunning(p.pid) && commandLine(p.pid).includes(p.commandMark));
}

/** A port of the system's choosing, free when this returns (PostgreSQL takes no port 0). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Starts the deployment into `stateDir`. Refuses when a deployment recorded there still
 * runs. On a failure it stops what it had started and rethrows.
 */
export async function startScaleout(options: ScaleoutOptions): Promise<ScaleoutState> {
  const { stateDir } = options;
  const previous = readScaleoutState(stateDir);
  const stillRunning = previous ? runningProcesses(previous) : [];
  if (stillRunning.length > 0) {
    throw new Error(`a deployment recorded in ${stateDir} still runs (${stillRunning.map((p) => `${p.name} pid ${p.pid}`).join(', ')}): stop it first (make scaleout-down)`);
  }
  rmSync(stateDir, { recursive: true, force: true });
  mkdirSync(stateDir, { recursive: true });
  // The postgres user must reach its data directory below this one.
  chmodSync(stateDir, 0o755);
  const state: ScaleoutState = { stateDir, secret: randomBytes(32).toString('base64url'), kafkaBrokers: '', databaseUrl: '', clickhouseUrl: '', processes: [] };
  const record = (process: ScaleoutProcess) => {
    state.processes.push(process);
    writeState(state);
  };
  try {
    if (options.stopWithOwner) {
      const args = ['--import', 'tsx', WATCHDOG_MAIN, String(process.pid), stateDir];
      state.watchdogPid = spawnDetached({ command: process.execPath, args, env: childEnv({}), cwd: ROOT, logFile: path.join(stateDir, 'watchdog.log') }).pid;
      writeState(state);
    }
    // The three stores start side by side; the services need all three. Each is recorded as
    // it starts, and all are waited for, so that a failure of one still stops the others.
    throwFirstFailure(await Promise.allSettled([
      startBroker(state, options.partitions ?? 4, record),
      startRelational(state, record),
      startColumnar(state, record),
    ]));
    const serviceConfigFile = path.join(stateDir, 'service-config.json');
    writeFileSync(serviceConfigFile, JSON.stringify(options.serviceConfig ?? {}));
    const common = {
      KAFKA_BROKERS: state.kafkaBrokers, DATABASE_URL: state.databaseUrl, CLICKHOUSE_URL: state.clickhouseUrl,
      AUTH_JWT_SECRET: state.secret, SERVICE_CONFIG: serviceConfigFile, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: options.logLevel ?? 'info',
    };
    const names = [...Array.from({ length: options.apiCount ?? 2 }, (_, i) => `api-${i + 1}`), 'ingester'];
    // Side by side too (each migrates PostgreSQL under an advisory lock), each recorded as it listens.
    throwFirstFailure(await Promise.allSettled(names.map(async (name) => record(await startService(stateDir, name, {
      ...common, ROLE: name === 'ingester' ? 'ingester' : 'api', DATA_DIR: path.join(stateDir, name),
    })))));
    return state;
  } catch (error) {
    await stopScaleout(stateDir).catch(() => undefined);
    throw error;
  }
}

function throwFirstFailure(results: PromiseSettledResult<unknown>[]): void {
  const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) throw failed.reason;
}

async function startBroker(state: ScaleoutState, partitions: number, record: (p: ScaleoutProcess) => void): Promise<void> {
  const program = await buildKafkaMock();
  // The broker exits once its stdin ends (kafka-mock-broker.c), and /dev/null ends at once.
  // A fifo it holds open for writing itself never ends: it runs until signalled.
  const fifo = path.join(state.stateDir, 'kafka-stdin');
  execFileSync('mkfifo', [fifo]);
  const stdinFd = openSync(fifo, 'r+');
  const logFile = path.join(state.stateDir, 'kafka.log');
  let started;
  try {
    started = spawnDetached({ command: program, args: ['--brokers', '1', '--topic', `datapoints:${partitions}`], env: {}, cwd: state.stateDir, logFile, stdinFd });
  } finally {
    closeSync(stdinFd);
  }
  record({ name: 'kafka', pid: started.pid, commandMark: 'kafka-mock-broker', stopSignal: 'SIGTERM', logFile });
  const match = await waitForLogLine('the Kafka mock broker', logFile, started.logOffset, /^BOOTSTRAP (\S+)$/m, started.pid, BROKER_START_TIMEOUT_MS);
  state.kafkaBrokers = match[1] as string;
}

async function startRelational(state: ScaleoutState, record: (p: ScaleoutProcess) => void): Promise<void> {
  const binDir = postgresBinDir();
  const dataDir = path.join(state.stateDir, 'postgres');
  const logFile = path.join(state.stateDir, 'postgres.log');
  initPostgres(binDir, dataDir, logFile);
  const server = await startPostgres(binDir, dataDir, await freePort(), logFile, state.stateDir);
  // SIGINT is PostgreSQL's fast shutdown: SIGTERM (smart) would wait for every client to leave.
  record({ name: 'postgres', pid: server.pid, commandMark: 'postgres', stopSignal: 'SIGINT', logFile, url: server.url });
  state.databaseUrl = server.url;
}

async function startColumnar(state: ScaleoutState, record: (p: ScaleoutProcess) => void): Promise<void> {
  const logFile = path.join(state.stateDir, 'clickhouse.log');
  const args = ['--import', 'tsx', CLICKHOUSE_MAIN, '--path', path.join(state.stateDir, 'clickhouse')];
  const started = spawnDetached({ command: process.execPath, args, env: childEnv({}), cwd: ROOT, logFile });
  record({ name: 'clickhouse', pid: started.pid, commandMark: 'clickhouse-http-main', stopSignal: 'SIGTERM', logFile });
  const match = await waitForLogLine('the ClickHouse HTTP fixture', logFile, started.logOffset, LISTENING, started.pid, FIXTURE_START_TIMEOUT_MS);
  state.clickhouseUrl = match[1] as string;
  (state.processes.find((p) => p.pid === started.pid) as ScaleoutProcess).url = state.clickhouseUrl;
}

/**
 * This process's environment without the test runner's NODE_OPTIONS (tap's hooks would change
 * how a service exits on SIGTERM), plus `own`. Only `own` is recorded: the rest is the
 * caller's shell and may hold what does not belong in a file.
 */
function childEnv(own: Record<string, string>): Record<string, string> {
  const { NODE_OPTIONS: _testRunnerHooks, ...parent } = process.env;
  return { ...(parent as Record<string, string>), ...own };
}

async function startService(stateDir: string, name: string, env: Record<string, string>): Promise<ScaleoutProcess> {
  mkdirSync(env['DATA_DIR'] as string, { recursive: true });
  const logFile = path.join(stateDir, `${name}.log`);
  const args = ['--import', 'tsx', SERVICE_MAIN];
  const started = spawnDetached({ command: process.execPath, args, env: childEnv(env), cwd: ROOT, logFile });
  const service: ScaleoutProcess = { name, pid: started.pid, commandMark: 'api/main.ts', stopSignal: 'SIGTERM', logFile, start: { args, env } };
  try {
    const match = await waitForLogLine(`the ${name} service`, logFile, started.logOffset, LISTENING, started.pid, SERVICE_START_TIMEOUT_MS);
    return { ...service, url: match[1] as string };
  } catch (error) {
    await stopByPid(started.pid, service.commandMark, 'SIGKILL', 0);
    throw error;
  }
}

/**
 * Starts the service `name` again with the settings it was first started with (same
 * DATA_DIR and role; a port of the system's choosing, so its URL may change), once its
 * recorded process is gone (a test SIGKILLs it first). Returns the new record.
 */
export async function restartService(state: ScaleoutState, name: string): Promise<ScaleoutProcess> {
  const index = state.processes.findIndex((p) => p.name === name);
  const old = state.processes[index];
  if (!old?.start) throw new Error(`no service named ${name} in ${state.stateDir}`);
  if (isRunning(old.pid)) throw new Error(`${name} (pid ${old.pid}) still runs: stop it before starting it again`);
  const service = await startService(state.stateDir, name, old.start.env);
  state.processes[index] = service;
  writeState(state);
  return service;
}

export interface StoppedProcess {
  name: string;
  pid: number;
  outcome: 'stopped' | 'killed' | 'not running';
}

/**
 * Stops every recorded process of the deployment in `stateDir` by its pid: the services
 * first (they flush to the stores), then the stores. Each gets its stop signal, then SIGKILL
 * after a grace. Removes state.json; the logs and data stay until the next start.
 */
export async function stopScaleout(stateDir: string): Promise<StoppedProcess[]> {
  const state = readScaleoutState(stateDir);
  if (!state) return [];
  // The watchdog first, or it would stop the processes a second time; unless it is the caller.
  if (state.watchdogPid !== undefined && state.watchdogPid !== process.pid) await stopByPid(state.watchdogPid, 'scaleout-watchdog');
  const services = state.processes.filter((p) => p.start);
  const stores = state.processes.filter((p) => !p.start);
  const stopOne = async (p: ScaleoutProcess): Promise<StoppedProcess> => ({
    name: p.name, pid: p.pid, outcome: await stopByPid(p.pid, p.commandMark, p.stopSignal, p.start ? SERVICE_STOP_GRACE_MS : undefined),
  });
  const stopped = await Promise.all(services.map(stopOne));
  stopped.push(...await Promise.all(stores.map(stopOne)));
  rmSync(path.join(stateDir, STATE_FILE), { force: true });
  return stopped;
}
