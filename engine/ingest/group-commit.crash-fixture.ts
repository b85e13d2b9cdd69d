// Child process for group-commit.crash.cases.ts: ingests through a GroupCommitLog into the
// embedded store at DATA_DIR, or the ClickHouse server at CLICKHOUSE_URL (database
// CLICKHOUSE_DATABASE) when given, with several concurrent writers, printing each acknowledged
// append ("ACK <seriesId> <firstTimestampMs> <pointCount>"; every value equals the series id)
// until the parent kills it with SIGKILL.
import { logger } from '../log.ts';
import { openDatapointStore } from '../datapoints/datapoint-store.ts';
import { GroupCommitLog } from './group-commit.ts';

const T0 = 1_700_000_000_000;
const POINTS = 2_000;
const dataDir = process.env['DATA_DIR'] as string;
const quiet = logger.child({ test: 'group-commit-crash-child' }, { level: 'silent' });
const url = process.env['CLICKHOUSE_URL'];
const clickhouse = url ? { url, database: process.env['CLICKHOUSE_DATABASE'] as string } : undefined;
const store = await openDatapointStore({ dataDir, clickhouse }, { logger: quiet, maintenanceIntervalMs: 50 });
const log = new GroupCommitLog({ store, nextWriteVersion: () => store.writeVersions.next(), logger: quiet, commitIntervalMinMs: 5 });
process.stdout.write('STARTED\n');

async function writer(index: number): Promise<never> {
  for (let n = 0; ; n++) {
    const seriesId = index * 1_000_000 + n + 1;
    const from = T0 + (n % 50) * 3_600_000;
    const timestampMs = Float64Array.from({ length: POINTS }, (_, i) => from + i * 1000);
    await log.append({ tenant: 'crash', series: [{ seriesId, valueType: 'FLOAT', timestampMs, float: new Float64Array(POINTS).fill(seriesId) }] });
    process.stdout.write(`ACK ${seriesId} ${from} ${POINTS}\n`);
  }
}

await Promise.all([1, 2, 3, 4].map(writer));
