// Writing one HTTP answer on a uWS response: status, headers, a body that is JSON, text,
// bytes or chunks, and the lingering answer given while the client is still sending its body.
// What to answer is decided by http-server.ts and problems.ts.
import type { HttpResponse } from 'uWebSockets.js';
import type { Logger } from '../engine/log.ts';
import type { BodyReader } from './body.ts';
import type { ErrorReply } from './problems.ts';
import type { Reply } from './route.ts';
import { guardUws } from './uws-guard.ts';

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK', 201: '201 Created', 204: '204 No Content', 302: '302 Found', 304: '304 Not Modified', 400: '400 Bad Request', 401: '401 Unauthorized',
  403: '403 Forbidden', 404: '404 Not Found', 405: '405 Method Not Allowed', 409: '409 Conflict',
  413: '413 Payload Too Large', 415: '415 Unsupported Media Type', 422: '422 Unprocessable Entity',
  429: '429 Too Many Requests', 500: '500 Internal Server Error', 503: '503 Service Unavailable',
};

/** The response's life: set by onAborted (nothing may touch it after) and once answered. */
export interface ResponseState {
  aborted: boolean;
  /** An answer was started (a second one is a programmer error, dropped). */
  answered?: boolean;
}

type Body = string | Uint8Array | Uint8Array[] | undefined;

function serialise(reply: Reply | ErrorReply): Body {
  // Strings and bytes are bodies already serialised (pages built by the stores), an array of
  // bytes the chunks of one (sent without joining them); anything else is JSON.
  if (reply.body === undefined) return undefined;
  if (typeof reply.body === 'string' || reply.body instanceof Uint8Array || isChunks(reply.body)) return reply.body;
  return JSON.stringify(reply.body);
}

function isChunks(body: unknown): body is Uint8Array[] {
  return Array.isArray(body) && body.every((chunk) => chunk instanceof Uint8Array);
}

function writeHead(res: HttpResponse, reply: Reply | ErrorReply, requestId: string, hasBody: boolean): void {
  res.writeStatus(STATUS_TEXT[reply.status] ?? String(reply.status));
  res.writeHeader('X-Request-Id', requestId);
  if (hasBody) res.writeHeader('Content-Type', reply.contentType ?? 'application/json');
  for (const [key, value] of Object.entries(reply.headers ?? {})) res.writeHeader(key, value);
}

/** One complete answer; `closeConnection` adds `Connection: close` and closes once it is sent. */
export function send(res: HttpResponse, state: ResponseState, reply: Reply | ErrorReply, requestId: string, closeConnection = false): void {
  if (state.aborted || state.answered) return;
  state.answered = true;
  const body = serialise(reply);
  res.cork(() => {
    writeHead(res, reply, requestId, body !== undefined);
    if (body === undefined) res.endWithoutBody(0, closeConnection);
    else if (!Array.isArray(body)) res.end(body, closeConnection);
    else endWithChunks(res, body, closeConnection);
  });
}

/** Chunks up to this many bytes in all go as one body with Content-Length (one copy, one write). */
const JOINED_ANSWER_BYTES_MAX = 256 * 1024;

/**
 * One answer from several chunks. Up to JOINED_ANSWER_BYTES_MAX in all, joined into one body
 * with Content-Length; beyond it (a 100,000-point page is 4.5 MB, not copied again) chunked
 * transfer encoding: write() hands each to uWS, which sends what the socket takes and keeps
 * the rest until it drains; end() closes it.
 */
function endWithChunks(res: HttpResponse, chunks: readonly Uint8Array[], closeConnection: boolean): void {
  let total = 0;
  for (const chunk of chunks) total += chunk.byteLength;
  if (total <= JOINED_ANSWER_BYTES_MAX) {
    res.end(Buffer.concat(chunks, total), closeConnection);
    return;
  }
  const nonEmpty = chunks.filter((chunk) => chunk.byteLength > 0);
  for (let i = 0; i < nonEmpty.length - 1; i++) res.write(nonEmpty[i] as Uint8Array);
  res.end(nonEmpty[nonEmpty.length - 1] ?? '', closeConnection);
}

/**
 * An answer while the request body may still be arriving. When it has all arrived, a plain
 * send(). Otherwise (a 413, a 401 or 429 before the body was read) the answer goes out at once
 * with `Connection: close`, its body as chunks, and the rest of the request body is read and
 * dropped (body.ts, bounded); only then does the answer end. Closing under a client that is
 * still sending makes most clients fail with EPIPE or ECONNRESET before they read the answer.
 *
 * The answer ends without uWS's own close: end(…, true) after write() puts `Connection:
 * close` inside the chunked body (uWS 20.30); the client closes as the header tells it, and a
 * client past the bounds has its connection closed.
 */
export function answer(
  res: HttpResponse, state: ResponseState, reply: Reply | ErrorReply, requestId: string,
  reader: BodyReader | undefined, log: Logger, closeConnection = false,
): void {
  if (!reader || reader.complete()) {
    send(res, state, reply, requestId, closeConnection);
    return;
  }
  if (state.aborted || state.answered) return;
  state.answered = true;
  const body = serialise(reply);
  const early = body !== undefined && (Array.isArray(body) ? body.some((chunk) => chunk.byteLength > 0) : (typeof body === 'string' ? body.length : body.byteLength) > 0);
  if (early) {
    res.cork(() => {
      writeHead(res, reply, requestId, true);
      res.writeHeader('Connection', 'close');
      for (const chunk of Array.isArray(body) ? body : [body]) res.write(chunk);
    });
  }
  void reader.discardRest().then(guardUws(log, 'lingering answer', (outcome) => {
    if (state.aborted) return;
    res.cork(() => {
      // Nothing written yet (no body to send early): the whole answer now, closing after it.
      if (!early) {
        writeHead(res, reply, requestId, false);
        res.endWithoutBody(0, true);
      } else if (outcome === 'drained') res.end();
      else res.close();
    });
  }));
}
