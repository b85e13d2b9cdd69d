// Goal: nothing the group-commit log acknowledged is lost on a crash (CONTRACT: a 2xx means
// stored), and the rollups stay consistent with the raw points after it (dirty marks of a
// part written just before the crash are recovered). Method: a child process ingests through
// GroupCommitLog into chdb and prints every acknowledged append; the test kills it with
// SIGKILL mid-ingest, reopens the store on the same directory, reads every acknowledged point
// back, folds, and compares each series' COUNT aggregate with its raw point count.
// The cases are group-commit.crash.cases.ts; group-commit.server-crash.test.ts runs them through a server.
import { crashCases } from './group-commit.crash.cases.ts';

await crashCases('chdb');
