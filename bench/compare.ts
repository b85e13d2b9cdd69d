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
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { compareEvents, compareMetadata, WARMUP_ROUNDS, type GroupOptions, type GroupResult, type Side } from './compare-groups.ts';
import { compareTableRows } from './interleave.ts';
import { formatTextTable } from './results.ts';
import { startService } from './service.ts';

const REPO_ROOT = path.resolve(import.meta.dirname, '..');
const SHAPE_GROUPS = ['metadata', 'events'] as const;
const CREATE_RATE_NOTE = 'create rates are sequential, not interleaved: A is loaded first, then B, so the first-loaded side is favoured by an idle machine (measured: the second loaded was 10-16% slower either way)';

type ShapeGroup = (typeof SHAPE_GROUPS)[number];
export interface CompareOptions extends GroupOptions {
  base: string;
  groups: ShapeGroup[];
  logDir: string;
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
  const defer = (what: string, run: () => Promise<void> | void) => cleanup.push(what, run);

  const results: GroupResult[] = [];
  if (opts.groups.includes('metadata')) results.push(await compareMetadata(opts, sides, defer));
  if (opts.groups.includes('events')) results.push(await compareEvents(opts, sides, defer));
  return { header, results };
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
