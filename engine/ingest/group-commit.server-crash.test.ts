// Goal: nothing the group-commit log acknowledged is lost when the service dies by SIGKILL while
// writing to a ClickHouse server (CONTRACT: a 2xx means stored), and the rollups match the raw
// points once a new process has recovered the dirty marks (group-commit.crash.cases.ts). Method:
// the ClickHouse HTTP fixture runs in this process over a temp chdb data directory; the child
// ingests through GroupCommitLog and ServerColumnarStore (CLICKHOUSE_URL) and is SIGKILLed
// mid-ingest with requests in flight; the store reopened through the fixture reads every
// acknowledged point back, folds, and compares each series' COUNT with its raw point count.
import { crashCases } from './group-commit.crash.cases.ts';

await crashCases('clickhouse');
