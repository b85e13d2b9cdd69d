// Goal: the group-commit log's read barrier (with its write-ahead log, where appends are
// acknowledged before they are inserted) waits only for what a read reads: a read of a
// series with nothing queued passes at once while other series of the same tenant have
// appends queued or being inserted, and neither ends a commit's wait for more requests; a
// read of a series with acknowledged appends still on their way passes only once they are
// in the store (the union, for a read of several series), also when two inserts run at once
// and the later one ends first. Method: a real data point store (chdb in a temp dir) behind
// a sink that holds every insert until the test releases it; fixed cases, then a fast-check
// model (fixed seed, printed) of random appends, releases in any order and reads, checking
// each read against the appends acknowledged before it.
// The cases are group-commit.read-barrier.cases.ts, also run through a server (group-commit.server-read-barrier.test.ts).
import { readBarrierCases } from './group-commit.read-barrier.cases.ts';

await readBarrierCases('chdb', 30);
