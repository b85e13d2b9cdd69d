// Goal: the streaming cases through the real server: uploads far larger than the 4 MiB
// body cap (with Content-Length and chunked) come back byte-identical; an upload the client
// cuts short leaves nothing visible, no staging file, and the previous file at that path
// intact; a download under way while its file is replaced (or deleted) finishes with the old
// bytes, whole, while new downloads get the new ones; uploads racing on one path all answer
// 201, the path ends with one of them whole and no blob is left behind; /health reports the
// blob store.
// Method: one real server in this process (DATA_DIR/files on disk); node:http clients that
// control exactly when bytes are sent and read; contents checked by SHA-256. No sleeps: the
// server's cleanup after a client leaves is polled against a deadline.
import t from 'tap';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, renameSync } from 'node:fs';
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import path from 'node:path';
import { BODY_BYTES_MAX } from '../engine/limits.ts';
import { pollUntil } from '../engine/testing/poll-until.ts';
import { startTestServer } from './testing/test-server.ts';

const MiB = 1024 * 1024;
const ORG = `files-streaming-${randomBytes(4).toString('hex')}`;
const srv = await startTestServer({ serviceConfig: { tenants: { [ORG]: { files: true } } } });
t.teardown(() => srv.close());
const token = srv.token({ org: ORG });
const { port } = new URL(srv.url);
const filesDir = path.join(srv.dataDir, 'files');

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const downloadPath = (p: string) => `/files/download/${p.split('/').map(encodeURIComponent).join('/')}`;

function blobFiles(): string[] {
  return readdirSync(path.join(filesDir, 'blobs'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);
}

function start(method: string, urlPath: string, headers: Record<string, string | number> = {}): { req: ClientRequest; response: Promise<IncomingMessage> } {
  const req = request({ host: '127.0.0.1', port, method, path: urlPath, headers: { authorization: `Bearer ${token}`, ...headers } });
  const response = new Promise<IncomingMessage>((resolve, reject) => req.once('response', resolve).once('error', reject));
  return { req, response };
}

async function readAll(res: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** PUT with Content-Length (or chunked), writing in 256 KiB pieces as the socket takes them. */
async function upload(filePath: string, bytes: Buffer, opts: { chunked?: boolean; contentType?: string } = {}): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const headers: Record<string, string | number> = { 'content-type': opts.contentType ?? 'application/octet-stream' };
  if (!opts.chunked) headers['content-length'] = bytes.byteLength;
  const { req, response } = start('PUT', `/files?path=${encodeURIComponent(filePath)}`, headers);
  for (let offset = 0; offset < bytes.byteLength; offset += 256 * 1024) {
    if (!req.write(bytes.subarray(offset, offset + 256 * 1024))) await new Promise((resolve) => req.once('drain', resolve));
  }
  req.end();
  const res = await response;
  const text = (await readAll(res)).toString('utf8');
  return { status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined };
}

async function download(filePath: string): Promise<{ status: number; bytes: Buffer }> {
  const { req, response } = start('GET', downloadPath(filePath));
  req.end();
  const res = await response;
  return { status: res.statusCode ?? 0, bytes: await readAll(res) };
}

t.test('uploads larger than the body cap: byte-identical round trips, with Content-Length and chunked', async (t) => {
  for (const chunked of [false, true]) {
    const bytes = randomBytes(6 * BODY_BYTES_MAX + 12_345);
    const filePath = `big/${chunked ? 'chunked' : 'content-length'}.bin`;
    const put = await upload(filePath, bytes, { chunked });
    t.equal(put.status, 201, `${filePath}: 201 past the ${BODY_BYTES_MAX}-byte cap`);
    t.equal(put.body.size, bytes.byteLength, `${filePath}: size`);
    t.equal(put.body.sha256, sha(bytes), `${filePath}: sha256 of what was sent`);
    const got = await download(filePath);
    t.equal(got.status, 200, `${filePath}: download 200`);
    t.equal(sha(got.bytes), sha(bytes), `${filePath}: byte-identical`);
  }
});

t.test('an interrupted upload leaves nothing visible, no staging file, and the old file intact', async (t) => {
  const old = randomBytes(MiB);
  t.equal((await upload('cut/file.bin', old)).status, 201, 'the file to replace');
  const blobsBefore = blobFiles().length;
  for (const cutAfter of [0, 3 * MiB, 9 * MiB]) {
    const { req, response } = start('PUT', `/files?path=${encodeURIComponent('cut/file.bin')}`, { 'content-length': 32 * MiB });
    response.catch(() => undefined);
    req.on('error', () => undefined);
    req.flushHeaders();
    const piece = randomBytes(MiB);
    for (let sent = 0; sent < cutAfter; sent += MiB) {
      if (!req.write(piece)) await new Promise((resolve) => req.once('drain', resolve));
    }
    // Wait until the server is holding the upload open (its staging file exists), then leave.
    await pollUntil('a staging file for the upload', () => readdirSync(path.join(filesDir, 'staging')).length > 0, 30_000, 5);
    req.destroy();
    await pollUntil('the staging file removed', () => readdirSync(path.join(filesDir, 'staging')).length === 0, 30_000, 5);
    const got = await download('cut/file.bin');
    t.equal(sha(got.bytes), sha(old), `cut after ${cutAfter / MiB} MiB: the old file, whole`);
    await pollUntil('the blob count back where it was', () => blobFiles().length === blobsBefore, 30_000, 5);
    t.pass(`cut after ${cutAfter / MiB} MiB: no blob left behind`);
  }
  const fresh = start('PUT', `/files?path=${encodeURIComponent('cut/never.bin')}`, { 'content-length': 4 * MiB });
  fresh.response.catch(() => undefined);
  fresh.req.on('error', () => undefined);
  fresh.req.write(randomBytes(MiB));
  await pollUntil('a staging file for the upload', () => readdirSync(path.join(filesDir, 'staging')).length > 0, 30_000, 5);
  fresh.req.destroy();
  await pollUntil('the staging file removed', () => readdirSync(path.join(filesDir, 'staging')).length === 0, 30_000, 5);
  t.equal((await download('cut/never.bin')).status, 404, 'a new path cut short: no file');
});

t.test('a download under way while its file is replaced or deleted finishes with the old bytes', async (t) => {
  for (const change of ['replace', 'delete'] as const) {
    const oldBytes = randomBytes(24 * MiB);
    const newBytes = randomBytes(3 * MiB);
    const filePath = `race/${change}.bin`;
    t.equal((await upload(filePath, oldBytes)).status, 201, `${change}: the old file`);
    const reading = start('GET', downloadPath(filePath));
    reading.req.end();
    const res = await reading.response;
    t.equal(res.headers['content-length'], String(oldBytes.byteLength), `${change}: the download announces the old size`);
    // Read a first chunk, then stop reading: the rest waits in the server and the sockets.
    const first: Buffer = await new Promise((resolve) => res.once('data', resolve));
    res.pause();
    if (change === 'replace') t.equal((await upload(filePath, newBytes)).status, 201, 'replaced while the download is under way');
    else {
      const del = await srv.request('POST', '/files/delete', { token, body: { items: [{ path: filePath }] } });
      t.equal(del.status, 204, 'deleted while the download is under way');
    }
    res.resume();
    const rest = await readAll(res);
    t.equal(sha(Buffer.concat([first, rest])), sha(oldBytes), `${change}: the download under way got the old bytes, whole`);
    const after = await download(filePath);
    if (change === 'replace') t.equal(sha(after.bytes), sha(newBytes), 'a new download gets the new bytes');
    else t.equal(after.status, 404, 'a new download finds no file');
  }
});

t.test('concurrent replace and read: every read is one version whole', async (t) => {
  const versions = Array.from({ length: 4 }, (_, i) => randomBytes((2 + i) * MiB));
  const hashes = new Set(versions.map(sha));
  const filePath = 'race/versions.bin';
  t.equal((await upload(filePath, versions[0] as Buffer)).status, 201, 'first version');
  const reads: Promise<{ status: number; bytes: Buffer }>[] = [];
  const writes: Promise<{ status: number }>[] = [];
  for (let round = 0; round < 6; round++) {
    writes.push(upload(filePath, versions[round % versions.length] as Buffer));
    reads.push(download(filePath), download(filePath));
  }
  const writeStatuses = (await Promise.all(writes)).map((w) => w.status);
  t.strictSame(writeStatuses, writeStatuses.map(() => 201), 'every replace answered 201');
  const results = await Promise.all(reads);
  t.ok(results.every((r) => r.status === 200 && hashes.has(sha(r.bytes))), `${results.length} reads, each one version whole`);
  const final = await download(filePath);
  t.ok(hashes.has(sha(final.bytes)), 'the path ends with one version whole');
});

t.test('uploads racing on one new path: all 201, one wins whole, no blob leaked', async (t) => {
  const filePath = 'race/new-path.bin';
  const bodies = Array.from({ length: 6 }, () => randomBytes(MiB + 1));
  const answers = await Promise.all(bodies.map((bytes) => upload(filePath, bytes)));
  t.strictSame(answers.map((a) => a.status), answers.map(() => 201), 'every upload answered 201');
  const final = await download(filePath);
  t.ok(bodies.some((b) => sha(b) === sha(final.bytes)), 'the path holds one of them whole');
  const list = await srv.request('GET', '/files?recursive=true&limit=1000', { token });
  await pollUntil('one blob per file (replaced blobs are removed after the answer)', () => blobFiles().length === list.body.items.length, 30_000, 5);
  t.pass('one blob per file: none leaked by the race');
});

t.test('GET /health reports the blob store: 503 naming files while its directory is gone', async (t) => {
  t.equal((await fetch(`${srv.url}/health`)).status, 200, 'healthy');
  const blobs = path.join(filesDir, 'blobs');
  renameSync(blobs, `${blobs}.away`);
  try {
    const res = await fetch(`${srv.url}/health`);
    t.equal(res.status, 503, '503 without the blob directory');
    t.strictSame(((await res.json()) as { failing: string[] }).failing, ['files'], 'failing: files');
  } finally {
    renameSync(`${blobs}.away`, blobs);
  }
  t.equal((await fetch(`${srv.url}/health`)).status, 200, 'healthy again');
});
