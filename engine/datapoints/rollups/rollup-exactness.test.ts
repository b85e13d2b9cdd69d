// Goal: minute and hour rollups, and every read answered from them, stay exact under
// overwrites (a later version wins), replays of older versions, late points into folded minutes
// and hours, and deletes, with the fold run at any moment. Method: fast-check draws command
// sequences (write, replay, delete, fold, check) over three hours of three series (BIGINT with
// values near 2^63, so sums need Int128; FLOAT; MIXED); plain JS over the points written is the
// model. A check compares 1m/1h/1d aggregates, latest and raw timestamps with the model; after
// a fold it also compares the minute and hour rollup rows themselves. A run of a data directory
// from before minute rollups (hour rows, no minute rows) checks the one-time backfill at open.
// The cases are rollup-exactness.cases.ts; rollup-exactness.server.test.ts runs them through a server.
import { rollupExactnessCases } from './rollup-exactness.cases.ts';

await rollupExactnessCases('chdb', 12);
