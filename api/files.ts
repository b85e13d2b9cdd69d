// File routes (SPEC names `PUT /files` and `GET /files/download/**`, both exempt
// from the body cap and streamed). A per-tenant feature: every call is a 403 when it is off
// (engine/file-engine.ts checks it first). PUT is a write and the GETs are reads of the rate
// budget (rate-limit.ts, by method); POST /files/delete is a write.
import type { FileEngine } from '../engine/files/file-engine.ts';
import { UnprocessableError } from '../engine/errors.ts';
import { parseFilePath, parseFolder } from '../engine/files/file-path.ts';
import { FILE_CONTENT_TYPE_CHARS_MAX } from '../engine/limits.ts';
import { FileDeleteRequest, FileListQuery, FilePage, FileRecord, FileUploadQuery } from '../schemas/files.ts';
import { ClientGoneError } from './body.ts';
import { chooseDownload, etagOf, uploadConditionOf, type Download } from './files-range.ts';
import { jsonRoute, noContent, ok, queryRoute, streamedBodyRoute, type Reply, type Route } from './route.ts';
import { streamedReply } from './streamed-reply.ts';

const TAG = 'Files';
const DEFAULT_CONTENT_TYPE = 'application/octet-stream';
/** A header value we keep and send back: printable ASCII only (no CR, LF or other controls). */
const CONTENT_TYPE = new RegExp(`^[\\x20-\\x7e]{1,${FILE_CONTENT_TYPE_CHARS_MAX}}$`);

const FEATURE_403 = { description: 'files are off for the tenant (SERVICE_CONFIG tenants.<organization>.files)' };
const PATH_400 = { description: 'a malformed path: missing, an empty segment (leading, trailing or doubled `/`), a `.` or `..` segment' };
const PATH_422 = { description: 'a segment over 255 UTF-8 bytes, a path over 1,024, control characters; or a Content-Type over 255 characters or not printable ASCII' };

/** The uploaded Content-Type, kept and returned; none sent is application/octet-stream. */
function contentTypeOf(header: string): string {
  const value = header.trim();
  if (value === '') return DEFAULT_CONTENT_TYPE;
  if (!CONTENT_TYPE.test(value)) {
    throw new UnprocessableError(`Content-Type must be printable ASCII of at most ${FILE_CONTENT_TYPE_CHARS_MAX} characters`, [
      { field: 'contentType', message: `printable ASCII, at most ${FILE_CONTENT_TYPE_CHARS_MAX} characters`, value: value.slice(0, 80) },
    ]);
  }
  return value;
}

/** `/files/download/` and the path, each segment percent-encoded. */
export function downloadLocationOf(path: string): string {
  return `/files/download/${path.split('/').map(encodeURIComponent).join('/')}`;
}

function errorReply(status: number, type: string, message: string, headers: Record<string, string>): Reply {
  return { status, contentType: 'application/json', headers, body: { error: { type, code: status, message } } };
}

export function fileRoutes(files: FileEngine): Route[] {
  return [
    streamedBodyRoute({
      method: 'put', path: '/files', operationId: 'uploadFile', tag: TAG,
      summary: 'Upload a file: the raw bytes as the body, streamed to storage (no body size limit); a PUT on an existing path replaces it atomically',
      description: 'The body is stored as sent, with its Content-Type (kept and returned on download; application/octet-stream when none is sent). Content-Length or chunked; with Content-Length at most 999,999,999 bytes (the HTTP parser closes the connection on a 10-digit length): send larger files chunked. The bytes are durable (fsync\'d) and indexed before the 201. Readers see the old file or the new one, never a mix; a download already under way finishes with the old bytes. The bytes count against the daily `ingestedBytes` quota as they arrive: past it, 429 `ingest-quota-exceeded` and nothing is stored. `If-None-Match: *` stores only when the path holds no file, `If-Match: "<sha256>"` (or `*`) only when it holds that version (or any): otherwise 409 ConflictError, checked before the body is read and again when it is indexed. A client that leaves mid-body leaves nothing behind. Files have no data set: any token of the tenant may use them when the feature is on.',
      query: FileUploadQuery,
      requestHeaders: ['if-match', 'if-none-match'],
      responses: {
        201: { description: 'the stored file; ETag is its SHA-256, Location its download address', schema: FileRecord },
        400: PATH_400, 403: FEATURE_403,
        409: { description: 'ConflictError: If-Match or If-None-Match failed (nothing stored; `If-None-Match: *` creates only, `If-Match: "<sha256>"` replaces only that version), or the path was created and deleted by other requests over and over while this upload was indexed' },
        422: PATH_422, 429: { description: 'rate limit, or the daily ingestedBytes quota' },
      },
      async handle({ access, query, headers, bodyStream }) {
        files.assertEnabled(access);
        const target = parseFilePath(query.path);
        const contentType = contentTypeOf(headers.contentType);
        const precondition = { ifMatch: uploadConditionOf(headers['if-match'], 'strong'), ifNoneMatch: uploadConditionOf(headers['if-none-match'], 'weak') };
        let record: FileRecord;
        try {
          record = await files.upload(access, { target, contentType, chunks: bodyStream, precondition });
        } catch (error) {
          // Nobody is left to answer; the request's log line says so.
          if (error instanceof ClientGoneError) return errorReply(400, 'BadRequestError', error.message, {});
          throw error;
        }
        return { status: 201, body: record, headers: { ETag: etagOf(record.sha256), Location: downloadLocationOf(record.path) } };
      },
    }),
    queryRoute({
      method: 'get', path: '/files', operationId: 'listFiles', tag: TAG,
      summary: 'List one folder\'s files by name, or with recursive=true every file below it by path; paged',
      query: FileListQuery,
      responses: { 200: { description: 'a page of files', schema: FilePage }, 400: { description: 'a malformed folder, recursive, limit or cursor' }, 403: FEATURE_403, 422: PATH_422 },
      async handle({ access, query }) {
        files.assertEnabled(access);
        const folder = parseFolder(query.folder);
        const { recursive, limit, cursor } = query;
        return ok(await files.list(access, { folder, recursive, limit, cursor: cursor === '' ? undefined : cursor }));
      },
    }),
    {
      method: 'get', path: '/files/download/{path}', restParam: true, operationId: 'downloadFile', tag: TAG,
      summary: 'Download a file: the bytes streamed with Content-Length, its Content-Type, an ETag; one Range (206)',
      description: 'The path is the rest of the URL: `/files/download/<folder>/<name>`, each segment percent-encoded. ETag is the quoted SHA-256: If-None-Match answers 304. One `Range: bytes=` range answers 206 with Content-Range (If-Range with the ETag keeps it; another ETag gets the whole file); a range starting past the end is a 416 with `Content-Range: bytes */<size>`; several ranges, or one that cannot be read, get the whole file (RFC 9110). A download under way while the file is replaced or deleted finishes with the bytes it started with.',
      requestHeaders: ['range', 'if-none-match', 'if-range'],
      responses: {
        200: { description: 'the bytes', contentType: 'application/octet-stream' },
        206: { description: 'the range of bytes named by Content-Range', contentType: 'application/octet-stream' },
        304: { description: 'If-None-Match matched the ETag' },
        400: PATH_400, 403: FEATURE_403, 404: { description: 'no file at the path' }, 409: { description: 'ConflictError: the file was replaced again and again while it was being opened; retry' },
        416: { description: 'the range starts past the end; Content-Range: bytes */<size>' }, 422: PATH_422,
      },
      async handle({ access, params, headers }) {
        files.assertEnabled(access);
        const { path } = parseFilePath(params['path']);
        const conditions = { range: headers['range'], ifNoneMatch: headers['if-none-match'], ifRange: headers['if-range'] };
        let decided = { kind: 'full' } as Download;
        const opened = await files.open(access, path, (record) => {
          decided = chooseDownload(conditions, record.size, record.sha256);
          if (decided.kind === 'full') return { start: 0, endExclusive: record.size };
          if (decided.kind === 'partial') return { start: decided.start, endExclusive: decided.endExclusive };
          return undefined;
        });
        const { record, range, source } = opened;
        const common = { ETag: etagOf(record.sha256), 'Accept-Ranges': 'bytes', 'Cache-Control': 'private, no-cache' };
        if (decided.kind === 'not-modified') return { status: 304, headers: common };
        if (decided.kind === 'unsatisfiable' || !range || !source) {
          return errorReply(416, 'RangeNotSatisfiableError', `The range starts past the end of the file's ${record.size} bytes.`, { ...common, 'Content-Range': `bytes */${record.size}` });
        }
        const partial = decided.kind === 'partial';
        return streamedReply({
          status: partial ? 206 : 200, source, totalBytes: range.endExclusive - range.start, contentType: record.contentType,
          headers: {
            ...common, 'X-Content-Type-Options': 'nosniff',
            ...(partial ? { 'Content-Range': `bytes ${range.start}-${range.endExclusive - 1}/${record.size}` } : {}),
          },
        });
      },
    },
    jsonRoute({
      method: 'post', path: '/files/delete', operationId: 'deleteFiles', tag: TAG,
      summary: 'Delete files by path (204, idempotent: paths with no file are skipped)',
      description: 'At most 10,000 items. A download under way finishes with the bytes it started with.',
      body: FileDeleteRequest,
      responses: { 204: { description: 'deleted' }, 400: PATH_400, 403: FEATURE_403, 422: PATH_422 },
      async handle({ access, body }) {
        files.assertEnabled(access);
        const paths = body.items.map((item, index) => parseFilePath(item.path, `items[${index}].path`).path);
        await files.delete(access, paths);
        return noContent();
      },
    }),
  ];
}
