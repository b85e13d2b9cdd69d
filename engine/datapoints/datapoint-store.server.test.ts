// Goal: the data point store keeps the same promises through a ClickHouse server as through the
// engine in process (datapoint-store.cases.ts: exact value families, replacement by version,
// tenant separation, cursors, deletes against replays across fold and purge). Method: the
// store opened as CLICKHOUSE_URL would open it (ServerColumnarStore, @clickhouse/client) on the
// ClickHouse HTTP fixture over a temp chdb data directory, one tenant per test.
import { datapointStoreCases } from './datapoint-store.cases.ts';

await datapointStoreCases('clickhouse');
