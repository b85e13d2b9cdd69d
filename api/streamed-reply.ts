// Streamed responses (SPEC Limits: `GET /files/download/**` is exempt from the body cap,
// streamed). A handler returns `streamedReply({ source, totalBytes })` and the body
// is written chunk by chunk as the client takes it: the next chunk is read from the source
// only once uWS has sent the previous one (onWritable), so a slow client holds at most about
// one chunk in memory. A client that leaves stops the source (destroyed, or its iterator
// returned). What the source reads (a file, a store) is the route's business.
import { STATUS_CODES } from 'node:http';
import type { HttpResponse } from 'uWebSockets.js';
import type { Logger } from '../engine/log.ts';
import type { ClientGone } from './client-gone.ts';
import type { Reply } from './route.ts';
import { guardUws } from './uws-guard.ts';

/** The body of a streamed reply: the chunks and, when known, their total size in bytes. */
export class StreamedBody {
  constructor(
    /** A Node Readable of Buffers qualifies. Chunks may be reused by the source once the next is asked for. */
    readonly source: AsyncIterable<Uint8Array>,
    /** Exact total in bytes: sent as Content-Length and checked; absent: chunked transfer encoding. */
    readonly totalBytes?: number,
  ) {}
}

export interface StreamedReplyOptions {
  /** @default 200 (206 with a Content-Range header for a range). */
  status?: number;
  source: AsyncIterable<Uint8Array>;
  totalBytes?: number;
  /** @default application/octet-stream */
  contentType?: string;
  /** Extra headers: ETag, Content-Range, Content-Disposition, ... (not Content-Length). */
  headers?: Record<string, string>;
}

export function streamedReply(opts: StreamedReplyOptions): Reply {
  if (opts.totalBytes !== undefined && !(Number.isSafeInteger(opts.totalBytes) && opts.totalBytes >= 0)) {
    throw new Error(`streamedReply: totalBytes must be a non-negative integer, got ${opts.totalBytes}`);
  }
  return {
    status: opts.status ?? 200,
    body: new StreamedBody(opts.source, opts.totalBytes),
    contentType: opts.contentType ?? 'application/octet-stream',
    ...(opts.headers ? { headers: opts.headers } : {}),
  };
}

export function isStreamedReply(reply: { body?: unknown }): reply is Reply & { body: StreamedBody } {
  return reply.body instanceof StreamedBody;
}

export type StreamedReplyOutcome = 'complete' | 'client-gone' | 'failed';

export interface StreamedReplyDeps {
  requestId: string;
  /** Aborted by the response's onAborted (mountRoutes owns that handler). */
  clientGone: ClientGone;
  log: Logger;
  /** Answers an error when the source fails before any byte was sent (status still open). */
  answerError(error: unknown): void;
}

/**
 * Writes a streamed reply. Never rejects: a source that fails before the first chunk is
 * answered through answerError; after it, the connection is closed so that the client sees a
 * truncated body (short of Content-Length, or no last chunk) rather than a silently short one.
 */
export async function sendStreamedReply(res: HttpResponse, reply: Reply & { body: StreamedBody }, deps: StreamedReplyDeps): Promise<StreamedReplyOutcome> {
  const { source, totalBytes } = reply.body;
  const iterator = source[Symbol.asyncIterator]();
  const writer = new ResponseWriter(res, totalBytes, deps);
  const stopSource = () => sendStreamedReplyStopSource(source, iterator, deps.log);
  if (deps.clientGone.aborted) {
    stopSource();
    return 'client-gone';
  }
  const stopListening = deps.clientGone.onLeave(stopSource);
  try {
    for (;;) {
      const next = await iterator.next();
      if (deps.clientGone.aborted) return 'client-gone';
      if (next.done) break;
      await writer.write(reply, next.value);
      if (deps.clientGone.aborted) return 'client-gone';
      if (writer.finished) {
        // Content-Length reached and the response ended (uWS owns it no more): a source with
        // more to give is a route bug, logged; the client has exactly what was announced.
        if (!(await iterator.next()).done) throw new Error(`the source gave more than the ${totalBytes} bytes announced as Content-Length`);
        return 'complete';
      }
    }
    writer.end(reply);
    return 'complete';
  } catch (error) {
    if (deps.clientGone.aborted) return 'client-gone';
    stopSource();
    deps.log.error({ err: error, requestId: deps.requestId, bytesSent: writer.bytesSent }, 'a streamed reply failed');
    if (!writer.headWritten) deps.answerError(error);
    else if (!writer.finished) res.close(); // cannot change the status any more: cut the body short
    return 'failed';
  } finally {
    stopListening();
  }
}

/** Stops a source we will read no more: a Readable is destroyed, any other iterator returned. */
function sendStreamedReplyStopSource(source: AsyncIterable<Uint8Array>, iterator: AsyncIterator<Uint8Array>, log: Logger): void {
  const destroy = (source as { destroy?: unknown }).destroy;
  if (typeof destroy === 'function') destroy.call(source);
  else iterator.return?.()?.catch((error: unknown) => log.warn({ err: error }, 'stopping a streamed reply source failed'));
}

/**
 * The uWS side of one streamed reply. With a known size each chunk goes through tryEnd
 * (which writes only what the socket takes; the rest is offered again from onWritable);
 * without, through write() in chunked encoding (uWS keeps what the socket did not take, and
 * we wait for onWritable before reading on).
 */
class ResponseWriter {
  headWritten = false;
  /** The response has ended: it must not be touched again (uWS throws). */
  finished = false;
  bytesSent = 0;
  private onWritable: ((offset: number) => boolean) | undefined;
  private waiting: (() => void) | undefined;

  constructor(private readonly res: HttpResponse, private readonly totalBytes: number | undefined, private readonly deps: StreamedReplyDeps) {
    // guardUws passes no return value through: onWritable's boolean is carried beside it.
    let sent = true;
    const guarded = guardUws(deps.log, 'streamed reply onWritable', (offset: number) => { sent = this.onWritable?.(offset) ?? true; },
      () => { if (!this.finished && !deps.clientGone.aborted) res.close(); });
    res.onWritable((offset) => {
      sent = true;
      guarded(offset);
      return sent;
    });
    deps.clientGone.onLeave(() => this.release());
  }

  async write(reply: Reply, chunk: Uint8Array): Promise<void> {
    if (chunk.byteLength === 0) return;
    if (this.totalBytes !== undefined && this.bytesSent + chunk.byteLength > this.totalBytes) {
      throw new Error(`the source gave more than the ${this.totalBytes} bytes announced as Content-Length`);
    }
    this.bytesSent += chunk.byteLength;
    if (this.totalBytes === undefined) {
      let flushed = false;
      this.res.cork(() => {
        this.writeHead(reply);
        flushed = this.res.write(chunk);
      });
      if (!flushed) await this.writable(() => true);
      return;
    }
    const total = this.totalBytes;
    const base = this.res.getWriteOffset();
    let ok = false;
    this.res.cork(() => {
      this.writeHead(reply);
      ok = this.tryEnd(chunk, total);
    });
    if (ok) return;
    // The socket took part of the chunk: offer the rest each time it drains.
    await this.writable((offset) => this.tryEnd(chunk.subarray(offset - base), total));
  }

  private tryEnd(bytes: Uint8Array, total: number): boolean {
    const [ok, responded] = this.res.tryEnd(bytes, total);
    if (responded) this.finished = true;
    return ok;
  }

  end(reply: Reply): void {
    if (this.totalBytes !== undefined && this.bytesSent !== this.totalBytes) {
      throw new Error(`the source ended after ${this.bytesSent} of the ${this.totalBytes} bytes announced as Content-Length`);
    }
    if (this.finished) return; // the last tryEnd ended the response
    this.res.cork(() => {
      this.writeHead(reply);
      this.res.end();
    });
    this.finished = true;
  }

  private writeHead(reply: Reply): void {
    if (this.headWritten) return;
    this.headWritten = true;
    this.res.writeStatus(`${reply.status} ${STATUS_CODES[reply.status] ?? ''}`.trim());
    this.res.writeHeader('X-Request-Id', this.deps.requestId);
    this.res.writeHeader('Content-Type', reply.contentType ?? 'application/octet-stream');
    for (const [key, value] of Object.entries(reply.headers ?? {})) this.res.writeHeader(key, value);
  }

  /** Resolves once `retry` (called from onWritable) reports the pending bytes sent, or the client left. */
  private writable(retry: (offset: number) => boolean): Promise<void> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.onWritable = (offset) => {
        if (this.deps.clientGone.aborted) return true;
        const ok = retry(offset);
        if (ok) this.release();
        return ok;
      };
    });
  }

  private release(): void {
    this.onWritable = undefined;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.();
  }
}
