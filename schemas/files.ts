// Files: the file record PUT /files answers and GET /files lists, and the delete
// body. Paths are checked by engine/files/file-path.ts (segments, bytes, characters); the
// schemas cap what JSON can carry before that check runs.
import { Type, type Static } from '@sinclair/typebox';
import { CAPS, EpochMs, Items } from './common.ts';

/** Mirrors engine/limits.ts FILE_PATH_BYTES_MAX (a path is at most this many UTF-8 bytes, so at most this many characters). */
const FILE_PATH_CHARS_MAX = 1_024;

export const FilePath = Type.String({
  minLength: 1, maxLength: FILE_PATH_CHARS_MAX,
  description: '`/`-separated folders and a name: no empty segment, no `.` or `..`, no control characters; a segment at most 255 UTF-8 bytes, the path at most 1,024',
});

export const FileRecord = Type.Object({
  path: Type.String({ description: 'folder and name joined by `/`' }),
  folder: Type.String({ description: 'the folders, `/`-separated; empty for a file at the top' }),
  name: Type.String(),
  size: Type.Integer({ minimum: 0, description: 'bytes' }),
  contentType: Type.String({ description: 'as uploaded; application/octet-stream when none was sent' }),
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the bytes, lower-case hex; the download ETag' }),
  createdTime: EpochMs,
}, { additionalProperties: false });
export type FileRecord = Static<typeof FileRecord>;

export const FilePage = Type.Object({
  items: Type.Array(FileRecord),
  nextCursor: Type.Optional(Type.String({ description: 'send back as `cursor` for the next page' })),
}, { additionalProperties: false });

export const FileDeleteRequest = Items(Type.Object({ path: FilePath }, { additionalProperties: false }), CAPS.itemsPerRequestMax);
export type FileDeleteRequest = Static<typeof FileDeleteRequest>;

/** PUT /files. `path` is required, checked by the file path rules after the feature check (a file-less tenant gets 403 whatever the query). */
export const FileUploadQuery = Type.Object({
  path: Type.Optional(Type.String({ description: 'required: `<folder>/<name>`, percent-encoded (`+` means a space in a query string: send `%2B`)' })),
});

/** GET /files. */
export const FileListQuery = Type.Object({
  folder: Type.Optional(Type.String({ description: 'the folder; absent or empty: the top' })),
  recursive: Type.Boolean({ default: false, description: '`true`: every file below the folder, ordered by path; default `false`: the folder\'s own files, ordered by name' }),
  limit: Type.Integer({
    minimum: 1, maximum: CAPS.fileListLimitMax, default: CAPS.fileListLimitDefault,
    description: `files per page, default ${CAPS.fileListLimitDefault}, at most ${CAPS.fileListLimitMax}`,
  }),
  cursor: Type.Optional(Type.String({ description: 'nextCursor of the previous page, with the same folder and recursive' })),
});
