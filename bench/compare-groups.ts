// The shape groups bench/compare.ts times: the metadata and events suites' data, loaded into
// both services in turn, and their read shapes with the suites' own request bodies, each
// round sent to both (interleave.ts). Every answer's item count is compared between the sides
// and with the generator's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { apiLoad, createResources, generateLoad } from './events-load.ts';
import { advancedFilterRead, EVENTS_SIZES, EventLog, searchRead, typeWindowRead, type EventsSize } from './events-workload.ts';
import { HttpClient, parseJson, UnexpectedAnswerError } from './http-client.ts';
import { interleave, summarizeShape, type RoundAnswer, type ShapeSummary, type SideName } from './interleave.ts';
import { METADATA_SIZES, metadataPatternRead, metadataSeries, metadataTenant, type TimeSeriesRecord } from './metadata.ts';
import { cpuUntilIdle, treeCpuSeconds } from './proc-stats.ts';
import { mulberry32 } from './prng.ts';
import type { RunningService } from './service.ts';

export const WARMUP_ROUNDS = 5;
/** Bound on the wait for each service to go idle after a load (PostgreSQL's ANALYZE, GIN pending lists). */
const SETTLE_SECONDS_MAX = 30;

/** What a group reads of compare's options. */
export interface GroupOptions {
  runCount: number;
  eventCount: number;
  seed: number;
  log: (line: string) => void;
}

/** Registers an undo step (compare.ts's cleanup: last in, first out, also after a signal). */
export type Defer = (what: string, run: () => Promise<void> | void) => void;

export interface Side {
  name: SideName;
  service: RunningService;
}

export interface Mismatch { shape: string; round: number; items: Record<SideName, number>; expected?: number }

export interface GroupResult {
  summaries: ShapeSummary[];
  createRates: string;
  mismatches: Mismatch[];
  mismatchRounds: number;
}

interface Shape<T> {
  name: string;
  prepare: (round: number) => T;
  send: (side: SideName, request: T) => Promise<RoundAnswer>;
  /** The item count the generator says the answer has, when it knows. */
  expected?: (request: T) => number;
}

async function timeShape<T>(opts: GroupOptions, shape: Shape<T>, mismatches: Mismatch[]): Promise<{ summary: ShapeSummary; mismatchRounds: number }> {
  let mismatchRounds = 0;
  const samples = await interleave({ warmupCount: WARMUP_ROUNDS, runCount: opts.runCount }, shape.prepare, shape.send, (round, request, items) => {
    const expected = shape.expected?.(request);
    if (items.A === items.B && (expected === undefined || items.A === expected)) return;
    mismatchRounds++;
    if (mismatches.filter((m) => m.shape === shape.name).length < 3) mismatches.push({ shape: shape.name, round, items: { ...items }, ...(expected === undefined ? {} : { expected }) });
  });
  const summary = summarizeShape(shape.name, samples);
  opts.log(`${shape.name}: A median ${summary.a.medianMs.toFixed(1)} ms, B median ${summary.b.medianMs.toFixed(1)} ms, B/A ${summary.ratio.toFixed(2)}${mismatchRounds ? `, ${mismatchRounds} rounds with differing item counts` : ''}`);
  return { summary, mismatchRounds };
}

/** POST a body, 200 or throw; the answer's time and its items. */
async function postItems(client: HttpClient, route: string, body: Buffer): Promise<RoundAnswer> {
  const answer = await client.postJson(route, body);
  return { elapsedMs: answer.elapsedMs, items: parseJson<{ items: unknown[] }>(answer).items.length };
}

/** Waits until both services' process trees are idle, bounded; says how each ended. */
async function settle(opts: GroupOptions, sides: Side[], what: string): Promise<void> {
  const ended = await Promise.all(sides.map(async (side) => {
    const after = await cpuUntilIdle(side.service.rootPid, treeCpuSeconds(side.service.rootPid), { boundSeconds: SETTLE_SECONDS_MAX });
    return `${side.name} ${after.idle ? `idle after ${after.busySeconds.toFixed(0)} s` : `still busy after ${SETTLE_SECONDS_MAX} s`}`;
  }));
  opts.log(`${what}: settled: ${ended.join(', ')}`);
}

/** Rate per second from a count and a duration in ms. */
const perSecond = (count: number, ms: number) => (count * 1000) / ms;
const rate = (value: number) => Math.round(value).toLocaleString('en-US');

/**
 * The metadata suite's data (100,000 series in 10,000-series creates, into each side in turn)
 * and its three read shapes: the filter pages with metadata.ts's bodies, and byids of 1,000
 * random series, the same series on both sides (their ids differ per side).
 */
export async function compareMetadata(opts: GroupOptions, sides: Side[], defer: Defer): Promise<GroupResult> {
  const { log } = opts;
  const size = METADATA_SIZES.full;
  const tenant = metadataTenant();
  const clients = {} as Record<SideName, HttpClient>;
  for (const side of sides) {
    const client = new HttpClient(side.service.url, { headers: { authorization: `Bearer ${side.service.token(tenant)}` } });
    clients[side.name] = client;
    defer(`closing the metadata client of ${side.name}`, () => client.close());
  }
  // The request bodies made once, before any clock: both sides get the same bytes.
  const batches: { body: Buffer; externalIds: string[] }[] = [];
  for (let from = 0; from < size.seriesCount; from += size.createBatchSize) {
    const items = Array.from({ length: Math.min(size.createBatchSize, size.seriesCount - from) }, (_, k) => metadataSeries(from + k));
    batches.push({ body: Buffer.from(JSON.stringify({ items })), externalIds: items.map((s) => s.externalId) });
  }
  const ids = {} as Record<SideName, number[]>;
  const rates: string[] = [];
  for (const side of sides) {
    const created: number[] = [];
    const started = performance.now();
    for (const batch of batches) {
      const items = parseJson<{ items: TimeSeriesRecord[] }>(await clients[side.name].postJson('/timeseries/create', batch.body, 201)).items;
      if (items.length !== batch.externalIds.length || items.some((r, k) => r.externalId !== batch.externalIds[k])) throw new Error(`${side.name}: /timeseries/create answered ${items.length} series of ${batch.externalIds.length}, or out of order`);
      created.push(...items.map((r) => r.id));
    }
    const seriesPerSecond = perSecond(created.length, performance.now() - started);
    ids[side.name] = created;
    rates.push(`${side.name} ${rate(seriesPerSecond)} series/s`);
    log(`metadata: ${side.name} created ${created.length} series at ${rate(seriesPerSecond)} series/s`);
  }
  await settle(opts, sides, 'metadata');

  const mismatches: Mismatch[] = [];
  let mismatchRounds = 0;
  const summaries: ShapeSummary[] = [];
  const pageOf = (count: number) => Math.min(size.pageSize, count);
  const fixed = (name: string, body: unknown, expected: number): Shape<Buffer> => {
    const bytes = Buffer.from(JSON.stringify(body));
    return { name, prepare: () => bytes, send: (side, b) => postItems(clients[side], '/timeseries/filter', b), expected: () => expected };
  };
  // metadata.ts's bodies: the default sort (newest first), and one site's externalId pattern
  // sorted by name (metadataPatternRead).
  const pattern = metadataPatternRead(size);
  const shapes: Shape<unknown>[] = [
    fixed(`filter ${size.pageSize}, default sort`, { limit: size.pageSize }, pageOf(size.seriesCount)) as Shape<unknown>,
    fixed(`filter ${size.pageSize}, pattern + sort`, pattern.body, pattern.want.length) as Shape<unknown>,
  ];
  // A new random set of series each round, drawn once from one seeded stream for both sides.
  const random = mulberry32(opts.seed);
  const byids: Shape<number[]> = {
    name: `byids ${size.pageSize} ids`,
    prepare: () => {
      const chosen = new Set<number>();
      while (chosen.size < pageOf(size.seriesCount)) chosen.add(Math.floor(random() * size.seriesCount));
      return [...chosen];
    },
    send: (side, series) => postItems(clients[side], '/timeseries/byids', Buffer.from(JSON.stringify({ items: series.map((k) => ({ id: ids[side][k] })) }))),
    expected: (series) => series.length,
  };
  shapes.push(byids as Shape<unknown>);
  for (const shape of shapes) {
    const timed = await timeShape(opts, shape, mismatches);
    summaries.push(timed.summary);
    mismatchRounds += timed.mismatchRounds;
  }
  return { summaries, createRates: `metadata (${size.seriesCount.toLocaleString('en-US')} series, ${size.createBatchSize.toLocaleString('en-US')} per request): ${rates.join(', ')}`, mismatches, mismatchRounds };
}

/**
 * The events suite's data at --events (keys eventCount / 100, the rest as its full size), the
 * same create requests into each side in turn, and three of its read shapes with the bodies
 * events.ts builds, drawn from one seeded stream: each round one request, sent to both.
 */
export async function compareEvents(opts: GroupOptions, sides: Side[], defer: Defer): Promise<GroupResult> {
  const { log } = opts;
  const size: EventsSize = { ...EVENTS_SIZES.full, eventCount: opts.eventCount, keyCount: Math.floor(opts.eventCount / 100) };
  const tenant = `bench-events-${Date.now()}`;
  const clients = {} as Record<SideName, HttpClient>;
  for (const side of sides) {
    const client = new HttpClient(side.service.url, { headers: { authorization: `Bearer ${side.service.token(tenant)}` }, socketsMax: size.senders });
    clients[side.name] = client;
    defer(`closing the events client of ${side.name}`, () => client.close());
  }
  const eventLog = new EventLog(size);
  const rates: string[] = [];
  let bodies: Buffer[] | undefined;
  for (const side of sides) {
    const resourceIds = await createResources(clients[side.name], eventLog);
    if (!bodies) {
      // The create bodies name resources by externalId, so A's set serves both sides; the
      // COPY files generateLoad writes beside them are not used here.
      const workDir = mkdtempSync(path.join(tmpdir(), 'plantdata-compare-events-'));
      try {
        const generated = performance.now();
        bodies = generateLoad(eventLog, resourceIds, tenant, workDir).bodies;
        log(`events: ${size.eventCount} events in ${bodies.length} requests, made in ${((performance.now() - generated) / 1000).toFixed(0)} s`);
      } finally {
        rmSync(workDir, { recursive: true, force: true });
      }
    }
    const api = await apiLoad(clients[side.name], side.service.mainPid, bodies, size.senders, (line) => log(`${side.name} ${line}`));
    api.answers.length = 0;
    const eventsPerSecond = size.eventCount / api.seconds;
    rates.push(`${side.name} ${rate(eventsPerSecond)} events/s`);
    log(`events: ${side.name} created ${size.eventCount} events at ${rate(eventsPerSecond)} events/s`);
    const answer = await clients[side.name].request('GET', '/events/count');
    if (answer.status !== 200) throw new UnexpectedAnswerError('GET /events/count', 200, answer);
    const { count } = parseJson<{ count: number }>(answer);
    if (count !== size.eventCount) throw new Error(`${side.name}: /events/count is ${count} after creating ${size.eventCount}`);
  }
  await settle(opts, sides, 'events');

  const random = mulberry32(opts.seed);
  type Request = { body: Buffer; expected: number };
  const shape = (name: string, route: string, prepare: () => Request): Shape<Request> => ({
    name, prepare, send: (side, request) => postItems(clients[side], route, request.body), expected: (request) => request.expected,
  });
  const asRequest = (read: { body: unknown; want: number[] }): Request => ({ body: Buffer.from(JSON.stringify(read.body)), expected: read.want.length });
  // The events suite's own reads (events-workload.ts), drawn from one seeded stream.
  const shapes = [
    shape('filter type + eventTime window', '/events/filter', () => asRequest(typeWindowRead(eventLog, random))),
    shape('advancedFilter or/in/prefix', '/events/filter', () => asRequest(advancedFilterRead(eventLog, random))),
    shape(`search, ${size.searchLimit} ranked`, '/events/search', () => {
      const read = searchRead(eventLog, random);
      return { body: Buffer.from(JSON.stringify(read.body)), expected: Math.min(size.searchLimit, read.matches) };
    }),
  ];
  const mismatches: Mismatch[] = [];
  let mismatchRounds = 0;
  const summaries: ShapeSummary[] = [];
  for (const s of shapes) {
    const timed = await timeShape(opts, s, mismatches);
    summaries.push(timed.summary);
    mismatchRounds += timed.mismatchRounds;
  }
  return { summaries, createRates: `events (${size.eventCount.toLocaleString('en-US')} events, ${size.keyCount.toLocaleString('en-US')} keys, ${size.senders} senders, <= 4 MiB requests): ${rates.join(', ')}`, mismatches, mismatchRounds };
}
