// Bounded request body reading (STYLE §5): the limit is checked on Content-Length before any
// byte is kept, then bytes are counted as they arrive. A route may read into pooled shared
// memory (slab-pool.ts): the ingest path then allocates nothing per request.
//
// An answer given before the body is in (413, 401, 429, any early error) does not close the
// connection under a client that is still sending: most clients (Node's fetch, Python's
// requests) then fail with EPIPE or ECONNRESET and never read the answer. Instead
// the rest of the body is read and dropped, nothing kept, up to LINGER_BYTES_MAX or
// LINGER_MS_MAX, as nginx's lingering close does; http-server.ts answers meanwhile.
import type { HttpResponse } from 'uWebSockets.js';
import { RequestTooLargeError } from '../engine/errors.ts';
import type { Logger } from '../engine/log.ts';
import type { Slab, SlabPool } from '../engine/memory/slab-pool.ts';
import { guardUws } from './uws-guard.ts';
import type { ClientGone } from './client-gone.ts';

/**
 * Most body bytes read and dropped after an early answer, counted from that answer. Past it
 * the connection is closed: a client sending more is not one waiting for our answer.
 */
export const LINGER_BYTES_MAX = 64 * 1024 * 1024;
/** Longest wait for the rest of a body after an early answer; then the connection is closed. */
export const LINGER_MS_MAX = 10_000;

/** The client went away before its body was read (nobody is left to answer). */
export class ClientGoneError extends Error {
  constructor() {
    super('the client closed the connection before sending its whole body');
  }
}

/** The body stopped being kept because the request was answered before it was all in. */
export class BodyDiscardedError extends Error {
  constructor() {
    super('the request was answered before its body was read; the rest of the body is dropped');
  }
}

export interface RequestBody {
  /** Exactly the body's bytes. */
  bytes: Uint8Array;
  /** Gives pooled memory back; the bytes must not be used after. Absent when not pooled. */
  release?: () => void;
}

/**
 * How a lingering read ended: the client sent its last byte (`drained`: end the answer, the
 * client closes as told by `Connection: close`), a bound was reached (`bounded`: close the
 * connection), or the client left (`gone`).
 */
export type LingerOutcome = 'drained' | 'bounded' | 'gone';

export interface BodyReader {
  /** The whole body; rejects with RequestTooLargeError, ClientGoneError or BodyDiscardedError. */
  readonly body: Promise<RequestBody>;
  /** Whether the body's last byte has arrived. */
  complete(): boolean;
  /** Stops keeping bytes (pooled memory goes back) and drops the rest of the body as it arrives. */
  discardRest(): Promise<LingerOutcome>;
}

export interface ReadBodyOptions {
  /** The announced length; absent with chunked encoding. */
  contentLength: number | undefined;
  bodyBytesMax: number;
  /** Read into a slab of this pool's shared memory (needs a Content-Length). */
  pool?: SlabPool;
  /** The response's onAborted, as a signal. */
  clientGone: ClientGone;
  log: Logger;
}

/**
 * Reads the whole body. With a Content-Length and a pool, into a slab of shared memory;
 * otherwise into a buffer of our own (transferable to a worker). Attaches onData at once: uWS
 * drops body bytes that arrive while no onData handler is attached.
 */
export function readBody(res: HttpResponse, options: ReadBodyOptions): BodyReader {
  return new BodyRead(res, options);
}

/** For a request whose body nobody wants (a GET, an unknown route): dropped as it arrives. */
export function discardBody(res: HttpResponse, clientGone: ClientGone, log: Logger): BodyReader {
  return new BodyRead(res, { contentLength: undefined, bodyBytesMax: 0, clientGone, log }, true);
}

class BodyRead implements BodyReader {
  readonly body: Promise<RequestBody>;
  private resolveBody!: (body: RequestBody) => void;
  private rejectBody!: (error: Error) => void;
  private slab: Slab | undefined;
  private buffer: Uint8Array | undefined;
  private received = 0;
  private last = false;
  private keeping = true;
  private discardedBytes = 0;
  private linger: Promise<LingerOutcome> | undefined;
  private settleLinger: ((outcome: LingerOutcome) => void) | undefined;
  private lingerTimer: NodeJS.Timeout | undefined;

  constructor(res: HttpResponse, private readonly options: ReadBodyOptions, discardAll = false) {
    this.body = new Promise<RequestBody>((resolve, reject) => {
      this.resolveBody = resolve;
      this.rejectBody = reject;
    });
    this.body.catch(() => undefined); // whoever answers early may never look at the body
    const { contentLength, bodyBytesMax, pool, clientGone, log } = options;
    clientGone.onLeave(() => this.gone());
    res.onData(guardUws(log, 'request body onData', (chunk: ArrayBuffer, isLast: boolean) => this.take(chunk, isLast),
      (error) => this.stopKeeping(new Error('reading the request body failed', { cause: error }))));
    if (clientGone.aborted) this.gone();
    else if (discardAll) this.stopKeeping(new BodyDiscardedError());
    else if (contentLength !== undefined && contentLength > bodyBytesMax) this.stopKeeping(new RequestTooLargeError(bodyBytesMax));
    else {
      this.slab = contentLength !== undefined && pool ? pool.acquire(contentLength) : undefined;
      // With a Content-Length we write into one exact-size buffer; otherwise grow by doubling.
      this.buffer = this.slab ? new Uint8Array(this.slab.buffer, 0, contentLength) : new Uint8Array(Math.min(contentLength ?? 64 * 1024, bodyBytesMax));
    }
  }

  complete(): boolean {
    return this.last;
  }

  discardRest(): Promise<LingerOutcome> {
    if (this.keeping) this.stopKeeping(new BodyDiscardedError());
    return this.linger ?? Promise.resolve(this.last ? 'drained' : 'gone');
  }

  private take(chunk: ArrayBuffer, isLast: boolean): void {
    if (this.last) return;
    this.last = isLast;
    if (!this.keeping) {
      this.discardedBytes += chunk.byteLength;
      if (isLast) this.endLinger('drained');
      else if (this.discardedBytes > LINGER_BYTES_MAX) this.endLinger('bounded');
      return;
    }
    const bytes = new Uint8Array(chunk);
    const { bodyBytesMax } = this.options;
    if (this.received + bytes.byteLength > bodyBytesMax) {
      this.stopKeeping(new RequestTooLargeError(bodyBytesMax));
      if (isLast) this.endLinger('drained');
      return;
    }
    let buffer = this.buffer as Uint8Array;
    if (this.received + bytes.byteLength > buffer.byteLength) {
      if (this.slab) {
        // More bytes than the Content-Length announced: uWS refuses that before us; be safe.
        this.stopKeeping(new RequestTooLargeError(buffer.byteLength));
        if (isLast) this.endLinger('drained');
        return;
      }
      const grown = new Uint8Array(Math.min(bodyBytesMax, Math.max(buffer.byteLength * 2, this.received + bytes.byteLength)));
      grown.set(buffer.subarray(0, this.received));
      this.buffer = buffer = grown;
    }
    buffer.set(bytes, this.received); // uWS neuters chunk on return: copy now
    this.received += bytes.byteLength;
    if (!isLast) return;
    this.keeping = false;
    const slab = this.slab;
    this.slab = undefined;
    this.buffer = undefined;
    this.resolveBody({ bytes: this.received === buffer.byteLength ? buffer : buffer.subarray(0, this.received), ...(slab ? { release: () => slab.release() } : {}) });
  }

  /** From keeping to dropping: memory goes back, the body promise fails, lingering starts. */
  private stopKeeping(reason: Error): void {
    if (!this.keeping) return;
    this.keeping = false;
    this.slab?.release();
    this.slab = undefined;
    this.buffer = undefined;
    this.rejectBody(reason);
    if (this.last || this.linger) return;
    this.linger = new Promise<LingerOutcome>((resolve) => { this.settleLinger = resolve; });
    this.lingerTimer = setTimeout(() => this.endLinger('bounded'), LINGER_MS_MAX);
    this.lingerTimer.unref();
  }

  private endLinger(outcome: LingerOutcome): void {
    clearTimeout(this.lingerTimer);
    const settle = this.settleLinger;
    this.settleLinger = undefined;
    settle?.(outcome);
  }

  private gone(): void {
    this.stopKeeping(new ClientGoneError());
    this.endLinger('gone');
  }
}
