// A files index row as PostgreSQL answers it, and the record the API returns.
import type { FileRecord } from '../../schemas/files.ts';

/** Columns of FileRow, in SQL. */
export const FILE_COLUMNS = 'path, folder, name, size, content_type, sha256, blob_key, created_time';

export interface FileRow {
  path: string;
  folder: string;
  name: string;
  size: number;
  content_type: string;
  sha256: string;
  blob_key: string;
  created_time: number;
}

export function fileRecordOf(row: FileRow): FileRecord {
  return { path: row.path, folder: row.folder, name: row.name, size: row.size, contentType: row.content_type, sha256: row.sha256, createdTime: row.created_time };
}
