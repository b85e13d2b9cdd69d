// Streamed request bodies (SPEC Limits: `PUT /files` is exempt from the body cap, streamed).
// The handler reads the body as it arrives, as an async iterable of chunks, and the
// client is throttled (res.pause()) while the handler is behind, so memory stays at a few
// chunks whatever the body's size. What happens to the bytes (a file store, a quota) is the
// route's business; mountRoutes only opens the stream at the handler's first moment, and
// route.ts's streamedBodyRoute() declares such a route. An answer given before the body is all
// in (403, a bad path, a failed condition, a quota) lingers as body.ts's do: the rest is read
// and dropped, bounded, so the client reads the answer instead of failing with EPIPE.
import type { HttpResponse } from 'uWebSockets.js';
import type { Logger } from '../engine/log.ts';
import { ClientGoneError, LINGER_BYTES_MAX, LINGER_MS_MAX, type BodyReader, type LingerOutcome } from './body.ts';
import type { ClientGone } from './client-gone.ts';
import { guardUws } from './uws-guard.ts';

/**
 * Bytes queued for the handler at which the client is paused. uWS still delivers the rest of
 * the receive buffer it is parsing after a pause (at most 512 KiB), so a stream holds at most
 * this plus one receive buffer. Reading resumes once the queue is down to half.
 */
export const STREAMED_BODY_QUEUE_BYTES_MAX = 1024 * 1024;

/**
 * uWS hands onData at most one receive buffer at a time (LIBUS_RECV_BUFFER_LENGTH, 512 KiB).
 * Chunks are packed into buffers of this size, reused as the handler moves on, so a long body
 * makes no garbage (2 GiB of fresh copies would leave RSS to the collector's mood).
 */
const CHUNK_BUFFER_BYTES = 512 * 1024;
/** Reusable buffers kept per stream: the queue bound's worth, plus the one being filled. */
const SPARE_BUFFERS_MAX = 4;

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
 * The body of one request as it arrives: `for await (const chunk of ctx.bodyStream)`. A chunk
 * is lent: it stays valid until the handler asks for the next one (the loop's next turn), then
 * its memory is reused; copy what you keep longer. Iterable once. A client that leaves
 * mid-body ends the iteration with ClientGoneError; breaking out of the loop stops reading
 * (the connection is then closed once the handler answers).
 */
export class RequestBodyStream implements AsyncIterable<Uint8Array> {
  /** Body bytes received from the client so far (queued or handed out). */
  bytesReceived = 0;
  /** The most bytes ever queued for the handler at once (the memory bound, observable). */
  queuedBytesPeak = 0;
  private readonly queue: Uint8Array[] = [];
  private readonly spare: ArrayBuffer[] = [];
  private readonly pooled = new WeakSet<ArrayBuffer>();
  private filling: ArrayBuffer | undefined;
  private fillingUsed = 0;
  private lent: Uint8Array | undefined;
  private queuedBytes = 0;
  private received = false;
  private failure: Error | undefined;
  private waiter: Waiter | undefined;
  private paused = false;
  private detached = false;
  private stopped = false;
  private iterated = false;
  /** Bytes dropped since detach(): the lingering read's bound. */
  private discardedBytes = 0;
  private linger: Promise<LingerOutcome> | undefined;
  private settleLinger: ((outcome: LingerOutcome) => void) | undefined;
  private lingerTimer: NodeJS.Timeout | undefined;

  /**
   * Attaches onData at once: uWS drops body bytes that arrive while no onData handler is
   * attached, so this must run before the request handler's first await.
   * @param contentLength the announced length in bytes; absent with chunked encoding.
   */
  constructor(private readonly res: HttpResponse, clientGone: ClientGone, log: Logger, readonly contentLength?: number) {
    clientGone.onLeave(() => {
      this.fail(new ClientGoneError());
      this.endLinger('gone');
    });
    res.onData(guardUws(log, 'streamed body onData', (chunk: ArrayBuffer, isLast: boolean) => this.take(chunk, isLast),
      (error) => this.fail(new Error('reading the request body failed', { cause: error }))));
  }

  /** True while the client is paused because the handler is behind. */
  get throttled(): boolean {
    return this.paused;
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

  /**
   * After detach() with bytes unread: the rest of the body read and dropped while the answer
   * goes out (http-answer.ts answer()), up to LINGER_BYTES_MAX or LINGER_MS_MAX, as body.ts
   * does for whole bodies. Closing at once under a client still sending makes Node's fetch
   * fail with EPIPE before it reads the answer.
   */
  lingering(): BodyReader {
    const body = Promise.reject(new BodyDetachedError());
    body.catch(() => undefined);
    return { body, complete: () => this.received, discardRest: () => this.startLinger() };
  }

  private startLinger(): Promise<LingerOutcome> {
    if (this.linger) return this.linger;
    if (this.received) return Promise.resolve('drained');
    if (this.failure) return Promise.resolve('gone');
    this.linger = new Promise<LingerOutcome>((resolve) => { this.settleLinger = resolve; });
    this.lingerTimer = setTimeout(() => this.endLinger('bounded'), LINGER_MS_MAX);
    this.lingerTimer.unref();
    if (this.paused) {
      this.paused = false;
      this.res.resume();
    }
    return this.linger;
  }

  private endLinger(outcome: LingerOutcome): void {
    clearTimeout(this.lingerTimer);
    const settle = this.settleLinger;
    this.settleLinger = undefined;
    settle?.(outcome);
  }

  /** A chunk after detach(): dropped, counted against the lingering bound. */
  private drop(bytes: number, isLast: boolean): void {
    this.received ||= isLast;
    this.discardedBytes += bytes;
    if (isLast) this.endLinger('drained');
    else if (this.discardedBytes > LINGER_BYTES_MAX) this.endLinger('bounded');
  }

  private take(chunk: ArrayBuffer, isLast: boolean): void {
    if (this.failure) return;
    if (this.detached) return this.drop(chunk.byteLength, isLast);
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
      const copy = this.copyOf(chunk, isLast); // uWS neuters chunk when this returns
      this.bytesReceived += copy.byteLength;
      if (this.waiter) this.handOut(copy);
      else {
        this.queue.push(copy);
        this.queuedBytes += copy.byteLength;
        this.queuedBytesPeak = Math.max(this.queuedBytesPeak, this.queuedBytes);
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

  /**
   * Copies a chunk into the buffer being filled (chunks are packed, so small ones do not each
   * hold a whole buffer). Buffers come back in order as the handler moves past them.
   */
  private copyOf(chunk: ArrayBuffer, isLast: boolean): Uint8Array {
    const bytes = chunk.byteLength;
    const fits = this.filling !== undefined && this.fillingUsed + bytes <= CHUNK_BUFFER_BYTES;
    if (bytes > CHUNK_BUFFER_BYTES || (!fits && isLast && this.spare.length === 0)) return new Uint8Array(chunk.slice(0));
    if (!fits) {
      this.filling = this.spare.pop() ?? this.newBuffer();
      this.fillingUsed = 0;
    }
    const copy = new Uint8Array(this.filling as ArrayBuffer, this.fillingUsed, bytes);
    copy.set(new Uint8Array(chunk));
    this.fillingUsed += bytes;
    return copy;
  }

  private newBuffer(): ArrayBuffer {
    const buffer = new ArrayBuffer(CHUNK_BUFFER_BYTES);
    this.pooled.add(buffer);
    return buffer;
  }

  /** The handler is done with the chunk it was lent: a buffer no queued chunk uses serves again. */
  private takeBack(): void {
    const lent = this.lent;
    this.lent = undefined;
    if (!lent || !this.pooled.has(lent.buffer as ArrayBuffer)) return;
    if (this.queue[0]?.buffer === lent.buffer) return; // later chunks sit in the same buffer
    if (lent.buffer === this.filling) {
      if (this.queue.length === 0) this.fillingUsed = 0; // nothing else lives in it: fill it again from the start
      return;
    }
    if (this.spare.length < SPARE_BUFFERS_MAX) this.spare.push(lent.buffer as ArrayBuffer);
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
    this.lent = chunk;
    this.takeWaiter().resolve({ done: false, value: chunk });
  }

  private next(): Promise<IteratorResult<Uint8Array>> {
    this.takeBack();
    const chunk = this.queue.shift();
    if (chunk) {
      this.queuedBytes -= chunk.byteLength;
      this.lent = chunk;
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
