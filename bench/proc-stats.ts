// What the kernel says about a server under test: CPU seconds and peak memory of its process
// tree from /proc, and bytes on disk of a directory. Linux only, as the bench machine is.
import { readdirSync, readFileSync, statSync, lstatSync } from 'node:fs';
import path from 'node:path';

const CLOCK_TICKS_PER_SECOND = 100; // sysconf(_SC_CLK_TCK) on Linux x86-64

interface ProcStat { pid: number; ppid: number; cpuSeconds: number }

/** utime+stime of one process (all its threads), or undefined when it is gone. */
export function readProcStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // comm may hold spaces and parentheses: fields start after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(fields[1]);
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return { pid, ppid, cpuSeconds: (utime + stime) / CLOCK_TICKS_PER_SECOND };
}

/** The state letter of /proc/<pid>/stat (R, S, D, Z, ...), or undefined when it is gone. */
export function readProcState(pid: number): string | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

/** `pid` and every live descendant of it. */
export function processTree(rootPid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProcStat(Number(entry));
    if (!stat) continue;
    const list = children.get(stat.ppid) ?? [];
    list.push(stat.pid);
    children.set(stat.ppid, list);
  }
  const out: number[] = [];
  const stack = [rootPid];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** CPU seconds (user+system) summed over the live processes of a tree. */
export function treeCpuSeconds(rootPid: number): number {
  return processTree(rootPid).reduce((sum, pid) => sum + (readProcStat(pid)?.cpuSeconds ?? 0), 0);
}

type StatusKey = 'VmHWM' | 'VmRSS' | 'RssAnon' | 'RssFile' | 'RssShmem';

/** A `VmXxx:` line of /proc/<pid>/status in bytes, or 0 when the process is gone. */
export function readStatusBytes(pid: number, key: StatusKey): number {
  return readStatusLines(pid, [key])[key] ?? 0;
}

/** Several `Key: N kB` lines of /proc/<pid>/status in bytes (0 each when the process is gone). */
export function readStatusLines<K extends StatusKey>(pid: number, keys: readonly K[]): Record<K, number> {
  const out = {} as Record<K, number>;
  let text = '';
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    // gone: zeros
  }
  for (const key of keys) {
    const match = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text);
    out[key] = match ? Number(match[1]) * 1024 : 0;
  }
  return out;
}

/**
 * Polls a process tree's memory while a phase runs: the peak of the tree's summed RSS and
 * the high-water mark (VmHWM) of its largest process, which the kernel keeps exactly.
 */
export class MemoryPoller {
  #timer: NodeJS.Timeout | undefined;
  treeRssPeakBytes = 0;
  /** Peaks of the tree's summed RssAnon (heaps, anonymous maps) and RssFile (mapped files: code, chdb's library, page-cache-backed maps). */
  treeRssAnonPeakBytes = 0;
  treeRssFilePeakBytes = 0;

  constructor(readonly rootPid: number, readonly mainPid: number, readonly intervalMs = 200) {}

  start(): this {
    this.#sample();
    this.#timer = setInterval(() => this.#sample(), this.intervalMs);
    this.#timer.unref();
    return this;
  }

  #sample(): void {
    let total = 0;
    let anon = 0;
    let file = 0;
    for (const pid of processTree(this.rootPid)) {
      const status = readStatusLines(pid, ['VmRSS', 'RssAnon', 'RssFile'] as const);
      total += status.VmRSS;
      anon += status.RssAnon;
      file += status.RssFile;
    }
    if (total > this.treeRssPeakBytes) this.treeRssPeakBytes = total;
    if (anon > this.treeRssAnonPeakBytes) this.treeRssAnonPeakBytes = anon;
    if (file > this.treeRssFilePeakBytes) this.treeRssFilePeakBytes = file;
  }

  /** Stops polling; returns the main process' VmHWM and the tree's polled peak. */
  stop(): { mainHwmBytes: number; treeRssPeakBytes: number; treeRssAnonPeakBytes: number; treeRssFilePeakBytes: number } {
    if (this.#timer) clearInterval(this.#timer);
    this.#sample();
    return { mainHwmBytes: readStatusBytes(this.mainPid, 'VmHWM'), treeRssPeakBytes: this.treeRssPeakBytes, treeRssAnonPeakBytes: this.treeRssAnonPeakBytes, treeRssFilePeakBytes: this.treeRssFilePeakBytes };
  }
}

/** Allocated bytes under a directory, as `du -s --block-size=1` counts them (blocks, not lengths). */
export function diskBytes(dir: string): number {
  let total = 0;
  const stack = [dir];
  const seen = new Set<string>();
  while (stack.length > 0) {
    const current = stack.pop() as string;
    let info;
    try {
      info = lstatSync(current);
    } catch {
      continue; // removed while walking (merges replace parts)
    }
    const key = `${info.dev}:${info.ino}`;
    if (seen.has(key)) continue; // hard links (ClickHouse parts) count once, as du does
    seen.add(key);
    total += info.blocks * 512;
    if (info.isDirectory()) {
      let entries: string[] = [];
      try {
        entries = readdirSync(current);
      } catch {
        continue;
      }
      for (const entry of entries) stack.push(path.join(current, entry));
    }
  }
  return total;
}

export function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** Cores a process tree uses on average over `seconds` (its idle baseline when nothing is sent). */
export async function treeCpuCores(rootPid: number, seconds: number): Promise<number> {
  const before = treeCpuSeconds(rootPid);
  const started = Date.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  return (treeCpuSeconds(rootPid) - before) / ((Date.now() - started) / 1000);
}

export interface CatchUpCpu {
  /** CPU seconds of the tree from `fromCpuSeconds` to the start of the idle stretch. */
  cpuSeconds: number;
  /** Seconds from the call to the start of the idle stretch (or to the bound). */
  busySeconds: number;
  /** False when the tree was still busy at the bound. */
  idle: boolean;
}

/**
 * The CPU a process tree spends after a moment (`fromCpuSeconds`, read at it) until it is idle:
 * /proc sampled every `intervalMs`; idle means below `idleCores` of a core for `idleSeconds` in
 * a row, and the figure stops at the start of that stretch. Bounded by `boundSeconds`.
 */
export async function cpuUntilIdle(rootPid: number, fromCpuSeconds: number, opts: { boundSeconds: number; intervalMs?: number; idleCores?: number; idleSeconds?: number }): Promise<CatchUpCpu> {
  const intervalMs = opts.intervalMs ?? 250;
  const idleCores = opts.idleCores ?? 0.05;
  const idleSamples = Math.ceil(((opts.idleSeconds ?? 3) * 1000) / intervalMs);
  const started = Date.now();
  let last = { at: started, cpu: treeCpuSeconds(rootPid) };
  let quietFrom: { at: number; cpu: number } | undefined;
  let quietCount = 0;
  while (Date.now() - started < opts.boundSeconds * 1000) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    const now = { at: Date.now(), cpu: treeCpuSeconds(rootPid) };
    const cores = (now.cpu - last.cpu) / Math.max(0.001, (now.at - last.at) / 1000);
    if (cores < idleCores) {
      quietFrom ??= last;
      quietCount++;
      if (quietCount >= idleSamples) return { cpuSeconds: quietFrom.cpu - fromCpuSeconds, busySeconds: (quietFrom.at - started) / 1000, idle: true };
    } else {
      quietFrom = undefined;
      quietCount = 0;
    }
    last = now;
  }
  return { cpuSeconds: last.cpu - fromCpuSeconds, busySeconds: (last.at - started) / 1000, idle: false };
}
