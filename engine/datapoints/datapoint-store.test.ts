// Goal: the data point store keeps what SPEC promises: every value family reads
// back exactly (BIGINT beyond 2^53 included, in raw reads, MIN/MAX/SUM and latest), a later
// write at a timestamp replaces the value, tenants never see each other, cursors visit each
// point exactly once, and a delete beats an older version replayed after it, before and after
// the fold and the physical purge. Method: a real chdb engine in a temp dir, one tenant per test;
// the cases are datapoint-store.cases.ts, which datapoint-store.server.test.ts runs through a server.
import { datapointStoreCases } from './datapoint-store.cases.ts';

await datapointStoreCases('chdb');
