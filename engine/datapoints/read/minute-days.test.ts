// Goal: 1m aggregates of FLOAT series read whole days of minute rows once (or the
// fold fetches the days it recomputed) and then answer every new window of those days from
// memory, exactly as the rollup statement would: a fold drops the days it recomputed (an
// insert keeps them: its dirty minutes come from raw points), and a read too wide for memory
// runs the statement. Coarser grids of whole minutes (hours, days) answer from held days when
// every day they touch is held, else from the rollup statement, with the same answer.
// Method: the real chdb store behind a wrapper that counts minute-day and rollup statements;
// every answer is compared with a plain JS computation over the points written.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { openColumnarStore, type ColumnarStore } from '../../stores/columnar.ts';
import { MINUTE_DAYS_PER_READ_MAX } from './minute-days.ts';
import { DatapointStore, embeddedColumnarPath } from '../datapoint-store.ts';
import type { AggregateOptions, SeriesRef } from '../types.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'minute-days-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

let minuteDayStatements = 0;
let rollupStatements = 0;
/** A statement reading the FLOAT rollup tables (hour or minute rows). */
const READS_ROLLUPS = /FROM datapoints_float_1[hm] FINAL/;
function counting(store: ColumnarStore): ColumnarStore {
  return {
    ...store,
    kind: store.kind,
    query: (sql, params) => { if (READS_ROLLUPS.test(sql)) rollupStatements++; return store.query(sql, params); },
    queryArrow: (sql, params) => { if (READS_ROLLUPS.test(sql) && sql.includes('AS minute')) minuteDayStatements++; return store.queryArrow(sql, params); },
    queryBytes: (sql, params) => store.queryBytes(sql, params),
    command: (sql, params) => store.command(sql, params),
    insertColumns: (insert) => store.insertColumns(insert),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}
const columnar = await openColumnarStore({ engine: 'chdb', path: embeddedColumnarPath(dir) });
const store = await DatapointStore.open({ columnar: counting(columnar), maintenanceIntervalMs: 0 });
t.teardown(() => store.close());

const DAY = 86_400_000;
const T0 = Date.UTC(2024, 0, 10);
const ref: SeriesRef = { seriesId: 7, valueType: 'FLOAT' };
/** The model: timestamp -> value of every live point. */
const model = new Map<number, number>();

async function write(tenant: string, points: [number, number][]): Promise<void> {
  points.sort((a, b) => a[0] - b[0]);
  await store.insert({ tenant, writeVersion: store.writeVersions.next(), series: [{ ...ref, timestampMs: Float64Array.from(points, (p) => p[0]), float: Float64Array.from(points, (p) => p[1]) }] });
  for (const [ts, value] of points) model.set(ts, value);
}

/** Widths of the granularities the cases read (UTC, starts aligned to them). */
const GRANULARITY_MS: Readonly<Record<string, number>> = { '1m': 60_000, '1h': 3_600_000, '3h': 3 * 3_600_000, '1d': DAY };

function expected(start: number, end: number, granularity: string): { timestampMs: number; count: number; min: number; max: number; sum: number }[] {
  const width = GRANULARITY_MS[granularity] as number;
  const buckets = new Map<number, number[]>();
  for (const [ts, value] of model) {
    if (ts < start || ts >= end) continue;
    const bucket = start + Math.floor((ts - start) / width) * width;
    buckets.set(bucket, [...(buckets.get(bucket) ?? []), value]);
  }
  return [...buckets].sort((a, b) => a[0] - b[0]).map(([timestampMs, values]) => ({
    timestampMs, count: values.length, min: Math.min(...values), max: Math.max(...values), sum: values.reduce((a, b) => a + b, 0),
  }));
}

async function check(t: Test, tenant: string, start: number, end: number, what: string, granularity = '1m'): Promise<void> {
  const options: AggregateOptions = { start, end, granularity, aggregates: ['COUNT', 'MIN', 'MAX', 'SUM'], limit: 10_000 };
  const { buckets } = await store.aggregate(tenant, ref, options);
  const want = expected(start, end, granularity);
  t.equal(buckets.length, want.length, `${what}: bucket count`);
  const bad = buckets.findIndex((b, i) => {
    const w = want[i];
    return !w || b.timestampMs !== w.timestampMs || b.count !== w.count || b.min !== w.min || b.max !== w.max || Math.abs((b.sum as number) - w.sum) > 1e-9 * Math.max(1, Math.abs(w.sum));
  });
  t.equal(bad, -1, `${what}: every bucket as computed from the points${bad >= 0 ? ` (first wrong: ${JSON.stringify(buckets[bad])} vs ${JSON.stringify(want[bad])})` : ''}`);
}

/**
 * A new tenant with two days from T0 of a point every 20 s (wave(ts) * 100 at two decimals),
 * folded, and the statement counters at zero.
 */
async function twoFoldedDays(wave: (ts: number) => number): Promise<string> {
  const tenant = `t-${randomUUID()}`;
  model.clear();
  const points: [number, number][] = [];
  for (let ts = T0; ts < T0 + 2 * DAY; ts += 20_000) points.push([ts, Math.round(wave(ts) * 1e4) / 100]);
  await write(tenant, points);
  await store.runMaintenance({ includeHot: true });
  minuteDayStatements = 0;
  rollupStatements = 0;
  return tenant;
}

t.test('a fold fetches the days it recomputed; new windows of held days run no statement; a fold drops what it recomputed', async (t) => {
  const tenant = await twoFoldedDays((ts) => Math.sin(ts / 3e6));
  await check(t, tenant, T0 + 3_600_000, T0 + 9 * 3_600_000, 'first window');
  await check(t, tenant, T0 + 5 * 3_600_000 + 60_000, T0 + 11 * 3_600_000 + 60_000, 'another window of the day');
  await check(t, tenant, T0 + 20 * 3_600_000, T0 + 26 * 3_600_000, 'a window across midnight');
  t.equal(minuteDayStatements, 0, 'the fold fetched both days: no read runs a statement');

  // Overwrite and a late point in held minutes: dirty (from raw) until the fold, then the day is fetched again.
  await write(tenant, [[T0 + 6 * 3_600_000, 1234.5], [T0 + 6 * 3_600_000 + 7_000, -99.25]]);
  await check(t, tenant, T0 + 3_600_000, T0 + 9 * 3_600_000, 'overwritten and late points before the fold');
  t.equal(minuteDayStatements, 0, 'a write keeps the days held (only the fold changes minute rows): its dirty minutes come from raw');
  await store.runMaintenance({ includeHot: true });
  minuteDayStatements = 0;
  await check(t, tenant, T0 + 2 * 3_600_000, T0 + 8 * 3_600_000, 'after the fold');
  t.equal(minuteDayStatements, 0, 'the fold fetched the recomputed day again, with the new rows');

  // A delete empties minutes: their rows go to point_count 0 at the fold.
  await store.deleteRange(tenant, ref.seriesId, T0 + 4 * 3_600_000, T0 + 4 * 3_600_000 + 10 * 60_000);
  for (const ts of [...model.keys()]) if (ts >= T0 + 4 * 3_600_000 && ts < T0 + 4 * 3_600_000 + 10 * 60_000) model.delete(ts);
  await check(t, tenant, T0 + 3_600_000, T0 + 9 * 3_600_000, 'deleted minutes before the fold');
  await store.runMaintenance({ includeHot: true });
  await check(t, tenant, T0 + 3_600_000, T0 + 9 * 3_600_000, 'deleted minutes after the fold');
});

t.test('a read wider than memory takes runs the rollup statement, with the same answer', async (t) => {
  const tenant = `t-${randomUUID()}`;
  model.clear();
  await write(tenant, [[T0, 1], [T0 + 40 * DAY, 2], [T0 + 80 * DAY + 61_000, 3]]);
  await store.runMaintenance({ includeHot: true });
  minuteDayStatements = 0;
  await check(t, tenant, T0, T0 + (MINUTE_DAYS_PER_READ_MAX + 30) * DAY, 'a long window');
  t.equal(minuteDayStatements, 0, 'not from memory');
});

t.test('hourly and daily reads take held minute days when every day they touch is held, else the rollup statement', async (t) => {
  const tenant = await twoFoldedDays((ts) => Math.cos(ts / 5e6));
  await check(t, tenant, T0 + 2 * 3_600_000, T0 + 26 * 3_600_000, '1h across midnight', '1h');
  await check(t, tenant, T0, T0 + 2 * DAY, '3h over both days', '3h');
  await check(t, tenant, T0, T0 + 2 * DAY, '1d over both days', '1d');
  t.equal(rollupStatements, 0, 'the fold fetched both days: hourly and daily reads run no statement');

  await check(t, tenant, T0 - DAY, T0 + DAY, '1h from a day nobody holds', '1h');
  t.equal(rollupStatements, 1, 'a day not held: the rollup statement');
  t.equal(minuteDayStatements, 0, 'a coarse read fetches no minute days');

  // Written minutes of held days are dirty until the fold: they come from raw points, the rest from memory.
  await write(tenant, [[T0 + 5 * 3_600_000 + 20_000, 4321.5], [T0 + 5 * 3_600_000 + 30_000, -7.75], [T0 + DAY + 59_000, 0.5]]);
  rollupStatements = 0;
  await check(t, tenant, T0, T0 + 2 * DAY, '1h with written minutes before the fold', '1h');
  await check(t, tenant, T0, T0 + 2 * DAY, '1d with written minutes before the fold', '1d');
  t.equal(rollupStatements, 0, 'written minutes keep the days held');
  await store.runMaintenance({ includeHot: true });
  await check(t, tenant, T0, T0 + 2 * DAY, '1h after the fold', '1h');
  t.equal(rollupStatements, 0, 'the fold fetched the recomputed days again');
});
