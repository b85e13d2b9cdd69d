// `make scaleout-up` and `make scaleout-down`: the scale-out deployment of scaleout.ts on this
// machine, recorded in the repository's data folder (data/scaleout: pids, ports, logs, data).
// `up` prints one `api URL` line per API instance and one `secret SECRET` line, then returns
// while the processes keep running; `down` stops each recorded process by its pid.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_STATE_DIR, startScaleout, stopScaleout, type ScaleoutState } from './scaleout.ts';

function printUp(state: ScaleoutState): void {
  const lines: string[] = [];
  for (const p of state.processes) if (p.name.startsWith('api-')) lines.push(`api ${p.url}`);
  lines.push(`secret ${state.secret}`);
  const ingester = state.processes.find((p) => p.name === 'ingester');
  lines.push(
    `ingester ${ingester?.url} (operational endpoints only: /health, /metrics)`,
    `kafka ${state.kafkaBrokers}`,
    `postgres ${state.databaseUrl}`,
    `clickhouse ${state.clickhouseUrl}`,
    `pids ${state.processes.map((p) => `${p.name}=${p.pid}`).join(' ')}`,
    `state ${path.relative(process.cwd(), state.stateDir) || '.'} (state.json, one log per process, the stores' data)`,
    `token: AUTH_JWT_SECRET='${state.secret}' npm run -s token -- --org <tenant> --sub <user>`,
    'stop: make scaleout-down',
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main(command: string | undefined): Promise<number> {
  if (command === 'up') {
    // The policy and log level a user would give `make run`, handed on to every service.
    const policyFile = process.env['SERVICE_CONFIG'];
    const serviceConfig: unknown = policyFile ? JSON.parse(readFileSync(policyFile, 'utf8')) : undefined;
    printUp(await startScaleout({ stateDir: DEFAULT_STATE_DIR, serviceConfig, logLevel: process.env['LOG_LEVEL'] || undefined }));
    return 0;
  }
  if (command === 'down') {
    const stopped = await stopScaleout(DEFAULT_STATE_DIR);
    if (stopped.length === 0) process.stdout.write(`nothing to stop: no deployment recorded in ${DEFAULT_STATE_DIR}\n`);
    for (const p of stopped) process.stdout.write(`${p.outcome === 'not running' ? 'was not running' : p.outcome} ${p.name} (pid ${p.pid})\n`);
    return 0;
  }
  process.stderr.write('usage: scaleout-cli.ts up|down\n');
  return 2;
}

main(process.argv[2]).then((code) => process.exit(code), (error: unknown) => {
  process.stderr.write(`scaleout ${process.argv[2]}: ${(error as Error).message}\n`);
  process.exit(1);
});
