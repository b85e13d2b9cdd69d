// Test helpers for the Kafka ingest path: small deterministic batches, a flat view of
// their points for comparison, a recording sink, and polling against a deadline (no sleeps).
import { randomBytes } from 'node:crypto';
import type { SeriesPoints, ValueType } from '../datapoints/types.ts';
import type { IngestBatch } from '../ingest/ingest-log.ts';

/** A fresh tenant (or topic, group) name per test, so tests cannot see each other. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`;
}

/** `count` points of one series, one second apart from startMs, values derived from the index. */
export function makeSeries(seriesId: number, valueType: ValueType, count: number, startMs = 1_700_000_000_000): SeriesPoints {
  const timestampMs = Float64Array.from({ length: count }, (_, i) => startMs + i * 1000);
  const series: SeriesPoints = { seriesId, valueType, timestampMs };
  switch (valueType) {
    case 'FLOAT':
    case 'FLOAT32':
      series.float = Float64Array.from({ length: count }, (_, i) => Math.fround(seriesId + i / 4));
      break;
    case 'BIGINT':
      series.bigint = BigInt64Array.from({ length: count }, (_, i) => 9_007_199_254_740_993n + BigInt(seriesId * 1000 + i));
      break;
    case 'NUMERIC':
    case 'DECIMAL32':
      series.scaled = BigInt64Array.from({ length: count }, (_, i) => BigInt(i) * 1_000_001n - 5n);
      break;
    case 'TEXT':
      series.text = Array.from({ length: count }, (_, i) => `state ${seriesId}/${i} ✓`);
      break;
    case 'MIXED':
      series.isText = Uint8Array.from({ length: count }, (_, i) => i % 2);
      series.float = Float64Array.from(series.isText, (isText, i) => (isText ? 0 : i * 1.5));
      series.text = Array.from(series.isText, (isText, i) => (isText ? `t${i}` : ''));
      break;
  }
  return series;
}

/** One row per point: `tenant|seriesId|timestampMs|value` (values rendered exactly). */
export function pointRows(tenant: string, series: SeriesPoints[]): string[] {
  const rows: string[] = [];
  for (const s of series) {
    for (let i = 0; i < s.timestampMs.length; i++) {
      const value = s.bigint?.[i] ?? s.scaled?.[i] ?? (s.isText?.[i] ? `"${s.text?.[i]}"` : s.text ? `"${s.text[i]}"` : s.float?.[i]);
      rows.push(`${tenant}|${s.seriesId}|${s.timestampMs[i]}|${String(value)}`);
    }
  }
  return rows;
}

/** A sink of the ingester's interface that records what it was given; can fail on demand. */
export class RecordingSink {
  readonly inserts: IngestBatch[] = [];
  insertCalls = 0;
  /** Insert calls left to fail (counted down on each failure). */
  failuresLeft = 0;
  async insert(batch: IngestBatch): Promise<void> {
    this.insertCalls++;
    if (this.failuresLeft > 0) {
      this.failuresLeft--;
      throw new Error('store unavailable (test)');
    }
    this.inserts.push(batch);
  }
  /** Every recorded point as a row, with its write version: `rows|v<version>`. */
  versionedRows(): string[] {
    return this.inserts.flatMap((b) => pointRows(b.tenant, b.series).map((row) => `${row}|v${b.writeVersion}`));
  }
  rows(): string[] {
    return this.inserts.flatMap((b) => pointRows(b.tenant, b.series));
  }
}

export { pollUntil } from './poll-until.ts';
