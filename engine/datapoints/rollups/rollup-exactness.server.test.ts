// Goal: minute and hour rollups, and the reads answered from them, stay exact through a
// ClickHouse server as they do in process (rollup-exactness.cases.ts: overwrites, replays, late
// points, deletes, the join form of many tombstones, the backfill at open). Method: the same
// fast-check model with the store on ServerColumnarStore and the ClickHouse HTTP fixture; 4 drawn
// sequences instead of 12, same seed: each HTTP
// round trip costs more (6 sequences took 32 s here), and the suite's time is bounded.
import { rollupExactnessCases } from './rollup-exactness.cases.ts';

await rollupExactnessCases('clickhouse', 4);
