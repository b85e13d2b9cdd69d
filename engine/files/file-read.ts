// Reading files: one file's record and bytes, and folder listings paged by name.
// A download reads the index, then opens the blob that row names; a replace or delete that
// removes that blob in between makes the open miss, and the index is read again, so the
// reader gets the old file or the new one whole (blob-store.ts pins what it opened).
import type { FileRecord } from '../../schemas/files.ts';
import { BadRequestError, ConflictError, NotFoundError } from '../errors.ts';
import { cursorCodec } from '../records/cursor-codec.ts';
import type { Queryable } from '../stores/queryable.ts';
import type { BlobSource, BlobStore } from './blob-store.ts';
import { fileRecordOf, type FileRow } from './file-rows.ts';
import { ALL_PAGE, FILE_BY_PATH, FOLDER_PAGE, TREE_PAGE } from './file-read.sql.ts';
import { FILE_PATH_BYTES_MAX } from '../limits.ts';

/** Index reads per download before giving up on a path replaced faster than it can be opened. */
const OPEN_ATTEMPTS_MAX = 5;

/** Bytes [start, endExclusive) of a file, or none (a 304 or 416 needs no body). */
export type ByteRange = { start: number; endExclusive: number } | undefined;

export interface OpenedFile {
  record: FileRecord;
  range: ByteRange;
  /** Present when a range was chosen; the caller streams it and it closes itself at the end. */
  source?: BlobSource;
}

export async function fileByPath(db: Queryable, tenant: string, path: string): Promise<FileRecord> {
  const { rows } = await db.query<FileRow>(FILE_BY_PATH, [tenant, path]);
  if (!rows[0]) throw fileByPathMissing(path);
  return fileRecordOf(rows[0]);
}

function fileByPathMissing(path: string): NotFoundError {
  return new NotFoundError(`No file at "${path.length > 200 ? `${path.slice(0, 200)}…` : path}"`);
}

/**
 * Opens a file for reading: `chooseRange` sees the record (size, sha256 for conditionals)
 * and names the bytes to send, or none.
 */
export async function openFile(db: Queryable, blobs: BlobStore, tenant: string, path: string, chooseRange: (record: FileRecord) => ByteRange): Promise<OpenedFile> {
  for (let attempt = 0; attempt < OPEN_ATTEMPTS_MAX; attempt++) {
    const { rows } = await db.query<FileRow>(FILE_BY_PATH, [tenant, path]);
    const row = rows[0];
    if (!row) throw fileByPathMissing(path);
    const record = fileRecordOf(row);
    const range = chooseRange(record);
    if (!range) return { record, range };
    const source = await blobs.openRead(row.blob_key, range.start, range.endExclusive);
    if (source) return { record, range, source };
  }
  throw new ConflictError(`The file at "${path.slice(0, 200)}" was replaced ${OPEN_ATTEMPTS_MAX} times while it was being opened; retry.`);
}

// ---- listing ----

export interface FileListQuery {
  /** '' for the top. */
  folder: string;
  recursive: boolean;
  limit: number;
  cursor?: string;
}

/** State: the last name (one folder) or path (recursive) answered. */
const cursors = cursorCodec('files', 1, (s: unknown): s is string => typeof s === 'string' && s.length > 0 && Buffer.byteLength(s) <= FILE_PATH_BYTES_MAX && !s.includes('\u0000'));

/** A cursor is bound to the listing that issued it: the folder and whether it was recursive. */
function listingContext(query: FileListQuery): string {
  return `${query.recursive ? 'tree' : 'folder'}:${query.folder}`;
}

export async function listFiles(db: Queryable, tenant: string, query: FileListQuery): Promise<{ items: FileRecord[]; nextCursor?: string }> {
  let after = '';
  if (query.cursor !== undefined) {
    const decoded = cursors.decode(query.cursor, listingContext(query));
    if (!decoded.ok) {
      const why = decoded.reason === 'context' ? 'it was issued for another folder or recursive setting' : 'it is not a cursor of GET /files';
      throw new BadRequestError(`cursor is not valid here: ${why}; send back nextCursor unchanged with the same folder and recursive`, [{ field: 'cursor', message: why }]);
    }
    after = decoded.state;
  }
  const fetch = query.limit + 1;
  let rows: FileRow[];
  if (!query.recursive) rows = (await db.query<FileRow>(FOLDER_PAGE, [tenant, query.folder, after, fetch])).rows;
  else if (query.folder === '') rows = (await db.query<FileRow>(ALL_PAGE, [tenant, after, fetch])).rows;
  else {
    const from = `${query.folder}/`;
    rows = (await db.query<FileRow>(TREE_PAGE, [tenant, after.startsWith(from) ? after : from, `${query.folder}0`, fetch])).rows;
  }
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  const more = rows.length > query.limit && last !== undefined;
  return {
    items: page.map(fileRecordOf),
    ...(more ? { nextCursor: cursors.encode(query.recursive ? last.path : last.name, listingContext(query)) } : {}),
  };
}
