// The insert use case (POST /timeseries/data): scan the raw body in a worker, resolve its series
// (existence, grants), encode the values against their valueTypes, charge the quotas and append
// to the ingest log; resolves once the points are durable (CONTRACT: 2xx means stored). Reading
// the body and checking its Content-Type are the API's; the workers behind the parser port do
// the per-point work.
import type { FieldProblem } from '../errors.ts';
import { BadRequestError, UnprocessableError } from '../errors.ts';
import type { Access } from '../grants/access.ts';
import { mergeSameSeries, packedHasRepeatedId } from '../datapoints/write/merge-series.ts';
import { SERIES_VALUE_COLUMNS, seriesColumnAt, type SeriesPoints } from '../datapoints/types.ts';
import type { IngestLog } from './ingest-log.ts';
import { unknownSeriesError } from '../datapoints/unknown-series.ts';
import type { SlabPool, Slab } from '../memory/slab-pool.ts';
import type { SeriesDirectory } from '../meta/series-directory.ts';
import { hintedTargets, resolveSeriesTargets } from '../meta/series-targets.ts';
import { timed, type Metrics } from '../metrics.ts';
import type { Quotas } from '../quotas/quotas.ts';
import type { BodyScanProblem, BodyValueProblem, DatapointBodyFormat, DatapointBodyLayout, DatapointBodyParser } from './datapoint-body-parser.ts';
import type { TargetHints } from './target-hints.ts';
import type { WriteGuard } from '../functions/target-guard.ts';

export interface InsertDatapointsDeps {
  /** Where the series are resolved (PostgreSQL behind keys held in memory). */
  series: SeriesDirectory;
  ingestLog: IngestLog;
  parser: DatapointBodyParser;
  layout: DatapointBodyLayout;
  /** Shared memory for the scanned and encoded columns (slab-pool.ts). */
  slabs: SlabPool;
  targetHints: TargetHints;
  quotas: Quotas;
  metrics: Metrics;
  mode: 'group-commit' | 'kafka';
  /** Refuses writes into series only a function writes (functions/target-guard.ts). */
  guardWrites?: WriteGuard;
}

/** Rules of the CDF surface's insert that SPEC's lacks (api/cdf). SPEC's rules when omitted. */
export interface InsertDatapointsOptions {
  /** 'reject': a missing or unreadable series fails the whole request before anything is written (CDF), instead of SPEC's 404 after inserting the others. */
  missingSeries?: 'insert-others' | 'reject';
  /** Points of the whole request, at most (CDF: 100 000); over it is a 400 and nothing is written. */
  pointsPerRequestMax?: number;
  /** The body's format: JSON, or an Arrow IPC stream whose rows name their series. @default 'json' */
  format?: DatapointBodyFormat;
}

/** `items[3].datapoints[7].value` (the workers' JSON path) as the API's field names: `items.3.datapoints.7.value`. */
function fieldName(path: string): string {
  return path.replace(/\[(\d+)\]/g, '.$1');
}

function scanProblems(errors: readonly BodyScanProblem[]): FieldProblem[] {
  return errors.map((e) => ({
    field: fieldName(e.field), message: e.message,
    ...(e.itemIndex !== undefined ? { index: e.itemIndex } : {}),
    ...(e.pointIndex !== undefined ? { pointIndex: e.pointIndex } : {}),
    ...(e.limit !== undefined ? { limit: e.limit } : {}),
  }));
}

function valueProblems(errors: readonly BodyValueProblem[]): FieldProblem[] {
  return errors.map((e) => ({
    field: fieldName(e.field), message: e.message, index: e.itemIndex, pointIndex: e.pointIndex, value: e.value, valueType: e.valueType, reason: e.reason,
    ...(e.limit !== undefined ? { limit: e.limit } : {}),
  }));
}

/** A slab with at most this much beyond its columns' bytes is handed to the ingest log whatever its fill. */
const HANDED_SLAB_SLACK_BYTES_MAX = 1024 * 1024;
/** Past this many times its columns' bytes (and that slack), a slab is not handed over. */
const HANDED_SLAB_OVERSIZE = 4;

/**
 * Whether the encoded columns fill enough of their slab for the ingest log to hold it until
 * the insert. The speculative slab is sized for the densest body of its size (a point every 25
 * bytes, each its own item: 41 bytes of slab for each): a 100,000-point bulk request's 1.6 MB
 * of columns lay in an 8 MiB slab, and the log held up to 19 such requests before their insert
 * (bench/probe.ts bulk --series 30 --arrow: 152 MiB on loan). Copied into a fitting slab (the
 * log's ownedCopy: one block copy) they take 2 MiB. A gateway request's 128 KiB slab is handed
 * over as it is (no copy per small request), and so is the slab the encode sized for its
 * columns (at most ~2.2 times their bytes).
 */
export function fitsItsColumns(slab: Slab, columnBytes: number): boolean {
  return slab.buffer.byteLength < HANDED_SLAB_OVERSIZE * columnBytes || slab.buffer.byteLength - columnBytes <= HANDED_SLAB_SLACK_BYTES_MAX;
}

/** Bytes of the series' columns (packed series count theirs as PackedRows.columnByteCount). */
export function seriesColumnBytes(series: readonly SeriesPoints[]): number {
  let bytes = 0;
  for (const s of series) {
    for (let c = 0; c <= SERIES_VALUE_COLUMNS.length; c++) bytes += seriesColumnAt(s, c)?.byteLength ?? 0;
  }
  return bytes;
}

/**
 * Inserts the points of one POST /timeseries/data body. `rawBody` may be pooled shared memory
 * (valid until this resolves). Throws BadRequestError (shape, points cap), UnprocessableError
 * (values against their valueType: nothing is written), NotFoundError after inserting the
 * items whose series exist (SPEC), quota errors, OverloadedError when the workers are busy.
 */
export async function insertDatapoints(access: Access, rawBody: Uint8Array, deps: InsertDatapointsDeps, options: InsertDatapointsOptions = {}): Promise<void> {
  // Announced while parsing, so the group commit can wait for this request to join it.
  const appended = deps.ingestLog.expectAppend?.();
  // The scanned and the encoded columns live in pooled shared memory; the encoded columns' slab
  // goes to the ingest log with the points (released once inserted), the rest at the answer.
  const slabs: Slab[] = [];
  try {
    await insertDatapointsAnnounced(access, rawBody, deps, options, appended, slabs);
  } finally {
    appended?.();
    for (const slab of slabs) slab.release();
  }
}

async function insertDatapointsAnnounced(
  access: Access, rawBody: Uint8Array, deps: InsertDatapointsDeps, options: InsertDatapointsOptions, appended: (() => void) | undefined, slabs: Slab[],
): Promise<void> {
  const format = options.format ?? 'json';
  const scratch = deps.slabs.acquire(deps.layout.scanScratchBytes(rawBody.byteLength, format));
  slabs.push(scratch);
  // With what we last knew of this tenant's series, the worker encodes in the scan task too.
  const tenantHints = deps.targetHints.hintsFor(access.tenant);
  const hints = tenantHints?.hints;
  const guessed = hints ? deps.slabs.acquire(deps.layout.speculativeOutputBytes(rawBody.byteLength, format)) : undefined;
  if (guessed) slabs.push(guessed);
  const { body, scanned, speculative } = await deps.parser.scan(rawBody, scratch.buffer, hints && guessed ? { hints, output: guessed.buffer } : undefined, format);
  if (scanned.errors.length > 0) throw new BadRequestError(`Invalid data point request: ${scanned.errors[0]?.message}`, scanProblems(scanned.errors));
  const pointsMax = options.pointsPerRequestMax;
  if (pointsMax !== undefined && scanned.pointCount > pointsMax) {
    throw new BadRequestError(`The request holds ${scanned.pointCount} data points; at most ${pointsMax} per request: split the batch`, [
      { field: 'items', message: `at most ${pointsMax} data points per request`, value: scanned.pointCount, limit: pointsMax },
    ]);
  }
  // Hints learned in the directory's current epoch are the resolution itself (a gateway writing
  // the series it wrote a second ago); otherwise every item is resolved by its identifiers.
  const hinted = tenantHints && speculative?.byHintKeyAlone ? hintedTargets(deps.series, access, tenantHints, speculative.picks, 'write') : undefined;
  const epoch = deps.series.held(access.tenant)?.epoch;
  // The scanned items themselves: only their id and externalId are read (no copy per item).
  const { targets, missing } = hinted ? { targets: hinted, missing: [] } : await resolveSeriesTargets(deps.series, access, scanned.items, 'write');
  if (missing.length > 0 && options.missingSeries === 'reject') throw unknownSeriesError(missing, 'Nothing was inserted');
  const valueTypes = hinted && speculative ? speculative.valueTypes : targets.map((t) => t?.valueType ?? null);
  const seriesIds = hinted && speculative ? speculative.seriesIds : targets.map((t) => t?.seriesId ?? null);
  await deps.guardWrites?.(access, seriesIds);
  // The guess stands only if every item resolved to exactly the series and valueType assumed.
  const guessRight = speculative !== undefined && (hinted !== undefined || valueTypes.every((v, i) => v === speculative.valueTypes[i] && seriesIds[i] === speculative.seriesIds[i]));
  // Right hints of the epoch they were resolved in teach nothing; right ones of an older epoch
  // are learned again, so the next request may take them as resolved.
  if (!guessRight || (!hinted && tenantHints?.epoch !== epoch)) deps.targetHints.learn(access.tenant, scanned.items, targets, epoch);
  let encoded = guessRight ? speculative.encoded : undefined;
  // The slab the encoded columns lie in: it goes to the ingest log with them (no copy there).
  let columns = guessRight ? guessed : undefined;
  if (!encoded) {
    columns = deps.slabs.acquire(deps.layout.encodeOutputBytes(scanned.pointCount, scanned.items.length));
    slabs.push(columns);
    encoded = await deps.parser.encode(body, scanned, valueTypes, seriesIds, columns.buffer);
  }
  const capErrors = encoded.errors.filter((e) => e.reason === 'points-cap');
  if (capErrors.length > 0) throw new BadRequestError('Too many data points in one collection; split the batch', valueProblems(capErrors));
  // SPEC: a value that does not parse against the valueType is a 422; nothing is written.
  if (encoded.errors.length > 0) throw new UnprocessableError(`${encoded.errors.length} value(s) do not parse against their series' valueType`, valueProblems(encoded.errors));
  // The workers' columns go to the log as they came, packed, when the log takes them so and no
  // series is named twice (those are merged first: mergeSameSeries).
  const { packed } = encoded;
  const appendPacked = deps.ingestLog.appendPacked?.bind(deps.ingestLog);
  if (packed && appendPacked && !packedHasRepeatedId(packed)) {
    if (packed.seriesCount > 0) {
      await logPoints(access, deps, { points: packed.pointCount, text: packed.textPointCount, columnBytes: packed.columnByteCount }, columns, slabs, appended, (handed) => appendPacked(access.tenant, packed, handed));
    }
  } else {
    const series = mergeSameSeries(encoded.series.filter((s): s is SeriesPoints => s !== null && s.timestampMs.length > 0));
    if (series.length > 0) {
      let pointCount = 0;
      let textCount = 0;
      for (const s of series) {
        pointCount += s.timestampMs.length;
        if (s.valueType === 'TEXT' || s.valueType === 'MIXED') textCount += s.timestampMs.length;
      }
      await logPoints(access, deps, { points: pointCount, text: textCount, columnBytes: seriesColumnBytes(series) }, columns, slabs, appended, (handed) => deps.ingestLog.append({ tenant: access.tenant, series }, handed));
    }
  }
  // SPEC: 404 when some targets are missing; the others are still inserted.
  if (missing.length > 0) throw unknownSeriesError(missing, 'Some items were not inserted');
}

/**
 * Charges the points to the tenant's quota and appends them (`append`, given the columns'
 * slab when the log may keep it); resolves once they are durable.
 */
async function logPoints(
  access: Access, deps: InsertDatapointsDeps, counts: { points: number; text: number; columnBytes: number }, columns: Slab | undefined, slabs: Slab[],
  appended: (() => void) | undefined, append: (handed: Slab | undefined) => Promise<void>,
): Promise<void> {
  await deps.quotas.chargeDatapoints(access.tenant, counts.points, counts.text);
  // From here the log releases the columns' slab, not this request; a slab mostly slack
  // stays with the request, and the log copies the columns into one that fits.
  const at = columns !== undefined && fitsItsColumns(columns, counts.columnBytes) ? slabs.indexOf(columns) : -1;
  const handed = at >= 0 ? slabs.splice(at, 1)[0] : undefined;
  const appending = append(handed);
  appended?.();
  await timed(deps.metrics, 'ingest-log', 'append', () => appending);
  deps.metrics.datapointsIngested.inc({ mode: deps.mode }, counts.points);
}
