// `make run`: start every part in one process (ROLE=all) and stop cleanly on SIGINT/SIGTERM.
import { ConfigError, loadConfig } from '../engine/config.ts';
import { logger } from '../engine/log.ts';
import { installProcessGuard } from './process-guard.ts';
import { startServer, StartupError } from './server.ts';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  // Before anything serves: no request, whatever it throws and wherever, ends the process.
  installProcessGuard(logger.child({ module: 'process' }));
  // libuv reads its pool size before any module runs: only the environment can set it (the Makefile does).
  if (process.env['UV_THREADPOOL_SIZE'] === undefined) {
    logger.warn('UV_THREADPOOL_SIZE is not set: libuv\'s 4 threads run every ClickHouse statement and ingest log sync, and reads queue behind inserts for them; start with `make run` or set it (16)');
  }
  let server;
  try {
    server = await startServer(config);
  } catch (error) {
    const reason = error instanceof StartupError ? error.message : `${(error as Error).message}${(error as Error).cause ? ` (${String((error as Error).cause)})` : ''}`;
    process.stderr.write(`cannot start: ${reason}\n`);
    process.exit(1);
  }
  process.stdout.write(`listening on http://${config.host}:${server.port}\n`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    server.close().then(() => process.exit(0), (error: unknown) => {
      logger.error({ err: error }, 'unclean stop');
      process.exit(1);
    });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGHUP', () => stop('SIGHUP'));
}

void main();
