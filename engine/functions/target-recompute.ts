// One recompute of a function's target over the windows its inputs' changes reach: evaluate
// the expression there, compare with the target's points there, and write the difference:
// changed and new points through the ingest log (durable, seen by subscriptions and by the
// functions that read this target), and the points the new answer lacks deleted. Points the
// expression has no finite value for, or that the target's valueType cannot hold, are left out.
import { BadRequestError, ForbiddenError, NotFoundError, type Identifier } from '../errors.ts';
import type { Access } from '../grants/access.ts';
import { bucketReach, parseGranularity } from '../datapoints/read/aggregate-grid.ts';
import type { DatapointStore, DeleteRange } from '../datapoints/datapoint-store.ts';
import { DECIMAL_FORMAT, type SeriesPoints, type SeriesRef, type ValueType } from '../datapoints/types.ts';
import type { IngestBatch, ReadWindow } from '../ingest/ingest-log.ts';
import { FUNCTION_CALL_POINTS_MAX, TIMESTAMP_MS_MAX, TIMESTAMP_MS_MIN } from '../limits.ts';
import type { SeriesDirectory } from '../meta/series-directory.ts';
import { resolveSeriesTargets } from '../meta/series-targets.ts';
import type { EvaluatedPoint, EvaluationRequest } from './evaluate.ts';
import { bindTombstones, contextsOf } from '../datapoints/read/datapoint-read-context.ts';
import { FAMILY_SHAPES, familyOf } from '../datapoints/tables/families.ts';
import type { QueryParams } from '../stores/columnar-params.ts';
import { spanNeighboursSql } from './target-recompute.sql.ts';
import type { KeptFunction } from './target-index.ts';

/** A span [first, last] (inclusive, epoch ms) of an input's timestamps that changed. */
export interface ChangedSpan {
  seriesId: number;
  first: number;
  last: number;
}

export interface RecomputeDeps {
  series: SeriesDirectory;
  store: DatapointStore;
  readBarrier(tenant: string, seriesIds: readonly number[], windows: readonly ReadWindow[]): Promise<void>;
  evaluate(access: Access, request: EvaluationRequest): Promise<EvaluatedPoint[]>;
  append(batch: Omit<IngestBatch, 'writeVersion'>): Promise<void>;
  chargeDatapoints(tenant: string, count: number): Promise<void>;
  /** Told of the target points a recompute deleted, as a delete through the API tells its listeners (functions reading this target). */
  deleted?(tenant: string, ranges: readonly DeleteRange[]): void;
}

/** What a recompute wrote. */
export interface RecomputeReport {
  written: number;
  deleted: number;
  /** Milliseconds spent evaluating, reading the target, writing (the log's append and deletes). */
  ms: { evaluate: number; read: number; write: number };
}

/** Whole history: a function computed afresh (new, changed, or after a stop). */
export const WHOLE_HISTORY: ReadWindow = { start: TIMESTAMP_MS_MIN, end: TIMESTAMP_MS_MAX + 1 };

/**
 * Why the target cannot be kept with these grants, as an error SPEC names: the target gone or
 * unreadable (404), not writable (403). Inputs are checked by evaluation (404 when unknown or
 * unreadable).
 */
async function targetRef(deps: RecomputeDeps, access: Access, fn: KeptFunction): Promise<SeriesRef> {
  const id: Identifier = { id: fn.targetSeriesId };
  const { targets } = await resolveSeriesTargets(deps.series, access, [id], 'write');
  const target = targets[0];
  if (!target) throw new NotFoundError(`the target time series ${fn.targetSeriesId} is gone or not readable with the function's grants`, [id]);
  return { seriesId: target.seriesId, valueType: target.valueType };
}

/**
 * The target windows that the changed spans reach: from each span's input's last point before
 * it to its first point after it (the neighbours every value in between is interpolated or
 * held from), widened by two buckets either way for an aggregate input. Read from the stored
 * rows without waiting for queued ones (spanNeighboursSql says why that is safe).
 */
export async function reachedWindows(deps: RecomputeDeps, access: Access, fn: KeptFunction, spans: readonly ChangedSpan[]): Promise<ReadWindow[]> {
  if (spans.length === 0) return [];
  const ids = [...new Set(spans.map((s) => s.seriesId))];
  const { targets } = await resolveSeriesTargets(deps.series, access, ids.map((id) => ({ id })), 'read');
  const valueTypeOf = new Map(targets.flatMap((t) => (t ? [[t.seriesId, t.valueType] as const] : [])));
  // An input this function cannot read: evaluation refuses it, and the whole target is redone once it can.
  if (spans.some((span) => !valueTypeOf.has(span.seriesId))) return [WHOLE_HISTORY];
  const neighbours = await spanNeighbours(deps, access.tenant, spans, valueTypeOf);
  const windows = spans.map((span, j): ReadWindow => {
    let start = neighbours[j]?.before ?? TIMESTAMP_MS_MIN;
    let end = (neighbours[j]?.after ?? TIMESTAMP_MS_MAX) + 1;
    for (const input of fn.inputs) {
      if (input.seriesId !== span.seriesId || input.granularity === undefined) continue;
      const granularity = parseGranularity(input.granularity);
      const once = bucketReach(granularity, start, end);
      const twice = bucketReach(granularity, once.start, once.end);
      start = Math.min(start, twice.start);
      end = Math.max(end, twice.end);
    }
    return { start: Math.max(TIMESTAMP_MS_MIN, start), end: Math.min(TIMESTAMP_MS_MAX + 1, end) };
  });
  return mergeWindows(windows);
}

/** Each span's input's last live timestamp before it and first after it (undefined: none), one statement for all. */
async function spanNeighbours(deps: RecomputeDeps, tenant: string, spans: readonly ChangedSpan[], valueTypeOf: ReadonlyMap<number, ValueType>): Promise<{ before?: number; after?: number }[]> {
  const contexts = await contextsOf(deps.store.columnar, tenant, [...valueTypeOf.keys()], deps.store.contexts);
  const tombstones = bindTombstones(contexts.values());
  const out: { before?: number; after?: number }[] = spans.map(() => ({}));
  // MIXED series tell their numeric points apart after the dedup: no bound reads, the widest window.
  const bounded = spans.flatMap((span, j) => (valueTypeOf.get(span.seriesId) === 'MIXED' ? [] : [j]));
  if (bounded.length === 0) return out;
  const params: Record<string, QueryParams[string]> = { tenant, ...tombstones.params };
  bounded.forEach((j, n) => {
    const span = spans[j] as ChangedSpan;
    Object.assign(params, { [`sid_${n}`]: span.seriesId, [`first_${n}`]: span.first, [`last_${n}`]: span.last });
  });
  const shapes = bounded.map((j) => FAMILY_SHAPES[familyOf(valueTypeOf.get((spans[j] as ChangedSpan).seriesId) as ValueType)]);
  const rows = await deps.store.columnar.query<{ j: number; side: number; ts: number }>(spanNeighboursSql(shapes, tombstones.form), params);
  for (const row of rows) {
    const at = out[bounded[Number(row.j)] as number] as { before?: number; after?: number };
    if (Number(row.side) === 0) at.before = Number(row.ts);
    else at.after = Number(row.ts);
  }
  return out;
}

/** Overlapping or touching windows joined, ascending. */
export function mergeWindows(windows: readonly ReadWindow[]): ReadWindow[] {
  const sorted = [...windows].sort((a, b) => a.start - b.start);
  const merged: ReadWindow[] = [];
  for (const w of sorted) {
    const last = merged[merged.length - 1];
    if (last && w.start <= last.end) last.end = Math.max(last.end, w.end);
    else merged.push({ ...w });
  }
  return merged;
}

/** Recomputes `windows` of the function's target with `access` (the function's grants, expanded now). */
export async function recomputeTarget(deps: RecomputeDeps, access: Access, fn: KeptFunction, windows: readonly ReadWindow[]): Promise<RecomputeReport> {
  const target = await targetRef(deps, access, fn);
  const report: RecomputeReport = { written: 0, deleted: 0, ms: { evaluate: 0, read: 0, write: 0 } };
  let at = performance.now();
  const lap = (phase: keyof RecomputeReport['ms']) => {
    const now = performance.now();
    report.ms[phase] += now - at;
    at = now;
  };
  for (const window of windows) {
    for (let start = window.start; start < window.end;) {
      const page = await deps.evaluate(access, { expression: fn.expression, start, end: window.end, limit: FUNCTION_CALL_POINTS_MAX });
      lap('evaluate');
      const end = page.length === FUNCTION_CALL_POINTS_MAX ? (page[page.length - 1] as EvaluatedPoint).timestamp + 1 : window.end;
      const wanted = targetPoints(target, page);
      const current = await readTarget(deps, access.tenant, target, { start, end });
      lap('read');
      const { changed, stale, staleCount } = difference(wanted, current);
      if (changed.timestampMs.length > 0) {
        await deps.chargeDatapoints(access.tenant, changed.timestampMs.length);
        await deps.append({ tenant: access.tenant, series: [changed] });
        report.written += changed.timestampMs.length;
      }
      if (stale.length > 0) {
        const ranges = stale.map(([first, last]): DeleteRange => ({ seriesId: target.seriesId, inclusiveBeginMs: first, exclusiveEndMs: last + 1 }));
        await deps.store.deleteRanges(access.tenant, ranges);
        deps.deleted?.(access.tenant, ranges);
        report.deleted += staleCount;
      }
      lap('write');
      start = end;
    }
  }
  return report;
}

/** Whether an error of a recompute stops the function until its grants, inputs or expression change (else it is retried). */
export function stopsRecompute(error: unknown): boolean {
  return error instanceof ForbiddenError || error instanceof NotFoundError || error instanceof BadRequestError;
}

/** The target's acknowledged points in `window`, every page. */
async function readTarget(deps: RecomputeDeps, tenant: string, target: SeriesRef, window: ReadWindow): Promise<SeriesPoints> {
  await deps.readBarrier(tenant, [target.seriesId], [window]);
  const pages: SeriesPoints[] = [];
  let cursor: string | undefined;
  do {
    const page = await deps.store.readRaw(tenant, target, { start: window.start, end: window.end, limit: FUNCTION_CALL_POINTS_MAX, ...(cursor ? { cursor } : {}) });
    pages.push(page.points);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return pages.length === 1 ? pages[0] as SeriesPoints : joinPoints(target, pages);
}

function joinPoints(target: SeriesRef, pages: readonly SeriesPoints[]): SeriesPoints {
  const column = valueColumnOf(target.valueType);
  const joined: SeriesPoints = { seriesId: target.seriesId, valueType: target.valueType, timestampMs: Float64Array.from(pages.flatMap((p) => [...p.timestampMs])) };
  if (column === 'float') joined.float = Float64Array.from(pages.flatMap((p) => [...(p.float ?? [])]));
  else joined[column] = BigInt64Array.from(pages.flatMap((p) => [...(p[column] ?? [])]));
  return joined;
}

type ValueColumn = 'float' | 'bigint' | 'scaled';

function valueColumnOf(valueType: ValueType): ValueColumn {
  if (valueType === 'BIGINT') return 'bigint';
  return valueType === 'NUMERIC' || valueType === 'DECIMAL32' ? 'scaled' : 'float';
}

/** Halves away from zero, as the expression language's round does. */
const roundHalfAway = (x: number) => Math.sign(x) * Math.round(Math.abs(x));

/** The largest scaled integer each decimal type holds (precision digits of nines). */
const DECIMAL_MAX = { NUMERIC: 10 ** DECIMAL_FORMAT.NUMERIC.precision - 1, DECIMAL32: 10 ** DECIMAL_FORMAT.DECIMAL32.precision - 1 } as const;

/**
 * A value as the target's valueType stores it, or undefined when it cannot hold it: FLOAT32
 * rounded to single precision, BIGINT and the decimals rounded half away from zero to their
 * scale, within their range.
 */
function storable(valueType: ValueType, value: number): number | bigint | undefined {
  switch (valueType) {
    case 'FLOAT': return value;
    case 'FLOAT32': {
      const single = Math.fround(value);
      return Number.isFinite(single) ? single : undefined;
    }
    case 'BIGINT': {
      const whole = roundHalfAway(value);
      return Math.abs(whole) < 2 ** 63 ? BigInt(whole) : undefined;
    }
    case 'NUMERIC':
    case 'DECIMAL32': {
      const scaled = roundHalfAway(value * 10 ** DECIMAL_FORMAT[valueType].scale);
      return Math.abs(scaled) <= DECIMAL_MAX[valueType] ? BigInt(scaled) : undefined;
    }
    default: return undefined;
  }
}

/** The evaluated points the target stores, as its columns. */
function targetPoints(target: SeriesRef, page: readonly EvaluatedPoint[]): SeriesPoints {
  const column = valueColumnOf(target.valueType);
  const times: number[] = [];
  const values: (number | bigint)[] = [];
  for (const point of page) {
    if (!('value' in point)) continue;
    const value = storable(target.valueType, point.value);
    if (value === undefined) continue;
    times.push(point.timestamp);
    values.push(value);
  }
  const points: SeriesPoints = { seriesId: target.seriesId, valueType: target.valueType, timestampMs: Float64Array.from(times) };
  if (column === 'float') points.float = Float64Array.from(values as number[]);
  else points[column] = BigInt64Array.from(values as bigint[]);
  return points;
}

/**
 * The wanted points that the target lacks or holds another value for, and the target's points
 * no longer wanted, as runs [first, last] of timestamps with no wanted point among them (each
 * run one delete range that cannot touch a point just written).
 */
function difference(wanted: SeriesPoints, current: SeriesPoints): { changed: SeriesPoints; stale: [number, number][]; staleCount: number } {
  const column = valueColumnOf(wanted.valueType);
  const want = wanted[column] as Float64Array | BigInt64Array;
  const have = current[column] as Float64Array | BigInt64Array | undefined;
  const keep: number[] = [];
  const stale: [number, number][] = [];
  let staleCount = 0;
  let run: [number, number] | undefined;
  const staleAt = (j: number) => {
    const ts = current.timestampMs[j] as number;
    staleCount++;
    if (run) run[1] = ts;
    else stale.push(run = [ts, ts]);
  };
  let j = 0;
  for (let i = 0; i < wanted.timestampMs.length; i++) {
    const ts = wanted.timestampMs[i] as number;
    while (j < current.timestampMs.length && (current.timestampMs[j] as number) < ts) staleAt(j++);
    run = undefined;
    if (j < current.timestampMs.length && current.timestampMs[j] === ts) {
      if (!Object.is(have?.[j], want[i])) keep.push(i);
      j++;
    } else {
      keep.push(i);
    }
  }
  while (j < current.timestampMs.length) staleAt(j++);
  const changed: SeriesPoints = { seriesId: wanted.seriesId, valueType: wanted.valueType, timestampMs: Float64Array.from(keep, (i) => wanted.timestampMs[i] as number) };
  if (column === 'float') changed.float = Float64Array.from(keep, (i) => want[i] as number);
  else changed[column] = BigInt64Array.from(keep, (i) => want[i] as bigint);
  return { changed, stale, staleCount };
}
