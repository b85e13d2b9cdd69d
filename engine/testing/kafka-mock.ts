// Test fixture: a Kafka-protocol broker in memory (librdkafka's mock cluster, see
// kafka-mock-broker.c) started as a child process for one test file. Building the program
// (and installing librdkafka-dev) is kafka-mock-build.sh's job; `make test` runs it first.
import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const BUILD_SCRIPT = fileURLToPath(new URL('./kafka-mock-build.sh', import.meta.url));

export interface KafkaMockOptions {
  /** Partitions of each topic created up front. @default 4 */
  partitions?: number;
  /** Topics created up front; others auto-create on first produce. @default ['datapoints'] */
  topics?: string[];
  /** Brokers in the mock cluster. @default 1 */
  brokerCount?: number;
  /** Deadline for the bootstrap line once the program runs. @default 15000 */
  startTimeoutMs?: number;
  /** Deadline for building the program (first run may install librdkafka-dev). @default 300000 */
  buildTimeoutMs?: number;
}

export interface KafkaMock {
  /** Bootstrap servers, `127.0.0.1:port` each. */
  brokers: string[];
  pid: number;
  /**
   * The next `count` requests of Kafka API `apiKey` (14: SyncGroup) fail with the error
   * `code` (42: INVALID_REQUEST). Resolves once the broker has read the line.
   */
  failRequests(apiKey: number, code: number, count: number): Promise<void>;
  /** SIGTERM, then SIGKILL if the program has not exited within 5 s. */
  stop(): Promise<void>;
}

/** Builds the mock broker when needed and returns the program's path. */
export function buildKafkaMock(timeoutMs = 300_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('bash', [BUILD_SCRIPT], { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) {
        reject(new Error(`building the Kafka mock broker failed (${BUILD_SCRIPT}): ${stderr.trim().slice(-2000)}`, { cause: error }));
        return;
      }
      const program = stdout.trim().split('\n').pop();
      if (!program) reject(new Error(`${BUILD_SCRIPT} printed no program path`));
      else resolve(program);
    });
  });
}

/** Starts a mock Kafka cluster; resolves once it listens (bootstrap line seen). */
export async function startKafkaMock(options: KafkaMockOptions = {}): Promise<KafkaMock> {
  const { partitions = 4, topics = ['datapoints'], brokerCount = 1, startTimeoutMs = 15_000 } = options;
  const program = await buildKafkaMock(options.buildTimeoutMs);
  const args = ['--brokers', String(brokerCount)];
  for (const topic of topics) args.push('--topic', `${topic}:${partitions}`);
  // stdin stays a pipe: if this process dies, the broker sees end of file and exits.
  const child = spawn(program, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const stderrTail: string[] = [];
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderrTail.push(chunk);
    if (stderrTail.length > 50) stderrTail.shift();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const brokers = await new Promise<string[]>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    const fail = (why: string) => {
      clearTimeout(timer);
      lines.close();
      child.kill('SIGKILL');
      reject(new Error(`Kafka mock broker ${why}; stderr: ${stderrTail.join('').trim().slice(-2000)}`));
    };
    const timer = setTimeout(() => fail(`printed no bootstrap line within ${startTimeoutMs} ms`), startTimeoutMs);
    child.once('error', (error) => fail(`could not start (${error.message})`));
    const onEarlyExit = (code: number | null, signal: string | null) => fail(`exited before listening (code ${code}, signal ${signal})`);
    child.once('exit', onEarlyExit);
    lines.on('line', (line) => {
      if (!line.startsWith('BOOTSTRAP ')) return;
      clearTimeout(timer);
      child.removeListener('exit', onEarlyExit);
      lines.close();
      resolve(line.slice('BOOTSTRAP '.length).trim().split(','));
    });
  });
  const pid = child.pid as number;

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(pid, 'SIGTERM');
      const killTimer = setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) process.kill(pid, 'SIGKILL');
      }, 5_000);
      await exited;
      clearTimeout(killTimer);
      child.stdin.destroy();
    })();
    return stopping;
  };
  const failRequests = (apiKey: number, code: number, count: number) => new Promise<void>((resolve, reject) => {
    const told = `the next ${count} requests of API key ${apiKey} fail with ${code}`;
    const onData = (chunk: string) => {
      if (!chunk.includes(told)) return;
      child.stderr.removeListener('data', onData);
      resolve();
    };
    child.stderr.on('data', onData);
    child.stdin.write(`ERRORS ${apiKey} ${code} ${count}\n`, (error) => {
      if (error) reject(error);
    });
  });
  return { brokers, pid, failRequests, stop };
}
