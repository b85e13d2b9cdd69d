// Goal: after a fold, its days of minute rows are fetched into memory within a budget: while
// points come, a round larger than half of it is left out whole; once ingest is quiet the
// round is fetched up to the whole budget, newest days first, and each held day answers
// exactly the rows the table holds.
// Method: the real chdb store, FLOAT series written and folded through the DatapointStore, then
// warmMinuteDays into a fresh ReadContextCache with budgets of a few days' rows.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { openColumnarStore } from '../../stores/columnar.ts';
import { DatapointStore, embeddedColumnarPath } from '../datapoint-store.ts';
import type { FoldedMark } from '../rollups/rollup-fold.ts';
import { warmMinuteDays } from './minute-days.ts';
import { MINUTE_DAY_ROW_BYTES } from './minute-day-rows.ts';
import { ReadContextCache } from './read-context-cache.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'minute-days-warm-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const columnar = await openColumnarStore({ engine: 'chdb', path: embeddedColumnarPath(dir) });
const store = await DatapointStore.open({ columnar, maintenanceIntervalMs: 0 });
t.teardown(() => store.close());

const DAY = 86_400_000;
const T0 = Date.UTC(2024, 0, 10);
const SERIES = [11, 12, 13];
const tenant = `t-${randomUUID()}`;
/** Each series: a point every minute over two whole days (2,880 minute rows), value = series id + minute / 10,000. */
for (const seriesId of SERIES) {
  const timestampMs = Float64Array.from({ length: 2 * 1_440 }, (_, i) => T0 + i * 60_000);
  const float = timestampMs.map((ts) => seriesId + (ts - T0) / 60_000 / 10_000);
  await store.insert({ tenant, writeVersion: store.writeVersions.next(), series: [{ seriesId, valueType: 'FLOAT', timestampMs, float }] });
}
/** A second tenant's series 21: one day, the newer one, as the first tenant's day 1. */
const other = `t-${randomUUID()}`;
{
  const timestampMs = Float64Array.from({ length: 1_440 }, (_, i) => T0 + 86_400_000 + i * 60_000);
  await store.insert({ tenant: other, writeVersion: store.writeVersions.next(), series: [{ seriesId: 21, valueType: 'FLOAT', timestampMs, float: timestampMs.map(() => 21) }] });
}
await store.runMaintenance({ includeHot: true });

const folded: FoldedMark[] = SERIES.map((seriesId) => ({ tenant, seriesId, family: 'float', beginMs: T0, endMs: T0 + 2 * DAY }));
const DAY_BYTES = 1_440 * MINUTE_DAY_ROW_BYTES;

function held(cache: ReadContextCache): string[] {
  return SERIES.flatMap((id) => [T0, T0 + DAY].filter((day) => cache.getMinuteDay(tenant, id, day) !== undefined).map((day) => `${id}:${(day - T0) / DAY}`));
}

t.test('while points come, a round over half the budget is left out whole', async (t) => {
  const cache = new ReadContextCache();
  await warmMinuteDays(columnar, cache, folded, { quiet: false, bytesMax: 10 * DAY_BYTES });
  t.same(held(cache), [], 'six days do not fit in half of ten');
  await warmMinuteDays(columnar, cache, folded, { quiet: false, bytesMax: 12 * DAY_BYTES });
  t.same(held(cache), ['11:0', '11:1', '12:0', '12:1', '13:0', '13:1'], 'six days fit in half of twelve: all held');
});

t.test('once ingest is quiet, the newest days are fetched up to the whole budget', async (t) => {
  const cache = new ReadContextCache();
  await warmMinuteDays(columnar, cache, folded, { quiet: true, bytesMax: 4 * DAY_BYTES });
  t.same(held(cache), ['11:1', '12:1', '13:1', '11:0'].sort(), 'the three newest days, then one older (ties by position)');
  const day = cache.getMinuteDay(tenant, 12, T0 + DAY);
  t.ok(day, 'series 12 day 1 held');
  if (!day) return;
  t.equal(day.dayMs, T0 + DAY);
  t.equal(day.minute.length, 1_440, 'every minute of the day');
  t.same([day.minute[0], day.minute[1_439]], [0, 1_439], 'minutes of the day, in order');
  const bad = [...day.minute.keys()].find((i) => {
    const value = 12 + (1_440 + i) / 10_000;
    return day.n[i] !== 1 || day.s[i] !== value || day.lo[i] !== value || day.hi[i] !== value;
  });
  t.equal(bad, undefined, 'each row as written: one value, sum = min = max = the point');
  t.equal(day.s.buffer.byteLength, DAY_BYTES, `one buffer of ${MINUTE_DAY_ROW_BYTES} bytes a row`);
});

t.test('days of several tenants in one round: each tenant\'s days in statements of their own', async (t) => {
  const cache = new ReadContextCache();
  const both: FoldedMark[] = [...folded, { tenant: other, seriesId: 21, family: 'float', beginMs: T0 + DAY, endMs: T0 + 2 * DAY }];
  await warmMinuteDays(columnar, cache, both, { quiet: true, bytesMax: 5 * DAY_BYTES });
  t.same(held(cache), ['11:1', '12:1', '13:1', '11:0'].sort(), 'the first tenant: its three newest days, then one older');
  const day = cache.getMinuteDay(other, 21, T0 + DAY);
  t.equal(day?.minute.length, 1_440, 'the other tenant\'s day, among the five newest');
  t.equal(day?.s[0], 21, 'with its own rows');
  t.equal(cache.getMinuteDay(other, 11, T0 + DAY), undefined, 'no series of one tenant under the other');
});
