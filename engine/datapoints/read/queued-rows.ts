// The acknowledged points a read took from the ingest log's memory (SeriesRef.queued) as the
// columns its statements read beside the raw table (datapoint-read.sql.ts rawRowsSource), and
// the time they cover, which no rollup row holds yet: the aggregate reads count those minutes
// from raw points, as they do a dirty range's. The columns are the insert's own
// (datapoint-write.ts familyInsertColumns), so the engine converts them as it will on insert.
import { ColumnSource, type QueryParams } from '../../stores/columnar-params.ts';
import { familyInsertColumns } from '../write/datapoint-write.ts';
import { familyOf, type Family } from '../tables/families.ts';
import type { QueuedRun, SeriesRef } from '../types.ts';
import type { Range } from './series-context.ts';

/** A statement's queued points: whether any are bound, and the params binding them. */
export interface BoundQueued {
  queued: boolean;
  params: QueryParams;
}

const NONE: BoundQueued = { queued: false, params: {} };

/** Whether a read of the series carries points from the ingest log's memory (its answers are then not kept in the read cache). */
export function hasQueued(series: SeriesRef): boolean {
  return series.queued !== undefined && series.queued.length > 0;
}

/**
 * The queued points of the series of `family` among `series`, bound as {queued_rows:ColumnSource}
 * (or `param`, where one statement reads several families) and {queued_tenant:String}.
 */
export function bindQueued(tenant: string, family: Family, series: readonly SeriesRef[], param = 'queued_rows'): BoundQueued {
  const runs: [seriesId: number, run: QueuedRun][] = [];
  let n = 0;
  for (const s of series) {
    if (!hasQueued(s) || familyOf(s.valueType) !== family) continue;
    for (const run of s.queued as readonly QueuedRun[]) {
      runs.push([s.seriesId, run]);
      n += run.points.timestampMs.length;
    }
  }
  if (n === 0) return NONE;
  const seriesId = new Float64Array(n);
  const ts = new Float64Array(n);
  const version = new BigInt64Array(n);
  const float = family === 'float' || family === 'mixed' ? new Float64Array(n) : undefined;
  const integer = family === 'int' || family === 'numeric' || family === 'decimal32' ? new BigInt64Array(n) : undefined;
  const text: string[] | undefined = family === 'text' || family === 'mixed' ? [] : undefined;
  const isText = family === 'mixed' ? new Uint8Array(n) : undefined;
  let at = 0;
  for (const [id, { writeVersion, points }] of runs) {
    const length = points.timestampMs.length;
    seriesId.fill(id, at, at + length);
    version.fill(writeVersion, at, at + length);
    ts.set(points.timestampMs, at);
    if (float && points.float) float.set(points.float, at);
    if (integer) {
      const from = family === 'int' ? points.bigint : points.scaled;
      if (from) integer.set(from, at);
    }
    if (text) for (let k = 0; k < length; k++) text.push(points.text?.[k] ?? '');
    if (isText && points.isText) isText.set(points.isText, at);
    at += length;
  }
  const columns = familyInsertColumns(family, { seriesId, ts, version, float, integer, text, isText });
  return { queued: true, params: { queued_tenant: tenant, [param]: new ColumnSource(columns) } };
}

/** Each series' dirty ranges with the span of its queued points added ([first, last + 1) per run): the rollups do not hold them yet. */
export function withQueuedSpans(dirty: ReadonlyMap<number, readonly Range[]>, series: readonly SeriesRef[]): Map<number, Range[]> {
  const out = new Map<number, Range[]>([...dirty].map(([id, ranges]) => [id, [...ranges]]));
  for (const s of series) {
    if (!hasQueued(s)) continue;
    const ranges = out.get(s.seriesId) ?? [];
    for (const { points } of s.queued as readonly QueuedRun[]) {
      const n = points.timestampMs.length;
      if (n > 0) ranges.push([points.timestampMs[0] as number, (points.timestampMs[n - 1] as number) + 1]);
    }
    out.set(s.seriesId, ranges);
  }
  return out;
}
