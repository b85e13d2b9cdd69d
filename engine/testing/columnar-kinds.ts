// The two columnar store kinds a data point test runs against: the embedded engine in process
// (chdb), and a ClickHouse server through @clickhouse/client, here the HTTP fixture over the
// same engine (no server can be installed on these machines). A suite's body takes the
// configuration openDatapointStore takes, so one body serves both; each kind runs from its own
// test file, in its own process, since chdb binds one data directory per process.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type t from 'tap';
import { embeddedColumnarPath } from '../datapoints/datapoint-store.ts';
import { startClickHouseHttpFixture } from './clickhouse-http-fixture.ts';

export type ColumnarKind = 'chdb' | 'clickhouse';

/** What openDatapointStore takes: DATA_DIR and, for the server kind, CLICKHOUSE_URL and its database. */
export interface ColumnarConfig {
  dataDir: string;
  clickhouse?: { url: string; database: string };
}

/**
 * A temp DATA_DIR for one test file and, for the server kind, the fixture serving it (database
 * `server`, on the engine path the embedded store would use); both end with the file.
 */
export async function columnarConfig(test: typeof t, name: string, kind: ColumnarKind): Promise<ColumnarConfig> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `${name}-${kind}-`));
  test.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  if (kind === 'chdb') return { dataDir };
  const fixture = await startClickHouseHttpFixture({ path: embeddedColumnarPath(dataDir), database: 'server' });
  test.teardown(() => fixture.stop());
  return { dataDir, clickhouse: { url: fixture.url, database: 'server' } };
}
