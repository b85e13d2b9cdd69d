// Streamed request bodies (SPEC Limits: `PUT /files` is exempt from the body cap, streamed;
// issue 7). The handler reads the body as it arrives, as an async iterable of chunks, and the
// client is throttled (res.pause()) while the handler is behind, so memory stays at a few
// chunks whatever the body's size. What happens to the bytes (a file store, a quota) is the
// route's business; mountRoutes only opens the stream at the handler's first moment.
import type { HttpResponse } from 'uWebSockets.js';
import type { Logger } from '../engine/log.ts';
import { ClientGoneError } from './body.ts';
import type { Reply, RequestContext, Route } from './route.ts';
import { guardUws } from './uws-guard.ts';

/**
 * Bytes queued for the handler at which the client is paused. uWS still delivers the rest of
 * the receive buffer it is parsing after a pause (at most 512 KiB), so a stream holds at most
 * this plus one receive buffer. Reading resumes once the queue is down to half.
 */
export const STREAMED_BODY_QUEUE_BYTES_MAX = 1024 * 1024;

/** The response was sent before the handler read the whole body (the connection is closed). */
export class BodyDetachedError extends Error {
  constructor() {
    super('the response was sent before the request body was read; the rest of it is discarded');
  }
}

interface Waiter {
  resolve(result: IteratorResult<Uint8Array>): void;
  reject(error: Error): void;
}

/**
 * The body of one request as it arrives: `for await (const chunk of ctx.bodyStream)`. Each
 * chunk is a copy the handler owns. Iterable once. A client that leaves mid-body ends the
 * iteration with ClientGoneError; breaking out of the loop stops reading (the connection is
 * then closed once the handler answers).
 */
export class RequestBodyStream implements AsyncIterable<Uint8Array> {
  /** Body bytes received from the client so far (queued or handed out). */
  bytesReceived = 0;
  private readonly queue: Uint8Array[] = [];
  private queuedBytes = 0;
  private received = false;
  private failure: Error | undefined;
  private waiter: Waiter | undefined;
  private paused = false;
  private detached = false;
  private stopped = false;
  private iterated = false;

  /**
   * Attaches onData at once: uWS drops body bytes that arrive while no onData handler is
   * attached, so this must run before the request handler's first await.
   * @param contentLength the announced length in bytes; absent with chunked encoding.
   */
  constructor(private readonly res: HttpResponse, clientGone: AbortSignal, log: Logger, readonly contentLength?: number) {
    clientGone.addEventListener('abort', () => this.fail(new ClientGoneError()), { once: true });
    res.onData(guardUws(log, 'streamed body onData', (chunk: ArrayBuffer, isLast: boolean) => this.take(chunk, isLast),
      (error) => this.fail(new Error('reading the request body failed', { cause: error }))));
  }

  /** True once the client has sent its last byte. */
  get complete(): boolean {
    return this.received;
  }

  /**
   * Called by mountRoutes just before it answers: the stream touches the response no more.
   * Returns true when body bytes were left unread, so the connection must be closed.
   */
  detach(): boolean {
    if (this.detached) return !this.received;
    this.detached = true;
    this.queue.length = 0;
    this.queuedBytes = 0;
    this.settle(new BodyDetachedError());
    return !this.received;
  }

  private take(chunk: ArrayBuffer, isLast: boolean): void {
    if (this.failure || this.detached) return;
    if (this.stopped) {
      // The handler broke out of its loop: discard, and hold the client until the answer closes it.
      if (!isLast && !this.paused) {
        this.paused = true;
        this.res.pause();
      }
      this.received ||= isLast;
      return;
    }
    if (chunk.byteLength > 0) {
      const copy = new Uint8Array(chunk.slice(0)); // uWS neuters chunk when this returns
      this.bytesReceived += copy.byteLength;
      if (this.waiter) this.handOut(copy);
      else {
        this.queue.push(copy);
        this.queuedBytes += copy.byteLength;
      }
    }
    if (isLast) {
      this.received = true;
      if (this.waiter && this.queue.length === 0) this.takeWaiter().resolve({ done: true, value: undefined });
    } else if (!this.paused && this.queuedBytes >= STREAMED_BODY_QUEUE_BYTES_MAX) {
      this.paused = true;
      this.res.pause();
    }
  }

  private fail(error: Error): void {
    if (this.failure || this.received) return;
    this.failure = error;
    this.queue.length = 0;
    this.queuedBytes = 0;
    this.settle(error);
  }

  private settle(error: Error): void {
    this.waiter?.reject(error);
    this.waiter = undefined;
  }

  private takeWaiter(): Waiter {
    const waiter = this.waiter as Waiter;
    this.waiter = undefined;
    return waiter;
  }

  private handOut(chunk: Uint8Array): void {
    this.takeWaiter().resolve({ done: false, value: chunk });
  }

  private next(): Promise<IteratorResult<Uint8Array>> {
    const chunk = this.queue.shift();
    if (chunk) {
      this.queuedBytes -= chunk.byteLength;
      this.resumeIfDrained();
      return Promise.resolve({ done: false, value: chunk });
    }
    if (this.failure) return Promise.reject(this.failure);
    if (this.detached) return Promise.reject(new BodyDetachedError());
    if (this.received) return Promise.resolve({ done: true, value: undefined });
    this.resumeIfDrained();
    return new Promise((resolve, reject) => { this.waiter = { resolve, reject }; });
  }

  private resumeIfDrained(): void {
    if (!this.paused || this.queuedBytes > STREAMED_BODY_QUEUE_BYTES_MAX / 2) return;
    this.paused = false;
    // After an abort, the last byte or the answer the response must not be touched.
    if (!this.failure && !this.received && !this.detached) this.res.resume();
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    if (this.iterated) throw new Error('a request body can be iterated once');
    this.iterated = true;
    return {
      next: () => this.next(),
      return: () => {
        // The handler stopped reading: drop what is queued and keep the client paused.
        this.stopped = true;
        this.queue.length = 0;
        this.queuedBytes = 0;
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }
}

/** A route handler's context on a streamed-body route: the body arrives through bodyStream. */
export type StreamedBodyContext = RequestContext<undefined> & { bodyStream: RequestBodyStream };

/**
 * Declares a route whose body is streamed to the handler instead of read whole: no body cap
 * (SPEC Limits exempts `PUT /files`), no JSON parsing, no ingested-bytes charge (the route
 * charges what it stores). `bodyContentType` documents the body in /openapi.json.
 */
export function streamedBodyRoute(
  route: Omit<Route<undefined>, 'handle' | 'body' | 'rawBody' | 'rawBodyPool' | 'rawBodySchema' | 'bodyBytesMax' | 'streamBody'> & {
    handle(ctx: StreamedBodyContext): Promise<Reply>;
  },
): Route<undefined> {
  const { handle, ...rest } = route;
  return {
    ...rest,
    streamBody: true,
    handle: (ctx) => {
      if (!ctx.bodyStream) throw new Error(`${route.path}: mountRoutes gave no body stream to a streamed-body route`);
      return handle(ctx as StreamedBodyContext);
    },
  };
}
