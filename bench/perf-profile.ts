// The whole service's CPU by thread and by what ran, from Linux perf (bench/probe.ts --perf).
// The inspector profile (--profile) sees the main thread only and counts wall time: a native
// call the thread is descheduled in (the ingest log's writev and fdatasync handing work to
// libuv's threads on two cores) reads as hundreds of ms of "self" time that cost no CPU. perf
// samples CPU on every thread, kernel included, and with the service started under
// --perf-basic-prof-only-functions it names JIT-compiled functions too. On 2026-11-25 it measured
// the gateway shape (10 s, fresh service): the event loop 42% of the process, the parse
// workers 20%, V8's GC and compiler threads 14%, libuv's threads 13% (fdatasync, chdb calls),
// chdb's insert pipeline 9%; a fifth of all samples in the kernel (futex wake-ups, fsync, IPIs).
// The map file only grows: code V8 has since freed keeps its name, and a function compiled later
// at the same address may be sampled under it. TypeBox's schema compiler (`Visit`,
// `FromObject`), which runs at start-up only, took 1.6% and 1.2% of the main thread's samples
// during `probe.ts v3`, where the inspector profile of the same phase has no TypeBox frame at
// all (2026-12-03): for JavaScript names on the main thread, --profile is the one to trust.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

/** The node option that makes V8 write /tmp/perf-PID.map, so perf names JIT-compiled functions. */
export const PERF_NODE_OPTION = '--perf-basic-prof-only-functions';

export interface PerfSample {
  comm: string;
  tid: number;
  /** Leaf first: `symbol [dso]`. */
  frames: string[];
}

/** Parses `perf script -F comm,tid,ip,sym,dso` output: a header line per sample, then its frames. */
export function parsePerfScript(text: string): PerfSample[] {
  const samples: PerfSample[] = [];
  let current: PerfSample | undefined;
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      current = undefined;
      continue;
    }
    if (!line.startsWith('\t')) {
      const fields = line.trim().split(/\s+/);
      current = { comm: fields.slice(0, -1).join(' '), tid: Number(fields[fields.length - 1]), frames: [] };
      samples.push(current);
      continue;
    }
    // `\t<ip> <symbol> (<dso>)`: the symbol may hold spaces (JS frames: `JS:*name file:line`).
    const match = /^\s*[0-9a-f]+\s+(.*?)\s+\(([^()]*)\)\s*$/.exec(line);
    if (current && match) current.frames.push(`${match[1]} [${match[2]}]`);
  }
  return samples;
}

/** Which kind of thread ran a sample: by its stack's root (Node names most of its threads "node"). */
export function threadClass(sample: PerfSample, mainTid: number): string {
  if (sample.tid === mainTid) return 'main thread';
  const root = sample.frames.slice(-4).join(' ');
  if (root.includes('node::worker::Worker::Run')) return 'JS workers (parse)';
  if (/PlatformWorkerThread|DefaultJobWorker/.test(root)) return 'V8 platform (GC, compiler)';
  // libuv's thread pool: its thread function is called `worker` (the ingest log's writes, chdb's statements).
  if (/(^| )worker \[/.test(root)) return 'libuv pool (fs, chdb calls)';
  // chdb's code has no frame pointers: a libuv thread inside a statement shows no root.
  if (sample.comm === 'node') return 'node threads, stack cut short (libuv pool in chdb code)';
  return `${sample.comm} threads`;
}

const GC = /Heap::|Scavenge|MarkCompact|Sweeper|ConcurrentMarking|IncrementalMarking|MinorMC/;

/** What a sample was doing: GC, a system call or fault in the kernel, the nearest JS function, or the native leaf. */
export function activityOf(sample: PerfSample): string {
  const { frames } = sample;
  if (frames.some((f) => GC.test(f))) return 'GC';
  if (frames[0]?.includes('[kernel')) {
    for (const f of frames) {
      const syscall = /__x64_sys_(\w+)/.exec(f);
      if (syscall) return `kernel: ${syscall[1]}`;
      if (f.includes('exc_page_fault')) return 'kernel: page faults';
      if (/asm_sysvec|asm_common_interrupt|irqentry/.test(f)) return 'kernel: interrupts, preemption';
    }
    return 'kernel: other';
  }
  for (const f of frames) {
    const js = /^JS:[*~^]?(\S*) (?:file:\/\/)?(\S+?)(?::\d+)*\s/.exec(`${f} `);
    if (js) return `JS ${js[1] || '(anonymous)'} ${(js[2] ?? '').replace(/^.*?\/(api|engine|workers|bench|node_modules)\//, '$1/')}`;
  }
  const leaf = frames[0] ?? '?';
  return `native ${leaf.replace(/\(.*$/, '').replace(/ \[.*\]$/, '').slice(0, 60)}`;
}

/** The summary as lines: share of samples per thread class, then per class its top activities. */
export function summarizePerf(samples: readonly PerfSample[], mainTid: number, top = 12): string[] {
  const total = samples.length;
  const byClass = new Map<string, PerfSample[]>();
  for (const s of samples) {
    const key = threadClass(s, mainTid);
    let list = byClass.get(key);
    if (!list) byClass.set(key, (list = []));
    list.push(s);
  }
  const pct = (n: number, of: number) => `${((100 * n) / Math.max(1, of)).toFixed(1).padStart(5)}%`;
  const classes = [...byClass].sort((a, b) => b[1].length - a[1].length);
  const lines = [`${total} samples, share by thread:`];
  for (const [name, list] of classes) lines.push(`  ${pct(list.length, total)}  ${name}`);
  for (const [name, list] of classes) {
    if (list.length < total * 0.05) continue;
    const counts = new Map<string, number>();
    for (const s of list) {
      const what = activityOf(s);
      counts.set(what, (counts.get(what) ?? 0) + 1);
    }
    lines.push(`${name} (${pct(list.length, total).trim()} of all), by activity (share of the thread's samples):`);
    for (const [what, n] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${pct(n, list.length)}  ${what}`);
  }
  return lines;
}

/** `perf record` of one process (all its threads) from start() to stop(), then the summary. */
export class PerfRecord {
  private constructor(private readonly child: ChildProcess, private readonly pid: number, private readonly file: string, private readonly top: number) {}

  /** `top`: activities listed per thread class in the summary. */
  static start(pid: number, file: string, top = 12, frequencyHz = 499): PerfRecord {
    if (spawnSync('perf', ['--version']).error) throw new Error('--perf needs Linux perf (Debian: apt-get install linux-perf)');
    const child = spawn('perf', ['record', '-F', String(frequencyHz), '-g', '-p', String(pid), '-o', file], { stdio: ['ignore', 'ignore', 'pipe'] });
    return new PerfRecord(child, pid, file, top);
  }

  /** Stops recording (SIGINT, as perf expects) and returns the summary lines; the JIT map file is removed after. */
  async stop(): Promise<string[]> {
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGINT');
    await exited;
    const script = spawnSync('perf', ['script', '-i', this.file, '-F', 'comm,tid,ip,sym,dso'], { encoding: 'utf8', maxBuffer: 1 << 30 });
    if (script.status !== 0) throw new Error(`perf script failed: ${script.stderr}`);
    rmSync(`/tmp/perf-${this.pid}.map`, { force: true });
    return summarizePerf(parsePerfScript(script.stdout), this.pid, this.top);
  }
}
