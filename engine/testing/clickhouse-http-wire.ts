// The HTTP side of the ClickHouse fixture: bodies in (Content-Encoding) and out
// (enable_http_compression with Accept-Encoding), and the status a server gives an error code.
// What ClickHouse offers beyond Node's zlib (zstd, lz4, xz, bz2, snappy) is refused as a
// server refuses an unknown encoding.
import type { IncomingMessage } from 'node:http';
import zlib from 'node:zlib';
import { ServerError } from './clickhouse-http-params.ts';

export type Encoding = 'gzip' | 'deflate' | 'br';

const DECODE: Record<Encoding, (bytes: Buffer) => Buffer> = {
  gzip: (bytes) => zlib.gunzipSync(bytes),
  deflate: (bytes) => zlib.inflateSync(bytes),
  br: (bytes) => zlib.brotliDecompressSync(bytes),
};
const ENCODE: Record<Encoding, (bytes: Buffer) => Buffer> = {
  gzip: (bytes) => zlib.gzipSync(bytes),
  deflate: (bytes) => zlib.deflateSync(bytes),
  br: (bytes) => zlib.brotliCompressSync(bytes),
};

function isEncoding(name: string): name is Encoding {
  return name === 'gzip' || name === 'deflate' || name === 'br';
}

/** The request body, decoded per Content-Encoding. */
export async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const encoding = String(request.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return body;
  if (!isEncoding(encoding)) throw new ServerError(1, 'UNSUPPORTED_METHOD', `Unknown HTTP Content-Encoding ${encoding} in this fixture`);
  try {
    return DECODE[encoding](body);
  } catch (error) {
    throw new ServerError(354, 'ZLIB_INFLATE_FAILED', `inflate failed: ${(error as Error).message}`);
  }
}

/** The answer's bytes, compressed with the first encoding of Accept-Encoding the fixture has. */
export function answerBody(bytes: Buffer, acceptEncoding: string | undefined): { bytes: Buffer; encoding?: Encoding } {
  for (const entry of (acceptEncoding ?? '').split(',')) {
    const name = entry.split(';')[0]?.trim().toLowerCase() ?? '';
    if (isEncoding(name)) return { bytes: ENCODE[name](bytes), encoding: name };
  }
  return { bytes };
}

/** ClickHouse's exceptionCodeToHTTPStatus for the codes a test meets; 500 otherwise. */
const STATUS_BY_CODE = new Map<number, number>([
  [516, 401], [192, 401], [194, 401], // AUTHENTICATION_FAILED, UNKNOWN_USER, REQUIRED_PASSWORD
  [164, 403], [497, 403], // READONLY, ACCESS_DENIED
  [60, 404], [81, 404], [0, 404], // UNKNOWN_TABLE, UNKNOWN_DATABASE, no such handler
  [62, 400], [6, 400], [27, 400], [38, 400], [47, 400], [46, 400], [73, 400], [115, 400], [36, 400], [43, 400], [53, 400], [386, 400],
  [456, 400], [457, 400], [1, 400], [130, 400], [354, 400],
  [48, 501], // NOT_IMPLEMENTED
  [159, 500], // TIMEOUT_EXCEEDED
]);

export function errorStatus(code: number): number {
  return STATUS_BY_CODE.get(code) ?? 500;
}
