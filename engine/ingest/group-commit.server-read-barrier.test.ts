// Goal: on a ClickHouse server, where the data point engine reads no queued points from memory
// (ServerColumnarStore.readsColumnSources is false) and every read of acknowledged points goes
// through the group-commit log's read barrier, the barrier waits only for what a read reads and
// releases a read only once its series' acknowledged appends are readable through the server
// (group-commit.read-barrier.cases.ts: fixed cases and the fast-check model). Method: the store
// on ServerColumnarStore and the ClickHouse HTTP fixture, behind a sink that holds inserts; 10
// sequences of the model instead of 30 (30 took 12 s here): the barrier's logic is the same on
// both kinds, what differs is the reads through the server.
import { readBarrierCases } from './group-commit.read-barrier.cases.ts';

await readBarrierCases('clickhouse', 10);
