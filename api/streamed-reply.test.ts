// Goal: a streamed reply (SPEC Limits: `GET /files/download/**` exempt from the body cap)
// sends every byte with Content-Length (known size) or chunked (unknown), reads its source
// only as fast as the client takes the bytes, stops the source when the client leaves, and
// reports a failing source honestly (500 before the first byte, a cut connection after).
// Method: a real uWS app on 127.0.0.1 with a test-only route mounted by the real mountRoutes;
// node:http as a client that can stop reading, fetch for the rest.
import t from 'tap';
import { Type } from '@sinclair/typebox';
import http from 'node:http';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { ok, queryRoute } from './route.ts';
import { streamedReply } from './streamed-reply.ts';
import { startRouteKindsApp, until } from './testing/route-kinds-app.ts';

const MiB = 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;
/**
 * What may sit between the source and a client that stopped reading: the kernel's socket
 * buffers on both ends (here tcp_wmem 4 MiB, tcp_rmem up to 32 MiB), one chunk in uWS, a
 * Readable's read-ahead, node:http's buffer. Far under the 128 MiB body.
 */
const IN_FLIGHT_BYTES_MAX = 48 * MiB;

interface Source { produced: number; completed: boolean; stopped: boolean }
const sources = new Map<string, Source>();

/** Byte i of every body is (i >> 16) % 251: chunk-sized runs, checkable by a hash. */
function chunkAt(offset: number, bytes: number): Uint8Array {
  return new Uint8Array(bytes).fill(Math.floor(offset / CHUNK_BYTES) % 251);
}

function expectedSha256(totalBytes: number): string {
  const hash = createHash('sha256');
  for (let offset = 0; offset < totalBytes; offset += CHUNK_BYTES) hash.update(chunkAt(offset, Math.min(CHUNK_BYTES, totalBytes - offset)));
  return hash.digest('hex');
}

async function* generate(record: Source, totalBytes: number, failAt: number | undefined): AsyncGenerator<Uint8Array> {
  try {
    while (record.produced < totalBytes) {
      if (failAt !== undefined && record.produced >= failAt) throw new Error('the source broke');
      const chunk = chunkAt(record.produced, Math.min(CHUNK_BYTES, totalBytes - record.produced));
      record.produced += chunk.byteLength;
      yield chunk;
    }
    record.completed = true;
  } finally {
    if (!record.completed) record.stopped = true;
  }
}

const Text = Type.Optional(Type.String());
const download = queryRoute({
  method: 'get', path: '/test/download/{id}', operationId: 'testDownload', summary: 'download', tag: 'test',
  query: Type.Object({ bytes: Text, failAt: Text, kind: Text, announce: Text, status: Text, known: Text }),
  responses: { 200: { description: 'the bytes' } },
  async handle({ params, query }) {
    const record: Source = { produced: 0, completed: false, stopped: false };
    sources.set(params['id'] as string, record);
    const totalBytes = Number(query.bytes);
    const failAt = query.failAt !== undefined ? Number(query.failAt) : undefined;
    const generator = generate(record, totalBytes, failAt);
    const source = query.kind === 'readable' ? Readable.from(generator, { objectMode: true, highWaterMark: 2 }) : generator;
    if (query.kind === 'readable') (source as Readable).on('close', () => { if (!record.completed) record.stopped = true; });
    const announced = query.announce !== undefined ? Number(query.announce) : totalBytes;
    if (query.status === '206') {
      return streamedReply({ status: 206, source, totalBytes: announced, contentType: 'video/mp4', headers: { 'Content-Range': `bytes 0-${announced - 1}/${announced * 2}`, ETag: '"v1"' } });
    }
    return streamedReply({ source, totalBytes: query.known === '1' ? announced : undefined });
  },
});
const ping = { method: 'get' as const, path: '/test/ping', operationId: 'testPing', summary: 'ping', tag: 'test', responses: { 200: { description: 'ok' } }, handle: async () => ok({ pong: true }) };

const app = await startRouteKindsApp({ routes: [download, ping] });
t.teardown(() => app.close());
const token = app.token(app.newTenant());
const authorization = `Bearer ${token}`;

interface SlowRead {
  headers: http.IncomingHttpHeaders;
  consumed: number;
  paused: Promise<void>;
  resume(): void;
  abort(): void;
  done: Promise<{ consumed: number; sha256: string }>;
}

/** A client that reads `pauseAfter` bytes, then stops reading until resume() (or abort()). */
function slowRead(path: string, pauseAfter: number): Promise<SlowRead> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${app.url}${path}`, { headers: { authorization } }, (res) => {
      const hash = createHash('sha256');
      let markPaused: () => void = () => undefined;
      const read: SlowRead = {
        headers: res.headers, consumed: 0,
        paused: new Promise((done) => { markPaused = done; }),
        resume: () => res.resume(),
        abort: () => req.destroy(),
        done: new Promise((done, fail) => {
          res.on('end', () => done({ consumed: read.consumed, sha256: hash.digest('hex') }));
          res.on('error', fail);
        }),
      };
      read.done.catch(() => undefined);
      let pausedOnce = false;
      res.on('data', (chunk: Buffer) => {
        read.consumed += chunk.byteLength;
        hash.update(chunk);
        if (read.consumed >= pauseAfter && !pausedOnce) {
          pausedOnce = true;
          res.pause();
          markPaused();
        }
      });
      resolve(read);
    });
    req.on('error', reject);
  });
}

/** Polls until `value` stops changing (the pipeline is full), within a deadline. */
async function settled(value: () => number, what: string): Promise<number> {
  let last = -1;
  let unchangedPolls = 0;
  await until(() => {
    const now = value();
    unchangedPolls = now === last ? unchangedPolls + 1 : 0;
    last = now;
    return unchangedPolls >= 40;
  }, what);
  return last;
}

for (const [kind, known] of [['generator', true], ['generator', false], ['readable', true], ['readable', false]] as const) {
  t.test(`${kind} source, ${known ? 'known size (Content-Length)' : 'unknown size (chunked)'}: read as the client reads`, async (t) => {
    const totalBytes = 128 * MiB;
    const id = `slow-${kind}-${known}`;
    const read = await slowRead(`/test/download/${id}?bytes=${totalBytes}&kind=${kind}&known=${known ? 1 : 0}`, 2 * MiB);
    if (known) t.equal(read.headers['content-length'], String(totalBytes), 'Content-Length');
    else t.equal(read.headers['transfer-encoding'], 'chunked', 'chunked');
    t.equal(read.headers['content-type'], 'application/octet-stream');
    t.ok(read.headers['x-request-id'], 'X-Request-Id');
    await read.paused;
    const record = sources.get(id) as Source;
    const produced = await settled(() => record.produced, 'the source to stop while the client does not read');
    t.ok(produced - read.consumed <= IN_FLIGHT_BYTES_MAX,
      `the source ran ${((produced - read.consumed) / MiB).toFixed(1)} MiB ahead of the client (at most ${IN_FLIGHT_BYTES_MAX / MiB} MiB; body ${totalBytes / MiB} MiB)`);
    read.resume();
    const done = await read.done;
    t.equal(done.consumed, totalBytes, 'every byte');
    t.equal(done.sha256, expectedSha256(totalBytes), 'in order');
    t.ok(record.completed && !record.stopped, 'the source was read to its end');
  });

  t.test(`${kind} source, ${known ? 'known' : 'unknown'} size: a client that leaves stops the source`, async (t) => {
    const id = `gone-${kind}-${known}`;
    const totalBytes = 128 * MiB;
    const read = await slowRead(`/test/download/${id}?bytes=${totalBytes}&kind=${kind}&known=${known ? 1 : 0}`, MiB);
    await read.paused;
    read.abort();
    const record = sources.get(id) as Source;
    await until(() => record.stopped, 'the source to be stopped');
    t.ok(record.produced < totalBytes, `the source stopped after ${(record.produced / MiB).toFixed(1)} MiB`);
    const after = await fetch(`${app.url}/test/ping`, { headers: { authorization } });
    t.equal(after.status, 200, 'the service keeps serving');
  });
}

t.test('206 with Content-Range, ETag and Content-Type as the route says', async (t) => {
  const res = await fetch(`${app.url}/test/download/range?bytes=${MiB}&status=206`, { headers: { authorization } });
  t.equal(res.status, 206);
  t.equal(res.headers.get('content-range'), `bytes 0-${MiB - 1}/${2 * MiB}`);
  t.equal(res.headers.get('etag'), '"v1"');
  t.equal(res.headers.get('content-type'), 'video/mp4');
  t.equal(res.headers.get('content-length'), String(MiB));
  t.equal((await res.arrayBuffer()).byteLength, MiB);
});

t.test('empty bodies, known and unknown size', async (t) => {
  for (const known of [1, 0]) {
    const res = await fetch(`${app.url}/test/download/empty-${known}?bytes=0&known=${known}`, { headers: { authorization } });
    t.equal(res.status, 200);
    t.equal((await res.arrayBuffer()).byteLength, 0, `known=${known}`);
  }
});

t.test('a failing source: 500 before the first byte; a cut body after it; a short body is cut; an over-long source is stopped', async (t) => {
  const before = await fetch(`${app.url}/test/download/fail-first?bytes=${MiB}&failAt=0&known=1`, { headers: { authorization } });
  t.equal(before.status, 500);
  t.equal((await before.json()).error.code, 500, 'an error body, no stack');
  for (const known of [1, 0]) {
    const res = await fetch(`${app.url}/test/download/fail-mid-${known}?bytes=${16 * MiB}&failAt=${4 * MiB}&known=${known}`, { headers: { authorization } });
    t.equal(res.status, 200, 'the status went out with the first chunk');
    await t.rejects(res.arrayBuffer(), `known=${known}: the client sees a cut body, not a short one`);
  }
  const short = await fetch(`${app.url}/test/download/short?bytes=${MiB}&announce=${2 * MiB}&known=1`, { headers: { authorization } });
  await t.rejects(short.arrayBuffer(), 'fewer bytes than Content-Length: cut');
  const long = await fetch(`${app.url}/test/download/long?bytes=${2 * MiB}&announce=${MiB}&known=1`, { headers: { authorization } });
  t.equal((await long.arrayBuffer()).byteLength, MiB, 'more bytes than Content-Length: the announced bytes, the rest not read');
  await until(() => sources.get('long')?.stopped === true, 'the over-long source to be stopped');
  const after = await fetch(`${app.url}/test/ping`, { headers: { authorization } });
  t.equal(after.status, 200, 'the service keeps serving');
});
