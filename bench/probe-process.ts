// What bench/probe.ts observes of the service's process from outside: a CPU profile of its
// main thread over the inspector, and its memory at the peak of a phase (RSS by kind from
// smaps_rollup, with what Node says it holds at that moment), and the CPU of each of its threads.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import type { HttpClient } from './http-client.ts';
import { processTree } from './proc-stats.ts';

/** A CPU profile of the service's main thread, over the inspector SIGUSR1 opens on 127.0.0.1:9229. */
export class InspectorProfile {
  private socket!: WebSocket;
  private nextId = 1;
  private readonly pending = new Map<number, (result: unknown) => void>();

  static async attach(pid: number): Promise<InspectorProfile> {
    process.kill(pid, 'SIGUSR1');
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        const list = await (await fetch('http://127.0.0.1:9229/json/list')).json() as { webSocketDebuggerUrl: string }[];
        const profile = new InspectorProfile();
        await profile.open(list[0]?.webSocketDebuggerUrl as string);
        return profile;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  private open(url: string): Promise<void> {
    this.socket = new WebSocket(url);
    this.socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { id?: number; result?: unknown };
      if (message.id !== undefined) this.pending.get(message.id)?.(message.result);
    });
    return new Promise((resolve, reject) => { this.socket.once('open', () => resolve()); this.socket.once('error', reject); });
  }

  call(method: string, params: object = {}): Promise<unknown> {
    const id = this.nextId++;
    this.socket.send(JSON.stringify({ id, method, params }));
    return new Promise((resolve) => this.pending.set(id, resolve));
  }

  async start(): Promise<void> {
    await this.call('Profiler.enable');
    await this.call('Profiler.setSamplingInterval', { interval: 200 });
    await this.call('Profiler.start');
  }

  async stop(file: string): Promise<void> {
    const { profile } = await this.call('Profiler.stop') as { profile: unknown };
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(profile));
    this.socket.close();
  }

  /**
   * The sampling heap profiler, every allocation sampled whether a scavenge or a full
   * collection frees it later: what the phase allocates, which is what the collector works off.
   */
  async startHeap(): Promise<void> {
    await this.call('HeapProfiler.enable');
    await this.call('HeapProfiler.startSampling', { samplingInterval: 16_384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  }

  /** Writes the heap profile (.heapprofile, opens in Chrome DevTools) and returns its top allocating functions as lines. */
  async stopHeap(file: string, per: { count: number; what: string }): Promise<string[]> {
    const { profile } = await this.call('HeapProfiler.stopSampling') as { profile: HeapProfileNode & { head?: HeapProfileNode } };
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(profile));
    return heapSummary(profile.head as HeapProfileNode, per);
  }

  close(): void {
    this.socket.close();
  }
}

export interface HeapProfileNode { callFrame: { functionName: string; url: string; lineNumber: number }; selfSize: number; children: HeapProfileNode[] }

/** Sampled bytes by allocating function (self), largest first, in all and per `per.what`. */
export function heapSummary(head: HeapProfileNode, per: { count: number; what: string }, top = 20): string[] {
  const bySite = new Map<string, number>();
  let total = 0;
  const walk = (node: HeapProfileNode) => {
    if (node.selfSize > 0) {
      const { functionName, url, lineNumber } = node.callFrame;
      const site = `${functionName || '(anonymous)'} ${url.replace(/^.*?\/(api|engine|workers|bench|node_modules)\//, '$1/')}:${lineNumber + 1}`;
      bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
      total += node.selfSize;
    }
    for (const child of node.children) walk(child);
  };
  walk(head);
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  const lines = [`heap: ${(total / 1024 / 1024).toFixed(1)} MB allocated (sampled), ${kb(total / Math.max(1, per.count))} a ${per.what}, by allocating function:`];
  for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${kb(bytes / Math.max(1, per.count)).padStart(10)}  ${(100 * bytes / total).toFixed(1).padStart(5)}%  ${site}`);
  return lines;
}

/** The RSS of the main process by kind (smaps_rollup) and what Node says it holds, sampled at the peak. */
export interface MemorySample { rssBytes: number; anonBytes: number; fileBytes: number; node?: NodeJS.MemoryUsage; pooledBytes?: number; onLoanBytes?: number }

export function readSmapsRollup(pid: number): { rssBytes: number; anonBytes: number; fileBytes: number } {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
  const rssBytes = kb('Rss');
  const anonBytes = kb('Anonymous');
  return { rssBytes, anonBytes, fileBytes: rssBytes - anonBytes };
}

/** The largest mappings by RSS (PROBE_SMAPS=1): which file or anonymous region holds it. */
function readTopMappings(pid: number): string[] {
  const byName = new Map<string, number>();
  let name = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) { name = head[1] || '[anon]'; continue; }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) byName.set(name, (byName.get(name) ?? 0) + Number(rss[1]) * 1024);
  }
  return [...byName].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([n, bytes]) => `${mib(bytes).padStart(8)}  ${n}`);
}

/** Polls the main process every 100 ms; at each new RSS high asks it (inspector) for process.memoryUsage(). */
export class PeakSampler {
  peak: MemorySample = { rssBytes: 0, anonBytes: 0, fileBytes: 0 };
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  topMappings: string[] = [];
  queuedPointsMax = 0;
  onLoanBytesMax = 0;

  constructor(private readonly pid: number, private readonly http: HttpClient, private readonly inspector: InspectorProfile) {}

  start(): this {
    this.timer = setInterval(() => { if (!this.busy) void this.sample(); }, 100);
    return this;
  }

  private async sample(): Promise<void> {
    this.busy = true;
    try {
      const metrics = (await this.http.request('GET', '/metrics')).body.toString('utf8');
      const gauge = (series: string) => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(metrics)?.[1] ?? Number.NaN);
      const onLoan = gauge('ingest_memory_bytes{state="on_loan"}');
      this.queuedPointsMax = Math.max(this.queuedPointsMax, gauge('ingest_backlog{kind="queued_points"}'));
      this.onLoanBytesMax = Math.max(this.onLoanBytesMax, onLoan);
      const smaps = readSmapsRollup(this.pid);
      if (smaps.rssBytes <= this.peak.rssBytes) return;
      this.peak = smaps;
      if (process.env['PROBE_SMAPS'] === '1') this.topMappings = readTopMappings(this.pid);
      const answer = await this.inspector.call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true }) as { result: { value: string } };
      if (smaps.rssBytes >= this.peak.rssBytes) this.peak = { ...smaps, node: JSON.parse(answer.result.value) as NodeJS.MemoryUsage, pooledBytes: gauge('ingest_memory_bytes{state="pooled"}'), onLoanBytes: onLoan };
    } catch { /* the process is busy or gone: next sample */ } finally {
      this.busy = false;
    }
  }

  stop(): MemorySample {
    if (this.timer) clearInterval(this.timer);
    return this.peak;
  }
}

const MIB = 2 ** 20;
export const mib = (bytes: number | undefined) => `${((bytes ?? Number.NaN) / MIB).toFixed(0)} MiB`;

export function reportPeak(hwmBytes: number, peak: MemorySample): void {
  console.log(`peak RSS (VmHWM of the main process): ${mib(hwmBytes)}`);
  console.log(`  at the highest sampled RSS ${mib(peak.rssBytes)}: anonymous ${mib(peak.anonBytes)}, file-backed ${mib(peak.fileBytes)}`);
  const node = peak.node;
  if (!node) return;
  const native = peak.anonBytes - node.heapTotal - node.arrayBuffers;
  console.log(`  V8 heap ${mib(node.heapTotal)} (used ${mib(node.heapUsed)}), array buffers ${mib(node.arrayBuffers)} (slab pool: pooled ${mib(peak.pooledBytes)}, on loan ${mib(peak.onLoanBytes)}), external ${mib(node.external)}`);
  console.log(`  anonymous beyond the V8 heap and array buffers (chdb, Node's native side): ${mib(native)}`);
}

/** CPU seconds of every thread of the tree, summed by process and thread name (chdb's pools, workers, postgres). */
export function threadCpu(rootPid: number): Map<string, number> {
  const out = new Map<string, number>();
  const ticks = 100;
  for (const pid of processTree(rootPid)) {
    let tasks: string[] = [];
    try { tasks = readdirSync(`/proc/${pid}/task`); } catch { continue; }
    const process = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    for (const tid of tasks) {
      try {
        const text = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const name = text.slice(text.indexOf('(') + 1, text.lastIndexOf(')')).replace(/[0-9]+$/, '#');
        const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
        const key = `${process}/${tid === String(pid) ? 'main' : name}`;
        out.set(key, (out.get(key) ?? 0) + (Number(fields[11]) + Number(fields[12])) / ticks);
      } catch { /* gone */ }
    }
  }
  return out;
}

export function reportThreads(before: Map<string, number>, after: Map<string, number>): void {
  const rows = [...after].map(([key, cpu]) => [key, cpu - (before.get(key) ?? 0)] as const).filter(([, cpu]) => cpu >= 0.05).sort((a, b) => b[1] - a[1]);
  for (const [key, cpu] of rows) console.log(`  ${cpu.toFixed(2).padStart(7)} s  ${key}`);
}
