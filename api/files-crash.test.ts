// Goal: the guarantee "a crash mid-upload leaves no partial file visible" through the real
// service: SIGKILL while an upload replacing a file is half sent; after a restart on the
// same DATA_DIR the acknowledged files read back whole, the interrupted upload left no file,
// no staging file and no blob behind.
// Method: the service as a child process (`node --import tsx api/main.ts`, port 0, a temp
// DATA_DIR), as datapoints-crash.test.ts runs it; node:http clients; contents by SHA-256.
// The kill comes once the upload's staging file exists (polled), so it lands mid-write.
import { readdirSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import path from 'node:path';
import t from 'tap';
import { pollUntil } from '../engine/testing/poll-until.ts';
import { serviceHome, startServiceProcess, type ServiceProcess } from './testing/service-process.ts';

const MiB = 1024 * 1024;
const home = serviceHome('plantdata-files-crash-', 'files-crash', { tenants: { 'files-crash': { files: true } } });
const { dataDir, env, token } = home;
const running: ServiceProcess[] = [];
t.teardown(async () => {
  for (const service of running) await service.stop();
  home.remove();
});

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const staging = path.join(dataDir, 'files', 'staging');
const blobFiles = () => readdirSync(path.join(dataDir, 'files', 'blobs'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;

async function put(url: string, filePath: string, bytes: Buffer): Promise<number> {
  const res = await fetch(`${url}/files?path=${encodeURIComponent(filePath)}`, { method: 'PUT', headers: { authorization: `Bearer ${token}` }, body: new Uint8Array(bytes) });
  await res.arrayBuffer();
  return res.status;
}

async function download(url: string, filePath: string): Promise<{ status: number; sha256: string }> {
  const res = await fetch(`${url}/files/download/${filePath}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, sha256: sha(new Uint8Array(await res.arrayBuffer())) };
}

t.test('SIGKILL mid-upload: acknowledged files whole, nothing of the cut upload left', async (t) => {
  const first = await startServiceProcess(env);
  running.push(first);
  const kept = randomBytes(3 * MiB + 7);
  const other = randomBytes(MiB);
  t.equal(await put(first.url, 'k/file', kept), 201, 'the file the cut upload replaces');
  t.equal(await put(first.url, 'k/other', other), 201, 'another file');

  const { port } = new URL(first.url);
  const req = request({ host: '127.0.0.1', port, method: 'PUT', path: '/files?path=k%2Ffile', headers: { authorization: `Bearer ${token}`, 'transfer-encoding': 'chunked' } });
  req.on('error', () => undefined);
  const piece = randomBytes(MiB);
  for (let i = 0; i < 6; i++) {
    if (!req.write(piece)) await new Promise((resolve) => req.once('drain', resolve));
  }
  await pollUntil('the upload writing its staging file', () => readdirSync(staging).length > 0, 60_000, 5);
  first.child.kill('SIGKILL');
  t.equal(await first.exited, 'SIGKILL', 'the service was killed mid-upload');
  req.destroy();

  const second = await startServiceProcess(env);
  running.push(second);
  t.strictSame(await download(second.url, 'k/file'), { status: 200, sha256: sha(kept) }, 'the acknowledged file at the cut path, whole');
  t.strictSame(await download(second.url, 'k/other'), { status: 200, sha256: sha(other) }, 'the other file, whole');
  t.strictSame(readdirSync(staging), [], 'no staging file after the restart');
  t.equal(blobFiles(), 2, 'one blob per file: the cut upload left none');
  const list = await fetch(`${second.url}/files?recursive=true`, { headers: { authorization: `Bearer ${token}` } });
  t.strictSame(((await list.json()) as { items: { path: string; size: number }[] }).items.map((f) => [f.path, f.size]), [['k/file', kept.byteLength], ['k/other', other.byteLength]], 'the listing shows the two files as acknowledged');
});
