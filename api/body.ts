// Bounded request body reading (STYLE §5): the limit is checked on Content-Length before any
// byte is read, then bytes are counted as they arrive; either way a 413 is answered without
// reading the rest.
import type { HttpResponse } from 'uWebSockets.js';
import { RequestTooLargeError } from '../engine/errors.ts';

/** Reads the whole body into one ArrayBuffer (owned by us; transferable to a worker). */
export function readBody(res: HttpResponse, contentLength: number | undefined, bodyBytesMax: number): Promise<ArrayBuffer> {
  return new Promise((resolve, reject) => {
    if (contentLength !== undefined && contentLength > bodyBytesMax) {
      reject(new RequestTooLargeError(bodyBytesMax));
      return;
    }
    // With a Content-Length we write into one exact-size buffer; otherwise grow by doubling.
    let buffer = new Uint8Array(contentLength ?? 64 * 1024);
    let received = 0;
    let failed = false;
    res.onData((chunk, isLast) => {
      if (failed) return;
      const bytes = new Uint8Array(chunk);
      if (received + bytes.byteLength > bodyBytesMax) {
        failed = true;
        reject(new RequestTooLargeError(bodyBytesMax));
        return;
      }
      if (received + bytes.byteLength > buffer.byteLength) {
        const grown = new Uint8Array(Math.min(bodyBytesMax, Math.max(buffer.byteLength * 2, received + bytes.byteLength)));
        grown.set(buffer.subarray(0, received));
        buffer = grown;
      }
      buffer.set(bytes, received); // uWS neuters chunk on return: copy now
      received += bytes.byteLength;
      if (isLast) {
        resolve(received === buffer.byteLength ? buffer.buffer : buffer.buffer.slice(0, received));
      }
    });
  });
}
