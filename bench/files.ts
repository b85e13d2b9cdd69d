// Files suite: one file of N bytes uploaded with PUT /files and downloaded with GET
// /files/download/**, over loopback, `runCount` times each (every upload replaces the file at
// the same path, so replace is what runs). Figures: MB/s (10^6 bytes per second) each way, the
// median over runs, and the growth of the service's RSS (the node process that serves; the
// bytes pass through it) over its RSS before the first upload, polled every 50 ms.
//
// The bytes are a deterministic stream made on the fly, never held whole: block k of 1 MiB is
// one of 16 random blocks (chosen by a hash of k and the run), so its SHA-256 is computed
// before the timed upload without reading it twice during it. The 201's sha256 must equal it,
// and the download is hashed as it arrives and must equal it too. The client is node:http
// (a chunked upload honouring back-pressure, since uWebSockets.js refuses a Content-Length of
// 1e9 bytes or more; the download read as it comes).
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { readStatusBytes } from './proc-stats.ts';
import { hashUniform, mulberry32 } from './prng.ts';
import type { Metric, SuiteResult } from './results.ts';
import { median } from './stats.ts';

export interface FilesSize {
  fileBytes: number;
  runCount: number;
}

const MiB = 1024 * 1024;
export const FILES_SIZES: Record<'full' | 'small' | 'tiny', FilesSize> = {
  full: { fileBytes: 2048 * MiB, runCount: 3 },
  small: { fileBytes: 256 * MiB, runCount: 3 },
  tiny: { fileBytes: 8 * MiB, runCount: 1 },
};

/** The files targets (bench/README.md): 300 MB/s or more each way, RSS growing by less than 64 MiB. */
const RATE_TARGET_MB_PER_S = 300;
const RSS_GROWTH_TARGET_MIB = 64;
const BLOCK_BYTES = MiB;
const BLOCK_KINDS = 16;
const RSS_POLL_MS = 50;

/** The SERVICE_CONFIG of the files suite: files on for the bench tenant, quotas and rates far above the load. */
export function filesServiceConfig(tenant: string): object {
  const high = { writesPerMinute: 1_000_000, readsPerMinute: 1_000_000 };
  return {
    rateLimits: { organization: high, user: high },
    dailyQuotas: { ingestedBytes: 1_000_000_000_000 },
    tenants: { [tenant]: { files: true } },
  };
}

/** The deterministic bytes of one run: blocks of 1 MiB, the last one cut to size. */
class FileBytes {
  private readonly blocks: Buffer[];

  constructor(readonly totalBytes: number, private readonly run: number) {
    const random = mulberry32(0x5eed + run);
    this.blocks = Array.from({ length: BLOCK_KINDS }, () => {
      const block = Buffer.allocUnsafe(BLOCK_BYTES);
      for (let i = 0; i < BLOCK_BYTES; i += 4) block.writeUInt32LE(Math.floor(random() * 2 ** 32), i);
      return block;
    });
  }

  *chunks(): Generator<Buffer> {
    for (let offset = 0, k = 0; offset < this.totalBytes; offset += BLOCK_BYTES, k++) {
      const block = this.blocks[Math.floor(hashUniform(k, this.run) * BLOCK_KINDS) % BLOCK_KINDS] as Buffer;
      yield offset + BLOCK_BYTES <= this.totalBytes ? block : block.subarray(0, this.totalBytes - offset);
    }
  }

  sha256(): string {
    const hash = createHash('sha256');
    for (const chunk of this.chunks()) hash.update(chunk);
    return hash.digest('hex');
  }
}

/** The service's RSS, polled: its peak since start(). */
class RssPeak {
  peakBytes = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly pid: number) {}

  sample(): number {
    const rss = readStatusBytes(this.pid, 'VmRSS');
    this.peakBytes = Math.max(this.peakBytes, rss);
    return rss;
  }

  start(): void {
    this.timer = setInterval(() => this.sample(), RSS_POLL_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }
}

interface FilesTarget {
  url: URL;
  token: string;
}

async function uploadFile(target: FilesTarget, filePath: string, bytes: FileBytes): Promise<{ seconds: number; answer: { size: number; sha256: string } }> {
  const started = performance.now();
  const req = request({
    host: target.url.hostname, port: target.url.port, method: 'PUT', path: `/files?path=${encodeURIComponent(filePath)}`,
    // Chunked: uWebSockets.js refuses a Content-Length of 10 digits (1e9 bytes or more).
    headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' },
  });
  const answered = once(req, 'response') as Promise<[IncomingMessage]>;
  answered.catch(() => undefined);
  for (const chunk of bytes.chunks()) {
    if (!req.write(chunk)) await Promise.race([once(req, 'drain'), answered]);
  }
  req.end();
  const [res] = await answered;
  let text = '';
  for await (const chunk of res) text += String(chunk);
  const seconds = (performance.now() - started) / 1000;
  if (res.statusCode !== 201) throw new Error(`PUT /files answered ${res.statusCode}: ${text.slice(0, 300)}`);
  return { seconds, answer: JSON.parse(text) as { size: number; sha256: string } };
}

async function downloadFile(target: FilesTarget, filePath: string): Promise<{ seconds: number; bytes: number; sha256: string }> {
  const started = performance.now();
  const req = request({
    host: target.url.hostname, port: target.url.port, method: 'GET', path: `/files/download/${filePath.split('/').map(encodeURIComponent).join('/')}`,
    headers: { authorization: `Bearer ${target.token}` },
  });
  req.end();
  const [res] = await once(req, 'response') as [IncomingMessage];
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of res) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).byteLength;
  }
  const seconds = (performance.now() - started) / 1000;
  if (res.statusCode !== 200) throw new Error(`GET /files/download answered ${res.statusCode}`);
  if (Number(res.headers['content-length']) !== bytes) throw new Error(`download: ${bytes} bytes, Content-Length ${res.headers['content-length']}`);
  return { seconds, bytes, sha256: hash.digest('hex') };
}

export async function runFilesSuite(opts: { url: string; token: string; mainPid: number; size: FilesSize; log: (line: string) => void }): Promise<SuiteResult> {
  const { size, log } = opts;
  const target: FilesTarget = { url: new URL(opts.url), token: opts.token };
  const filePath = 'bench/line-1/recording.bin';
  const rss = new RssPeak(opts.mainPid);
  const rssBefore = rss.sample();
  rss.peakBytes = rssBefore;
  rss.start();
  const uploads: number[] = [];
  const downloads: number[] = [];
  let checked = true;
  const notes: string[] = [];
  try {
    for (let run = 0; run < size.runCount; run++) {
      const bytes = new FileBytes(size.fileBytes, run);
      const expected = bytes.sha256();
      const up = await uploadFile(target, filePath, bytes);
      const upOk = up.answer.sha256 === expected && up.answer.size === size.fileBytes;
      const down = await downloadFile(target, filePath);
      const downOk = down.sha256 === expected && down.bytes === size.fileBytes;
      if (!upOk || !downOk) {
        checked = false;
        notes.push(`run ${run + 1}: WRONG ${!upOk ? 'upload answer' : 'download bytes'} (sha256 ${!upOk ? up.answer.sha256 : down.sha256}, expected ${expected})`);
      }
      uploads.push(size.fileBytes / up.seconds / 1e6);
      downloads.push(size.fileBytes / down.seconds / 1e6);
      log(`files: run ${run + 1}/${size.runCount}: upload ${uploads.at(-1)?.toFixed(0)} MB/s, download ${downloads.at(-1)?.toFixed(0)} MB/s, service RSS peak +${((rss.peakBytes - rssBefore) / MiB).toFixed(1)} MiB`);
    }
  } finally {
    rss.stop();
  }
  const growthMiB = (rss.peakBytes - rssBefore) / MiB;
  const label = `${(size.fileBytes / MiB).toFixed(0)} MiB`;
  const rate = (key: string, what: string, values: number[]): Metric => ({
    suite: 'files', key, label: `${what} ${label} over loopback`, unit: 'MB/s', better: 'higher', target: { op: '>=', value: RATE_TARGET_MB_PER_S },
    figures: { plantdata: { value: median(values), p99: Math.min(...values), runCount: values.length, checked, note: 'p99 column: the slowest run' } },
  });
  return {
    suite: 'files',
    dataset: `one ${label} file (deterministic bytes, SHA-256 checked both ways), uploaded with PUT /files (each run replaces it) and downloaded ${size.runCount} times; median MB/s (10^6 B/s), the slowest run in the p99 column; service RSS before the first upload ${(rssBefore / MiB).toFixed(0)} MiB`,
    metrics: [
      rate('upload', 'PUT /files', uploads),
      rate('download', 'GET /files/download', downloads),
      { suite: 'files', key: 'rss-growth', label: 'service RSS growth, peak over all runs', unit: 'MiB', better: 'lower', target: { op: '<', value: RSS_GROWTH_TARGET_MIB }, figures: { plantdata: { value: growthMiB } } },
    ],
    notes,
  };
}
