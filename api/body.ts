// Bounded request body reading (STYLE §5): the limit is checked on Content-Length before any
// byte is read, then bytes are counted as they arrive; either way a 413 is answered without
// reading the rest. A route may read into pooled shared memory (slab-pool.ts): the ingest
// path then allocates nothing per request.
import type { HttpResponse } from 'uWebSockets.js';
import { RequestTooLargeError } from '../engine/errors.ts';
import type { SlabPool } from '../engine/memory/slab-pool.ts';

/** The client went away before its body was read (nobody is left to answer). */
export class ClientGoneError extends Error {
  constructor() {
    super('the client closed the connection before sending its whole body');
  }
}

export interface RequestBody {
  /** Exactly the body's bytes. */
  bytes: Uint8Array;
  /** Gives pooled memory back; the bytes must not be used after. Absent when not pooled. */
  release?: () => void;
}

/**
 * Reads the whole body. With a Content-Length and a pool, into a slab of shared memory;
 * otherwise into a buffer of our own (transferable to a worker). `clientGone` (the response's
 * onAborted) ends a read the client abandoned: uWS calls onData no more, and the slab goes back.
 */
export function readBody(
  res: HttpResponse, contentLength: number | undefined, bodyBytesMax: number, pool?: SlabPool, clientGone?: AbortSignal,
): Promise<RequestBody> {
  return new Promise((resolve, reject) => {
    if (clientGone?.aborted) {
      reject(new ClientGoneError());
      return;
    }
    if (contentLength !== undefined && contentLength > bodyBytesMax) {
      reject(new RequestTooLargeError(bodyBytesMax));
      return;
    }
    const slab = contentLength !== undefined && pool ? pool.acquire(contentLength) : undefined;
    // With a Content-Length we write into one exact-size buffer; otherwise grow by doubling.
    let buffer = slab ? new Uint8Array(slab.buffer, 0, contentLength) : new Uint8Array(contentLength ?? 64 * 1024);
    let received = 0;
    let failed = false;
    const onGone = () => fail(new ClientGoneError());
    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      clientGone?.removeEventListener('abort', onGone);
      slab?.release();
      reject(error);
    };
    clientGone?.addEventListener('abort', onGone, { once: true });
    res.onData((chunk, isLast) => {
      if (failed) return;
      const bytes = new Uint8Array(chunk);
      if (received + bytes.byteLength > bodyBytesMax) {
        fail(new RequestTooLargeError(bodyBytesMax));
        return;
      }
      if (received + bytes.byteLength > buffer.byteLength) {
        if (slab) {
          // More bytes than the Content-Length announced: uWS refuses that before us; be safe.
          fail(new RequestTooLargeError(buffer.byteLength));
          return;
        }
        const grown = new Uint8Array(Math.min(bodyBytesMax, Math.max(buffer.byteLength * 2, received + bytes.byteLength)));
        grown.set(buffer.subarray(0, received));
        buffer = grown;
      }
      buffer.set(bytes, received); // uWS neuters chunk on return: copy now
      received += bytes.byteLength;
      if (isLast) {
        clientGone?.removeEventListener('abort', onGone);
        resolve({ bytes: received === buffer.byteLength ? buffer : buffer.subarray(0, received), ...(slab ? { release: () => slab.release() } : {}) });
      }
    });
  });
}
