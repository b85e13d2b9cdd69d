// Goal: a streamed-body route (SPEC Limits: `PUT /files` exempt from the body cap) hands the
// handler every byte in order, past the 4 MiB cap, with bounded memory: the client is paused
// while the handler is behind; a client that leaves mid-body ends the iteration with an error;
// a bad token is refused before the handler runs; a handler that answers before the body is
// in (having read none or part of it) is read by fetch while it still sends, the rest of the
// body drained. Method: a real uWS app on 127.0.0.1 with a
// test-only route mounted by the real mountRoutes; Node's fetch streams the body (chunked).
import t from 'tap';
import { Type } from '@sinclair/typebox';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { BadRequestError } from '../engine/errors.ts';
import { ClientGoneError } from './body.ts';
import { ok, streamedBodyRoute } from './route.ts';
import { STREAMED_BODY_QUEUE_BYTES_MAX } from './streamed-body.ts';
import { startRouteKindsApp, until } from './testing/route-kinds-app.ts';

const MiB = 1024 * 1024;
const CHUNK_BYTES = 256 * 1024;
/** uWS delivers the rest of the receive buffer it is parsing after a pause (512 KiB at most). */
const UWS_RECEIVE_BUFFER_BYTES = 512 * 1024;

interface Upload { bytes: number; queuedBytesPeak: number; throttled: boolean; rssBefore: number; rssPeak: number; error?: unknown; handled: boolean }
const uploads = new Map<string, Upload>();

const upload = streamedBodyRoute({
  method: 'put', path: '/test/upload/{id}', operationId: 'testUpload', summary: 'upload', tag: 'test',
  query: Type.Object({ waitForThrottle: Type.Optional(Type.String()) }),
  responses: { 200: { description: 'bytes and SHA-256 of the body' } },
  async handle({ params, query, bodyStream }) {
    const record: Upload = { bytes: 0, queuedBytesPeak: 0, throttled: false, rssBefore: process.memoryUsage().rss, rssPeak: 0, handled: true };
    uploads.set(params['id'] as string, record);
    // Read nothing until the client has been paused: the queue must stop at its bound.
    if (query.waitForThrottle === '1') await until(() => bodyStream.throttled || bodyStream.complete, 'the client paused');
    record.throttled = bodyStream.throttled;
    const hash = createHash('sha256');
    try {
      for await (const chunk of bodyStream) {
        hash.update(chunk);
        record.bytes += chunk.byteLength;
        if (record.bytes % (4 * MiB) < chunk.byteLength) record.rssPeak = Math.max(record.rssPeak, process.memoryUsage().rss);
      }
    } catch (error) {
      record.error = error;
      throw error;
    } finally {
      record.queuedBytesPeak = bodyStream.queuedBytesPeak;
    }
    return ok({ bytes: record.bytes, sha256: hash.digest('hex') });
  },
});

/** Reads `read` chunks (none by default), then refuses the request with a 400. */
const refuse = streamedBodyRoute({
  method: 'put', path: '/test/refuse', operationId: 'testRefuse', summary: 'refuse', tag: 'test',
  responses: { 400: { description: 'always' } },
  query: Type.Object({ read: Type.Optional(Type.Integer({ minimum: 0 })) }),
  async handle({ query, bodyStream }) {
    let left = query.read ?? 0;
    if (left > 0) {
      for await (const chunk of bodyStream) {
        if (chunk.byteLength > 0 && --left === 0) break;
      }
    }
    throw new BadRequestError('refused before the body was in', [{ field: 'read', message: 'always refused' }]);
  },
});

const app = await startRouteKindsApp({ routes: [upload, refuse] });
t.teardown(() => app.close());
const token = app.token(app.newTenant());

/** A body of `totalBytes` made on demand, hashed as it is sent; `onSent` sees the running count. */
function body(totalBytes: number, onSent: (sent: number) => void = () => undefined) {
  const hash = createHash('sha256');
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= totalBytes) {
        controller.close();
        return;
      }
      const chunk = new Uint8Array(Math.min(CHUNK_BYTES, totalBytes - sent)).fill((sent / CHUNK_BYTES) % 251);
      hash.update(chunk);
      sent += chunk.byteLength;
      controller.enqueue(chunk);
      onSent(sent);
    },
  }, { highWaterMark: 1 });
  return { stream, sha256: () => hash.digest('hex') };
}

/**
 * Uploads `totalBytes` from a separate Node process (so this process's RSS is the server's
 * alone): chunked, made on demand, honouring the socket's back-pressure. Resolves with the
 * status, the answer and the SHA-256 of what was sent.
 */
function uploadFromChildProcess(url: string, totalBytes: number): Promise<{ status: number; answer: unknown; sha256: string }> {
  const script = `
    const http = require('node:http'); const { createHash } = require('node:crypto');
    const [url, total, token, chunkBytes] = [process.argv[1], Number(process.argv[2]), process.argv[3], Number(process.argv[4])];
    const hash = createHash('sha256'); let sent = 0;
    const req = http.request(url, { method: 'PUT', headers: { authorization: 'Bearer ' + token, 'content-type': 'application/octet-stream' } }, (res) => {
      let text = ''; res.on('data', (d) => { text += d; });
      res.on('end', () => process.stdout.write(JSON.stringify({ status: res.statusCode, answer: JSON.parse(text), sha256: hash.digest('hex') })));
    });
    const pump = () => {
      while (sent < total) {
        const chunk = Buffer.alloc(Math.min(chunkBytes, total - sent), (sent / chunkBytes) % 251);
        hash.update(chunk); sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', script, url, String(totalBytes), token, String(CHUNK_BYTES)], { maxBuffer: MiB }, (error, stdout) => {
      if (error) reject(error);
      else resolve(JSON.parse(stdout));
    });
  });
}

t.test('a 128 MiB body reaches the handler whole, in order, with the server memory far under its size', async (t) => {
  const totalBytes = 128 * MiB;
  const sent = await uploadFromChildProcess(`${app.url}/test/upload/big?waitForThrottle=1`, totalBytes);
  t.equal(sent.status, 200);
  t.same(sent.answer, { bytes: totalBytes, sha256: sent.sha256 }, 'every byte, in order');
  const record = uploads.get('big') as Upload;
  t.ok(record.throttled, 'the client was paused while the handler read nothing');
  const bound = STREAMED_BODY_QUEUE_BYTES_MAX + UWS_RECEIVE_BUFFER_BYTES + CHUNK_BYTES;
  t.ok(record.queuedBytesPeak <= bound, `queued at most ${record.queuedBytesPeak} bytes (bound ${bound})`);
  const growth = record.rssPeak - record.rssBefore;
  t.ok(growth < 32 * MiB, `RSS grew ${(growth / MiB).toFixed(1)} MiB for a ${totalBytes / MiB} MiB body`);
});

t.test('a body streamed by fetch (ReadableStream, duplex half) arrives whole', async (t) => {
  const totalBytes = 24 * MiB;
  const { stream, sha256 } = body(totalBytes);
  const res = await fetch(`${app.url}/test/upload/fetched`, {
    method: 'PUT', body: stream, duplex: 'half', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
  } as RequestInit);
  t.equal(res.status, 200);
  t.same(await res.json(), { bytes: totalBytes, sha256: sha256() });
});

t.test('a client that leaves mid-body ends the iteration with ClientGoneError', async (t) => {
  const client = new AbortController();
  const { stream } = body(64 * MiB, (sent) => { if (sent >= 8 * MiB) client.abort(); });
  await t.rejects(fetch(`${app.url}/test/upload/left`, {
    method: 'PUT', body: stream, duplex: 'half', signal: client.signal, headers: { authorization: `Bearer ${token}` },
  } as RequestInit), 'the client gave up');
  await until(() => uploads.get('left')?.error !== undefined, 'the handler to see the client leave');
  const record = uploads.get('left') as Upload;
  t.ok(record.error instanceof ClientGoneError, `the iteration ended with ${String(record.error)}`);
  t.ok(record.bytes < 64 * MiB, `the handler read ${record.bytes} bytes, not the whole body`);
});

t.test('a bad token is answered 401 and the handler never runs', async (t) => {
  const { stream } = body(2 * MiB);
  const res = await fetch(`${app.url}/test/upload/refused`, { method: 'PUT', body: stream, duplex: 'half', headers: { authorization: 'Bearer nope' } } as RequestInit);
  t.equal(res.status, 401);
  t.equal((await res.json()).error.code, 401);
  t.notOk(uploads.has('refused'), 'no handler call');
});

t.test('an empty body ends the iteration at once; a small one with Content-Length arrives whole', async (t) => {
  const empty = await fetch(`${app.url}/test/upload/empty`, { method: 'PUT', headers: { authorization: `Bearer ${token}` } });
  t.same(await empty.json(), { bytes: 0, sha256: createHash('sha256').digest('hex') });
  const bytes = new Uint8Array(5 * MiB).fill(7);
  const small = await fetch(`${app.url}/test/upload/small`, { method: 'PUT', body: bytes, headers: { authorization: `Bearer ${token}` } });
  t.same(await small.json(), { bytes: bytes.byteLength, sha256: createHash('sha256').update(bytes).digest('hex') }, 'past the 4 MiB cap of other routes');
});

t.test('an answer given before the body is in is read by fetch while it sends; the rest is drained', async (t) => {
  for (const read of [0, 3]) {
    let sent = 0;
    const { stream } = body(32 * MiB, (n) => { sent = n; });
    const res = await fetch(`${app.url}/test/refuse?read=${read}`, {
      method: 'PUT', body: stream, duplex: 'half', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
    } as RequestInit);
    t.equal(res.status, 400, `${read} chunks read, then a 400`);
    t.equal(res.headers.get('connection'), 'close', 'with Connection: close');
    t.equal((await res.json()).error.fields[0].field, 'read', 'its JSON body read whole');
    t.equal(sent, 32 * MiB, 'the client sent its whole body (drained, not reset)');
  }
  const bytes = new Uint8Array(20 * MiB).fill(1);
  const res = await fetch(`${app.url}/test/refuse`, { method: 'PUT', body: bytes, headers: { authorization: `Bearer ${token}` } });
  t.equal(res.status, 400, 'a Content-Length body: the 400 read');
  t.equal((await res.json()).error.code, 400);
});
