// The ClickHouse HTTP fixture (clickhouse-http-fixture.ts) as a process of its own, for a
// deployment on this machine whose services reach it as CLICKHOUSE_URL (scaleout.ts):
// `node --import tsx engine/testing/clickhouse-http-main.ts --path DIR [--database NAME]`.
// Prints `listening on URL` once it answers and stops on SIGTERM or SIGINT.
import { mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startClickHouseHttpFixture } from './clickhouse-http-fixture.ts';

const { values } = parseArgs({ options: { path: { type: 'string' }, database: { type: 'string' } } });
if (!values.path) {
  process.stderr.write('usage: clickhouse-http-main.ts --path <data directory> [--database <name>]\n');
  process.exit(2);
}
mkdirSync(values.path, { recursive: true });
const fixture = await startClickHouseHttpFixture({ path: values.path, database: values.database });
process.stdout.write(`listening on ${fixture.url}\n`);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  fixture.stop().then(() => process.exit(0), (error: unknown) => {
    process.stderr.write(`unclean stop: ${(error as Error).message}\n`);
    process.exit(1);
  });
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
