// Goal: dirtyRangesOf finds every (tenant, series, family, hour run) of a group commit's
// batches exactly once, in the order first seen, whatever repeats across requests: the same
// series in many requests, the same series id under two tenants or two families, runs
// sharing a start with different ends; and the collector names each (tenant, series) once,
// in the order first seen (the series a commit writes, for the read contexts). Method: fast-check against a plain statement of the
// rule (a string key per range), over random batches of sorted timestamps.
import fc from 'fast-check';
import t from 'tap';
import { familyOf } from '../tables/families.ts';
import { DirtyRangeCollector, dirtyRangesOf, dirtyRuns, type DirtyRange } from './dirty-ranges.ts';
import type { SeriesPoints, ValueType } from '../types.ts';
import type { IngestBatch } from '../../ingest/ingest-log.ts';

const HOUR = 3_600_000;
const TYPES: ValueType[] = ['FLOAT', 'BIGINT', 'TEXT', 'MIXED'];

function expected(batches: readonly IngestBatch[]): DirtyRange[] {
  const ranges = new Map<string, DirtyRange>();
  for (const batch of batches) {
    for (const points of batch.series) {
      const family = familyOf(points.valueType);
      for (const [beginMs, endMs] of dirtyRuns(points.timestampMs)) {
        const key = JSON.stringify([batch.tenant, points.seriesId, family, beginMs, endMs]);
        if (!ranges.has(key)) ranges.set(key, { tenant: batch.tenant, seriesId: points.seriesId, family, beginMs, endMs });
      }
    }
  }
  return [...ranges.values()];
}

const series = fc.record({
  seriesId: fc.integer({ min: 1, max: 4 }),
  valueType: fc.constantFrom(...TYPES),
  // Minutes within six hours, sorted as the workers hand them over: runs of hours with gaps.
  minutes: fc.uniqueArray(fc.integer({ min: 0, max: 6 * 60 - 1 }), { minLength: 1, maxLength: 40 }),
}).map(({ seriesId, valueType, minutes }): SeriesPoints => ({
  seriesId, valueType, timestampMs: Float64Array.from(minutes.sort((a, b) => a - b), (m) => 1_767_225_600_000 + 3 * HOUR + m * 60_000),
}));

const batch = fc.record({ tenant: fc.constantFrom('acme', 'globex'), series: fc.array(series, { maxLength: 6 }) })
  .map(({ tenant, series }): IngestBatch => ({ tenant, series, writeVersion: 1n }));

t.test('every range once, in the order first seen', async (t) => {
  fc.assert(fc.property(fc.array(batch, { maxLength: 12 }), (batches) => {
    t.same(dirtyRangesOf(batches), expected(batches));
    const collector = new DirtyRangeCollector();
    for (const b of batches) collector.add(b);
    const pairs = new Map<string, [string, number]>();
    for (const b of batches) for (const p of b.series) if (!pairs.has(`${b.tenant}/${p.seriesId}`)) pairs.set(`${b.tenant}/${p.seriesId}`, [b.tenant, p.seriesId]);
    t.same(collector.series, [...pairs.values()]);
  }), { numRuns: 500 });
});

t.test('a run that starts where another of the same series starts, with another end, is its own range', async (t) => {
  const at = (hours: number[]) => Float64Array.from(hours, (h) => 1_767_225_600_000 + h * HOUR);
  const ranges = dirtyRangesOf([
    { tenant: 'acme', writeVersion: 1n, series: [{ seriesId: 1, valueType: 'FLOAT', timestampMs: at([0]) }] },
    { tenant: 'acme', writeVersion: 2n, series: [{ seriesId: 1, valueType: 'FLOAT', timestampMs: at([0, 1]) }] },
    { tenant: 'acme', writeVersion: 3n, series: [{ seriesId: 1, valueType: 'TEXT', timestampMs: at([0]) }] },
    { tenant: 'globex', writeVersion: 4n, series: [{ seriesId: 1, valueType: 'FLOAT', timestampMs: at([0]) }] },
  ]);
  t.same(ranges.map((r) => [r.tenant, r.family, (r.endMs - r.beginMs) / HOUR]), [['acme', 'float', 1], ['acme', 'float', 2], ['acme', 'text', 1], ['globex', 'float', 1]]);
});
