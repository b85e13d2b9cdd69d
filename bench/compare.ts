// Compares this tree's service with another commit's on the request shapes of the metadata and
// events suites. Two sequential bench runs of the same code differ by up to 40% in medians on a
// shared machine, so a change cannot be judged by running the bench once per commit: here both
// services run at once on the same data and every round sends the same request to both, in
// alternating order, so both see the same machine state.
//
//   npx tsx bench/compare.ts --base <rev> [--shapes metadata,events] [--runs 150] [--events 300000]
//
// A is the base: a git worktree of <rev> in a temp dir, its node_modules a symlink to this
// tree's (so the lockfiles must agree, see lockfileVerdict), its service started by its own
// bench/service.ts (its own `make build`, its own dist/). B is this tree as it is on disk,
// uncommitted changes included. BENCH_SEED=N replays the requests of a run (its seed is printed).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { apiLoad, createResources, generateLoad } from './events-load.ts';
import { EVENTS_SIZES, EventLog, TYPE_WINDOW_EVENTS, TYPES, type EventsSize } from './events-workload.ts';
import { HttpClient, parseJson, UnexpectedAnswerError } from './http-client.ts';
import { METADATA_SIZES, SITES, metadataSeries, metadataTenant, type TimeSeriesRecord } from './metadata.ts';
import { cpuUntilIdle, treeCpuSeconds } from './proc-stats.ts';
import { mulberry32 } from './prng.ts';
import { formatTextTable } from './results.ts';
import { startService, type RunningService } from './service.ts';
import { median, quantile } from './stats.ts';

const REPO_ROOT = path.resolve(import.meta.dirname, '..');
const SHAPE_GROUPS = ['metadata', 'events'] as const;
const WARMUP_ROUNDS = 5;
/** Bound on the wait for each service to go idle after a load (PostgreSQL's ANALYZE, GIN pending lists). */
const SETTLE_SECONDS_MAX = 30;
const CREATE_RATE_NOTE = 'create rates are sequential, not interleaved: A is loaded first, then B, so the first-loaded side is favoured by an idle machine (measured: the second loaded was 10-16% slower either way)';

type ShapeGroup = (typeof SHAPE_GROUPS)[number];
export type SideName = 'A' | 'B';

export interface CompareOptions {
  base: string;
  groups: ShapeGroup[];
  runCount: number;
  eventCount: number;
  seed: number;
  logDir: string;
  log: (line: string) => void;
}

export function parseCompareOptions(argv: string[], env: NodeJS.ProcessEnv): CompareOptions {
  const { values } = parseArgs({
    args: argv,
    options: { base: { type: 'string' }, shapes: { type: 'string' }, runs: { type: 'string' }, events: { type: 'string' } },
    strict: true,
  });
  if (!values.base) throw new Error('--base <rev> is required (the commit to compare this tree with)');
  const groups = (values.shapes ?? SHAPE_GROUPS.join(',')).split(',').map((s) => s.trim()).filter(Boolean);
  const bad = groups.filter((g) => !(SHAPE_GROUPS as readonly string[]).includes(g));
  if (bad.length > 0 || groups.length === 0) throw new Error(`unknown shapes: ${bad.join(', ') || '(none)'} (one or more of ${SHAPE_GROUPS.join(', ')})`);
  const positive = (raw: string | undefined, fallback: number, what: string) => {
    const n = raw === undefined ? fallback : Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${what} must be a positive integer, not ${raw}`);
    return n;
  };
  const eventCount = positive(values.events, 300_000, '--events');
  // keyCount is eventCount / 100: below 100 events there would be no correlation key.
  if (eventCount < 100) throw new Error('--events must be at least 100');
  return {
    base: values.base,
    groups: groups as ShapeGroup[],
    runCount: positive(values.runs, 150, '--runs'),
    eventCount,
    seed: Number(env['BENCH_SEED'] ?? Date.now() % 2 ** 31),
    logDir: path.join(REPO_ROOT, 'bench', 'out', 'logs'),
    log: (line) => process.stderr.write(`[compare ${new Date().toISOString().slice(11, 19)}] ${line}\n`),
  };
}

/**
 * Round i's order: A then B when i is even, B then A when odd, so neither side always goes
 * first (first after the client's own work between rounds, or right behind the other's answer).
 */
export function roundOrder(i: number): readonly [SideName, SideName] {
  return i % 2 === 0 ? ['A', 'B'] : ['B', 'A'];
}

export interface RoundAnswer {
  elapsedMs: number;
  /** Items in the answer, compared between the sides. */
  items: number;
}

/**
 * warmupCount + runCount rounds; each round prepares one request and sends it to both sides in
 * roundOrder. Returns the measured times per side (warm-up rounds left out); `check` sees every
 * round's item counts, warm-ups included.
 */
export async function interleave<T>(
  counts: { warmupCount: number; runCount: number },
  prepare: (round: number) => T,
  send: (side: SideName, request: T) => Promise<RoundAnswer>,
  check: (round: number, request: T, items: Record<SideName, number>) => void,
): Promise<Record<SideName, number[]>> {
  const samples: Record<SideName, number[]> = { A: [], B: [] };
  for (let i = 0; i < counts.warmupCount + counts.runCount; i++) {
    const request = prepare(i);
    const items: Record<SideName, number> = { A: Number.NaN, B: Number.NaN };
    for (const side of roundOrder(i)) {
      const answer = await send(side, request);
      items[side] = answer.items;
      if (i >= counts.warmupCount) samples[side].push(answer.elapsedMs);
    }
    check(i, request, items);
  }
  return samples;
}

export interface ShapeSummary {
  shape: string;
  runCount: number;
  a: { medianMs: number; p90Ms: number };
  b: { medianMs: number; p90Ms: number };
  /** B's median over A's: below 1, this tree is faster. */
  ratio: number;
}

export function summarizeShape(shape: string, samples: Record<SideName, readonly number[]>): ShapeSummary {
  const a = { medianMs: median(samples.A), p90Ms: quantile(samples.A, 0.9) };
  const b = { medianMs: median(samples.B), p90Ms: quantile(samples.B, 0.9) };
  return { shape, runCount: samples.A.length, a, b, ratio: b.medianMs / a.medianMs };
}

export function compareTableRows(summaries: readonly ShapeSummary[]): string[][] {
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  return [
    ['shape', 'A median', 'A p90', 'B median', 'B p90', 'B/A'],
    ...summaries.map((s) => [s.shape, ms(s.a.medianMs), ms(s.a.p90Ms), ms(s.b.medianMs), ms(s.b.p90Ms), s.ratio.toFixed(2)]),
  ];
}

type Verdict = { ok: true; note?: string } | { ok: false; why: string };

/**
 * Whether the base can run on this tree's node_modules. The same lockfile can; so can a base
 * lockfile whose every package entry this one pins identically (this tree only added packages:
 * node_modules then holds each of the base's packages at the base's version and place).
 */
export function lockfileVerdict(baseText: string, ourText: string): Verdict {
  if (baseText === ourText) return { ok: true };
  const packages = (text: string) => (JSON.parse(text) as { packages?: Record<string, unknown> }).packages ?? {};
  const base = packages(baseText);
  const ours = packages(ourText);
  // '' is the root project: its own dependency lists, not an installed package.
  const differing = Object.keys(base).filter((key) => key !== '' && JSON.stringify(base[key]) !== JSON.stringify(ours[key]));
  if (differing.length > 0) {
    return { ok: false, why: `the base's package-lock.json differs from this tree's (${differing.length} package entries, e.g. ${differing.slice(0, 3).join(', ')}): its service cannot run on this tree's node_modules` };
  }
  const added = Object.keys(ours).filter((key) => key !== '' && !(key in base)).length;
  return { ok: true, note: `the base's package-lock.json differs from this tree's only by ${added} package entries this tree adds; every package of the base's is pinned the same here` };
}

/** A reason not to go on, known before anything runs or while starting: said without a stack. */
class CompareRefused extends Error {}

function git(args: string[]): string {
  return execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** Undo steps, run last-in first-out once, from `finally` or from a signal, each failure logged and passed over. */
class Cleanup {
  readonly #steps: { what: string; run: () => Promise<void> | void }[] = [];
  #running: Promise<void> | undefined;

  constructor(readonly log: (line: string) => void) {}

  push(what: string, run: () => Promise<void> | void): void {
    this.#steps.push({ what, run });
  }

  /** `verbose`: each step is logged as it starts (after a signal, where stopping a service may take a while). */
  run(verbose = false): Promise<void> {
    this.#running ??= (async () => {
      for (let step = this.#steps.pop(); step; step = this.#steps.pop()) {
        if (verbose) this.log(`cleanup: ${step.what}`);
        try {
          await step.run();
        } catch (error) {
          this.log(`cleanup: ${step.what} failed: ${(error as Error).message}`);
        }
      }
    })();
    return this.#running;
  }
}

interface Side {
  name: SideName;
  service: RunningService;
}

interface Mismatch { shape: string; round: number; items: Record<SideName, number>; expected?: number }

interface GroupResult {
  summaries: ShapeSummary[];
  createRates: string;
  mismatches: Mismatch[];
  mismatchRounds: number;
}

/**
 * Checks out the base, starts both services and compares the chosen shape groups; returns
 * what main prints. Everything it starts or creates is undone by `cleanup`.
 */
async function runCompare(opts: CompareOptions, cleanup: Cleanup): Promise<{ header: string[]; results: GroupResult[] }> {
  const { log } = opts;
  let rev: string;
  try {
    rev = git(['rev-parse', '--verify', '--quiet', `${opts.base}^{commit}`]);
  } catch {
    throw new CompareRefused(`--base ${opts.base} is not a commit of this repository`);
  }
  const verdict = lockfileVerdict(git(['show', `${rev}:package-lock.json`]), readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8'));
  if (!verdict.ok) throw new CompareRefused(verdict.why);
  if (verdict.note) log(verdict.note);
  const stamp = path.join(REPO_ROOT, 'node_modules', '.install-stamp');
  const stampTime = statSync(stamp, { throwIfNoEntry: false })?.mtime;
  const installInputs = ['package.json', 'package-lock.json'].map((f) => statSync(path.join(REPO_ROOT, f)).mtime);
  // A reinstall (npm ci) empties node_modules, which both services run from: it must not happen
  // while either runs. This tree's `make build` would reinstall when its stamp is older.
  if (!stampTime || installInputs.some((t) => t > stampTime)) throw new CompareRefused('this tree\'s node_modules is not installed or older than its package.json or package-lock.json: run `make install` first');

  const head = git(['rev-parse', '--short', 'HEAD']);
  const dirty = git(['status', '--porcelain']) !== '';
  const header = [
    `A: base ${git(['rev-parse', '--short', rev])} (${opts.base}), a worktree of that commit, its own build`,
    `B: this tree, ${head}${dirty ? ' with uncommitted changes' : ''}`,
  ];
  log(header.join('; '));

  const tmp = mkdtempSync(path.join(tmpdir(), 'plantdata-compare-'));
  cleanup.push('removing the temp dir', () => rmSync(tmp, { recursive: true, force: true }));
  const worktree = path.join(tmp, 'base');
  git(['worktree', 'add', '--detach', worktree, rev]);
  cleanup.push('removing the worktree', () => {
    // The symlink goes first, so that nothing can reach this tree's node_modules through it.
    unlinkSync(path.join(worktree, 'node_modules'));
    git(['worktree', 'remove', '--force', worktree]);
  });
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(worktree, 'node_modules'));
  // The checkout's package.json and package-lock.json are newer than the shared stamp, so the
  // base's `make build` would run `npm ci` first, emptying the shared node_modules. Dating
  // them back to the stamp keeps that from happening without touching the stamp itself:
  // a newer stamp would make this tree's next `make build` rebuild its dist/ (emptied
  // first) under any other run of the bench starting services from it.
  const before = new Date(stampTime.getTime() - 1000);
  for (const file of ['package.json', 'package-lock.json']) utimesSync(path.join(worktree, file), before, before);
  try {
    execFileSync('make', ['--no-print-directory', '-q', 'node_modules/.install-stamp'], { cwd: worktree, stdio: 'ignore' });
  } catch {
    throw new CompareRefused(`the base's Makefile would reinstall node_modules (make -q node_modules/.install-stamp in ${worktree} is not up to date): not started`);
  }

  const baseServiceModule = await import(pathToFileURL(path.join(worktree, 'bench', 'service.ts')).href) as { startService: typeof startService };
  log(`A: building ${worktree} (make build) and starting its service`);
  const a = await baseServiceModule.startService({ logDir: opts.logDir });
  cleanup.push('stopping service A', () => a.stop());
  log(`A: service at ${a.url}, DATA_DIR ${a.dataDir}, log ${a.logFile}`);
  log('B: building this tree (make build) and starting its service');
  const b = await startService({ logDir: opts.logDir });
  cleanup.push('stopping service B', () => b.stop());
  log(`B: service at ${b.url}, DATA_DIR ${b.dataDir}, log ${b.logFile}`);
  const sides: Side[] = [{ name: 'A', service: a }, { name: 'B', service: b }];

  const results: GroupResult[] = [];
  if (opts.groups.includes('metadata')) results.push(await compareMetadata(opts, sides, cleanup));
  if (opts.groups.includes('events')) results.push(await compareEvents(opts, sides, cleanup));
  return { header, results };
}

interface Shape<T> {
  name: string;
  prepare: (round: number) => T;
  send: (side: SideName, request: T) => Promise<RoundAnswer>;
  /** The item count the generator says the answer has, when it knows. */
  expected?: (request: T) => number;
}

async function timeShape<T>(opts: CompareOptions, shape: Shape<T>, mismatches: Mismatch[]): Promise<{ summary: ShapeSummary; mismatchRounds: number }> {
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
async function settle(opts: CompareOptions, sides: Side[], what: string): Promise<void> {
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
async function compareMetadata(opts: CompareOptions, sides: Side[], cleanup: Cleanup): Promise<GroupResult> {
  const { log } = opts;
  const size = METADATA_SIZES.full;
  const tenant = metadataTenant();
  const clients = {} as Record<SideName, HttpClient>;
  for (const side of sides) {
    const client = new HttpClient(side.service.url, { headers: { authorization: `Bearer ${side.service.token(tenant)}` } });
    clients[side.name] = client;
    cleanup.push(`closing the metadata client of ${side.name}`, () => client.close());
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
  // (site 3, a tenth of the series) sorted by name.
  const site = 3;
  const shapes: Shape<unknown>[] = [
    fixed(`filter ${size.pageSize}, default sort`, { limit: size.pageSize }, pageOf(size.seriesCount)) as Shape<unknown>,
    fixed(`filter ${size.pageSize}, pattern + sort`, { filter: { externalId: `SITE${String(site).padStart(2, '0')}/*` }, sort: { property: 'name', order: 'asc' }, limit: size.pageSize }, pageOf(Math.ceil((size.seriesCount - site) / SITES))) as Shape<unknown>,
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
async function compareEvents(opts: CompareOptions, sides: Side[], cleanup: Cleanup): Promise<GroupResult> {
  const { log } = opts;
  const size: EventsSize = { ...EVENTS_SIZES.full, eventCount: opts.eventCount, keyCount: Math.floor(opts.eventCount / 100) };
  const tenant = `bench-events-${Date.now()}`;
  const clients = {} as Record<SideName, HttpClient>;
  for (const side of sides) {
    const client = new HttpClient(side.service.url, { headers: { authorization: `Bearer ${side.service.token(tenant)}` }, socketsMax: size.senders });
    clients[side.name] = client;
    cleanup.push(`closing the events client of ${side.name}`, () => client.close());
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
  const n = size.eventCount;
  type Request = { body: Buffer; expected: number };
  const shape = (name: string, route: string, prepare: () => Request): Shape<Request> => ({
    name, prepare, send: (side, request) => postItems(clients[side], route, request.body), expected: (request) => request.expected,
  });
  // As events.ts's filterTypeWindow, advancedFilter and searchRow build them, the random draws in the same order.
  const shapes = [
    shape('filter type + eventTime window', '/events/filter', () => {
      const width = Math.min(n, TYPE_WINDOW_EVENTS);
      const from = Math.floor(random() * (n - width + 1));
      const type = TYPES[Math.floor(random() * TYPES.length)] as string;
      let expected = 0;
      for (let i = from; i < from + width && expected < size.pageSize; i++) if (eventLog.type(i) === type) expected++;
      return { body: Buffer.from(JSON.stringify({ filter: { type, eventTime: { min: eventLog.eventTime(from), max: eventLog.eventTime(from + width) } }, limit: size.pageSize })), expected };
    }),
    shape('advancedFilter or/in/prefix', '/events/filter', () => {
      const from = Math.floor(random() * n * 0.9);
      const a = Math.floor(random() * TYPES.length);
      const b = (a + 1 + Math.floor(random() * (TYPES.length - 1))) % TYPES.length;
      const types = [TYPES[a] as string, TYPES[b] as string];
      const prefix = eventLog.externalIdOfKey(Math.floor(random() * size.keyCount)).slice(0, -1);
      let expected = 0;
      for (let i = from; i < n && expected < size.pageSize; i++) if (types.includes(eventLog.type(i)) || eventLog.externalId(i).startsWith(prefix)) expected++;
      return {
        body: Buffer.from(JSON.stringify({
          filter: { eventTime: { min: eventLog.eventTime(from) } },
          advancedFilter: { or: [{ in: { property: ['type'], values: types } }, { prefix: { property: ['externalId'], value: prefix } }] },
          limit: size.pageSize,
        })),
        expected,
      };
    }),
    shape(`search, ${size.searchLimit} ranked`, '/events/search', () => {
      const candidates = eventLog.searchRanks.length;
      const a = Math.floor(random() * candidates);
      const b = (a + 1 + Math.floor(random() * (candidates - 1))) % candidates;
      const query = `${eventLog.words[eventLog.searchRanks[a] as number]} ${eventLog.words[eventLog.searchRanks[b] as number]}`;
      return { body: Buffer.from(JSON.stringify({ search: { query }, limit: size.searchLimit })), expected: Math.min(size.searchLimit, eventLog.searchMatchCount(a, b)) };
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

async function main(): Promise<void> {
  let opts: CompareOptions;
  try {
    opts = parseCompareOptions(process.argv.slice(2), process.env);
  } catch (error) {
    process.stderr.write(`compare: ${(error as Error).message}\n`);
    process.exit(2);
  }
  const cleanup = new Cleanup(opts.log);
  // Ctrl-C mid-run still stops both services and removes the worktree.
  const onSignal = (signal: NodeJS.Signals) => {
    opts.log(`${signal}: stopping both services and removing the worktree`);
    void cleanup.run(true).finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let outcome: Awaited<ReturnType<typeof runCompare>>;
  try {
    outcome = await runCompare(opts, cleanup);
  } finally {
    await cleanup.run();
  }
  const { header, results } = outcome;
  const out: string[] = ['', ...header, `${opts.runCount} runs after ${WARMUP_ROUNDS} warm-up per shape, interleaved (round i even: A then B; odd: B then A); seed ${opts.seed} (BENCH_SEED)`, ''];
  out.push(formatTextTable(compareTableRows(results.flatMap((r) => r.summaries))), '');
  out.push(`B/A is B's median over A's (below 1: this tree is faster). ${CREATE_RATE_NOTE}:`);
  for (const r of results) out.push(`- ${r.createRates}`);
  const wrong = results.flatMap((r) => r.mismatches);
  if (wrong.length > 0) {
    out.push('', `WRONG: ${results.reduce((sum, r) => sum + r.mismatchRounds, 0)} rounds where the sides' item counts differ from each other or from the generator's; the first (at most 3) of each shape:`);
    for (const m of wrong) out.push(`- ${m.shape}, round ${m.round}: A ${m.items.A} items, B ${m.items.B}${m.expected === undefined ? '' : `, expected ${m.expected}`}`);
    process.exitCode = 1;
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((error: unknown) => {
    if (error instanceof CompareRefused) {
      process.stderr.write(`compare: ${error.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`compare failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
