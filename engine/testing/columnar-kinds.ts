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
import { openColumnarStore, type ColumnarStore } from '../stores/columnar.ts';
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

/**
 * Both columnar stores in this process, on one engine (chdb binds one data directory per
 * process): the embedded store in database `default`, and ServerColumnarStore through the
 * fixture in database `server`. For tests of SQL run on the seam directly; each store sees
 * only its own database's tables.
 */
export async function columnarStores(test: typeof t, name: string): Promise<{ kind: ColumnarKind; store: ColumnarStore }[]> {
  const config = await columnarConfig(test, name, 'clickhouse');
  const server = await openColumnarStore({ engine: 'clickhouse', ...(config.clickhouse as NonNullable<ColumnarConfig['clickhouse']>) });
  test.teardown(() => server.close());
  const embedded = await openColumnarStore({ engine: 'chdb', path: embeddedColumnarPath(config.dataDir) });
  test.teardown(() => embedded.close());
  return [{ kind: 'chdb', store: embedded }, { kind: 'clickhouse', store: server }];
}

/**
 * The embedded engine in a temp DATA_DIR for one test file, as a store whose close() leaves
 * the engine open: each DatapointStore the file opens and closes in turn finds the tables the
 * last one left, as the service's next start would. The engine closes, and the directory goes,
 * with the file.
 */
export async function reopenableEngine(test: typeof t, name: string): Promise<ColumnarStore> {
  const dir = mkdtempSync(path.join(tmpdir(), `${name}-`));
  const engine = await openColumnarStore({ engine: 'chdb', path: embeddedColumnarPath(dir) });
  test.teardown(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    kind: engine.kind,
    readsColumnSources: engine.readsColumnSources,
    query: (sql, params) => engine.query(sql, params),
    queryArrow: (sql, params) => engine.queryArrow(sql, params),
    queryBytes: (sql, params) => engine.queryBytes(sql, params),
    command: (sql, params) => engine.command(sql, params),
    insertColumns: (insert) => engine.insertColumns(insert),
    ping: () => engine.ping(),
    close: async () => {},
  };
}
