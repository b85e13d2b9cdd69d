// The insert path of the data point store: asserts the batch invariants, writes the
// points of each storage family with one columnar insert (all tenants and batches of a group
// commit together), with the dirty marks of dirty-ranges.ts (which hours of which series
// changed). Rollups and latest points are left to the fold (rollup-fold.ts), off this path.
import assert from 'node:assert/strict';
import type { ColumnarStore, InsertColumn } from '../../stores/columnar.ts';
import { ColumnArena } from '../../memory/column-arena.ts';
import type { SlabPool } from '../../memory/slab-pool.ts';
import { EventLoopTurns } from '../../scheduling/event-loop-turns.ts';
import type { MarkOrderGate } from './mark-order-gate.ts';
import { dirtyRangesOf, writeDirtyRanges, type DirtyRange } from './dirty-ranges.ts';
import { FAMILY_SHAPES, familyOf, type Family, type FamilyShape } from '../tables/families.ts';
import { PACKED_BIGINT, PACKED_FLOAT, PACKED_IS_TEXT, PACKED_SCALED, PACKED_TS, PackedBatch } from './packed-batch.ts';
import type { SeriesPoints } from '../types.ts';
import type { IngestBatch } from '../../ingest/ingest-log.ts';
import { groupByFamily, type FamilyRows } from './family-rows.ts';

const VERSION_LIMIT = 1n << 63n;
const DECIMAL32_SCALED_MAX = 999_999_999n;

// The checks below run for every series of every write (a gateway's group commit: ~40,000):
// their messages are built only on failure.

function assertColumn(name: string, column: { length: number } | undefined, length: number, seriesId: number): void {
  if (column === undefined) assert.fail(`series ${seriesId}: the ${name} column is missing`);
  if (column.length !== length) assert.fail(`series ${seriesId}: the ${name} column has ${column.length} entries, expected ${length}`);
}

/** STYLE §6: the write path refuses a batch that breaks an invariant of types.ts. */
export function assertSeriesPoints(points: SeriesPoints): void {
  const { seriesId, timestampMs } = points;
  if (!(Number.isSafeInteger(seriesId) && seriesId > 0)) assert.fail(`series id ${seriesId} is not a positive safe integer`);
  const length = timestampMs.length;
  for (let i = 1; i < length; i++) {
    if (!((timestampMs[i] as number) > (timestampMs[i - 1] as number))) assert.fail(`series ${seriesId}: timestamps not strictly ascending at index ${i}`);
  }
  if (length > 0 && !(Number.isSafeInteger(timestampMs[0]) && Number.isSafeInteger(timestampMs[length - 1]))) assert.fail(`series ${seriesId}: timestamps must be integers`);
  switch (familyOf(points.valueType)) {
    case 'float': assertColumn('float', points.float, length, seriesId); break;
    case 'int': assertColumn('bigint', points.bigint, length, seriesId); break;
    case 'numeric': assertColumn('scaled', points.scaled, length, seriesId); break;
    case 'decimal32':
      assertColumn('scaled', points.scaled, length, seriesId);
      for (const scaled of points.scaled as BigInt64Array) {
        if (scaled > DECIMAL32_SCALED_MAX || scaled < -DECIMAL32_SCALED_MAX) assert.fail(`series ${seriesId}: DECIMAL32 value ${scaled} out of range`);
      }
      break;
    case 'text': assertColumn('text', points.text, length, seriesId); break;
    case 'mixed':
      assertColumn('float', points.float, length, seriesId);
      assertColumn('text', points.text, length, seriesId);
      assertColumn('isText', points.isText, length, seriesId);
      break;
  }
}

export function assertIngestBatch(batch: IngestBatch): void {
  assertBatchHead(batch);
  for (const points of batch.series) assertSeriesPoints(points);
}

function assertBatchHead(batch: { tenant: string; writeVersion: bigint }): void {
  assert.ok(typeof batch.tenant === 'string' && batch.tenant.length > 0, 'batch without tenant');
  assert.ok(batch.writeVersion > 0n && batch.writeVersion < VERSION_LIMIT, `writeVersion ${batch.writeVersion} out of range`);
}

function assertPackedColumn(batch: PackedBatch, i: number, column: number, name: string): void {
  if (!batch.has(i, column)) assert.fail(`series ${batch.seriesId(i)}: the ${name} column is missing`);
}

/** assertIngestBatch's checks on a batch that came packed (its columns' lengths are its n by construction). */
export function assertPackedBatch(batch: PackedBatch): void {
  assertBatchHead(batch);
  for (let i = 0; i < batch.seriesCount; i++) {
    const seriesId = batch.seriesId(i);
    if (!(Number.isSafeInteger(seriesId) && seriesId > 0)) assert.fail(`series id ${seriesId} is not a positive safe integer`);
    const length = batch.length(i);
    const times = batch.f64(i, PACKED_TS);
    const t0 = batch.start(i, PACKED_TS);
    if (!(length > 0 && t0 + length <= times.length)) assert.fail(`series ${seriesId}: ${length} points outside its memory`);
    for (let k = 1; k < length; k++) {
      if (!((times[t0 + k] as number) > (times[t0 + k - 1] as number))) assert.fail(`series ${seriesId}: timestamps not strictly ascending at index ${k}`);
    }
    if (!(Number.isSafeInteger(times[t0]) && Number.isSafeInteger(times[t0 + length - 1]))) assert.fail(`series ${seriesId}: timestamps must be integers`);
    const text = batch.text(i);
    switch (familyOf(batch.valueType(i))) {
      case 'float': assertPackedColumn(batch, i, PACKED_FLOAT, 'float'); break;
      case 'int': assertPackedColumn(batch, i, PACKED_BIGINT, 'bigint'); break;
      case 'numeric': assertPackedColumn(batch, i, PACKED_SCALED, 'scaled'); break;
      case 'decimal32': {
        assertPackedColumn(batch, i, PACKED_SCALED, 'scaled');
        const scaled = batch.i64(i, PACKED_SCALED);
        const s0 = batch.start(i, PACKED_SCALED);
        for (let k = s0; k < s0 + length; k++) {
          const value = scaled[k] as bigint;
          if (value > DECIMAL32_SCALED_MAX || value < -DECIMAL32_SCALED_MAX) assert.fail(`series ${seriesId}: DECIMAL32 value ${value} out of range`);
        }
        break;
      }
      case 'text': assertColumn('text', text, length, seriesId); break;
      case 'mixed':
        assertPackedColumn(batch, i, PACKED_FLOAT, 'float');
        assertColumn('text', text, length, seriesId);
        assertPackedColumn(batch, i, PACKED_IS_TEXT, 'isText');
        break;
    }
  }
}

/** The text column of a text or mixed family's parts, in insert order. */
function concatText(group: FamilyRows): string[] {
  const out: string[] = [];
  for (let p = 0; p < group.partCount; p++) {
    const text = (group.batches[group.partBatch[p] as number] as PackedBatch).text(group.partSeries[p] as number) as string[];
    for (const value of text) out.push(value);
  }
  return out;
}

/** Bytes of the numeric columns familyColumns carves out of its arena (at most five 8-byte ones and a flag). */
function familyColumnBytes(group: FamilyRows): number {
  return ColumnArena.bytesFor([8, 8, 8, 8, 4, 1].map((width) => width * group.pointCount));
}

/** Parts between two looks at the slice's clock while the columns are filled. */
const PARTS_PER_CHECK = 512;
/**
 * Up to this many points a part's entries are copied one by one: a gateway's parts hold ~10,
 * and five fill()/set() calls per part cost more than the copying (5.9 against 2.7 ms for
 * 40,000 parts of 10 points, Node 20).
 */
const SHORT_PART_POINTS = 32;

/** The Arrow columns of one family's rows: keys, version, then the family's value columns (every entry written). */
async function familyColumns(family: Family, group: FamilyRows, arena: ColumnArena, turns: EventLoopTurns | undefined): Promise<InsertColumn[]> {
  const n = group.pointCount;
  const several = group.tenants.length > 1;
  const seriesId = arena.float64(n);
  const ts = arena.float64(n);
  const version = arena.bigint64(n);
  const float = family === 'float' || family === 'mixed' ? arena.float64(n) : undefined;
  const integer = family === 'int' || family === 'numeric' || family === 'decimal32' ? arena.bigint64(n) : undefined;
  const integerColumn = family === 'int' ? PACKED_BIGINT : PACKED_SCALED;
  const tenantIndex = several ? arena.int32(n) : undefined;
  const isText = family === 'mixed' ? arena.uint8(n) : undefined;
  // Each part's place in the columns: the parts' points one after another, in the group's
  // order (sorted, or as they arrived: family-rows.ts sortsBeforeInsert).
  const partAt = new Int32Array(group.partCount);
  for (let k = 0, at = 0; k < group.partCount; k++) {
    partAt[k] = at;
    at += (group.batches[group.partBatch[k] as number] as PackedBatch).length(group.partSeries[k] as number);
  }
  // The parts are read in the order their memory lies in and written to their places (their
  // sorted ones, when sorted): read in sorted order, each short part is a jump to another
  // request's memory (written by a parse worker on the other core), and filling a gateway
  // commit's columns took 56-62 ns a point against 39-47 so (the same probe by turns,
  // bench/probe.ts gateway --one-tenant).
  const { sortedPlace } = group;
  for (let p = 0; p < group.partCount; p++) {
    if (turns && p % PARTS_PER_CHECK === 0 && turns.due()) await turns.turn();
    const k = sortedPlace ? (sortedPlace[p] as number) : p;
    const batch = group.batches[group.partBatch[k] as number] as PackedBatch;
    const i = group.partSeries[k] as number;
    const index = group.partTenant[k] as number;
    const at = partAt[k] as number;
    const v = batch.writeVersion;
    const length = batch.length(i);
    const times = batch.f64(i, PACKED_TS);
    const t0 = batch.start(i, PACKED_TS);
    if (length <= SHORT_PART_POINTS) {
      const id = batch.seriesId(i);
      for (let k = 0; k < length; k++) {
        seriesId[at + k] = id;
        ts[at + k] = times[t0 + k] as number;
        version[at + k] = v;
      }
      if (tenantIndex) for (let k = 0; k < length; k++) tenantIndex[at + k] = index;
      if (float) {
        const from = batch.f64(i, PACKED_FLOAT);
        const f0 = batch.start(i, PACKED_FLOAT);
        for (let k = 0; k < length; k++) float[at + k] = from[f0 + k] as number;
      }
      if (integer) {
        const from = batch.i64(i, integerColumn);
        const f0 = batch.start(i, integerColumn);
        for (let k = 0; k < length; k++) integer[at + k] = from[f0 + k] as bigint;
      }
      if (isText) {
        const from = batch.u8(i, PACKED_IS_TEXT);
        const f0 = batch.start(i, PACKED_IS_TEXT);
        for (let k = 0; k < length; k++) isText[at + k] = from[f0 + k] as number;
      }
    } else {
      tenantIndex?.fill(index, at, at + length);
      seriesId.fill(batch.seriesId(i), at, at + length);
      version.fill(v, at, at + length);
      ts.set(times.subarray(t0, t0 + length), at);
      if (float) float.set(batch.f64(i, PACKED_FLOAT).subarray(batch.start(i, PACKED_FLOAT), batch.start(i, PACKED_FLOAT) + length), at);
      if (integer) integer.set(batch.i64(i, integerColumn).subarray(batch.start(i, integerColumn), batch.start(i, integerColumn) + length), at);
      if (isText) isText.set(batch.u8(i, PACKED_IS_TEXT).subarray(batch.start(i, PACKED_IS_TEXT), batch.start(i, PACKED_IS_TEXT) + length), at);
    }
  }
  const text = family === 'text' || family === 'mixed' ? concatText(group) : undefined;
  return familyInsertColumns(family, { seriesId, ts, version, tenantIndex, float, integer, text, isText });
}

/** The filled columns of one family's rows (FamilyColumnData's entries, one per point). */
export interface FamilyColumnData {
  seriesId: Float64Array;
  ts: Float64Array;
  version: BigInt64Array;
  /** Present when the rows are of several tenants: the index into the insert's bound tenants. */
  tenantIndex?: Int32Array;
  /** FLOAT and MIXED. */
  float?: Float64Array;
  /** BIGINT's values, the decimals' scaled integers. */
  integer?: BigInt64Array;
  /** TEXT's values, MIXED's text ('' for numeric points). */
  text?: readonly string[];
  /** MIXED. */
  isText?: Uint8Array;
}

/**
 * A family's rows as the insert's Arrow columns, named as the raw table's insert SELECT
 * (families.ts insertValueSelect) and a queued read's (queuedValueExprs) read them.
 */
export function familyInsertColumns(family: Family, data: FamilyColumnData): InsertColumn[] {
  const columns: InsertColumn[] = [
    { name: 'series_id', type: 'Float64', data: data.seriesId },
    { name: 'ts', type: 'Float64', data: data.ts },
    { name: 'version', type: 'Int64', data: data.version },
  ];
  if (data.tenantIndex) columns.push({ name: 'tenant_index', type: 'Int32', data: data.tenantIndex });
  if (data.float) columns.push({ name: 'value', type: 'Float64', data: data.float });
  if (data.integer) columns.push({ name: 'value', type: 'Int64', data: data.integer });
  if (family === 'text') columns.push({ name: 'value', type: 'String', data: data.text ?? [] });
  if (family === 'mixed') {
    columns.push({ name: 'text', type: 'String', data: data.text ?? [] });
    columns.push({ name: 'is_text', type: 'UInt8', data: data.isText ?? new Uint8Array(0) });
  }
  return columns;
}

async function insertFamily(store: ColumnarStore, family: Family, group: FamilyRows, slabs: SlabPool | undefined, turns: EventLoopTurns | undefined): Promise<void> {
  const shape = FAMILY_SHAPES[family];
  // The insert's columns in reused memory (slab-pool.ts), free again once the engine has the part.
  const slab = slabs?.acquire(familyColumnBytes(group));
  try {
    const columns = await familyColumns(family, group, new ColumnArena(slab?.buffer, { zero: false }), turns);
    // The statement starts on a fresh slice. (Registering the columns with chdb 3.4 takes
    // ~0.05 ms for 400,000 rows and queryAsync returns at once: the engine's work is off this thread.)
    if (turns) await turns.turn();
    await insertFamilyColumns(store, shape, group, columns);
  } finally {
    slab?.release();
  }
}

async function insertFamilyColumns(store: ColumnarStore, shape: FamilyShape, group: FamilyRows, columns: InsertColumn[]): Promise<void> {
  // One tenant (the usual case) is a bound constant; several go by index into a bound array.
  const single = group.tenants.length === 1;
  const tenant = single ? '{tenant:String}' : 'arrayElement({tenants:Array(String)}, assumeNotNull(tenant_index))';
  await store.insertColumns({
    table: shape.rawTable,
    targetColumns: ['tenant', 'series_id', 'ts', 'version', ...shape.insertValueTargets],
    select: `${tenant}, toUInt64(assumeNotNull(series_id)), toInt64(assumeNotNull(ts)), toUInt64(assumeNotNull(version)), ${shape.insertValueSelect}`,
    columns,
    params: single ? { tenant: group.tenants[0] as string } : { tenants: group.tenants },
    // The engine would otherwise run a Replacing merge over every inserted block (~30% of the
    // insert's time); reads use FINAL, which also collapses duplicates within one part.
    settings: { optimize_on_insert: 0 },
  });
}

/**
 * Points from which an insert's synchronous work is cut into slices (event-loop-turns.ts): a
 * gateway's group commit of ~400,000 points held the event loop for 45-80 ms at a time, and a
 * read arriving meanwhile waited for all of it (bench/probe.ts gateway, 2026-11-25). Smaller
 * inserts finish within a slice anyway.
 */
export const SLICED_INSERT_POINTS = 50_000;

/** Slices for an insert of `points` points, or none when it is small. */
export function insertTurns(points: number): EventLoopTurns | undefined {
  return points >= SLICED_INSERT_POINTS ? new EventLoopTurns() : undefined;
}

/** The points of a group commit's batches. */
export function pointCountOf(batches: readonly (IngestBatch | PackedBatch)[]): number {
  let points = 0;
  for (const batch of batches) {
    if (batch instanceof PackedBatch) points += batch.pointCount;
    else for (const series of batch.series) points += series.timestampMs.length;
  }
  return points;
}

/**
 * The batches as the insert reads them. A batch not yet packed is checked here (STYLE §6);
 * a PackedBatch is made by the group commit of a batch it checked on the way in.
 */
export async function packedChecked(batches: readonly (IngestBatch | PackedBatch)[], turns: EventLoopTurns | undefined): Promise<PackedBatch[]> {
  const out: PackedBatch[] = [];
  for (const batch of batches) {
    if (batch instanceof PackedBatch) {
      out.push(batch);
      continue;
    }
    await turns?.maybe();
    assertIngestBatch(batch);
    out.push(new PackedBatch(batch));
  }
  return out;
}

/**
 * The points alone, one insert per storage family, in parallel (writeBatches adds the marks).
 * With `slabs`, the insert's columns are carved out of pooled memory. `turns`: the slices of
 * the caller's job (default: insertTurns of the batches' points).
 */
export async function insertPoints(store: ColumnarStore, batches: readonly (IngestBatch | PackedBatch)[], slabs?: SlabPool, turns = insertTurns(pointCountOf(batches))): Promise<void> {
  const groups = await groupByFamily(await packedChecked(batches, turns), turns);
  await Promise.all([...groups].map(([family, group]) => insertFamily(store, family, group, slabs, turns)));
}

/**
 * Writes the points of every batch and their dirty marks; resolves once both are durable.
 * Without a gate, the marks only after the points: a mark younger than the points is what
 * lets the fold trust that it saw them (datapoint-tables.sql.ts). With one, both at once, and
 * the fold's clock waits for the pair (mark-order-gate.ts). `ranges`: the batches' marks, when
 * the caller has them already (dirtyRangesOf).
 */
export async function writeBatches(
  store: ColumnarStore, batches: readonly (IngestBatch | PackedBatch)[], slabs?: SlabPool, gate?: MarkOrderGate, ranges: readonly DirtyRange[] = dirtyRangesOf(batches),
  turns = insertTurns(pointCountOf(batches)),
): Promise<void> {
  if (!gate) {
    await insertPoints(store, batches, slabs, turns);
    await writeDirtyRanges(store, ranges);
    return;
  }
  await gate.insert(async () => {
    await Promise.all([insertPoints(store, batches, slabs, turns), writeDirtyRanges(store, ranges)]);
  });
}
