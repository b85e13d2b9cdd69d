// Goal: aggregates, raw reads and latest points are exact whatever mix of raw points and
// rollups answers them: overwritten, replayed-older and deleted points never count. Method:
// random data (seeded) per value family, written in batches with overwrites, replays of older
// versions and range deletes; an independent JS model computes every answer; compared with
// all hours dirty (raw path), after a forced fold (rollups), after more changes (both mixed),
// and after another fold. Floats compare within 1e-9 relative (summation order), the rest exactly.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { openDatapointStore } from '../datapoint-store.ts';
import type { AggregateBucket, Granularity, SeriesPoints, SeriesRef, ValueType } from '../types.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'datapoint-aggregate-test-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const store = await openDatapointStore({ dataDir: dir }, { maintenanceIntervalMs: 0 });
t.teardown(() => store.close());

let seed = 20240601;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const randomInt = (n: number) => Math.floor(random() * n);
const randomBig = (magnitude: bigint) => (BigInt(Math.floor(random() * 2 ** 52)) * magnitude) / 2n ** 52n * (random() < 0.5 ? -1n : 1n);

const T0 = Date.UTC(2024, 0, 1, 22, 17);
const SPAN_MS = 2.5 * 86_400_000;
const tenant = `t-${randomUUID()}`;

type Value = number | bigint | string;
interface Write { value: Value; version: bigint }
interface Model { points: Map<number, Write>; tombstones: { begin: number; end: number; version: bigint }[] }

const FAMILIES: { ref: SeriesRef; make: () => Value }[] = [
  { ref: { seriesId: 1, valueType: 'FLOAT' }, make: () => Math.round((random() - 0.5) * 2e6) / 1000 },
  { ref: { seriesId: 2, valueType: 'BIGINT' }, make: () => randomBig(2n ** 62n) },
  { ref: { seriesId: 3, valueType: 'NUMERIC' }, make: () => randomBig(10n ** 15n) },
  { ref: { seriesId: 4, valueType: 'DECIMAL32' }, make: () => randomBig(999_999_999n) },
  { ref: { seriesId: 5, valueType: 'MIXED' }, make: () => (random() < 0.2 ? `text-${randomInt(100)}` : Math.round((random() - 0.5) * 2e4) / 100) },
];
const models = new Map<number, Model>(FAMILIES.map(({ ref }) => [ref.seriesId, { points: new Map(), tombstones: [] }]));

function pointsOf(ref: SeriesRef, entries: [number, Value][]): SeriesPoints {
  const timestampMs = Float64Array.from(entries, ([ts]) => ts);
  const values = entries.map(([, v]) => v);
  switch (ref.valueType) {
    case 'FLOAT': return { ...ref, timestampMs, float: Float64Array.from(values as number[]) };
    case 'BIGINT': return { ...ref, timestampMs, bigint: BigInt64Array.from(values as bigint[]) };
    case 'MIXED': return {
      ...ref, timestampMs,
      float: Float64Array.from(values, (v) => (typeof v === 'number' ? v : 0)),
      text: values.map((v) => (typeof v === 'string' ? v : '')),
      isText: Uint8Array.from(values, (v) => (typeof v === 'string' ? 1 : 0)),
    };
    default: return { ...ref, timestampMs, scaled: BigInt64Array.from(values as bigint[]) };
  }
}

/** Writes `count` points (new timestamps or overwrites) at `version` to store and model. */
async function write(family: (typeof FAMILIES)[number], count: number, version: bigint, overwrite: boolean): Promise<void> {
  const model = models.get(family.ref.seriesId) as Model;
  const existing = [...model.points.keys()];
  const entries = new Map<number, Value>();
  for (let i = 0; i < count; i++) {
    const ts = overwrite && existing.length > 0 ? (existing[randomInt(existing.length)] as number) : T0 + randomInt(SPAN_MS / 1000) * 1000 + randomInt(3);
    entries.set(ts, family.make());
  }
  const sorted = [...entries].sort((a, b) => a[0] - b[0]);
  await store.insert({ tenant, writeVersion: version, series: [pointsOf(family.ref, sorted)] });
  for (const [ts, value] of sorted) {
    const before = model.points.get(ts);
    if (!before || before.version < version) model.points.set(ts, { value, version });
  }
}

async function remove(family: (typeof FAMILIES)[number]): Promise<void> {
  const begin = T0 + randomInt(SPAN_MS);
  const end = begin + randomInt(3 * 3_600_000);
  const version = store.writeVersions.next();
  await store.deleteRange(tenant, family.ref.seriesId, begin, end);
  (models.get(family.ref.seriesId) as Model).tombstones.push({ begin, end, version: version + 1n });
}

/** Live points of the model: newest version per timestamp, not covered by a newer tombstone. */
function live(model: Model): [number, Value][] {
  return [...model.points].filter(([ts, w]) => !model.tombstones.some((d) => ts >= d.begin && ts < d.end && w.version < d.version))
    .map(([ts, w]) => [ts, w.value] as [number, Value]).sort((a, b) => a[0] - b[0]);
}

const GRANULARITY_MS: Record<Granularity, number> = { '1m': 60_000, '1h': 3_600_000, '1d': 86_400_000 };

function expectedBuckets(valueType: ValueType, points: [number, Value][], granularity: Granularity): AggregateBucket[] {
  const size = GRANULARITY_MS[granularity];
  const groups = new Map<number, Value[]>();
  for (const [ts, value] of points) {
    if (typeof value === 'string') continue;
    const bucket = ts - (((ts % size) + size) % size);
    groups.set(bucket, [...(groups.get(bucket) ?? []), value]);
  }
  return [...groups].sort((a, b) => a[0] - b[0]).map(([timestampMs, values]) => {
    if (typeof values[0] === 'bigint') {
      const big = values as bigint[];
      const sum = big.reduce((a, b) => a + b, 0n);
      const count = BigInt(big.length);
      const half = (sum < 0n ? -sum : sum) * 2n + count;
      const average = valueType === 'BIGINT' ? Number(sum) / big.length : (sum < 0n ? -1n : 1n) * (half / (2n * count));
      return { timestampMs, count: big.length, sum, min: big.reduce((a, b) => (b < a ? b : a)), max: big.reduce((a, b) => (b > a ? b : a)), average };
    }
    const numbers = values as number[];
    const sum = numbers.reduce((a, b) => a + b, 0);
    return { timestampMs, count: numbers.length, sum, min: Math.min(...numbers), max: Math.max(...numbers), average: sum / numbers.length };
  });
}

function close(actual: unknown, expected: unknown): boolean {
  if (typeof actual === 'number' && typeof expected === 'number') return Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected));
  return actual === expected;
}

async function compareAll(t: Test, phase: string): Promise<void> {
  for (const family of FAMILIES) {
    const { ref } = family;
    const points = live(models.get(ref.seriesId) as Model);
    const label = `${phase}: ${ref.valueType}`;
    const { points: raw } = await store.readRaw(tenant, ref, { start: T0 - 1, end: T0 + SPAN_MS + 10, limit: 100_000 });
    t.same([...raw.timestampMs], points.map(([ts]) => ts), `${label}: raw timestamps`);
    for (const granularity of ['1m', '1h', '1d'] as const) {
      const expected = expectedBuckets(ref.valueType, points, granularity);
      const actual: AggregateBucket[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.aggregate(tenant, ref, { start: T0 - 5_000_000, end: T0 + SPAN_MS, granularity, aggregates: ['AVG', 'MIN', 'MAX', 'COUNT', 'SUM'], limit: 2_000, cursor });
        actual.push(...page.buckets);
        cursor = page.nextCursor;
      } while (cursor);
      const mismatches = expected.filter((bucket, i) => !Object.entries(bucket).every(([key, value]) => close((actual[i] as unknown as Record<string, unknown>)?.[key], value)));
      t.equal(actual.length, expected.length, `${label} ${granularity}: bucket count`);
      t.same(mismatches.slice(0, 3), [], `${label} ${granularity}: every aggregate`);
    }
    const last = points[points.length - 1];
    t.same(await store.latest(tenant, [ref]), last ? [{ seriesId: ref.seriesId, timestampMs: last[0], value: last[1] }] : [], `${label}: latest`);
  }
}

async function changes(rounds: number): Promise<void> {
  for (const family of FAMILIES) {
    for (let round = 0; round < rounds; round++) {
      const older = store.writeVersions.next();
      await write(family, 300, store.writeVersions.next(), round > 0);
      if (round % 2 === 1) await write(family, 50, older, true); // a replay: older version, loses
      await remove(family);
    }
  }
}

const countRows = async (table: 'datapoint_dirty' | 'datapoints_float_1h') => Number((await store.columnar.query<{ n: string }>(
  `SELECT toString(count()) AS n FROM ${table} WHERE tenant = {tenant:String}`, { tenant }))[0]?.n);

t.test('aggregates, raw reads and latest match the model through folds', async (t) => {
  await changes(4);
  t.equal(await countRows('datapoints_float_1h'), 0, 'nothing folded yet');
  await compareAll(t, 'all dirty');
  await store.runMaintenance({ includeHot: true });
  t.equal(await countRows('datapoint_dirty'), 0, 'the fold resolved every dirty mark');
  t.ok(await countRows('datapoints_float_1h') > 0, 'rollups exist');
  await compareAll(t, 'folded');
  await changes(2);
  t.ok(await countRows('datapoint_dirty') > 0, 'some hours are dirty again');
  await compareAll(t, 'rollups and dirty hours');
  await store.runMaintenance({ includeHot: true });
  await compareAll(t, 'folded again');
});

t.test('a delete of the newest points sends latest back to the newest clean hour', async (t) => {
  for (const family of FAMILIES) {
    const model = models.get(family.ref.seriesId) as Model;
    const last = live(model).at(-1) as [number, Value];
    const version = store.writeVersions.next();
    await store.deleteRange(tenant, family.ref.seriesId, last[0] - 1_800_000, last[0] + 1);
    model.tombstones.push({ begin: last[0] - 1_800_000, end: last[0] + 1, version: version + 1n });
  }
  await compareAll(t, 'tail deleted');
});
