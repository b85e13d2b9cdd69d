// Goal: mergeForInsert makes one insert per (tenant, writeVersion), joins the chunks of a
// series in timestamp order, drops a chunk delivered twice, and never mixes versions.
// Method: split known series into chunks, shuffle and duplicate them, merge, compare.
import t from 'tap';
import { makeSeries, pointRows } from '../testing/kafka-mock-fixtures.ts';
import type { IngestBatch } from './ingest-log.ts';
import { mergeForInsert } from './kafka-batch-merge.ts';
import { splitSeries } from './kafka-message.ts';

t.test('chunks of one append are joined, duplicates dropped, versions kept apart', async (t) => {
  const big = makeSeries(1, 'MIXED', 500);
  const chunks = splitSeries(big, 1024);
  t.ok(chunks.length > 3, `${chunks.length} chunks`);
  const chunkBatches: IngestBatch[] = chunks.map((chunk) => ({ tenant: 'a', writeVersion: 10n, series: [chunk] }));
  const input: IngestBatch[] = [
    chunkBatches[2] as IngestBatch,
    ...chunkBatches,
    chunkBatches[0] as IngestBatch,
    { tenant: 'a', writeVersion: 11n, series: [makeSeries(1, 'MIXED', 2, 1_900_000_000_000)] },
    { tenant: 'b', writeVersion: 10n, series: [makeSeries(1, 'FLOAT', 2)] },
    { tenant: 'a', writeVersion: 10n, series: [makeSeries(2, 'BIGINT', 3)] },
  ];
  const merged = mergeForInsert(input);
  t.same(merged.map((b) => `${b.tenant}@${b.writeVersion}`), ['a@10', 'a@11', 'b@10']);
  const first = merged[0] as IngestBatch;
  t.same(first.series.map((s) => s.seriesId), [1, 2]);
  t.same(pointRows('a', first.series.slice(0, 1)), pointRows('a', [big]), 'series 1 whole, once, in order');
  t.same(Object.keys(first.series[0] ?? {}).sort(), Object.keys(big).sort(), 'same columns as the original');
});

t.test('a single message passes through untouched', async (t) => {
  const batch: IngestBatch = { tenant: 'a', writeVersion: 1n, series: [makeSeries(3, 'TEXT', 4)] };
  const [merged] = mergeForInsert([batch]);
  t.equal(merged?.series[0], batch.series[0]);
});
